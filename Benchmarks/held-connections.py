#!/usr/bin/env python3
"""What `/health` answers while connections are held half-open, next to none held.

  python3 Benchmarks/held-connections.py            # build in release, then measure
  SKIP_BUILD=1 DURATION=5 HELD=2000 python3 Benchmarks/held-connections.py
  SKIP_BUILD=1 BIN=/path/to/wallet-orders python3 Benchmarks/held-connections.py   # another build

One `wallet-orders serve` (pinned to core 0) on a throwaway store. wrk (core 1, 64 connections,
DURATION seconds) asks GET /health from 127.0.0.1: first with no other connection, then while this
script holds HELD connections from 127.0.0.2, each having sent half a request head. The service
runs with the per-address cap raised above HELD and a 60 s header deadline, so that all of them
are really held for the whole measurement (the worst case for the service: with the default cap
of 64 per address, all but 64 would be closed at once). Prints requests/s, p50 and p99, and the
server's RSS in each case. Loopback only; everything it opens it closes, and it stops within
about 2 x DURATION + 30 seconds.
"""
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BIN = os.environ.get("BIN", os.path.join(ROOT, ".build-release", "release", "wallet-orders"))
DURATION = int(os.environ.get("DURATION", "5"))
HELD = int(os.environ.get("HELD", "2000"))
HALF_HEAD = b"GET /health HTTP/1.1\r\nHost: localhost\r\nX-Wait: "


def wrk(port):
    out = subprocess.run(
        ["taskset", "-c", "1", "wrk", "-t1", "-c64", f"-d{DURATION}s", "--latency", f"http://127.0.0.1:{port}/health"],
        check=True, capture_output=True, text=True, timeout=DURATION + 30).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))

    def percentile(p):
        value, unit = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", out).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]

    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: (.*)", out)
    return {
        "rate": rate, "p50": percentile(50), "p99": percentile(99), "errors": int(errors.group(1)) if errors else 0,
        "socket_errors": socket_errors.group(1) if socket_errors else "none",
    }


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        return int(re.search(r"VmRSS:\s+(\d+)", status.read()).group(1)) / 1024


def hold(port, count):
    """Opens `count` connections from 127.0.0.2, each sending half a request head."""
    held = []
    deadline = time.time() + 30
    while len(held) < count and time.time() < deadline:
        connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        connection.bind(("127.0.0.2", 0))
        connection.connect(("127.0.0.1", port))
        connection.sendall(HALF_HEAD)
        held.append(connection)
    return held


def still_open(held):
    """How many of `held` the server hasn't closed."""
    open_count = 0
    for connection in held:
        connection.setblocking(False)
        try:
            open_count += 0 if connection.recv(1) == b"" else 1
        except BlockingIOError:
            open_count += 1
        except OSError:
            pass
    return open_count


def main():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < HELD + 100:
        raise SystemExit(f"holding {HELD} connections needs an open-file limit above {HELD + 100}; the hard limit is {hard}")
    if not os.environ.get("SKIP_BUILD"):
        subprocess.run(["make", "--no-print-directory", "release"], cwd=ROOT, check=True)
    folder = tempfile.mkdtemp(prefix="held-connections")
    server = subprocess.Popen(
        ["taskset", "-c", "0", BIN, "serve", "--store", os.path.join(folder, "orders.sqlite"), "--listen", "127.0.0.1:0",
         "--log-level", "warning", "--header-timeout", "60", "--max-connections-per-address", str(HELD + 100)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    held = []
    try:
        port = None
        for line in server.stdout:
            match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
            if match:
                port = int(match.group(1))
                break
        if port is None:
            raise SystemExit("wallet-orders serve did not start")
        wrk(port)  # warm-up
        none = wrk(port)
        none_rss = rss_mb(server.pid)
        start = time.time()
        held = hold(port, HELD)
        opened_in = time.time() - start
        with_held = wrk(port)
        held_rss = rss_mb(server.pid)
        open_after = still_open(held)
        print(f"wallet-orders serve, GET /health, wrk 64 connections {DURATION} s, server on core 0, wrk on core 1")
        print(f"{'':32} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'non-2xx':>8}  {'RSS MB':>7}  socket errors")
        for name, figures, rss in (("none held", none, none_rss), (f"{len(held)} half-open held", with_held, held_rss)):
            print(f"{name:32} {figures['rate']:9.0f} {figures['p50']:8.2f} {figures['p99']:8.2f} {figures['errors']:8}  {rss:7.1f}  {figures['socket_errors']}")
        print(f"({len(held)} connections opened in {opened_in:.2f} s; {open_after} still held open after the measurement)")
    finally:
        for connection in held:
            connection.close()
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
