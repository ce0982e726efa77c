#!/usr/bin/env python3
"""Run the archive benchmarks and `openssl speed rsa2048` in the same run, on one core, and print
each benchmark's median next to its floor as a ratio.

    python3 Benchmarks/report.py                 # what `make bench` runs
    python3 Benchmarks/report.py --smoke         # what `make bench-smoke` runs (a few iterations)
    python3 Benchmarks/report.py --filter '.*shipped.*'   # other options go to the benchmark executables
    python3 Benchmarks/report.py --no-postgres      # SQLite's store figures only

Floors: build+sign is bounded by one RSA-2048 private-key operation (`openssl speed` sign; `sign
FIXTURE`, the manifest's CMS signature alone in this process, is printed beside it);
verification by RSA-2048 public-key operations (`openssl speed` verify). Full validation also has
an absolute target (0.15 ms for the shipped sample). Exits 1 when a benchmark fails.

The store benchmarks run on SQLite and, in the same run, on a throwaway PostgreSQL cluster with
PostgreSQL's default durability (Benchmarks/pgcluster.py: fsync and synchronous_commit on, loopback
TCP, the server pinned to core 1 while the benchmarks run on core 0); pgbench on that cluster gives
PostgreSQL's own floors from the same run (one indexed SELECT; one committed one-row INSERT). When
PostgreSQL's server binaries are missing, a warning says so and only the PostgreSQL figures are
skipped. WALLET_ORDERS_BENCH_PG_URL set by the caller names another server instead (no floors then).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import pgcluster  # noqa: E402

# Benchmark name prefix -> (floor: "sign" or "verify", target ratio or None, absolute target in ms or None)
FLOORS = {
    "sign": ("sign", None, None),
    "build+sign": ("sign", 1.3, None),
    "validate": ("verify", None, 0.15),
    "verify": ("verify", None, None),
}


def pin():
    """`taskset -c 0` when available: every figure on one core."""
    return ["taskset", "-c", "0"] if shutil.which("taskset") else []


def openssl_rsa2048(seconds):
    """(sign ms, verify ms) from `openssl speed -seconds N rsa2048`."""
    out = subprocess.run(
        pin() + ["openssl", "speed", "-seconds", str(seconds), "rsa2048"],
        check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        # "rsa 2048 bits 0.000556s 0.000028s 1799.7 36042.7" (OpenSSL 3.0); 3.x adds encrypt/decrypt columns.
        if line.startswith("rsa 2048 bits") or line.startswith("rsa  2048 bits"):
            times = [float(t[:-1]) for t in line.split() if re.fullmatch(r"[0-9.]+s", t)]
            return times[0] * 1000, times[1] * 1000
    sys.exit(f"report.py: unexpected `openssl speed` output:\n{out}")


def pgbench_floors(cluster, seconds):
    """(one SELECT by primary key, one committed one-row INSERT), mean latency in ms, from pgbench
    on core 0 with one client and the extended protocol (as postgres-nio speaks it)."""
    pgbench = os.path.join(cluster.binaries, "pgbench")
    env = dict(os.environ, PGPASSWORD=cluster.password)
    url = cluster.url("pgbench", password=False)
    if not cluster.psql("SELECT 1 FROM pg_database WHERE datname = 'pgbench'"):
        cluster.create_database("pgbench")
        subprocess.run([pgbench, "-i", "-q", "-s", "1", url], check=True, capture_output=True, env=env)
        cluster.psql("CREATE TABLE commits (id bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())", "pgbench")

    def latency(arguments):
        out = subprocess.run(pin() + [pgbench, "-n", "-c", "1", "-T", str(seconds), "-M", "extended"] + arguments + [url],
                             check=True, capture_output=True, text=True, env=env).stdout
        return float(re.search(r"latency average = ([\d.]+) ms", out).group(1))

    with tempfile.NamedTemporaryFile("w", suffix=".sql") as script:
        script.write("INSERT INTO commits DEFAULT VALUES;\n")
        script.flush()
        return latency(["-S"]), latency(["-f", script.name])


# The benchmark executables, from the release build (`make bench` builds them).
BIN = os.environ.get("BIN", os.path.join(ROOT, ".build-release", "release"))
EXECUTABLES = ["wallet-orders-archive-benchmarks", "wallet-orders-store-benchmarks"]


def run_benchmarks(smoke, extra, postgres_env):
    """Runs each benchmark executable (BenchmarkHarness: one JSON line per benchmark); returns
    {name: (median µs, p99 µs, iterations)}."""
    env = dict(os.environ)
    env.update(postgres_env)
    # As `wallet-orders` does for itself (POSIX.readLocalTimeZoneOnce): with TZ unset, glibc stats
    # /etc/localtime on each mktime(3), which libzip calls once per entry when it opens an archive.
    env.setdefault("TZ", ":/etc/localtime")
    if smoke:
        env["WALLET_ORDERS_BENCH_SMOKE"] = "1"
    figures = {}
    for executable in EXECUTABLES:
        path = os.path.join(BIN, executable)
        if not os.access(path, os.X_OK):
            sys.exit(f"report.py: {path} is not built (make bench builds it)")
        result = subprocess.run(pin() + [path] + extra, cwd=ROOT, env=env, capture_output=True, text=True)
        if result.returncode != 0:
            sys.stderr.write(result.stdout + result.stderr)
            sys.exit(f"report.py: {executable} failed (exit {result.returncode})")
        for line in result.stdout.splitlines():
            if not line.startswith("{"):
                continue
            element = json.loads(line)
            figures[element["benchmark"]] = (
                element["medianNanoseconds"] / 1000, element["p99Nanoseconds"] / 1000, element["iterations"])
    if not figures:
        sys.exit("report.py: no benchmark ran (check --filter)")
    return figures


# Store targets (SQLite): operations per second, for each benchmark whose name starts with the key.
STORE_TARGETS = {
    "store save one": 1_000,
    "store write one": None,
    "store save batch": 10_000,
    "store write batch": None,
    "store contains": 100_000,
}


def orders_in(name):
    """How many orders one iteration of a store benchmark handles."""
    match = re.search(r"batch of (\d+)|(\d+) lookups", name)
    return int(match.group(1) or match.group(2)) if match else 1


def store_rate(name, median_us):
    """Per-order rate of a store benchmark (a batch's median covers the whole batch); the
    targets are SQLite's."""
    rate = orders_in(name) / (median_us / 1e6)
    text = f"{rate:>10,.0f} orders/s"
    for prefix, target in STORE_TARGETS.items():
        if name.startswith(prefix) and target is not None:
            text += f"  target ≥ {target:,}/s: {'met' if rate >= target else 'NOT met'}"
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="a few iterations of each benchmark (CI)")
    parser.add_argument("--openssl-seconds", type=int, default=None, help="seconds per `openssl speed` test")
    parser.add_argument("--no-postgres", action="store_true", help="no PostgreSQL store benchmarks")
    args, extra = parser.parse_known_args()
    args.extra = extra  # anything else goes to the benchmark executables (e.g. --filter REGEX)
    seconds = args.openssl_seconds or (1 if args.smoke else 5)

    cluster, postgres_note, floors = None, "", None
    if args.no_postgres:
        postgres_note = "PostgreSQL: not run (--no-postgres)"
    elif os.environ.get("WALLET_ORDERS_BENCH_PG_URL"):
        postgres_note = "PostgreSQL: the server named by WALLET_ORDERS_BENCH_PG_URL (no pgbench floors)"
    else:
        cluster = pgcluster.start(cpu=1 if pin() else None)
        postgres_note = cluster.describe() if cluster else \
            "*** PostgreSQL: SKIPPED, its server binaries were not found (see the warning above) ***"
    postgres_env = cluster.environment() if cluster else {}
    if args.no_postgres:
        postgres_env = {"WALLET_ORDERS_BENCH_PG_URL": ""}

    # openssl speed (and pgbench) before and after the benchmarks: on a shared machine the two
    # often differ by 10-30 %, so the floor is their mean and both are printed.
    pg_seconds = 1 if args.smoke else 3
    sign_before, verify_before = openssl_rsa2048(seconds)
    floors_before = pgbench_floors(cluster, pg_seconds) if cluster else None
    figures = run_benchmarks(args.smoke, args.extra, postgres_env)
    sign_after, verify_after = openssl_rsa2048(seconds)
    floors_after = pgbench_floors(cluster, pg_seconds) if cluster else None
    if cluster:
        floors = tuple((a + b) / 2 for a, b in zip(floors_before, floors_after))
        cluster.stop()
    sign, verify = (sign_before + sign_after) / 2, (verify_before + verify_after) / 2

    print(f"wallet-orders benchmarks, one core (taskset -c 0){', SMOKE: few iterations, figures are rough' if args.smoke else ''}")
    print(f"floor: openssl speed -seconds {seconds} rsa2048 in the same run: sign {sign:.3f} ms, verify {verify:.3f} ms"
          f" (mean of before {sign_before:.3f}/{verify_before:.3f} and after {sign_after:.3f}/{verify_after:.3f})")
    print(postgres_note)
    if floors:
        print(f"PostgreSQL floors: pgbench in the same run, one client on core 0, extended protocol: SELECT by primary key "
              f"{floors[0]:.3f} ms, committed one-row INSERT {floors[1]:.3f} ms (before {floors_before[0]:.3f}/{floors_before[1]:.3f}, "
              f"after {floors_after[0]:.3f}/{floors_after[1]:.3f})")
    print()
    print(f"{'benchmark':<30} {'iters':>6} {'median':>10} {'p99':>10}   ratio to floor")
    print("-" * 87)
    for name in sorted(figures, key=lambda n: (n.split(" ", 1)[1] if " " in n else n, list(FLOORS).index(n.split(" ")[0]) if n.split(" ")[0] in FLOORS else 9)):
        median, p99, iterations = figures[name]
        kind = name.split(" ")[0]
        line = f"{name:<30} {iterations:>6} {median / 1000:>7.3f} ms {p99 / 1000:>7.3f} ms"
        if kind == "store":
            line += "   " + store_rate(name, median)
        if kind in FLOORS:
            floor_name, target_ratio, target_ms = FLOORS[kind]
            floor = sign if floor_name == "sign" else verify
            line += f"   {median / 1000 / floor:6.2f} × rsa2048 {floor_name} ({floor:.3f} ms)"
            if target_ratio is not None and "shipped" in name:
                met = median / 1000 / floor <= target_ratio
                line += f"  target ≤ {target_ratio} ×: {'met' if met else 'NOT met'}"
            alone = figures.get("sign " + name.split(" ")[1])
            if kind == "build+sign" and alone:
                line += f"  ({median / alone[0]:.2f} × signing alone)"
            if target_ms is not None and "shipped" in name:
                met = median / 1000 <= target_ms
                line += f"  target ≤ {target_ms} ms: {'met' if met else 'NOT met'}"
        print(line)
    print_store_comparison(figures, floors)


