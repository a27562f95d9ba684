#!/usr/bin/env bash
# Run fio 3.33's own test material (t/run-fio-tests.py with its job files,
# the python runners in t/, and a --parse-only pass over examples/*.fio),
# once with the real fio and once with ours, and compare per test.
#
#   tests/fio-suite/run.sh [--keep DIR] [BIN]
#
# FIO_SRC       an unpacked fio 3.33 tree (axboe/fio at tag fio-3.33; nothing
#               of it is kept in this repository). Unset or not a fio tree: a
#               note, exit 0. It is only read: the runs use a copy of its t/
#               and examples/ in a scratch directory (with a config-host.h
#               saying CONFIG_LIBAIO, which run-fio-tests.py reads to decide
#               whether the libaio jobs run).
# BIN           ours (default: target/debug/rfio under the repo root).
# FIO_ORIG      the real fio (default: `fio` on PATH). Missing: the original
#               column is SKIP (with RBENCH_REQUIRE_ORIGINALS=1, exit 1).
# --keep DIR    where the artifacts go: DIR/original and DIR/ours hold each
#               runner's output (RUNNER.out) and its artifact directory
#               (less the data files the jobs lay out: files over 1 MiB go);
#               DIR/results.tsv (test, original, ours). Default: a new
#               directory under ${TMPDIR:-/tmp}.
# PARTS         space-separated parts to run instead of all: jobs readonly
#               strided latency_percentiles jsonplus2csv log_compression
#               steadystate examples; `zbd` (not in the default list) runs
#               t/zbd/test-zbd-support on a 512 MiB loop device (a sparse
#               file under the scratch directory, set up with losetup and
#               detached after; it needs root, else its rows are SKIP).
# SUITE_TIMEOUT seconds per runner (per job test for run-fio-tests.py) and
#               binary (default 900).
# JOBS_SKIP     more run-fio-tests.py test numbers to skip (space-separated;
#               default `10`, empty: none): t0010 (null engine,
#               io_submit_mode=offload, 10g) hangs fio 3.33 itself here, and
#               past run-fio-tests.py's 600 s timeout its SIGTERM leaves fio
#               waiting on its hung job process, so the runner never ends.
#
# Skipped: the C unit programs (1000-1002, 1005, 1009: they test fio's
# internals and need a built tree), the zoned block device tests (1007,
# 1008: run-fio-tests.py wants a device; PARTS=zbd runs their script on a
# loop device), and steadystate_tests.py without scipy. The python runners that
# run-fio-tests.py would run as 1003, 1004, 1006, 1010-1012 run standalone
# here instead, so that each of their subtests gets a row.
#
# Prints `TEST  original:PASS|FAIL|SKIP  ours:PASS|FAIL|SKIP` per test (a
# run-fio-tests job `jobs/N`, a runner's subtest `RUNNER/N`, an example
# `examples/NAME.fio`), then pass counts per part. Exit status 0 iff every
# test that passes with the original passes with ours (2 on a usage error).
#
# Neither binary is installed anywhere: each run gets a fresh directory
# holding a wrapper named `fio`, first on PATH for that run only, and the
# runners get that wrapper's path as their fio.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

keep=
bin=
while [ $# -gt 0 ]; do
    case "$1" in
    --keep) keep=${2:?--keep needs a directory}; shift ;;
    --keep=*) keep=${1#--keep=} ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) [ -z "$bin" ] || { echo "run.sh: one BIN only" >&2; exit 2; }; bin=$1 ;;
    esac
    shift
done

src=${FIO_SRC:-}
if [ -z "$src" ]; then
    echo "fio-suite: FIO_SRC is not set (an unpacked fio 3.33 tree); skipping"
    exit 0
fi
if [ ! -f "$src/t/run-fio-tests.py" ] || [ ! -d "$src/t/jobs" ] || [ ! -d "$src/examples" ]; then
    echo "fio-suite: FIO_SRC=$src has no t/run-fio-tests.py, t/jobs and examples; skipping"
    exit 0
fi
src=$(cd "$src" && pwd)
if ! command -v python3 >/dev/null 2>&1; then
    echo "fio-suite: python3 not found; skipping"
    exit 0
fi

bin=${bin:-$root/target/debug/rfio}
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
if [ ! -x "$bin" ]; then
    echo "run.sh: $bin is not an executable (cargo build -p rfio first)" >&2
    exit 2
fi
orig=${FIO_ORIG:-$(command -v fio || true)}
if [ -n "$orig" ] && [ "$(readlink -f "$orig")" = "$(readlink -f "$bin")" ]; then
    echo "run.sh: the original and ours are the same file ($orig)" >&2
    exit 2
fi
if [ -z "$orig" ] || [ ! -x "$orig" ]; then
    if [ "${RBENCH_REQUIRE_ORIGINALS:-}" = 1 ]; then
        echo "fio-suite: the original fio is required (RBENCH_REQUIRE_ORIGINALS=1) but is not installed" >&2
        exit 1
    fi
    echo "fio-suite: note: the original fio is not installed; running ours only"
    orig=
fi

parts=${PARTS:-jobs readonly strided latency_percentiles jsonplus2csv log_compression steadystate examples}
for p in $parts; do
    case "$p" in
    jobs|readonly|strided|latency_percentiles|jsonplus2csv|log_compression|steadystate|examples|zbd) ;;
    *) echo "run.sh: unknown part $p" >&2; exit 2 ;;
    esac
