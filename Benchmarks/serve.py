#!/usr/bin/env python3
"""The web service's figures (`make bench-serve`), each next to a reference from the same run.

  python3 Benchmarks/serve.py                 # build in release, then every figure
  SKIP_BUILD=1 DURATION=5 python3 Benchmarks/serve.py
  python3 Benchmarks/serve.py --store postgres   # the cached GETs on PostgreSQL, one and two instances

On this 2-core machine the server runs pinned to core 0 and wrk to core 1 (client and server
on the same machine, over loopback). `serve` and the references run their async code where
`--executor` says (default event-loops, as `serve` does; pool: Swift's default executor). Every
line has a floor from the same run: the same request's store calls or library work in a bare
Hummingbird route (serve-reference), or the push client alone (push-reference).

- wrk, 64 connections, DURATION seconds each: the bare "hello" route (the framework's ceiling
  here; also on Swift's default executor, for comparison), and the floors of Wallet's requests:
  the store's lookup of its GET, the lookup and the archive, the changed-orders query and its
  JSON. Then `serve`: /health, GET of the order answered 304 (If-None-Match) and 200 (the ~10 kB
  archive), and the changed-orders list (20 orders); requests/s, p50 and p99, each against the
  bare route and against its floor.
- Side by side, the same GETs again: each pair of lines (a line of `serve` and the bare route,
  or its floor; a floor and the bare route) loaded at the same time, two processes sharing core
  0. The scheduler gives each the same share of the core, so the ratio of their rates is the
  inverse ratio of their CPU time a request, and the host's drift, which moves both alike, drops
  out of it (two processes of the bare route come out at 0.97–1.00 ×).
- Merchant uploads: signed-archive saves/s and build-and-sign saves/s (32 connections, each a
  new version), next to `openssl speed rsa2048` signs/s and to two floors each: the bare route
  validating the same bodies, or validating, building and signing them, without a store; and the
  same with the durable save (the library's intake with a SQLite store of the reference's own).
- Pushes: through a local APNs stand-in (apns-stand-in), pushes/s from one save to 1,000
  devices, the time from save to push, how busy each side's core was, and the floor: the
  service's APNs client sending as many pushes to the same stand-in with nothing else.

With `--store postgres` (`make bench-serve-pg`): the cached GETs (304 and 200) on a throwaway
PostgreSQL cluster with default durability (pgcluster.py), with one `serve` instance and with two
(two processes on two ports, one database), next to the bare route and to one instance on SQLite,
all from the same run. The instances are pinned to core 0 and wrk to core 1, as in the SQLite
figures; PostgreSQL first runs on core 0 too (everything that serves on one core, as with SQLite),
then on core 1 beside wrk (closer to a database on a host of its own, but then the serving side
has more than one core). On 2 cores the second instance cannot get a core of its own without taking
wrk's, so what the two-instance lines show is the cost of splitting the work over two processes on
one database, not scaling. For two instances one wrk runs two threads (32 connections each), each
thread's connections to one instance (a Lua setup() gives each thread its address), so req/s and
the latency percentiles cover both instances in one histogram.

TEST-ONLY certificates are made in a temporary folder and removed with it.
"""
import argparse
import base64
import http.client
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import pgcluster  # noqa: E402
DURATION = int(os.environ.get("SECONDS_EACH", os.environ.get("DURATION", "12")))
KEY = "bench-merchant-key-0123456789abcdef"
UPLOADS = int(os.environ.get("UPLOADS", "20000"))  # bodies for each upload figure; more than a run sends
UPLOAD_SECONDS = 4
TYPE = "order.com.northwindoutfitters.shop"
TOKEN = "q7Jc2VxM9pLr4TzW8bKd3NfY6hGs1AeU"
RELEASE_BIN = os.path.join(ROOT, ".build-release", "release")
BIN = os.path.join(RELEASE_BIN, "wallet-orders")
EXECUTOR = "event-loops"  # serve --executor, and the references' (--executor)
REFERENCE = os.path.join(RELEASE_BIN, "serve-reference")


def run(command, **kwargs):
    return subprocess.run(command, check=True, capture_output=True, text=True, **kwargs)


def build(products=("wallet-orders", "serve-reference", "apns-stand-in", "push-reference")):
    # The release build (`make release`): the one `make install` and the other benchmarks use.
    subprocess.run(["make", "--no-print-directory", "release", "RELEASE_PRODUCTS=" + " ".join(products)], cwd=ROOT, check=True)


