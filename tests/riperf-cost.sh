#!/usr/bin/env bash
# riperf's cost per byte beside iperf3's, counted rather than timed, so the
# figures hold on a busy machine: one TCP stream over loopback, server
# pinned to CPU 0 (-A 0), client to CPU 1 (-A 1), a fixed byte count (-n),
# each tool against its own server.
#
#   tests/riperf-cost.sh syscalls [SIZE] [client args]   system calls of each end per GiB
#                                                        (strace -f -c; default -n 1G)
#   tests/riperf-cost.sh instructions [SIZE]             user-space instructions of each end
#                                                        per GiB (valgrind callgrind, the
#                                                        other end runs natively; default 1G)
#
# RIPERF=path picks the riperf binary (default target/release/riperf), IPERF3
# the original (default iperf3). Ports 25990-25999 are used.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RIPERF=${RIPERF:-$ROOT/target/release/riperf}
IPERF3=${IPERF3:-iperf3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/riperf-cost.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# SIZE as a number of GiB (1G -> 1, 256M -> 0.25).
gib() {
    awk -v s="$1" 'BEGIN { n = s + 0; u = substr(s, length(s));
        if (u == "K") n /= 1048576; else if (u == "M") n /= 1024; else if (u != "G") n /= 1073741824;
        print n }'
}

# strace -c's table as "name calls errors", calls per GiB, 4 or more only.
per_gib_calls() { # file gib
    awk -v g="$2" '$1 ~ /^[0-9.]+$/ && $NF ~ /^[a-z_0-9]+$/ && $NF != "total" {
        calls = $4; err = (NF == 6) ? $5 : 0
        if (calls / g >= 4) printf "%-18s %9.0f %9.0f\n", $NF, calls / g, err / g }' "$1" | sort -k2 -nr
}

# One test of TOOL (server and client alike) with the ends wrapped: WRAP_S
# and WRAP_C are prefixes (empty: run natively).
one_test() { # bin port size wrap_s wrap_c client-args...
    local bin=$1 port=$2 size=$3 ws=$4 wc=$5 sp
    shift 5
    timeout 600 $ws "$bin" -s -1 -p "$port" -A 0 >/dev/null 2>&1 &
    sp=$!
    sleep "${COST_START_WAIT:-1}"
    timeout 580 $wc "$bin" -c 127.0.0.1 -p "$port" -A 1 -n "$size" "$@" >/dev/null 2>&1 ||
        echo "riperf-cost.sh: $bin client failed" >&2
    wait "$sp" || true
}

syscalls() { # size client-args...
    local size=$1 g name bin port=25990
    shift
    g=$(gib "$size")
    for name in riperf iperf3; do
        bin=$RIPERF; [ $name = iperf3 ] && bin=$IPERF3
        one_test "$bin" $port "$size" "strace -f -c -o $WORK/$name.srv" \
            "strace -f -c -o $WORK/$name.cli" "$@"
        port=$((port + 1))
    done
    for end in cli srv; do
        echo "== $([ $end = cli ] && echo client || echo server): system calls per GiB (-n $size $*)"
        printf '%-18s %9s %9s    %-18s %9s %9s\n' riperf calls errors iperf3 calls errors
        paste <(per_gib_calls "$WORK/riperf.$end" "$g") <(per_gib_calls "$WORK/iperf3.$end" "$g") |
            awk -F'\t' '{ printf "%-48s %s\n", $1, $2 }'
    done
}

instructions() { # size
    local size=$1 g name bin end port=25994 ir
    g=$(gib "$size")
    echo "== user-space instructions per GiB (callgrind, -n $size)"
    for name in riperf iperf3; do
        bin=$RIPERF; [ $name = iperf3 ] && bin=$IPERF3
        for end in client server; do
            local vg="valgrind --tool=callgrind --callgrind-out-file=$WORK/$name.$end.cg"
            if [ $end = client ]; then
                one_test "$bin" $port "$size" "" "$vg"
            else
                COST_START_WAIT=4 one_test "$bin" $port "$size" "$vg" ""
            fi
            port=$((port + 1))
            ir=$(callgrind_annotate "$WORK/$name.$end.cg" 2>/dev/null |
                awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
            printf '%-7s %-7s %14.0f\n' "$name" "$end" "$(awk -v i="$ir" -v g="$g" 'BEGIN { print i / g }')"
        done
    done
}

case "${1:-}" in
syscalls) shift; syscalls "${1:-1G}" "${@:2}" ;;
instructions) shift; instructions "${1:-1G}" ;;
*) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
