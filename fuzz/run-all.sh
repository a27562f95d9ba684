#!/bin/sh
# Run every fuzz target for TIME seconds each (default 600, issue 8's ten
# minutes), growing the committed corpora in fuzz/corpus/<target>/.
# Needs cargo-fuzz (`cargo install cargo-fuzz`); RUSTC_BOOTSTRAP=1 lets a
# stable toolchain build with the sanitizer flags. A crash leaves its input
# in fuzz/artifacts/<target>/ and the report in fuzz/logs/<target>.log; the
# script goes on with the other targets and exits 1 at the end.
# A <target>.dict beside this script (option names) is passed as -dict=.
# Prints one line per target with libFuzzer's final executions count.
set -u
TIME=${1:-600}
cd "$(dirname "$0")" || exit 1
export RUSTC_BOOTSTRAP="${RUSTC_BOOTSTRAP:-1}"
cargo fuzz build || exit 1
status=0
mkdir -p logs
for t in $(cargo fuzz list); do
    mkdir -p "corpus/$t"
    dict=""
    if [ -f "$t.dict" ]; then dict="-dict=$t.dict"; fi
    # shellcheck disable=SC2086 # $dict is one word or none
    if cargo fuzz run "$t" "corpus/$t" -- -max_total_time="$TIME" -print_final_stats=1 $dict \
        >"logs/$t.log" 2>&1; then
        result="no crash"
    else
        result="CRASH (see fuzz/logs/$t.log, input in fuzz/artifacts/$t/)"
        status=1
    fi
    runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "logs/$t.log" | grep -Eo '[0-9]+$')
    echo "$t: ${runs:-?} inputs in ${TIME}s, $result"
done
exit $status
