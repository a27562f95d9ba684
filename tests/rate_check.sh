#!/usr/bin/env bash
# Rate accuracy benchmark: rfio and fio side by side on the same rate-capped
# jobs, printing the achieved rate against the target for each.
#
#   tests/rate_check.sh [SECONDS]     (default 10; needs fio and jq)
#
# Every scenario runs a time_based job of SECONDS at a rate the machine
# sustains easily (page-cached file, null engine) and reads bw_bytes or
# iops from the JSON output. A result within 1% of the target is "ok".
# RFIO=path picks the rfio binary (default target/release/rfio, then debug).
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${1:-10}
RFIO=${RFIO:-$ROOT/target/release/rfio}
[ -x "$RFIO" ] || RFIO=$ROOT/target/debug/rfio
command -v fio >/dev/null || { echo "fio not found" >&2; exit 1; }
command -v jq >/dev/null || { echo "jq not found" >&2; exit 1; }

DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

# name | target | jq path of the achieved value | job options
SCENARIOS='
rate-50MiB-seqread-psync|52428800|.jobs[0].read.bw_bytes|--rw=read --bs=64k --rate=50m --ioengine=psync
rate_iops-2000-randread|2000|.jobs[0].read.iops|--rw=randread --bs=4k --rate_iops=2000 --ioengine=psync
rate_iops-20000-null|20000|.jobs[0].read.iops|--rw=randread --bs=4k --rate_iops=20000 --ioengine=null
rate-8MiB-write-libaio-qd4|8388608|.jobs[0].write.bw_bytes|--rw=write --bs=16k --rate=8m --ioengine=libaio --iodepth=4
rate_iops-1000-poisson|1000|.jobs[0].read.iops|--rw=randread --bs=4k --rate_iops=1000 --rate_process=poisson --ioengine=psync
rate-1m,2m-randrw|3145728|(.jobs[0].read.bw_bytes + .jobs[0].write.bw_bytes)|--rw=randrw --bs=4k --rate=1m,2m --ioengine=psync
'

printf '%-28s %12s %14s %8s %14s %8s\n' scenario target rfio ratio fio ratio
echo "$SCENARIOS" | while IFS='|' read -r name target path opts; do
    [ -n "$name" ] || continue
    line=$(printf '%-28s %12s' "$name" "$target")
    for tool in "$RFIO" fio; do
        # shellcheck disable=SC2086 # opts is a list of options
        "$tool" --name=rate --directory="$DIR" --size=64m --time_based \
            --runtime="$SECS" --output-format=json $opts >"$DIR/out.json" 2>"$DIR/err"
        got=$(jq "$path" "$DIR/out.json")
        ratio=$(awk -v g="$got" -v t="$target" 'BEGIN { printf "%.4f", g / t }')
        ok=$(awk -v r="$ratio" 'BEGIN { print (r >= 0.99 && r <= 1.01) ? "ok" : "OFF" }')
        line="$line $(printf '%14.1f %6s %s' "$got" "$ratio" "$ok")"
    done
    echo "$line"
done