def start(command, pattern, env=None):
    """Starts a server pinned to core 0; returns (process, port) once it prints its port."""
    process = subprocess.Popen(["taskset", "-c", "0"] + command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    deadline = time.time() + 60
    for line in process.stdout:
        match = re.search(pattern, line)
        if match:
            return process, int(match.group(1))
        if time.time() > deadline:
            break
    process.kill()
    raise SystemExit(f"{command[0]} did not start")


def stop(process):
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()


# For two instances: each wrk thread's connections go to one of the ports, in turn.
SPREAD_LUA = """
local ports = {%s}
local next_port = 0
function setup(thread)
  next_port = next_port %% #ports + 1
  thread.addr = wrk.lookup("127.0.0.1", tostring(ports[next_port]))[1]
end
"""


def wrk(url, headers=(), ports=None, seconds=None):
    """wrk on core 1, 64 connections, DURATION seconds (or `seconds`): one thread, or with `ports`
    one thread per port (the URL's port is replaced by each thread's)."""
    threads = len(ports) if ports else 1
    command = ["taskset", "-c", "1", "wrk", f"-t{threads}", "-c64", f"-d{seconds or DURATION}s", "--latency"]
    for header in headers:
        command += ["-H", header]
    script = None
    if ports:
        script = tempfile.NamedTemporaryFile("w", suffix=".lua")
        script.write(SPREAD_LUA % ", ".join(str(p) for p in ports))
        script.flush()
        command += ["-s", script.name]
    try:
        out = run(command + [url]).stdout
    finally:
        if script:
            script.close()
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))

    def percentile(p):
        value, unit = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", out).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]

    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    # Connections the server closed or refused (a per-address cap, say) make wrk reconnect, which
    # costs both sides: they count as errors, so that a figure that carries them shows it.
    sockets = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    failures = (int(errors.group(1)) if errors else 0) + (sum(int(n) for n in sockets.groups()) if sockets else 0)
    return {"rate": rate, "p50": percentile(50), "p99": percentile(99), "errors": failures}


def warm_up(url):
    """Two seconds of wrk, not counted: a process's first requests fault in its pages and grow
    its allocator's pools, which would otherwise fall on the first line measured."""
    run(["taskset", "-c", "1", "wrk", "-t1", "-c64", "-d2s", url])


def openssl_sign_rate():
    out = run(["taskset", "-c", "0", "openssl", "speed", "-seconds", "3", "rsa2048"]).stdout
    match = re.search(r"rsa\s+2048 bits\s+[\d.]+s\s+[\d.]+s\s+([\d.]+)", out)
    return float(match.group(1))


