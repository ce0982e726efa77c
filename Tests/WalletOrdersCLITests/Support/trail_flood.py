"""Floods a wallet-orders service with requests that speak for no one, and reports, as JSON, the
statuses it got.

  python3 trail_flood.py PORT TYPE ORDER_PATH LISTS FETCHES

LISTS changed-orders requests (`GET /v1/devices/made-up-N/registrations/TYPE`), each for a device
that never registered, then FETCHES order fetches (`GET /v1/orders/ORDER_PATH`) with a wrong
token each, over four keep-alive connections from four loopback addresses. It stops by itself
once every request has been answered (or its connection refused).
"""
import http.client
import json
import socket
import sys
import threading

port, order_type, order_path, lists, fetches = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
requests = [(f"/v1/devices/made-up-{index}/registrations/{order_type}", {}) for index in range(lists)]
requests += [(f"/v1/orders/{order_path}", {"Authorization": f"AppleOrder wrong-token-{index}-0123456789"}) for index in range(fetches)]
statuses = {}
lock = threading.Lock()


def connect(address):
    connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=30, source_address=(address, 0))
    return connection


def flood(address, share):
    connection = connect(address)
    for path, headers in share:
        try:
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            response.read()
            status = str(response.status)
            if response.getheader("Connection", "").lower() == "close":
                connection.close()
                connection = connect(address)
        except (OSError, http.client.HTTPException) as error:
            status = type(error).__name__
            connection.close()
            connection = connect(address)
        with lock:
            statuses[status] = statuses.get(status, 0) + 1
    connection.close()


threads = [threading.Thread(target=flood, args=(f"127.0.30.{index + 1}", requests[index::4])) for index in range(4)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(json.dumps({"sent": len(requests), "statuses": statuses}))