def print_store_comparison(figures, floors):
    """SQLite and PostgreSQL side by side, per order, for every store benchmark run on both."""
    rows = []
    for name in sorted(figures):
        if not name.startswith("store postgres "):
            continue
        sqlite_name = "store " + name[len("store postgres "):]
        if sqlite_name not in figures:
            continue
        orders = orders_in(name)
        pg, lite = figures[name][0] / orders, figures[sqlite_name][0] / orders
        floor = ""
        if floors:
            # Lookups and each order of a batch are round trips (a batch commits once for all);
            # a save one at a time is round trips and a commit.
            if "contains" in name or "batch" in name:
                floor = f"{pg / 1000 / floors[0]:.1f} × pgbench SELECT"
            else:
                floor = f"{pg / 1000 / floors[1]:.1f} × pgbench commit"
        rows.append((sqlite_name[len("store "):], lite, pg, floor))
    if not rows:
        return
    print()
    print("store, SQLite and PostgreSQL in the same run (per order; medians)")
    print(f"{'benchmark':<42} {'SQLite':>22} {'PostgreSQL':>22}   PostgreSQL vs its floor")
    print("-" * 120)
    for name, lite, pg, floor in rows:
        print(f"{name:<42} {lite / 1000:>8.3f} ms {1e6 / lite:>8,.0f}/s {pg / 1000:>8.3f} ms {1e6 / pg:>8,.0f}/s   {floor}")


if __name__ == "__main__":
    main()
