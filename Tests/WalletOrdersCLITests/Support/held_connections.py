"""Holds connections half-open against a wallet-orders service and reports what it saw, as JSON.

  python3 held_connections.py PORT COUNT

Opens COUNT connections to 127.0.0.1:PORT, each sending half a request head and then nothing;
asks GET /health from 127.0.0.2 while they are held; then waits for the service to close them.
Runs in its own process, so the test process never holds thousands of descriptors.
"""
import json
import resource
import select
import socket
import sys
import time

HALF_HEAD = b"GET /health HTTP/1.1\r\nHost: localhost\r\nX-Wait: "


def still_open(sockets, seconds):
    """The sockets of `sockets` the server hasn't closed (EOF or reset) within `seconds`."""
    poller = select.poll()
    by_descriptor = {}
    for held in sockets:
        poller.register(held, select.POLLIN | select.POLLHUP | select.POLLERR)
        by_descriptor[held.fileno()] = held
    deadline = time.monotonic() + seconds
    while by_descriptor:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        for descriptor, _ in poller.poll(left * 1000):
            try:
                data = by_descriptor[descriptor].recv(65536)
            except OSError:
                data = b""
            if not data:
                poller.unregister(descriptor)
                del by_descriptor[descriptor]
    return list(by_descriptor.values())


def main():
    port, count = int(sys.argv[1]), int(sys.argv[2])
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    start = time.monotonic()
    held = []
    for _ in range(count):
        connection = socket.create_connection(("127.0.0.1", port), timeout=10)
        connection.sendall(HALF_HEAD)
        held.append(connection)
    opened = time.monotonic() - start

    asked = time.monotonic()
    health = socket.socket()
    health.settimeout(30)
    health.bind(("127.0.0.2", 0))
    health.connect(("127.0.0.1", port))
    health.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    answer = b""
    while True:
        part = health.recv(65536)
        if not part:
            break
        answer += part
    health.close()
    answered_in = time.monotonic() - asked

    # Any closed within a moment of the answer, while the header deadline hasn't passed?
    checked_early = time.monotonic() - start
    open_after_answer = still_open(held, 0.1)
    open_at_end = still_open(open_after_answer, 30)
    closed_early, closed = count - len(open_after_answer), count - len(open_at_end)
    print(json.dumps({
        "opened": opened, "answeredIn": answered_in, "statusLine": answer.split(b"\r\n", 1)[0].decode("latin-1"),
        "checkedEarlyAt": checked_early, "closedEarly": closed_early, "closed": closed,
        "elapsed": time.monotonic() - start,
    }))
    for connection in held:
        connection.close()


main()
