#!/usr/bin/env python3
"""Run the archive benchmarks and `openssl speed rsa2048` in the same run, on one core, and print
each benchmark's median next to its floor as a ratio.

    python3 Benchmarks/report.py                 # what `make bench` runs
    python3 Benchmarks/report.py --smoke         # what `make bench-smoke` runs (a few iterations)
    python3 Benchmarks/report.py --filter shipped   # other options go to `swift package benchmark run`

Floors: build+sign is bounded by one RSA-2048 private-key operation (`openssl speed` sign; `sign
FIXTURE`, the manifest's CMS signature alone in this process, is printed beside it);
verification by RSA-2048 public-key operations (`openssl speed` verify). Full validation also has
an absolute target (0.15 ms for the shipped sample, issue 13). Exits 1 when a benchmark fails.
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

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


def run_benchmarks(smoke, extra):
    """Runs the benchmark plugin with JMH export; returns {name: (median µs, p99 µs, mallocs, iterations)}."""
    env = dict(os.environ)
    # As `wallet-orders` does for itself (POSIX.readLocalTimeZoneOnce): with TZ unset, glibc stats
    # /etc/localtime on each mktime(3), which libzip calls once per entry when it opens an archive.
    env.setdefault("TZ", ":/etc/localtime")
    if smoke:
        env["WALLET_ORDERS_BENCH_SMOKE"] = "1"
    with tempfile.TemporaryDirectory() as out:
        command = pin() + [
            "swift", "package", "--allow-writing-to-directory", out, "benchmark", "run",
            "--format", "jmh", "--path", out, "--no-progress"] + extra
        result = subprocess.run(command, cwd=HERE, env=env, capture_output=True, text=True)
        if result.returncode != 0:
            sys.stderr.write(result.stdout + result.stderr)
            sys.exit(f"report.py: the benchmark run failed (exit {result.returncode})")
        files = glob.glob(os.path.join(out, "**", "*.jmh.json"), recursive=True)
        if not files:
            sys.stderr.write(result.stdout + result.stderr)
            sys.exit("report.py: the benchmark run wrote no JMH file")
        figures = {}
        for path in files:
            with open(path) as f:
                for element in json.load(f):
                    name = element["benchmark"].split(".")[-1].replace("_", " ")
                    metrics = element["secondaryMetrics"]
                    wall = next(v for k, v in metrics.items() if "wall" in k.lower())
                    mallocs = next((v for k, v in metrics.items() if "malloc" in k.lower()), None)
                    figures[name] = (
                        wall["scorePercentiles"]["50.0"], wall["scorePercentiles"]["99.0"],
                        mallocs["scorePercentiles"]["50.0"] if mallocs else None,
                        element["measurementIterations"])
        return figures


# Store targets (issue 5): operations per second, for each benchmark whose name starts with the key.
STORE_TARGETS = {
    "store save one": 1_000,
    "store write one": None,
    "store save batch": 10_000,
    "store write batch": None,
    "store contains": 100_000,
}


def store_rate(name, median_us):
    """Per-order rate of a store benchmark (a batch's median covers the whole batch)."""
    match = re.search(r"batch of (\d+)|(\d+) lookups", name)
    orders = int(match.group(1) or match.group(2)) if match else 1
    rate = orders / (median_us / 1e6)
    text = f"{rate:>10,.0f} orders/s"
    for prefix, target in STORE_TARGETS.items():
        if name.startswith(prefix) and target is not None:
            text += f"  target ≥ {target:,}/s: {'met' if rate >= target else 'NOT met'}"
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="a few iterations of each benchmark (CI)")
    parser.add_argument("--openssl-seconds", type=int, default=None, help="seconds per `openssl speed` test")
    args, extra = parser.parse_known_args()
    args.extra = extra  # anything else goes to `swift package benchmark run` (e.g. --filter REGEX)
    seconds = args.openssl_seconds or (1 if args.smoke else 5)

    # openssl speed before and after the benchmarks: on a shared machine the two often differ
    # by 10-30 %, so the floor is their mean and both are printed.
    sign_before, verify_before = openssl_rsa2048(seconds)
    figures = run_benchmarks(args.smoke, args.extra)
    sign_after, verify_after = openssl_rsa2048(seconds)
    sign, verify = (sign_before + sign_after) / 2, (verify_before + verify_after) / 2

    print(f"wallet-orders benchmarks, one core (taskset -c 0){', SMOKE: few iterations, figures are rough' if args.smoke else ''}")
    print(f"floor: openssl speed -seconds {seconds} rsa2048 in the same run: sign {sign:.3f} ms, verify {verify:.3f} ms"
          f" (mean of before {sign_before:.3f}/{verify_before:.3f} and after {sign_after:.3f}/{verify_after:.3f})")
    print()
    print(f"{'benchmark':<30} {'iters':>6} {'median':>10} {'p99':>10} {'mallocs':>8}   ratio to floor")
    print("-" * 96)
    for name in sorted(figures, key=lambda n: (n.split(" ", 1)[1] if " " in n else n, list(FLOORS).index(n.split(" ")[0]) if n.split(" ")[0] in FLOORS else 9)):
        median, p99, mallocs, iterations = figures[name]
        kind = name.split(" ")[0]
        line = f"{name:<30} {iterations:>6} {median / 1000:>7.3f} ms {p99 / 1000:>7.3f} ms {'' if mallocs is None else int(mallocs):>8}"
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


if __name__ == "__main__":
    main()