def call(port, method, path, body=None, headers=None):
    """One request on a connection of its own, closed after it: the server caps connections per
    client address (64 by default, as many as wrk opens), so the set-up must leave none open."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.getheader("ETag"), response.read()
    finally:
        connection.close()


def post(port, path, body, content_type):
    status, _, data = call(port, "POST", path, body, {"Authorization": f"Bearer {KEY}", "Content-Type": content_type})
    return status, data


UPLOAD_CONNECTIONS = 32
MERCHANT_ROUNDS = 2  # each round of the service posts UPLOADS / MERCHANT_ROUNDS new orders


def timed_posts(port, path, bodies, content_type, work, expected='"added"'):
    """wrk on core 1 for UPLOAD_SECONDS posting each body once (post-each.lua), UPLOAD_CONNECTIONS
    at a time; every answer must be 200 with `expected` in it (`added`). Returns saves/s, p50 and p99."""
    listing = os.path.join(work, f"bodies-{len(os.listdir(work))}.txt")
    folder = listing + ".d"
    os.makedirs(folder)
    with open(listing, "w") as out:
        for index, body in enumerate(bodies):
            name = os.path.join(folder, str(index))
            with open(name, "wb") as file:
                file.write(body)
            out.write(name + "\n")
    command = ["taskset", "-c", "1", "wrk", "-t1", f"-c{UPLOAD_CONNECTIONS}", f"-d{UPLOAD_SECONDS}s", "--latency", "-s",
               os.path.join(HERE, "post-each.lua"), f"http://127.0.0.1:{port}{path}", "--", listing, content_type, KEY, expected]
    out = run(command).stdout
    posted, failed = map(int, re.search(r"posted (\d+) failed (\d+)", out).groups())
    if failed:
        raise SystemExit(f"{path}: {failed} of {posted} saves failed (with {len(bodies)} bodies; more than "
                         f"{len(bodies) - 1} answers in {UPLOAD_SECONDS} s needs a larger UPLOADS)\n{out}")
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))

    def percentile(p):
        value, unit = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", out).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]

    return {"rate": rate, "p50": percentile(50), "p99": percentile(99)}


PUSH_DEVICES = int(os.environ.get("PUSH_DEVICES", "1000"))


def cpu_seconds(pid):
    """The CPU time (user and system, every thread) process `pid` has used so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pushes(work, store, root, signing, template, order):
    """Pushes/s to apns-stand-in for one save with PUSH_DEVICES registered devices (first push to
    last), and the time from the save's answer to the first push."""
    for arguments in (
        ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", f"{work}/apns-key.pem", "-out", f"{work}/apns-cert.pem"],
        ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", f"{work}/token.p8"],
        ["pkey", "-in", f"{work}/token.p8", "-pubout", "-out", f"{work}/token.pub"],
    ):
        run(["openssl"] + arguments)
    stand_in = subprocess.Popen(
        ["taskset", "-c", "1", os.path.join(RELEASE_BIN, "apns-stand-in"), "--cert", f"{work}/apns-cert.pem",
         "--key", f"{work}/apns-key.pem", "--listen", "127.0.0.1:0", "--jwt-key", f"{work}/token.pub", "--key-id", "BENCHKEY01",
         "--team-id", "BENCH00001"], stdout=subprocess.PIPE, text=True)
    apns_port = json.loads(stand_in.stdout.readline())["port"]
    server, port = start(
        [BIN, "serve", "--store", store, "--listen", "127.0.0.1:0", "--trust-root", root, "--api-key-file", os.path.join(work, "keys.txt"),
         "--log-level", "warning", "--executor", EXECUTOR, "--apns", f"127.0.0.1:{apns_port}", "--apns-ca", f"{work}/apns-cert.pem", "--apns-token-key",
         f"{work}/token.p8", "--apns-key-id", "BENCHKEY01", "--apns-team-id", "BENCH00001", "--push-poll", "0.05",
         "--registrations-per-minute", "0", "--max-registrations-per-order", str(PUSH_DEVICES + 1000)],  # the devices come from one address
        r"listening on http://127\.0\.0\.1:(\d+)")
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port)
        for index in range(PUSH_DEVICES):
            connection.request("POST", f"/v1/devices/push-{index}/registrations/{TYPE}/bench-0",
                               body=json.dumps({"pushToken": f"{index:064x}"}), headers={"Authorization": f"AppleOrder {TOKEN}"})
            response = connection.getresponse()
            response.read()
            assert response.status == 201, response.status
        connection.close()
        order["orderIdentifier"] = "bench-0"
        order["updatedAt"] = "2026-01-01T00:00:00Z"
        source = os.path.join(work, "push.jsonl")
        with open(source, "w") as out:
            out.write(json.dumps(order) + "\n")
        run([BIN, "build", "--batch", source, "--template", template, "--out", os.path.join(work, "push"), "--quiet"] + signing)
        body = open(os.path.join(work, "push", os.listdir(os.path.join(work, "push"))[0]), "rb").read()
        status, answer = post(port, "/merchant/v1/orders", body, "application/vnd.apple.finance.order")
        saved = time.time()
        assert status == 200 and b'"added"' in answer, answer
        first = last = None
        count = 0
        for line in stand_in.stdout:
            event = json.loads(line)
            if event.get("event") == "push" and event.get("status") == 200:
                count += 1
                last = time.time()
                if first is None:
                    first = last
                    cpu_at_first = (cpu_seconds(server.pid), cpu_seconds(stand_in.pid))
                if count == PUSH_DEVICES:
                    break
        cpu_at_last = (cpu_seconds(server.pid), cpu_seconds(stand_in.pid))
        # The rate from the first push to the last: the fan-out itself. The time to the first
        # push (the worker waking, its first claim, and the APNs connection's TLS handshake on
        # a cold start) is reported on its own.
        # How busy each side's core was during the fan-out: a side near 100 % is what bounds it.
        busy = tuple((after - before) / (last - first) for before, after in zip(cpu_at_first, cpu_at_last))
        stop(server)
        # The stand-in writes a line per push: keep reading them, or its pipe fills and it stalls.
        threading.Thread(target=lambda: [None for _ in stand_in.stdout], daemon=True).start()
        # The floor: the same client and stand-in with no store, outbox or worker, on the same
        # cores, as many pushes in flight as the worker keeps (batch size × concurrent batches).
        # Its CPU time per push too (the children's rusage: push-reference is the only child that
        # ends in between): what one core can send with this client.
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        floor_pushes = PUSH_DEVICES * 5
        floor = json.loads(run(["taskset", "-c", "0", os.path.join(RELEASE_BIN, "push-reference"),
                                f"127.0.0.1:{apns_port}", f"{work}/apns-cert.pem", f"{work}/token.p8", "BENCHKEY01", "BENCH00001",
                                TYPE, str(floor_pushes), "64"]).stdout)["rate"]
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        floor_cpu = (after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime) / floor_pushes
        return ((PUSH_DEVICES - 1) / (last - first), first - saved, busy, (floor, floor_cpu),
                stand_in_ceiling(work, apns_port, stand_in.pid))
    finally:
        stop(server)
        stand_in.kill()