done
have_scipy=1
python3 -c 'import scipy.stats' >/dev/null 2>&1 || have_scipy=0

if [ -z "$keep" ]; then
    keep=$(mktemp -d "${TMPDIR:-/tmp}/rfio-suite.XXXXXX")
fi
mkdir -p "$keep" || exit 2
keep=$(cd "$keep" && pwd)
rm -rf "$keep/original" "$keep/ours"
mkdir -p "$keep/original" "$keep/ours"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/rfio-suite-run.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM

# Our copy of the parts of the tree the runners read.
tree="$scratch/fio"
mkdir -p "$tree"
cp -r "$src/t" "$src/examples" "$tree/" || exit 2
[ -d "$src/tools" ] && cp -r "$src/tools" "$tree/"
printf '#define CONFIG_LIBAIO\n' >"$tree/config-host.h"

wrapper() { # wrapper DIR TARGET: DIR/fio runs TARGET
    mkdir -p "$1"
    printf '#!/bin/sh\nexec %s "$@"\n' "$(printf '%q' "$2")" >"$1/fio"
    chmod +x "$1/fio"
}
[ -n "$orig" ] && wrapper "$scratch/bin-original" "$orig"
wrapper "$scratch/bin-ours" "$bin"

limit=${SUITE_TIMEOUT:-900}

# fio's job processes call setsid(), so a fio that a runner stops on its
# timeout can leave them running. Each runner therefore runs under this
# reaper: a child subreaper that bounds it in time and then kills, by pid,
# whatever is left that was reparented to it.
reaper='
import ctypes, os, signal, subprocess, sys, time
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
limit = float(sys.argv[1])
child = subprocess.Popen(sys.argv[2:])
try:
    rc = child.wait(timeout=limit)
except subprocess.TimeoutExpired:
    child.kill()
    child.wait()
    rc = 124
me = os.getpid()
def orphans():
    left = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % p) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == me:
            left.append(int(p))
    return left
for _ in range(100):
    left = orphans()
    if not left:
        break
    for p in left:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    time.sleep(0.05)
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass
sys.exit(rc)
'

# jobs_one_by_one WHO FIO DIR OUT: run-fio-tests.py's job tests (ids below
# 1000), one run each (--run-only), so that each gets SUITE_TIMEOUT and
# its data files (t0002 lays out 5 GiB) are deleted before the next.
jobs_one_by_one() {
    local who=$1 fio=$2 dir=$3 out=$4 id
    : >"$out"
    mkdir -p "$dir/artifacts"
    for id in $(sed -nE "s/^ *'test_id': *([0-9]+),.*/\1/p" "$tree/t/run-fio-tests.py"); do
        [ "$id" -lt 1000 ] || continue
        # shellcheck disable=SC2086
        if printf ' %s ' ${JOBS_SKIP-10} | grep -q " $id "; then
            echo "Test $id SKIPPED (JOBS_SKIP) t$(printf '%04d' "$id")" >>"$out"
            continue
        fi
        (cd "$dir" && PATH="$scratch/bin-$who:$PATH" python3 -c "$reaper" "$limit" \
            python3 "$tree/t/run-fio-tests.py" -f "$fio" -r "$tree" -a "$dir/artifacts/$id" \
            --run-only "$id" >>"$out" 2>&1 </dev/null)
        [ $? -eq 124 ] && echo "Test $id FAILED: timed out after ${limit}s (SUITE_TIMEOUT)" >>"$out"
        find "$dir/artifacts/$id" -type f -size +1M -delete 2>/dev/null
    done
}

