#!/usr/bin/env bash
# Run sysbench 1.0.20's own cram suite (tests/t/*.t) file by file, once with
# the real sysbench and once with ours, and compare per file.
#
#   tests/sysbench-suite/run.sh [--db|--db-force] [--keep DIR] [BIN]
#
# SYSBENCH_SRC   an unpacked sysbench 1.0.20 tree (akopytov/sysbench at tag
#                1.0.20; nothing of it is kept in this repository). Unset or
#                not a sysbench tree: a note, exit 0.
# BIN            ours (default: target/debug/rsysbench under the repo root).
# --db           also run the database files: SBTEST_MYSQL_ARGS/SBTEST_PGSQL_ARGS
#                from RBENCH_MYSQL_ARGS/RBENCH_PGSQL_ARGS, or from
#                `tests/db/servers.sh env ${RBENCH_DB_DIR:-/tmp/rbench-db}`
#                (which reads RBENCH_MY_PORT/RBENCH_PG_PORT; the servers must
#                be running: this script never starts or stops them). Same as RBENCH_SUITE_DB=1. Without it the
#                database files skip themselves, unless the caller exported
#                SBTEST_MYSQL_ARGS/SBTEST_PGSQL_ARGS itself. When the databases
#                already hold tables (someone else's run, or an interrupted
#                one), which the files' prepare would trip over and their
#                cleanup drop, it refuses (exit 2).
# --db-force     --db even so (RBENCH_SUITE_DB_FORCE=1).
# --keep DIR     where the diffs go: DIR/ours/FILE.diff for each file that
#                fails with ours, DIR/original/FILE.diff for each file that
#                fails with the original, DIR/results.tsv (file, original,
#                ours, `same` when both fail with the same diff, numbers and
#                tmp names masked). Default: a new directory under ${TMPDIR:-/tmp}.
# FILES          space-separated names (api_basic.t or api_basic) to run
#                instead of all of tests/t/*.t.
# SYSBENCH_ORIG  the real sysbench (default: `sysbench` on PATH). Missing: the
#                original column is SKIP and nothing is compared (with
#                RBENCH_REQUIRE_ORIGINALS=1, exit 1).
# CRAM_BIN       cram (default: `cram` on PATH, else python3 -m cram, else
#                SYSBENCH_SRC/third_party/cram). Missing: a note, exit 0.
# SUITE_TIMEOUT  seconds per file and binary (default 300); past it the file
#                FAILs and the diff file says so.
#
# Prints `FILE  original:PASS|FAIL|SKIP  ours:PASS|FAIL|SKIP` per file, then
# totals; a file failing with both says so when the two diffs are the same
# (numbers, tmp names and the header's LuaJIT masked). Exit status 0 iff every file that passes
# with the original passes with ours (2 on a usage error or a refusal).
#
# Neither binary is installed anywhere: each run gets a fresh directory
# holding a wrapper named `sysbench` (`exec -a sysbench BIN "$@"`, keeping
# argv[0] as cmdline.t needs) first on PATH, for that run only.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

