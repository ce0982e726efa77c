#!/usr/bin/env bash
# Times `wallet-orders build --batch` end to end, release build, on ORDERS orders (default 10,000)
# generated from Samples/shipped-ecommerce (orderIdentifier and updatedAt vary per line), or with
# KIND=pass on as many passes from the template Samples/event-ticket-pass (each line the fields
# of one ticket: serial number, barcode, runner, bib), with
# --jobs 1 and --jobs 2 (override with JOBS="1 2 4"), and prints orders/s (passes/s), the speed-up over one
# job, the CPU time per order and the peak resident memory (from wait4(2), the same figure as
# /usr/bin/time -v's "Maximum resident set size"). Each setting runs REPEAT times (default 2)
# and the fastest run counts: on a shared machine, other work only ever slows a run down.
#
#   Benchmarks/batch-cli.sh            # 10,000 orders, --jobs 1 and 2
#   Benchmarks/batch-cli.sh 100000     # the memory check: a 100,000-order batch
#   SKIP_BUILD=1 JOBS=2 REPEAT=1 Benchmarks/batch-cli.sh 2000
#   KIND=pass Benchmarks/batch-cli.sh  # 10,000 tickets
#
# It also builds once more with --jobs 1 --no-validate (the floor: building, signing and writing
# alone). Then it validates the archives one run wrote (`wallet-orders validate DIR --quiet`) with the
# same --jobs settings, and again with the text report written to a file (what the report itself
# costs against the quiet run) and with the archives given as one path each (against the folder),
# and prints every rate next to `openssl speed rsa2048`'s sign rate (building's floor) and
# verify rate (validation's) on one core from the same run (the mean of a run before and after).
#
# TEST-ONLY certificates are made in a temporary folder (wallet-orders dev-certs) and removed.
set -euo pipefail
ORDERS="${1:-10000}"
KIND="${KIND:-order}"
JOBS="${JOBS:-1 2}"
REPEAT="${REPEAT:-2}"
cd "$(dirname "$0")/.."
if [ -z "${SKIP_BUILD:-}" ]; then
    make --no-print-directory release >&2
