#!/usr/bin/env bash
# Runs each fuzz target for SECONDS with libFuzzer (`make fuzz`, `make fuzz-smoke`), one after the
# other, and prints executions per target. Fails when a target finds a crash, a hang (slower than
# TIMEOUT seconds for one input), a leak or a broken invariant; the input is saved in
# WORK/crashes/TARGET/ and the end of libFuzzer's log is printed.
#
#   run-fuzzers.sh BINARY WORK SECONDS TIMEOUT TARGET...
#
# WORK/seeds/TARGET/ (from `wallet-orders-fuzz --make-seeds`) and Tests/Fuzz/Regressions/TARGET/
# (inputs that once failed) are read, never written; WORK/corpus/TARGET/ keeps what libFuzzer
# finds from one run to the next.
set -uo pipefail
binary=$1 work=$2 seconds=$3 timeout=$4
shift 4
dictionaries=$(cd "$(dirname "$0")/Dictionaries" && pwd)

dictionary() {
    case $1 in
        json) echo "$dictionaries/json.dict" ;;
        schema) echo "$work/seeds/order-schema.dict" ;;
        strings) echo "$dictionaries/strings.dict" ;;
        der | identity) echo "$dictionaries/der.dict" ;;
        *) echo "$dictionaries/zip.dict" ;;
    esac
}

# The Swift runtime's backtracer would catch the crash before libFuzzer saves the input.
export SWIFT_BACKTRACE=enable=no
# Swift traps with SIGILL. Leaks are checked after each input that allocated more than it freed
# (libFuzzer's -detect_leaks), not at exit: what the process keeps until then (OpenSSL's providers,
# the targets' validator, schema and store) is not an input's leak.
export ASAN_OPTIONS=${ASAN_OPTIONS:-handle_sigill=1:detect_leaks=1:leak_check_at_exit=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp:print_suppressions=0}
regressions=$(cd "$(dirname "$0")/Regressions" && pwd)

mkdir -p "$work/logs"
failed=()
summary=$(printf '%-9s %12s %9s %9s %8s  %s\n' target executions exec/s "new units" "rss MB" result)
for target in "$@"; do
    mkdir -p "$work/corpus/$target" "$work/crashes/$target"
    log=$work/logs/$target.log
    echo "fuzz: $target for ${seconds}s (log: $log)"
    "$binary" --target="$target" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2560 \
        -dict="$(dictionary "$target")" -artifact_prefix="$work/crashes/$target/" -print_final_stats=1 \
        "$work/corpus/$target" "$work/seeds/$target" \
        $([ -d "$regressions/$target" ] && echo "$regressions/$target") >"$log" 2>&1
    status=$?
    stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
    result=ok
    if [ $status -ne 0 ]; then
        result="FAILED (exit $status)"
        failed+=("$target")
        echo "fuzz: $target failed; the end of its log:" >&2
        tail -n 40 "$log" >&2
        ls -1 "$work/crashes/$target/" >&2
    fi
    summary+=$(printf '\n%-9s %12s %9s %9s %8s  %s' "$target" "$(stat number_of_executed_units)" \
        "$(stat average_exec_per_sec)" "$(stat new_units_added)" "$(stat peak_rss_mb)" "$result")
done
echo
echo "$summary"
if [ ${#failed[@]} -ne 0 ]; then
    echo "fuzz: failed: ${failed[*]}. Replay an input: $binary --target=TARGET FILE" >&2
    exit 1
fi