def provider_token(work):
    """An ES256 provider token (JWT) for the stand-in, signed by the openssl command line with
    token.p8 (kid BENCHKEY01, team BENCH00001): header.claims.signature, base64url."""
    def b64(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    signed = b64(b'{"alg":"ES256","kid":"BENCHKEY01"}') + "." + b64(json.dumps({"iss": "BENCH00001", "iat": int(time.time())}).encode())
    der = subprocess.run(["openssl", "dgst", "-sha256", "-sign", f"{work}/token.p8"], input=signed.encode(), check=True,
                         capture_output=True).stdout
    # ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER } (P-256: each at most 33 bytes, short
    # lengths); JWS wants r and s as 32 bytes each.
    integers, index = [], 2
    for _ in range(2):
        assert der[index] == 0x02
        length = der[index + 1]
        integers.append(der[index + 2:index + 2 + length].lstrip(b"\0").rjust(32, b"\0"))
        index += 2 + length
    return signed + "." + b64(b"".join(integers))


def stand_in_ceiling(work, apns_port, stand_in_pid):
    """What the stand-in takes from an HTTP/2 client that isn't ours: h2load (nghttp2, in C) on
    core 0, one TLS connection with 64 streams in flight (the service's pushes in flight), the
    same headers and body as a push. Returns (pushes/s, the stand-in's core busy), or None
    without h2load."""
    if shutil.which("h2load") is None:
        print("warning: h2load (Debian's nghttp2-client) is missing: no ceiling of the stand-in", file=sys.stderr)
        return None
    count = PUSH_DEVICES * 10
    with open(f"{work}/push-body.json", "w") as body:
        body.write("{}")
    before = cpu_seconds(stand_in_pid)
    out = run(["taskset", "-c", "0", "h2load", "-n", str(count), "-c", "1", "-m", "64", "-d", f"{work}/push-body.json",
               "-H", f"apns-topic: {TYPE}", "-H", "apns-push-type: background", "-H", "apns-priority: 5",
               "-H", "content-type: application/json", "-H", f"authorization: bearer {provider_token(work)}",
               f"https://127.0.0.1:{apns_port}/3/device/{'0' * 63}1"]).stdout
    # "finished in 1.23s" or, under a second, "finished in 812.34ms".
    value, unit = re.search(r"finished in ([\d.]+)(us|ms|s)", out).groups()
    seconds = float(value) * {"us": 1e-6, "ms": 1e-3, "s": 1}[unit]
    succeeded = int(re.search(r"(\d+) 2xx", out).group(1))
    if succeeded != count:
        raise SystemExit(f"h2load: {count - succeeded} of {count} pushes were refused by the stand-in\n{out}")
    return count / seconds, (cpu_seconds(stand_in_pid) - before) / seconds


def prepare(work):
    """TEST-ONLY certificates, 20 orders built and saved in a SQLite store, the API key file."""
    certs = os.path.join(work, "signing", TYPE)
    run([BIN, "dev-certs", "--order-type-id", TYPE, "--team-id", "BENCH00001", "--out", certs])
    root = os.path.join(certs, "root-ca.pem")
    store = os.path.join(work, "orders.sqlite")
    order = json.load(open(os.path.join(ROOT, "Samples", "shipped-ecommerce", "order.json")))
    # 20 orders in the store, and order documents for the upload figures.
    sources = os.path.join(work, "orders.jsonl")
    with open(sources, "w") as out:
        for index in range(20):
            order["orderIdentifier"] = f"bench-{index}"
            out.write(json.dumps(order) + "\n")
    template = os.path.join(work, "template")
    shutil.copytree(os.path.join(ROOT, "Samples", "shipped-ecommerce"), template)
    os.remove(os.path.join(template, "order.json"))
    shutil.copytree(template, os.path.join(certs, "template"))  # for the orders the service builds itself
    signing = ["--cert", os.path.join(certs, "order-type.pem"), "--key", os.path.join(certs, "order-type.key.pem"),
               "--wwdr", os.path.join(certs, "wwdr-intermediate.pem")]
    run([BIN, "build", "--batch", sources, "--template", template, "--out", os.path.join(work, "built"), "--quiet"] + signing)
    built = sorted(os.path.join(work, "built", name) for name in os.listdir(os.path.join(work, "built")))
    run([BIN, "store", "save", "--store", store, "--trust-root", root] + built)
    with open(os.path.join(work, "keys.txt"), "w") as keys:
        keys.write(KEY + " *\n")  # the key, then its order types (* for every type)
    return certs, root, store, order, template, signing, built


def serve(work, store, root, env=None):
    """One `serve` instance on core 0; returns (process, port)."""
    return start(
        [BIN, "serve", "--store", store, "--listen", "127.0.0.1:0", "--trust-root", root, "--api-key-file",
         os.path.join(work, "keys.txt"), "--signing-dir", os.path.join(work, "signing"), "--log-level", "warning", "--executor", EXECUTOR],
        r"listening on http://127\.0\.0\.1:(\d+)", env=env)


def etag_of(port):
    status, etag, body = call(port, "GET", f"/v1/orders/{TYPE}/bench-0", headers={"Authorization": f"AppleOrder {TOKEN}"})
    assert status == 200, status
    return etag, len(body)


def cached_gets(ports, figures, label):
    """The 304 and 200 lines for the instances listening on `ports` (one wrk thread per instance when two)."""
    etag, size = etag_of(ports[0])
    url = f"http://127.0.0.1:{ports[0]}/v1/orders/{TYPE}/bench-0"
    spread = ports if len(ports) > 1 else None
    figures[f"{label}: GET order, 304 (If-None-Match)"] = wrk(url, [f"Authorization: AppleOrder {TOKEN}", f"If-None-Match: {etag}"], spread)
    figures[f"{label}: GET order, 200 ({size} B)"] = wrk(url, [f"Authorization: AppleOrder {TOKEN}"], spread)


# The bare route plus the store calls of one of Wallet's requests (serve-reference with a store):
# each request's floor on the machine, framework and store and nothing else.
LOOKUP_FLOOR = "bare route + the store's lookup (reference)"
ARCHIVE_FLOOR = "bare route + lookup + the archive (reference)"
LIST_FLOOR = "bare route + the changed-orders query, JSON (reference)"
# Which floor each line of the table is read against.
FLOORS = {"304": LOOKUP_FLOOR, "200": ARCHIVE_FLOOR, "changed orders": LIST_FLOOR}


POOL_304 = "serve --executor pool: GET order, 304 (for comparison)"
POOL_LOOKUP_FLOOR = "bare route + lookup on Swift's default executor (for comparison)"


def floor_of(name, figures):
    if name == POOL_304:
        return POOL_LOOKUP_FLOOR
    if "pool" in name or "default executor" in name:
        return None
    for key, floor in FLOORS.items():
        if key in name and floor in figures:
            return floor
    return None


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


ROUNDS = int(os.environ.get("ROUNDS", "3"))


def in_rounds(lines):
    """Measures `lines` (name, url, headers) ROUNDS times in turn, DURATION / ROUNDS seconds each
    (at least 2), and returns {name: [wrk result per round]}. On a shared host whose speed drifts
    over minutes, a ratio of two lines measured seconds apart in the same round holds where one of
    lines measured minutes apart doesn't; the table gives the median of each round's ratio."""
    seconds = max(2, round(DURATION / ROUNDS))
    samples = {name: [] for name, _, _ in lines}
    for _ in range(ROUNDS):
        for name, url, headers in lines:
            samples[name].append(wrk(url, headers, seconds=seconds))
    return samples


def together(first, second, seconds):
    """Two wrk runs at the same time on core 1, 64 connections each, one (url, headers) each: two
    server processes sharing core 0 under the same load. The kernel's scheduler gives each
    process the same share of the core, so the ratio of their rates is the inverse ratio of their
    CPU time a request, and the host's drift, which moves both alike, drops out of it."""
    processes = []
    for url, headers in (first, second):
        command = ["taskset", "-c", "1", "wrk", "-t1", "-c64", f"-d{seconds}s"]
        for header in headers:
            command += ["-H", header]
        processes.append(subprocess.Popen(command + [url], stdout=subprocess.PIPE, text=True))
    results = []
    for process in processes:
        out, _ = process.communicate()
        rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
        errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        results.append({"rate": rate, "errors": int(errors.group(1)) if errors else 0})
    return results


def side_by_side(pairs):
    """`pairs`: (name, line, against), each line a (url, headers) served by a process other than
    its `against`'s. Every pair measured ROUNDS times in turn, DURATION / ROUNDS seconds each (at
    least 2); returns the table of each pair's ratio of rates, the median over the rounds. (Not
    latencies: two processes taking turns on one core make each other's p99.)"""
    seconds = max(2, round(DURATION / ROUNDS))
    samples = {name: [] for name, _, _ in pairs}
    for _ in range(ROUNDS):
        for name, line, against in pairs:
            samples[name].append(together(line, against, seconds))
    table = [f"\nSide by side: each pair of lines at once, two processes sharing core 0, wrk -c64 each on core 1; "
             f"{ROUNDS} round(s) of {seconds} s, medians over the rounds\n",
             "| pair | rate ratio (rounds) | errors (non-2xx/3xx) |", "|---|---|---|"]
    for name, rounds in samples.items():
        ratios = [a["rate"] / b["rate"] for a, b in rounds]
        table.append(f"| {name} | {median(ratios):.2f} × ({', '.join(f'{r:.2f}' for r in ratios)}) "
                     f"| {sum(a['errors'] + b['errors'] for a, b in rounds)} |")
    return "\n".join(table)


def print_table(figures, ceiling_name, note):
    """`figures`: {name: [wrk result per round]} (one result when not measured in rounds). Each
    ratio is the median over the rounds of the ratio within a round."""
    rounds = len(figures[ceiling_name])
    print(f"\nwallet-orders serve on loopback, wrk -c64 on core 1, {note}; {rounds} round(s) of every line, "
          "each ratio the median of the rounds' ratios\n")
    print("| request | req/s (median) | vs bare route | vs its floor (the reference line of the same request) | p50 | p99 "
          "| p99 vs bare route's | errors (non-2xx/3xx, socket) |")
    print("|---|---|---|---|---|---|---|---|")
    bare = figures[ceiling_name]

    def ratio(line, other, key):
        return median([a[key] / b[key] for a, b in zip(line, other)])

    for name, line in figures.items():
        floor = floor_of(name, figures)
        against_floor = f"{ratio(line, figures[floor], 'rate'):.2f} ×" if floor else "–"
        print(f"| {name} | {median([r['rate'] for r in line]):,.0f} | {ratio(line, bare, 'rate'):.2f} × | {against_floor} "
              f"| {median([r['p50'] for r in line]):.2f} ms | {median([r['p99'] for r in line]):.2f} ms | {ratio(line, bare, 'p99'):.2f} × "
              f"| {sum(r['errors'] for r in line)} |")


def main_postgres():
    """Cached GETs: the bare route, one instance on SQLite, one and two instances on PostgreSQL."""
    if not os.environ.get("SKIP_BUILD"):
        build(("wallet-orders", "serve-reference"))
    cluster = pgcluster.start(cpu=0)
    if cluster is None:
        raise SystemExit("serve.py --store postgres: PostgreSQL's server binaries are missing (see the warning above)")
    work = tempfile.mkdtemp(prefix="wallet-orders-serve-bench.")
    try:
        certs, root, sqlite_store, order, template, signing, built = prepare(work)
        database = cluster.create_database("serve_bench")
        pg_store = cluster.url(database, password=False)  # --store refuses a password; PGPASSWORD carries it
        env = dict(os.environ, PGPASSWORD=cluster.password)
        run([BIN, "store", "save", "--store", pg_store, "--trust-root", root] + built, env=env)

        figures = {}
        reference, port = start([REFERENCE, "0"], r"listening on 127\.0\.0\.1:(\d+)")
        figures["bare Hummingbird route (reference)"] = wrk(f"http://127.0.0.1:{port}/hello")
        stop(reference)

        server, port = serve(work, sqlite_store, root)
        cached_gets([port], figures, "SQLite, one instance")
        stop(server)

        # PostgreSQL on core 0 with the instances (everything that serves on one core, as SQLite
        # is), then on core 1 beside wrk (as a database on a host of its own would be, but
        # sharing wrk's core: the serving side then has more than one core).
        for cpu, where in ((0, "PostgreSQL on core 0"), (1, "PostgreSQL on core 1")):
            cluster.pin(cpu)
            server, port = serve(work, pg_store, root, env)
            cached_gets([port], figures, f"{where}, one instance")
            stop(server)

            servers = [serve(work, pg_store, root, env) for _ in range(2)]
            cached_gets([port for _, port in servers], figures, f"{where}, two instances")
            for server, _ in servers:
                stop(server)

        print_table({name: [figure] for name, figure in figures.items()}, "bare Hummingbird route (reference)",
                    "one thread per instance, the instances on core 0, PostgreSQL on core 0 then on core 1\n"
                    + cluster.describe().replace(", server pinned to core 1", ""))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        cluster.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite",
                        help="postgres: the cached GETs on PostgreSQL, one and two instances, next to SQLite")
    parser.add_argument("--executor", choices=("event-loops", "pool"), default="event-loops",
                        help="where async code runs, in `serve` and in the references alike (serve --executor; default event-loops)")
    options = parser.parse_args()
    global EXECUTOR
    EXECUTOR = options.executor
    os.environ["REFERENCE_EXECUTOR"] = EXECUTOR  # serve-reference and push-reference read it
    if options.store == "postgres":
        return main_postgres()
    if not os.environ.get("SKIP_BUILD"):
        build()
    work = tempfile.mkdtemp(prefix="wallet-orders-serve-bench.")
    try:
        certs, root, store, order, template, signing, built = prepare(work)

        server, port = serve(work, store, root)
        base = f"http://127.0.0.1:{port}"
        # A device registered for the 20 orders.
        for index in range(20):
            status, _, _ = call(port, "POST", f"/v1/devices/bench-device/registrations/{TYPE}/bench-{index}",
                                json.dumps({"pushToken": "ab" * 32}), {"Authorization": f"AppleOrder {TOKEN}"})
            assert status in (200, 201), status
        etag, size = etag_of(port)
        # The references beside it (all on core 0, one loaded at a time).
        reference, reference_port = start([REFERENCE, "0", store], r"listening on 127\.0\.0\.1:(\d+)")
        references = [reference]
        floors = f"http://127.0.0.1:{reference_port}"
        lines = [("bare Hummingbird route (reference)", f"{floors}/hello", []),
                 (LOOKUP_FLOOR, f"{floors}/lookup/{TYPE}/bench-0", [])]
        if EXECUTOR != "pool":
            # For comparison: the same two routes on Swift's default executor, as Hummingbird runs
            # out of the box (every ratio is against the routes on EXECUTOR).
            stock, stock_port = start([REFERENCE, "0", store], r"listening on 127\.0\.0\.1:(\d+)",
                                      env=dict(os.environ, REFERENCE_EXECUTOR="pool"))
            references.append(stock)
            lines += [("bare route on Swift's default executor (for comparison)", f"http://127.0.0.1:{stock_port}/hello", []),
                      (POOL_LOOKUP_FLOOR, f"http://127.0.0.1:{stock_port}/lookup/{TYPE}/bench-0", [])]
        if EXECUTOR != "pool":
            # And the service itself on Swift's default executor (serve --executor pool), on the same store.
            pooled, pooled_port = start(
                [BIN, "serve", "--store", store, "--listen", "127.0.0.1:0", "--trust-root", root, "--log-level", "warning",
                 "--executor", "pool"], r"listening on http://127\.0\.0\.1:(\d+)")
            references.append(pooled)
            pooled_base = f"http://127.0.0.1:{pooled_port}"
            lines += [(POOL_304, f"{pooled_base}/v1/orders/{TYPE}/bench-0", [f"Authorization: AppleOrder {TOKEN}", f"If-None-Match: {etag}"]),
                      ("serve --executor pool: changed orders (20) (for comparison)",
                       f"{pooled_base}/v1/devices/bench-device/registrations/{TYPE}", [])]
        lines += [(ARCHIVE_FLOOR, f"{floors}/archive/{TYPE}/bench-0", []),
                  (LIST_FLOOR, f"{floors}/changed/bench-device/{TYPE}", []),
                  ("/health", f"{base}/health", []),
                  ("GET order, 304 (If-None-Match)", f"{base}/v1/orders/{TYPE}/bench-0",
                   [f"Authorization: AppleOrder {TOKEN}", f"If-None-Match: {etag}"]),
                  (f"GET order, 200 ({size} B)", f"{base}/v1/orders/{TYPE}/bench-0", [f"Authorization: AppleOrder {TOKEN}"]),
                  ("changed orders (20)", f"{base}/v1/devices/bench-device/registrations/{TYPE}", [])]
        for _, url, headers in lines:
            if url.endswith("/hello") or url.endswith("/health"):
                warm_up(url)
        figures = in_rounds(lines)
        # The same GETs side by side with their floors and the bare route: a second reference
        # process, so that every pair is two processes (the service and a reference, or two references).
        other, other_port = start([REFERENCE, "0", store], r"listening on 127\.0\.0\.1:(\d+)")
        references.append(other)
        second = f"http://127.0.0.1:{other_port}"
        bare = (f"{second}/hello", [])
        conditional = [f"Authorization: AppleOrder {TOKEN}", f"If-None-Match: {etag}"]
        order_url = f"{base}/v1/orders/{TYPE}/bench-0"
        list_url = f"{base}/v1/devices/bench-device/registrations/{TYPE}"
        pairs = [("bare route / bare route (two processes: the method's own error)", (f"{floors}/hello", []), bare),
                 ("/health / bare route", (f"{base}/health", []), bare),
                 ("304 / bare route", (order_url, conditional), bare),
                 ("304 / its floor (bare route + lookup)", (order_url, conditional), (f"{second}/lookup/{TYPE}/bench-0", [])),
                 ("floor of the 304 / bare route", (f"{floors}/lookup/{TYPE}/bench-0", []), bare),
                 ("200 / bare route", (order_url, [f"Authorization: AppleOrder {TOKEN}"]), bare),
                 ("200 / its floor (bare route + lookup + archive)", (order_url, [f"Authorization: AppleOrder {TOKEN}"]),
                  (f"{second}/archive/{TYPE}/bench-0", [])),
                 ("floor of the 200 / bare route", (f"{floors}/archive/{TYPE}/bench-0", []), bare),
                 ("changed orders / bare route", (list_url, []), bare),
                 ("changed orders / its floor (bare route + query, JSON)", (list_url, []), (f"{second}/changed/bench-device/{TYPE}", [])),
                 ("floor of the changed orders / bare route", (f"{floors}/changed/bench-device/{TYPE}", []), bare)]
        paired = side_by_side(pairs)
        for process in references:
            stop(process)

        # Uploads: every body a new order (so every answer is `added` and writes), UPLOADS of each kind.
        uploads = []
        for index in range(UPLOADS):
            order["orderIdentifier"] = f"upload-{index}"
            order["updatedAt"] = "2025-12-01T00:00:00Z"
            uploads.append(json.dumps(order).encode())
        signed_sources = os.path.join(work, "signed.jsonl")
        with open(signed_sources, "w") as out:
            for index in range(UPLOADS):
                order["orderIdentifier"] = f"signed-{index}"
                out.write(json.dumps(order) + "\n")
        run([BIN, "build", "--batch", signed_sources, "--template", template, "--out", os.path.join(work, "signed"), "--quiet"] + signing)
        signed = [open(os.path.join(work, "signed", name), "rb").read() for name in sorted(os.listdir(os.path.join(work, "signed")))]
        # Each merchant line in turn with its floor (the bare route and the library's work on the
        # same bodies: validation; or validation, build and signature; no store), MERCHANT_ROUNDS
        # times, each round of the service with bodies of its own (every save a new order).
        # The second floor of each line adds the durable save: the library's whole intake with a
        # store of the reference's own (a new SQLite file), bodies of their own each round.
        reference, reference_port = start([REFERENCE, "0", store, os.path.join(work, "signing"), root,
                                           os.path.join(work, "floor-store.sqlite")],
                                          r"listening on 127\.0\.0\.1:(\d+)")
        rsa_rates = [openssl_sign_rate()]
        archive_saves, archive_floor, archive_store_floor = [], [], []
        build_saves, build_floor, build_store_floor = [], [], []
        for turn in range(MERCHANT_ROUNDS):
            archive_floor.append(timed_posts(reference_port, "/validate", signed, "application/vnd.apple.finance.order", work, "ok"))
            archive_store_floor.append(timed_posts(reference_port, "/save", signed[turn::MERCHANT_ROUNDS],
                                                   "application/vnd.apple.finance.order", work, "ok"))
            archive_saves.append(timed_posts(port, "/merchant/v1/orders", signed[turn::MERCHANT_ROUNDS],
                                             "application/vnd.apple.finance.order", work))
            build_floor.append(timed_posts(reference_port, "/build", uploads, "application/json", work, "ok"))
            build_store_floor.append(timed_posts(reference_port, "/build-save", uploads[turn::MERCHANT_ROUNDS], "application/json",
                                                 work, "ok"))
            build_saves.append(timed_posts(port, "/merchant/v1/orders/build", uploads[turn::MERCHANT_ROUNDS], "application/json", work))
        rsa_rates.append(openssl_sign_rate())
        rsa = sum(rsa_rates) / len(rsa_rates)
        stop(reference)
        stop(server)
        push_rate, first_push, (server_busy, stand_in_busy), (push_floor, push_cpu), ceiling = pushes(
            work, store, root, signing, template, order)

        print_table(figures, "bare Hummingbird route (reference)",
                    f"one thread, server on core 0; async code on {'the event loops' if EXECUTOR == 'event-loops' else 'Swift default executor'}"
                    " in serve and the references")
        print(paired)
        print(f"\nopenssl speed rsa2048 (core 0), before and after the merchant lines: "
              f"{' and '.join(f'{rate:,.0f}' for rate in rsa_rates)} signs/s")

        def merchant(name, saves, floor, floor_name, store_floor):
            rates = ", ".join(f"{r['rate']:,.0f}" for r in saves)

            def against(line, label):
                line_rates = ", ".join(f"{r['rate']:,.0f}" for r in line)
                ratio = median([a["rate"] / b["rate"] for a, b in zip(saves, line)])
                return (f"{label}: {line_rates}/s = {median([r['rate'] for r in line]) / rsa:.2f} × the RSA sign rate; "
                        f"the service at {ratio:.2f} × it")

            print(f"{name} ({UPLOAD_CONNECTIONS} connections, {MERCHANT_ROUNDS} rounds of {UPLOAD_SECONDS} s): {rates} saves/s "
                  f"= {median([r['rate'] for r in saves]) / rsa:.2f} × the RSA sign rate; p50 {median([r['p50'] for r in saves]):.2f} ms, "
                  f"p99 {median([r['p99'] for r in saves]):.2f} ms; "
                  f"{against(floor, f'its floor ({floor_name}, no store)')}; "
                  f"{against(store_floor, f'its floor with the store ({floor_name} and the durable save, the library alone)')}")

        merchant("merchant upload of signed archives", archive_saves, archive_floor, "bare route + validation", archive_store_floor)
        merchant("merchant build-and-sign", build_saves, build_floor, "bare route + validation, build and signature",
                 build_store_floor)
        print(f"pushes to the local APNs stand-in (HTTP/2, TLS, token auth): {PUSH_DEVICES} devices of one order, "
              f"{push_rate:,.0f} pushes/s; save to first push {first_push * 1000:.0f} ms; during the fan-out the server used "
              f"{server_busy:.0%} of core 0 and the stand-in {stand_in_busy:.0%} of core 1")
        print(f"push floor (push-reference: the service's APNs client alone, 64 in flight, to the same stand-in): "
              f"{push_floor:,.0f} pushes/s, {push_cpu * 1e6:.0f} µs of CPU a push (at most {1 / push_cpu:,.0f}/s on one core); "
              f"the service's fan-out is {push_rate / push_floor:.2f} × that floor")
        if ceiling:
            print(f"stand-in ceiling (h2load, nghttp2's client, on core 0: one connection, 64 streams, the same pushes): "
                  f"{ceiling[0]:,.0f} pushes/s, the stand-in's core {ceiling[1]:.0%} busy")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