fi
BIN="$PWD/.build-release/release/wallet-orders"
# The archives are written to tmpfs (/dev/shm) when there is one, so that the figures are the
# tool's, not the disk's: on ext4, creating thousands of files just after deleting the last run's
# spent up to half the time in the kernel's inode allocator (recently_deleted). BENCH_DIR overrides.
if [ -z "${BENCH_DIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then BENCH_DIR=/dev/shm; fi
WORK="$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/wallet-orders-batch-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

if [ "$KIND" = pass ]; then
    TEMPLATE=Samples/event-ticket-pass
    "$BIN" dev-certs --pass-type-id "$TEMPLATE" --team-id ABCDE12345 --out "$WORK/certs" >/dev/null
    LEAF=pass-type
else
    TEMPLATE=Samples/shipped-ecommerce
    "$BIN" dev-certs --order-type-id order.com.northwindoutfitters.shop --team-id BENCH00001 --out "$WORK/certs" >/dev/null
    LEAF=order-type
fi
python3 - "$ORDERS" "$WORK/orders.jsonl" "$KIND" <<'PY'
import datetime, json, sys
count, path, kind = int(sys.argv[1]), sys.argv[2], sys.argv[3]
start = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
order = json.load(open("Samples/shipped-ecommerce/order.json")) if kind == "order" else None
with open(path, "w") as out:
    for i in range(count):
        if kind == "pass":
            serial = f"NW-BENCH-{i:07d}"
            line = {"serialNumber": serial,
                    "barcodes": [{"format": "PKBarcodeFormatQR", "message": serial, "messageEncoding": "iso-8859-1", "altText": serial}],
                    "eventTicket": {"secondaryFields": [{"key": "runner", "label": "RUNNER", "value": f"Runner {i}"},
                                                        {"key": "start", "label": "START", "value": "2027-05-15T08:00:00+02:00",
                                                         "dateStyle": "PKDateStyleMedium", "timeStyle": "PKDateStyleShort"}],
                                    "auxiliaryFields": [{"key": "wave", "label": "WAVE", "value": "ABC"[i % 3]},
                                                        {"key": "bib", "label": "BIB", "value": f"{i:05d}"}]}}
        else:
            order["orderIdentifier"] = f"bench-{i:07d}"
            order["updatedAt"] = (start + datetime.timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
            line = order
        out.write(json.dumps(line, separators=(",", ":")) + "\n")
PY
SIGNING_TIME="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "$(nproc) cores; $(uname -m); output on $(df --output=fstype "$WORK" | tail -1) ($WORK); $ORDERS orders, $(wc -c < "$WORK/orders.jsonl") bytes of JSON Lines; best of $REPEAT runs each; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$BIN" "$WORK" "$SIGNING_TIME" "$ORDERS" "$REPEAT" "$TEMPLATE" "$LEAF" "$KIND" $JOBS <<'PY'
import os, re, shutil, subprocess, sys, time
binary, work, signing_time, orders, repeat = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
template, leaf, noun = sys.argv[6], sys.argv[7], sys.argv[8]
plural = "passes" if noun == "pass" else noun + "s"
jobs_list = sys.argv[9:]
best = {}

def rsa_rates():
    """`openssl speed rsa2048` signs and verifies per second on one core (taskset -c 0 when there
    is taskset): the floors of building (a signature an archive) and of validating (a verify)."""
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    out = subprocess.run(pin + ["openssl", "speed", "-seconds", "3", "rsa2048"], capture_output=True, text=True).stdout
    match = re.search(r"^rsa 2048 bits\s+([0-9.]+)s\s+([0-9.]+)s\s+([0-9.]+)\s+([0-9.]+)", out, re.M)
    if not match:
        sys.exit(f"unexpected openssl speed output:\n{out}")
    return float(match.group(3)), float(match.group(4))

rsa_before = rsa_rates()
for run in range(repeat):
    for jobs in jobs_list:
        # A new folder per run, removed only at the end: creating files right after deleting as
        # many makes ext4 scan the recently deleted inodes, which would penalize later runs.
        out = os.path.join(work, f"out-{jobs}-{run}")
        command = [binary, "build", "--batch", os.path.join(work, "orders.jsonl"), "--template", template,
                   "--out", out, "--signing-time", signing_time, "--jobs", jobs, "--quiet",
                   "--cert", os.path.join(work, f"certs/{leaf}.pem"), "--key", os.path.join(work, f"certs/{leaf}.key.pem"),
                   "--wwdr", os.path.join(work, "certs/wwdr-intermediate.pem")]
        started = time.monotonic()
        child = subprocess.Popen(command)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.monotonic() - started
        if status != 0:
            sys.exit(f"jobs {jobs}: wallet-orders exited with {status}")
        written = len(os.listdir(out))
        if written != orders:
            sys.exit(f"jobs {jobs}: {written} archives written, expected {orders}")
        cpu = usage.ru_utime + usage.ru_stime
        print(f"  run {run + 1}, --jobs {jobs}: {seconds:.2f} s, {orders / seconds:.1f} {plural}/s, "
              f"CPU {cpu:.2f} s ({1000 * cpu / orders:.3f} ms/{noun}), peak RSS {usage.ru_maxrss / 1024:.1f} MB", flush=True)
        previous = best.get(jobs)
        if previous is None or seconds < previous[0]:
            best[jobs] = (seconds, cpu, max(usage.ru_maxrss, previous[2] if previous else 0))
        else:
            best[jobs] = (previous[0], previous[1], max(previous[2], usage.ru_maxrss))
# The same build with --jobs 1 and --no-validate: what building, signing and writing cost without
# validation, the floor that no validation speed-up can go below.
unvalidated = None
for run in range(repeat):
    out = os.path.join(work, f"out-novalidate-{run}")
    command = [binary, "build", "--batch", os.path.join(work, "orders.jsonl"), "--template", template,
               "--out", out, "--signing-time", signing_time, "--jobs", "1", "--quiet", "--no-validate",
               "--cert", os.path.join(work, f"certs/{leaf}.pem"), "--key", os.path.join(work, f"certs/{leaf}.key.pem"),
               "--wwdr", os.path.join(work, "certs/wwdr-intermediate.pem")]
    started = time.monotonic()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    seconds = time.monotonic() - started
    print(f"  run {run + 1}, --jobs 1 --no-validate: {seconds:.2f} s, {orders / seconds:.1f} {plural}/s", flush=True)
    unvalidated = min(seconds, unvalidated or seconds)
# Validation of what the first run wrote: every archive in full (container, signature, chain,
# schema, rules), clean archives printing nothing but the summary.
archives = os.path.join(work, f"out-{jobs_list[0]}-0")
validated = {}
reported = {}
for run in range(repeat):
    for jobs in jobs_list:
        command = [binary, "validate", archives, "--quiet", "--jobs", jobs,
                   "--trust-root", os.path.join(work, "certs/root-ca.pem")]
        started = time.monotonic()
        result = subprocess.run(command, capture_output=True, text=True)
        seconds = time.monotonic() - started
        if result.returncode != 0:
            sys.exit(f"validate --jobs {jobs} exited with {result.returncode}:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
        print(f"  validate run {run + 1}, --jobs {jobs}: {seconds:.2f} s, {orders / seconds:.1f} archives/s", flush=True)
        validated[jobs] = min(seconds, validated.get(jobs, seconds))
        # The same with the text report (two lines an archive) written to a file, as CI keeps it.
        with open(os.path.join(work, "report.txt"), "w") as report:
            started = time.monotonic()
            result = subprocess.run(command[:3] + command[4:], stdout=report, stderr=subprocess.PIPE, text=True)
            seconds = time.monotonic() - started
        if result.returncode != 0:
            sys.exit(f"validate --jobs {jobs} (text) exited with {result.returncode}:\n{result.stderr[-2000:]}")
        print(f"  validate run {run + 1}, --jobs {jobs}, text report: {seconds:.2f} s", flush=True)
        reported[jobs] = min(seconds, reported.get(jobs, seconds))
# The same archives given as one path each (as a shell glob gives them) with the widest --jobs:
# the same work as the folder, so it should cost the same.
listed = None
paths = [os.path.join(archives, name) for name in sorted(os.listdir(archives))]
for run in range(repeat):
    command = [binary, "validate", "--quiet", "--jobs", jobs_list[-1], "--trust-root", os.path.join(work, "certs/root-ca.pem")] + paths
    started = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True)
    seconds = time.monotonic() - started
    if result.returncode != 0:
        sys.exit(f"validate PATHS exited with {result.returncode}:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    print(f"  validate run {run + 1}, --jobs {jobs_list[-1]}, {len(paths)} paths: {seconds:.2f} s", flush=True)
    listed = min(seconds, listed or seconds)
rsa_after = rsa_rates()
rsa = (rsa_before[0] + rsa_after[0]) / 2
verify = (rsa_before[1] + rsa_after[1]) / 2
print(f"openssl speed rsa2048 on one core: {rsa:.0f} signs/s, {verify:.0f} verifies/s (means of before and after)")
print(f"{'jobs':<6} {'seconds':>8} {plural + '/s':>10} {'vs --jobs ' + jobs_list[0]:>12} {'vs RSA sign':>12} {'CPU ms/' + noun:>13} {'peak RSS (MB)':>14}")
base = orders / best[jobs_list[0]][0]
for jobs in jobs_list:
    seconds, cpu, rss = best[jobs]
    rate = orders / seconds
    print(f"{jobs:<6} {seconds:8.2f} {rate:10.1f} {rate / base:11.2f}x {rate / rsa:11.2f}x {1000 * cpu / orders:13.3f} {rss / 1024:14.1f}")
rate = orders / unvalidated
print(f"{'1 --no-validate':<15} {unvalidated:8.2f} {rate:10.1f} {rate / base:11.2f}x {rate / rsa:11.2f}x")
print(f"{'validate':<9} {'seconds':>8} {'archives/s':>11} {'per core vs RSA sign':>21} {'vs RSA verify':>14} {'text report (s)':>16} {'its cost vs --quiet':>20}")
for jobs in jobs_list:
    rate = orders / validated[jobs]
    cost = (reported[jobs] - validated[jobs]) / validated[jobs]
    print(f"--jobs {jobs:<2} {validated[jobs]:8.2f} {rate:11.1f} {rate / int(jobs) / rsa:20.2f}x {rate / int(jobs) / verify:13.3f}x "
          f"{reported[jobs]:16.2f} {cost:19.2f}x")
print(f"validate, {orders} paths against their folder (--jobs {jobs_list[-1]}): {listed:.2f} s / {validated[jobs_list[-1]]:.2f} s = "
      f"{listed / validated[jobs_list[-1]]:.2f}x")
PY
