"""Trickles request bodies into a wallet-orders service from many addresses and reports, as JSON,
what a fresh client saw meanwhile.

  python3 trickled_bodies.py PORT ADDRESSES PER_ADDRESS SECONDS PATH [AUTHORIZATION]

From each of ADDRESSES loopback addresses (127.0.10.1, 127.0.10.2, …) it opens PER_ADDRESS
connections, each sending the head of `POST PATH` with a 4,096-byte body announced
(with `Authorization: AUTHORIZATION` when given: a device registering for an order with the
order's token),
then one byte of the body every 2 s: always within the service's 30 s between-bytes deadline, so
only a deadline on the whole body closes them. A connection the service closes is opened again at
once, for SECONDS in all; nothing outlives the run. Meanwhile, on a thread of its own (the flood
never pauses for it), it asks `GET /health` every 0.25 s, each time from an address it hasn't
used (127.0.20.x, 127.0.21.x, …), and times every answer.

The report: how many trickling connections were opened and closed by the service, how long the
longest of those lived, how old the oldest still open at the end was; how many /health probes were sent, answered 200,
failed (with the first failure), and the slowest answer.
"""
import json
import resource
import select
import socket
import sys
import threading
import time

BODY_LENGTH = 4096
TRICKLE_INTERVAL = 2.0
PROBE_INTERVAL = 0.25
PROBE_TIMEOUT = 10.0


def head(path, authorization):
    lines = [f"POST {path} HTTP/1.1", "Host: localhost", "Content-Type: application/json", f"Content-Length: {BODY_LENGTH}"]
    if authorization:
        lines.append(f"Authorization: {authorization}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


class Trickler:
    def __init__(self, port, address, request):
        self.port, self.address, self.request = port, address, request
        self.socket = None

    def open(self, now):
        connection = socket.socket()
        connection.setblocking(False)
        connection.bind((self.address, 0))
        try:
            connection.connect(("127.0.0.1", self.port))
        except BlockingIOError:
            pass
        self.socket, self.opened, self.next_byte, self.pending = connection, now, now, self.request
        return connection

    def send(self, now):
        """Sends what is due; False once the service has closed the connection."""
        try:
            if self.pending:
                sent = self.socket.send(self.pending)
                self.pending = self.pending[sent:]
            elif now >= self.next_byte:
                self.socket.send(b" ")
                self.next_byte = now + TRICKLE_INTERVAL
            return True
        except (BlockingIOError, InterruptedError):
            return True
        except OSError:
            return False


def probe(port, address):
    """(seconds, status line or error) of GET /health from `address`."""
    started = time.monotonic()
    try:
        connection = socket.socket()
        connection.settimeout(PROBE_TIMEOUT)
        connection.bind((address, 0))
        connection.connect(("127.0.0.1", port))
        connection.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        answer = b""
        while b"\r\n" not in answer:
            data = connection.recv(4096)
            if not data:
                break
            answer += data
        connection.close()
        line = answer.split(b"\r\n", 1)[0].decode(errors="replace")
        return time.monotonic() - started, line or "closed without an answer"
    except OSError as error:
        return time.monotonic() - started, f"{type(error).__name__}: {error}"


def main():
    port, addresses, per_address, seconds, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
    authorization = sys.argv[6] if len(sys.argv) > 6 else None
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    request = head(path, authorization)
    start = time.monotonic()
    tricklers = [Trickler(port, f"127.0.10.{a + 1}", request) for a in range(addresses) for _ in range(per_address)]
    opened = closed = 0
    longest = 0.0
    for trickler in tricklers:
        trickler.open(start)
        opened += 1

    # The probes run on a thread of their own, so the flood never pauses while one waits.
    results = {"probes": 0, "answered": 0, "failures": [], "slowest": 0.0}

    def prober():
        while time.monotonic() - start < seconds:
            count = results["probes"]
            address = f"127.0.{20 + count // 250}.{count % 250 + 1}"
            asked = time.monotonic() - start
            took, line = probe(port, address)
            results["probes"] += 1
            results["slowest"] = max(results["slowest"], took)
            if line.startswith("HTTP/1.1 200 "):
                results["answered"] += 1
            else:
                results["failures"].append(f"{address} at {asked:.1f} s: {line} ({took:.1f} s)")
            time.sleep(PROBE_INTERVAL)

    probing = threading.Thread(target=prober)
    probing.start()
    while True:
        now = time.monotonic()
        if now - start >= seconds:
            break
        # Writes, and what the service closed (a read of EOF or an error).
        poller = select.poll()
        by_descriptor = {}
        for trickler in tricklers:
            poller.register(trickler.socket, select.POLLIN | select.POLLHUP | select.POLLERR)
            by_descriptor[trickler.socket.fileno()] = trickler
        for descriptor, _ in poller.poll(50):
            trickler = by_descriptor[descriptor]
            try:
                data = trickler.socket.recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b""
            if not data or not trickler.send(time.monotonic()):
                longest = max(longest, time.monotonic() - trickler.opened)
                trickler.socket.close()
                closed += 1
                trickler.open(time.monotonic())
                opened += 1
        now = time.monotonic()
        for trickler in tricklers:
            if not trickler.send(now):
                longest = max(longest, now - trickler.opened)
                trickler.socket.close()
                closed += 1
                trickler.open(now)
                opened += 1

    end = time.monotonic()
    oldest_open = max(end - trickler.opened for trickler in tricklers)
    for trickler in tricklers:
        trickler.socket.close()
    probing.join()
    print(json.dumps({
        "opened": opened, "closedByService": closed, "longestLived": round(longest, 2), "oldestOpenAtEnd": round(oldest_open, 2),
        "probes": results["probes"], "answered": results["answered"], "failures": results["failures"][:5],
        "failureCount": len(results["failures"]), "slowestAnswer": round(results["slowest"], 2), "elapsed": round(end - start, 2),
    }))


if __name__ == "__main__":
    main()