# zbd_support WHO DIR OUT: t/zbd/test-zbd-support on a fresh loop device
# (its copy under DIR, with DIR/fio the wrapper, where the script looks).
zbd_support() {
    local who=$1 dir=$2 out=$3 img loop
    if [ "$(id -u)" != 0 ] || ! command -v losetup >/dev/null 2>&1; then
        echo "# zbd: needs root and losetup" >"$out"
        return
    fi
    mkdir -p "$dir/t"
    cp -r "$tree/t/zbd" "$dir/t/" && cp "$scratch/bin-$who/fio" "$dir/fio" || return
    img="$scratch/zbd-$who.img"
    truncate -s 512M "$img" || return
    if ! loop=$(losetup -f --show "$img"); then
        echo "# zbd: losetup failed" >"$out"
        rm -f "$img"
        return
    fi
    (cd "$dir" && python3 -c "$reaper" "$limit" bash t/zbd/test-zbd-support "$loop" >"$out" 2>&1 </dev/null)
    [ $? -eq 124 ] && echo "# timed out after ${limit}s (SUITE_TIMEOUT)" >>"$out"
    losetup -d "$loop"
    rm -f "$img"
}

# results WHO PART: `NAME STATUS` lines for PART's tests with WHO's binary.
# Raw output in $keep/WHO/PART.out, artifacts in $keep/WHO/PART/.
results() {
    local who=$1 part=$2 fio="$scratch/bin-$1/fio" dir="$keep/$1/$2" out="$keep/$1/$2.out"
    local -a cmd
    mkdir -p "$dir"
    case "$part" in
    jobs) jobs_one_by_one "$who" "$fio" "$dir" "$out" ;;
    zbd) zbd_support "$who" "$dir" "$out" ;;
    readonly) cmd=(python3 "$tree/t/readonly.py" -f "$fio") ;;
    strided) cmd=(python3 "$tree/t/strided.py" "$fio") ;;
    latency_percentiles) cmd=(python3 "$tree/t/latency_percentiles.py" -f "$fio" -a "$dir/artifacts") ;;
    jsonplus2csv) cmd=(python3 "$tree/t/jsonplus2csv_test.py" -f "$fio" -s "$tree/tools/fio_jsonplus_clat2csv") ;;
    log_compression) cmd=(python3 "$tree/t/log_compression.py" -f "$fio") ;;
    steadystate) cmd=(python3 "$tree/t/steadystate_tests.py" "$fio") ;;
    esac
    if [ "$part" != jobs ] && [ "$part" != zbd ]; then
        (cd "$dir" && PATH="$scratch/bin-$who:$PATH" python3 -c "$reaper" "$limit" "${cmd[@]}" >"$out" 2>&1 </dev/null)
        [ $? -eq 124 ] && echo "# timed out after ${limit}s (SUITE_TIMEOUT)" >>"$out"
        # The runners' data files (some of GiBs) are not kept.
        find "$dir" -type f -size +1M -delete
    fi
    case "$part" in
    jobs)
        # Test N PASSED|FAILED: ...|SKIPPED (...)
        grep -v 'SKIPPED (User request)' "$out" |
            sed -nE 's/^Test ([0-9]+) (PASSED|FAILED|SKIPPED).*/\1 \2/p' |
            while read -r n s; do
                case "$s" in PASSED) s=PASS ;; FAILED) s=FAIL ;; *) s=SKIP ;; esac
                case "$n" in 100[0-9]|101[0-9]) continue ;; esac
                echo "t$(printf '%04d' "$n") $s"
            done ;;
    zbd)
        # Running test NN ... PASS|FAIL|SKIP  reason
        sed -nE 's/^Running test ([0-9]+) \.\.\. (PASS|FAIL|SKIP).*/\1 \2/p' "$out"
        grep -q '^# zbd: ' "$out" && echo "support SKIP"
        return ;;
    readonly|strided|jsonplus2csv)
        sed -nE 's/^Test ([0-9]+) (PASSED|FAILED)$/\1 \2/p' "$out" | sed 's/PASSED/PASS/; s/FAILED/FAIL/' ;;
    latency_percentiles)
        # **********Test N PASSED|FAILED|SKIPPED (...)**********
        sed -nE 's/^\**Test ([0-9]+) (PASSED|FAILED|SKIPPED).*/\1 \2/p' "$out" |
            sed 's/PASSED/PASS/; s/FAILED/FAIL/; s/SKIPPED/SKIP/' ;;
    log_compression)
        sed -nE 's/^Test with log_store_compressed=([A-Za-z0-9]+) (PASSED|FAILED).*/compressed=\1 \2/p' "$out" |
            sed 's/PASSED/PASS/; s/FAILED/FAIL/' ;;
    steadystate)
        # `PASSED|FAILED 'X' (NOT) found with arguments [...]` (option
        # parsing), then `PASSED|FAILED JOBNAME ...` per job run: numbered
        # in order.
        grep -E "^(PASSED|FAILED) '" "$out" | awk '{ print "parse" NR, ($1 == "PASSED") ? "PASS" : "FAIL" }'
        grep -E "^(PASSED|FAILED) [^']" "$out" | awk '{ print "job" NR, ($1 == "PASSED") ? "PASS" : "FAIL" }' ;;
    esac
    # No result lines at all: the runner itself failed (or timed out).
    if [ "$part" != jobs ] && ! grep -qE '(PASSED|FAILED)' "$out"; then
        echo "runner FAIL"
    fi
}