db=${RBENCH_SUITE_DB:-0}
db_force=${RBENCH_SUITE_DB_FORCE:-0}
keep=
bin=
while [ $# -gt 0 ]; do
    case "$1" in
    --db) db=1 ;;
    --db-force) db=1; db_force=1 ;;
    --keep) keep=${2:?--keep needs a directory}; shift ;;
    --keep=*) keep=${1#--keep=} ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) [ -z "$bin" ] || { echo "run.sh: one BIN only" >&2; exit 2; }; bin=$1 ;;
    esac
    shift
done

src=${SYSBENCH_SRC:-}
if [ -z "$src" ]; then
    echo "sysbench-suite: SYSBENCH_SRC is not set (an unpacked sysbench 1.0.20 tree); skipping"
    exit 0
fi
if [ ! -d "$src/tests/t" ] || [ ! -d "$src/tests/include" ] || [ ! -d "$src/src/lua" ]; then
    echo "sysbench-suite: SYSBENCH_SRC=$src has no tests/t, tests/include and src/lua; skipping"
    exit 0
fi
src=$(cd "$src" && pwd)

# cram: the command line as an array.
unset CRAM
cram=()
if [ -n "${CRAM_BIN:-}" ]; then
    cram=("$CRAM_BIN")
elif command -v cram >/dev/null 2>&1 && cram --version >/dev/null 2>&1; then
    cram=(cram)
elif python3 -c 'import cram' >/dev/null 2>&1; then
    cram=(python3 -m cram)
elif [ -f "$src/third_party/cram/scripts/cram" ]; then
    export PYTHONPATH="$src/third_party/cram${PYTHONPATH:+:$PYTHONPATH}"
    cram=(python3 "$src/third_party/cram/scripts/cram")
    "${cram[@]}" --version >/dev/null 2>&1 || cram=()
fi
if [ ${#cram[@]} -eq 0 ]; then
    echo "sysbench-suite: cram not found (pip install cram==0.7); skipping"
    exit 0
fi

bin=${bin:-$root/target/debug/rsysbench}
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
if [ ! -x "$bin" ]; then
    echo "run.sh: $bin is not an executable (cargo build -p rsysbench first)" >&2
    exit 2
fi

orig=${SYSBENCH_ORIG:-$(command -v sysbench || true)}
if [ -n "$orig" ] && [ "$(readlink -f "$orig")" = "$(readlink -f "$bin")" ]; then
    echo "run.sh: the original and ours are the same file ($orig)" >&2
    exit 2
fi
if [ -z "$orig" ] || [ ! -x "$orig" ]; then
    if [ "${RBENCH_REQUIRE_ORIGINALS:-}" = 1 ]; then
        echo "sysbench-suite: the original sysbench is required (RBENCH_REQUIRE_ORIGINALS=1) but is not installed" >&2
        exit 1
    fi
    echo "sysbench-suite: note: the original sysbench is not installed; running ours only"
    orig=
fi

if [ "$db" = 1 ]; then
    if [ -z "${RBENCH_MYSQL_ARGS:-}" ] && [ -z "${RBENCH_PGSQL_ARGS:-}" ]; then
        eval "$("$root/tests/db/servers.sh" env "${RBENCH_DB_DIR:-/tmp/rbench-db}")"
    fi
    export SBTEST_MYSQL_ARGS=${RBENCH_MYSQL_ARGS:-}
    export SBTEST_PGSQL_ARGS=${RBENCH_PGSQL_ARGS:-}
    [ -n "$SBTEST_MYSQL_ARGS" ] || unset SBTEST_MYSQL_ARGS
    [ -n "$SBTEST_PGSQL_ARGS" ] || unset SBTEST_PGSQL_ARGS
fi
if [ -z "$keep" ]; then
    keep=$(mktemp -d "${TMPDIR:-/tmp}/rsysbench-suite.XXXXXX")
fi
mkdir -p "$keep/ours" "$keep/original" || exit 2
keep=$(cd "$keep" && pwd)
rm -f "$keep"/ours/*.diff "$keep"/original/*.diff
scratch=$(mktemp -d "${TMPDIR:-/tmp}/rsysbench-suite-run.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM

# The suite's own client calls (db_show_table: `mysql -uroot sbtest`,
# `psql sbtest`) use the clients' defaults: point them at the same servers
# (mysql through $MYSQL_HOME/my.cnf, read after /etc/mysql/my.cnf).
opt() { # opt NAME ARGS: the value of --NAME=V in ARGS
    local a
    for a in $2; do
        case "$a" in --$1=*) echo "${a#--$1=}"; return ;; esac
    done
}
if [ -n "${SBTEST_MYSQL_ARGS:-}" ] && [ -z "${MYSQL_HOME:-}" ]; then
    mkdir -p "$scratch/mysql-home"
    {
        echo "[client]"
        v=$(opt mysql-socket "$SBTEST_MYSQL_ARGS"); [ -n "$v" ] && echo "socket=$v"
        v=$(opt mysql-host "$SBTEST_MYSQL_ARGS"); [ -n "$v" ] && echo "host=$v"
        v=$(opt mysql-port "$SBTEST_MYSQL_ARGS"); [ -n "$v" ] && echo "port=$v"
    } >"$scratch/mysql-home/my.cnf"
    export MYSQL_HOME="$scratch/mysql-home"
fi
if [ -n "${SBTEST_PGSQL_ARGS:-}" ]; then
    v=$(opt pgsql-host "$SBTEST_PGSQL_ARGS"); [ -n "$v" ] && export PGHOST=${PGHOST:-$v}
    v=$(opt pgsql-port "$SBTEST_PGSQL_ARGS"); [ -n "$v" ] && export PGPORT=${PGPORT:-$v}
    v=$(opt pgsql-user "$SBTEST_PGSQL_ARGS"); [ -n "$v" ] && export PGUSER=${PGUSER:-$v}
    v=$(opt pgsql-password "$SBTEST_PGSQL_ARGS"); [ -n "$v" ] && export PGPASSWORD=${PGPASSWORD:-$v}
fi

# The database files create and drop sbtest1..N (and t) in these databases:
# tables already there are someone else's (or an interrupted run's), would
# make prepare fail and be dropped by cleanup. Refuse unless --db-force.
held_tables() {
    local u p d t
    if [ -n "${SBTEST_MYSQL_ARGS:-}" ] && command -v mysql >/dev/null 2>&1; then
        u=$(opt mysql-user "$SBTEST_MYSQL_ARGS"); p=$(opt mysql-password "$SBTEST_MYSQL_ARGS")
        d=$(opt mysql-db "$SBTEST_MYSQL_ARGS")
        t=$(mysql ${u:+"-u$u"} ${p:+"-p$p"} -Nse 'SHOW TABLES' "${d:-sbtest}" 2>/dev/null | tr '\n' ' ')
        [ -z "$t" ] || echo "mysql ${d:-sbtest}: $t"
    fi
    if [ -n "${SBTEST_PGSQL_ARGS:-}" ] && command -v psql >/dev/null 2>&1; then
        d=$(opt pgsql-db "$SBTEST_PGSQL_ARGS")
        t=$(psql -qtAc "SELECT tablename FROM pg_tables WHERE schemaname = 'public'" "${d:-sbtest}" 2>/dev/null | tr '\n' ' ')
        [ -z "$t" ] || echo "pgsql ${d:-sbtest}: $t"
    fi
}
if [ -n "${SBTEST_MYSQL_ARGS:-}${SBTEST_PGSQL_ARGS:-}" ] && [ "$db_force" != 1 ]; then
    held=$(held_tables)
    if [ -n "$held" ]; then
        {
            echo "sysbench-suite: the databases already hold tables, which the suite's database files would"
            echo "trip over (prepare: already exists) and drop (cleanup):"
            echo "$held" | sed 's/^/  /'
            echo "Drop them if they are yours, point RBENCH_MYSQL_ARGS/RBENCH_PGSQL_ARGS (or RBENCH_DB_DIR with"
            echo "RBENCH_MY_PORT/RBENCH_PG_PORT) at other servers, or pass --db-force."
        } >&2
        exit 2
    fi
fi

# What configure and tests/test_run.sh would set up (test_run.sh itself
# cannot be used from an unbuilt tree: it puts the installed binary's
# directory first on PATH).
cat >"$scratch/config.sh" <<'EOF'
export SBTEST_VERSION_STRING="sysbench 1.0.20"
export SBTEST_VERSION="1.0.20"
export SBTEST_HAS_MYSQL=1
export SBTEST_HAS_PGSQL=1
EOF
export SBTEST_ROOTDIR="$src/tests"
export SBTEST_SCRIPTDIR="$src/src/lua"
export SBTEST_SUITEDIR="$src/tests/t"
export SBTEST_INCDIR="$src/tests/include"
export SBTEST_CONFIG="$scratch/config.sh"
export LUA_PATH="$SBTEST_SCRIPTDIR/?;$SBTEST_SCRIPTDIR/?.lua;$SBTEST_INCDIR/?;$SBTEST_INCDIR/?.lua"
# shellcheck disable=SC1091
. "$SBTEST_CONFIG"
export CRAMRC=/dev/null

wrapper() { # wrapper DIR TARGET: DIR/sysbench runs TARGET as `sysbench`
    mkdir -p "$1"
    # bash, not sh: dash has no `exec -a`.
    printf '#!/usr/bin/env bash\nexec -a sysbench %q "$@"\n' "$2" >"$1/sysbench"
    chmod +x "$1/sysbench"
}
[ -n "$orig" ] && wrapper "$scratch/bin-original" "$orig"
wrapper "$scratch/bin-ours" "$bin"

if [ -n "${FILES:-}" ]; then
    files=()
    for f in $FILES; do
        f=$(basename "$f" .t).t
        [ -f "$src/tests/t/$f" ] || { echo "run.sh: no $src/tests/t/$f" >&2; exit 2; }
        files+=("$f")
    done
else
    files=()
    for f in "$src"/tests/t/*.t; do files+=("$(basename "$f")"); done
fi

limit=${SUITE_TIMEOUT:-300}

# one WHO FILE: run FILE under cram with WHO's wrapper first on PATH; echo
# PASS, FAIL or SKIP; a failure's diff goes to $keep/WHO/FILE.diff.
one() {
    local who=$1 f=$2 dir out rc
    # The same path for both binaries: paths in messages (which LuaJIT
    # shortens from the left) then differ only in cram's random tmp name.
    dir="$scratch/run/${f%.t}"
    mkdir -p "$dir/tmp"
    cp "$src/tests/t/$f" "$dir/$f"
    out=$(cd "$dir" && PATH="$scratch/bin-$who:$PATH" TMPDIR="$dir/tmp" \
        timeout -k 10 "$limit" "${cram[@]}" --shell=/bin/bash "$f" 2>&1)
    rc=$?
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        { echo "# timed out after ${limit}s (SUITE_TIMEOUT)"; echo "$out"; } >"$keep/$who/$f.diff"
        echo FAIL
    elif [ -f "$dir/$f.err" ] || [ $rc -ne 0 ]; then
        echo "$out" >"$keep/$who/$f.diff"
        echo FAIL
    elif grep -q '^# Ran 1 tests, 1 skipped' <<<"$out"; then
        echo SKIP
    else
        echo PASS
    fi
    rm -rf "$dir"
}

# A diff as comparable text: cram's tmp names, the LuaJIT named in the
# header line (the suite globs it: `sysbench *.* * (glob)`) and numbers masked.
normalized() {
    sed -E -e 's#cramtests-[A-Za-z0-9_]+#cramtests-X#g' \
        -e 's#\(using (system|bundled) LuaJIT [^)]*\)#(using LuaJIT)#' -e 's#[0-9]+#N#g' "$1"
}

declare -A total=()
regressions=()
printf '%s\t%s\t%s\t%s\n' file original ours same_diff >"$keep/results.tsv"
for f in "${files[@]}"; do
    if [ -n "$orig" ]; then o=$(one original "$f"); else o=SKIP; fi
    u=$(one ours "$f")
    same=
    if [ "$o" = FAIL ] && [ "$u" = FAIL ] &&
        cmp -s <(normalized "$keep/original/$f.diff") <(normalized "$keep/ours/$f.diff"); then
        same=same
    fi
    printf '%-36s original:%-4s  ours:%-4s%s\n' "$f" "$o" "$u" "${same:+  (the same diff as the original)}"
    printf '%s\t%s\t%s\t%s\n' "$f" "$o" "$u" "$same" >>"$keep/results.tsv"
    total[o$o]=$(( ${total[o$o]:-0} + 1 ))
    total[u$u]=$(( ${total[u$u]:-0} + 1 ))
    if [ "$o" = PASS ] && [ "$u" != PASS ]; then regressions+=("$f"); fi
done

echo
printf 'totals (%d files): original: %d PASS, %d FAIL, %d SKIP; ours: %d PASS, %d FAIL, %d SKIP\n' \
    "${#files[@]}" "${total[oPASS]:-0}" "${total[oFAIL]:-0}" "${total[oSKIP]:-0}" \
    "${total[uPASS]:-0}" "${total[uFAIL]:-0}" "${total[uSKIP]:-0}"
echo "diffs: $keep"
if [ ${#regressions[@]} -gt 0 ]; then
    echo "pass with the original, not with ours (${#regressions[@]}): ${regressions[*]}"
    exit 1
fi
echo "every file that passes with the original passes with ours"
exit 0