# examples WHO: `NAME STATUS` for `fio --parse-only` of each examples/*.fio,
# run from a scratch directory.
examples() {
    local who=$1 f n dir="$keep/$1/examples"
    mkdir -p "$dir"
    for f in "$tree"/examples/*.fio; do
        n=$(basename "$f")
        if (cd "$dir" && PATH="$scratch/bin-$who:$PATH" python3 -c "$reaper" 30 fio --parse-only "$f" \
            >"$dir/$n.out" 2>&1 </dev/null); then
            echo "$n PASS"
        else
            echo "$n FAIL"
        fi
    done
}

declare -A total=()
regressions=()
printf '%s\t%s\t%s\n' test original ours >"$keep/results.tsv"
for part in $parts; do
    if [ "$part" = steadystate ] && [ "$have_scipy" = 0 ]; then
        echo "steadystate                          original:SKIP  ours:SKIP  (no scipy: pip install scipy)"
        continue
    fi
    declare -A o=() u=()
    names=()
    if [ "$part" = examples ]; then
        [ -n "$orig" ] && while read -r n s; do o[$n]=$s; done < <(examples original)
        while read -r n s; do u[$n]=$s; names+=("$n"); done < <(examples ours)
    else
        [ -n "$orig" ] && while read -r n s; do o[$n]=$s; done < <(results original "$part")
        while read -r n s; do u[$n]=$s; names+=("$n"); done < <(results ours "$part")
    fi
    # Tests only the original reported (ours stopped early).
    while read -r n; do
        [ -n "$n" ] && [ -z "${u[$n]:-}" ] && { u[$n]=FAIL; names+=("$n"); }
    done < <(printf '%s\n' "${!o[@]}" | sort -V)
    for n in "${names[@]}"; do
        a=${o[$n]:-SKIP} b=${u[$n]}
        t="$part/$n"
        printf '%-36s original:%-4s  ours:%-4s\n' "$t" "$a" "$b"
        printf '%s\t%s\t%s\n' "$t" "$a" "$b" >>"$keep/results.tsv"
        total[$part.o$a]=$(( ${total[$part.o$a]:-0} + 1 ))
        total[$part.u$b]=$(( ${total[$part.u$b]:-0} + 1 ))
        if [ "$a" = PASS ] && [ "$b" != PASS ]; then regressions+=("$t"); fi
    done
    unset o u
done

echo
for part in $parts; do
    [ "$part" = steadystate ] && [ "$have_scipy" = 0 ] && continue
    printf 'totals %-20s original: %3d PASS %3d FAIL %3d SKIP; ours: %3d PASS %3d FAIL %3d SKIP\n' "$part" \
        "${total[$part.oPASS]:-0}" "${total[$part.oFAIL]:-0}" "${total[$part.oSKIP]:-0}" \
        "${total[$part.uPASS]:-0}" "${total[$part.uFAIL]:-0}" "${total[$part.uSKIP]:-0}"
done
echo "artifacts: $keep"
if [ ${#regressions[@]} -gt 0 ]; then
    echo "pass with the original, not with ours (${#regressions[@]}): ${regressions[*]}"
    exit 1
fi
echo "every test that passes with the original passes with ours"
exit 0
