#!/usr/bin/env bash
# Comparison harness: run one of our tools and its original alternately on
# the same work, extract one metric from each, and print min/median/max of
# each and the ratio of the medians (ours / original).
#
#   tests/compare.sh list              list the scenarios
#   tests/compare.sh SCENARIO [RUNS]   run one scenario RUNS times (default 5)
#   tests/compare.sh TOOL [RUNS]       run all scenarios of TOOL (e.g. rmbw)
#   tests/compare.sh all [RUNS]        run every scenario
#
# COMPARE_CPU=N runs both commands pinned to CPU N (taskset), which steadies
# the numbers on a busy machine without favouring either side.
# COMPARE_METRIC=best compares the best run instead of the average (rmbw).
# COMPARE_DB=pgsql|mysql picks the server of the OLTP scenarios (default
# pgsql), reached with RBENCH_PGSQL_ARGS / RBENCH_MYSQL_ARGS, else with
# tests/db/servers.sh's defaults (start them first: tests/db/servers.sh
# start DIR); sysbench prepares the tables once, both tools run on them.
#
# Adding a scenario: add its name to SCENARIOS and a case in `scenario`
# setting TOOL, OURS and ORIG (command lines, run with `sh -c`), EXTRACT
# (a function reading the command's stdout and printing one number), UNIT,
# and BETTER (higher or lower). SIDE (functions like EXTRACT) and
# SIDE_NAMES (one word each) add columns read from the same runs, printed
# beside the metric (the pinned riperf runs: each end's CPU per GB).
# Each scenario prints the load average before and after its runs.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN="$ROOT/target/release"

SCENARIOS="rmbw-memcpy-256 rmbw-memcpy-1024 rmbw-loop-256 rmbw-loop-1024
           rsysbench-cpu-1 rsysbench-cpu-2 rsysbench-memory-1k
           rsysbench-memory-rnd-read rsysbench-threads rsysbench-mutex
           rsysbench-fileio-rndrd rsysbench-fileio-seqwr
           rsysbench-lua-empty rsysbench-oltp-ro-1 rsysbench-oltp-ro-8
           rsysbench-oltp-ps-1 rsysbench-oltp-ps-8 rsysbench-oltp-ro-cpu
           rsysbench-oltp-ps-cpu
           riperf-tcp-1 riperf-tcp-4 riperf-tcp-8 riperf-tcp-cpu riperf-udp-64
           riperf-pin-self riperf-pin-1 riperf-pin-cpu-client riperf-pin-cpu-server
           riperf-into-iperf3-1 riperf-into-iperf3-64
           rfio-null-randread rfio-psync-randread rfio-uring-randread-cpu
           rfio-uring-randread-iops rfio-libaio-write-1m rfio-null-submitters-2"

# mbw/rmbw: the Copy value of the (single) AVG line, in MiB/s; with
# COMPARE_METRIC=best, the best single run's Copy instead (a run can only
# be slowed by other load, so the best run is the least noisy figure).
extract_mbw_avg() {
    if [ "${COMPARE_METRIC:-avg}" = best ]; then
        awk -F'\t' '$1 != "AVG" && $2 ~ /^Method/ { split($5, f, " ");
            if (f[2] + 0 > best + 0) best = f[2] } END { if (best != "") print best }'
    else
        awk -F'\t' '$1 == "AVG" { split($5, f, " "); print f[2]; exit }'
    fi
}

# sysbench/rsysbench: the value of the "events per second:" line.
extract_sysbench_eps() {
    awk '/events per second:/ { print $NF; exit }'
}

# sysbench/rsysbench: events per second from the general statistics, for
# tests that print no "events per second:" line (fileio): events / time.
extract_sysbench_eps_any() {
    awk '/total time:/ { t = $NF + 0 } /total number of events:/ { n = $NF }
         END { if (t > 0) printf "%.2f\n", n / t }'
}

# sysbench/rsysbench: "total time:" in seconds (fixed-work tests: mutex).
extract_sysbench_total_time() {
    awk '/total time:/ { print $NF + 0; exit }'
}

# iperf3/riperf -J: the receiver's bits per second of the sum, in Gbit/s.
extract_iperf_gbps() {
    jq -r '.end.sum_received.bits_per_second / 1e9'
}

# iperf3/riperf -J, UDP: datagrams delivered (sent - lost) per second.
extract_iperf_udp_pps() {
    jq -r '(.end.sum.packets - .end.sum.lost_packets) / .end.sum.seconds'
}

# iperf3/riperf -J: CPU per throughput, client and server together:
# (host_total + remote_total) percent per Gbit/s received. Lower is better.
extract_iperf_cpu_per_gbps() {
    jq -r '(.end.cpu_utilization_percent.host_total + .end.cpu_utilization_percent.remote_total)
           / (.end.sum_received.bits_per_second / 1e9)'
}

# sysbench fileio runs on files prepared once, by sysbench itself, in FILEIO_DIR.
FILEIO_DIR=${TMPDIR:-/tmp}/rbench-compare-fileio
FILEIO_OPTS="--file-total-size=256M --file-num=16"
fileio_setup() {
    mkdir -p "$FILEIO_DIR" && cd "$FILEIO_DIR" && sysbench fileio $FILEIO_OPTS prepare >/dev/null
}
fileio_cleanup() {
    (cd "$FILEIO_DIR" 2>/dev/null && sysbench fileio $FILEIO_OPTS cleanup >/dev/null)
    rmdir "$FILEIO_DIR" 2>/dev/null || true
}
fileio_pair() { # mode
    OURS="cd $FILEIO_DIR && $BIN/rsysbench fileio $FILEIO_OPTS --file-test-mode=$1 --time=5 run"
    ORIG="cd $FILEIO_DIR && sysbench fileio $FILEIO_OPTS --file-test-mode=$1 --time=5 run"
    SETUP=fileio_setup CLEANUP=fileio_cleanup
}

# Lua scripts: an empty event() (the cost of the event loop itself).
LUA_DIR=${TMPDIR:-/tmp}/rbench-compare-lua
lua_setup() { mkdir -p "$LUA_DIR" && printf 'function event()\nend\n' > "$LUA_DIR/empty.lua"; }
lua_cleanup() { rm -rf "$LUA_DIR"; }

# OLTP on a real server: sysbench prepares 4 tables of 10000 rows once.
oltp_args() {
    local db=${COMPARE_DB:-pgsql} env
    env=$("$ROOT/tests/db/servers.sh" env "${RBENCH_DB_DIR:-/tmp/rbench-db}")
    if [ "$db" = mysql ]; then
        echo "--db-driver=mysql ${RBENCH_MYSQL_ARGS:-$(echo "$env" | sed -n "s/^export RBENCH_MYSQL_ARGS='\(.*\)'$/\1/p")}"
    else
        echo "--db-driver=pgsql ${RBENCH_PGSQL_ARGS:-$(echo "$env" | sed -n "s/^export RBENCH_PGSQL_ARGS='\(.*\)'$/\1/p")}"
    fi
}
OLTP_TABLES="--tables=4 --table-size=10000"
oltp_setup() { sysbench oltp_read_write $(oltp_args) $OLTP_TABLES --threads=4 prepare >/dev/null; }
oltp_cleanup() { sysbench oltp_read_write $(oltp_args) $OLTP_TABLES cleanup >/dev/null; }
oltp_pair() { # workload threads
    OURS="$BIN/rsysbench $1 $(oltp_args) $OLTP_TABLES --threads=$2 --time=5 run"
    ORIG="sysbench $1 $(oltp_args) $OLTP_TABLES --threads=$2 --time=5 run"
    TOOL=rsysbench SETUP=oltp_setup CLEANUP=oltp_cleanup
}
# The client's own CPU (user + system, from time(1)) per transaction, in µs.
oltp_cpu_pair() { # workload threads
    oltp_pair "$1" "$2"
    OURS="/usr/bin/time -f 'CPU %U %S' $OURS 2>&1"
    ORIG="/usr/bin/time -f 'CPU %U %S' $ORIG 2>&1"
}
extract_sysbench_tps() {
    awk '/transactions:/ { gsub(/\(/, "", $3); print $3; exit }'
}
extract_client_cpu_us_per_trx() {
    awk '/transactions:/ { n = $2 } /^CPU / { cpu = $2 + $3 }
         END { if (n > 0) printf "%.2f\n", cpu * 1e6 / n }'
}

# A loopback test: a one-off server and a client, same tool on both sides.
# Sets OURS and ORIG. Usage: iperf_pair PORT CLIENT-ARGS
iperf_pair() {
    OURS="$BIN/riperf -s -1 -p $1 >/dev/null 2>&1 & sleep 0.5; $BIN/riperf -c 127.0.0.1 -p $1 $2 -J; wait"
    ORIG="iperf3 -s -1 -p $(($1 + 1)) >/dev/null 2>&1 & sleep 0.5; iperf3 -c 127.0.0.1 -p $(($1 + 1)) $2 -J; wait"
}

# Pinned TCP runs: the server on CPU 0 (-A 0), the client on CPU 1 (-A 1),
# 5 s, each process timed by /usr/bin/time (user + system seconds from the
# kernel's accounting, not the tools' own figures); the command prints the
# client's -J document, then "CPU client U S" and "CPU server U S".
PIN_DIR=${TMPDIR:-/tmp}/rbench-compare-pin
pin_setup() { mkdir -p "$PIN_DIR"; }
pin_cleanup() { rm -rf "$PIN_DIR"; }
pin_cmd() { # server-binary client-binary port client-args
    local t="$PIN_DIR/$3"
    echo "/usr/bin/time -o $t.srv -f '%U %S' $1 -s -1 -p $3 -A 0 >/dev/null 2>&1 & sleep 0.5;" \
         "/usr/bin/time -o $t.cli -f '%U %S' $2 -c 127.0.0.1 -p $3 -A 1 $4 -J; wait;" \
         "printf 'CPU client %s\\nCPU server %s\\n' \"\$(cat $t.cli)\" \"\$(cat $t.srv)\""
}
pin_json() { grep -v '^CPU '; }
extract_pin_gbps() { pin_json | extract_iperf_gbps; }
# CPU seconds (user + system) of one end per GB received.
extract_pin_cpu() { # client|server
    local out; out=$(cat)
    local gb; gb=$(printf '%s\n' "$out" | pin_json | jq -r '.end.sum_received.bytes / 1e9')
    printf '%s\n' "$out" | awk -v who="$1" -v gb="$gb" '$1 == "CPU" && $2 == who { printf "%.4f\n", ($3 + $4) / gb }'
}
extract_pin_cpu_client() { extract_pin_cpu client; }
extract_pin_cpu_server() { extract_pin_cpu server; }

# fio/rfio --output-format=json: the first job's read IOPS, write
# bandwidth (MiB/s), and CPU time (usr + sys) per read I/O in ns: the
# usr_cpu/sys_cpu percentages are of the job's runtime (ms).
extract_fio_read_iops() {
    jq -r '.jobs[0].read.iops'
}
extract_fio_write_mibps() {
    jq -r '.jobs[0].write.bw_bytes / 1048576'
}
extract_fio_cpu_ns_per_io() {
    jq -r '.jobs[0] | (.usr_cpu + .sys_cpu) / 100 * .job_runtime * 1e6 / .read.total_ios'
}

# fio jobs run on one data file, laid out once by fio itself, in FIO_DIR,
# then read once so that it is in the page cache (the psync scenario runs
# with invalidate=0, which keeps it there: fio's default drops it).
FIO_DIR=${TMPDIR:-/tmp}/rbench-compare-fio
FIO_FILE=$FIO_DIR/data
fio_setup() {
    mkdir -p "$FIO_DIR" && fio --name=layout --filename="$FIO_FILE" --size=1G --rw=write --bs=1M \
        --ioengine=psync --end_fsync=1 >/dev/null && cat "$FIO_FILE" >/dev/null
}
fio_cleanup() {
    rm -f "$FIO_FILE"
    rmdir "$FIO_DIR" 2>/dev/null || true
}
# fio runs each job in a forked process that starts its own session, so
# the kernel's autogroup scheduling gives the job its own CPU share; rfio's
# job threads get the same through setsid, instead of sharing the share of
# whatever else runs in the caller's session.
fio_pair() { # job options (the same for both tools)
    OURS="setsid -w $BIN/rfio --output-format=json --name=job $1"
    ORIG="fio --output-format=json --name=job $1"
    TOOL=rfio
}

scenario() {
    EXTRACT=extract_mbw_avg UNIT="MiB/s" BETTER=higher SETUP=: CLEANUP=: SIDE="" SIDE_NAMES=""
    case "$1" in
    # mbw 1.2.2 times memcpy() under its DUMB label (-t1) and the element
    # loop under its MEMCPY label (-t0); rmbw's labels say what they time.
    rmbw-memcpy-256)
        TOOL=rmbw DESC="memcpy() of a 256 MiB array, 20 copies (rmbw -t0 MEMCPY vs mbw -t1 DUMB)"
        OURS="$BIN/rmbw -q -n 20 -t0 256" ORIG="mbw -q -n 20 -t1 256" ;;
    rmbw-memcpy-1024)
        TOOL=rmbw DESC="memcpy() of a 1 GiB array, 10 copies (rmbw -t0 MEMCPY vs mbw -t1 DUMB)"
        OURS="$BIN/rmbw -q -n 10 -t0 1024" ORIG="mbw -q -n 10 -t1 1024" ;;
    rmbw-loop-256)
        TOOL=rmbw DESC="8-byte element loop over 256 MiB, 20 copies (rmbw -t1 DUMB vs mbw -t0 MEMCPY)"
        OURS="$BIN/rmbw -q -n 20 -t1 256" ORIG="mbw -q -n 20 -t0 256" ;;
    rmbw-loop-1024)
        TOOL=rmbw DESC="8-byte element loop over 1 GiB, 10 copies (rmbw -t1 DUMB vs mbw -t0 MEMCPY)"
        OURS="$BIN/rmbw -q -n 10 -t1 1024" ORIG="mbw -q -n 10 -t0 1024" ;;
    # sysbench defines the work per event (the prime loop, the 1 KiB block):
    # rsysbench does the same work, so events/s compares overhead only.
    rsysbench-cpu-1)
        TOOL=rsysbench DESC="cpu test, --cpu-max-prime=10000, 1 thread, 5 s (events/s)"
        OURS="$BIN/rsysbench cpu --threads=1 --time=5 run" ORIG="sysbench cpu --threads=1 --time=5 run"
        EXTRACT=extract_sysbench_eps UNIT="events/s" ;;
    rsysbench-cpu-2)
        TOOL=rsysbench DESC="cpu test, --cpu-max-prime=10000, 2 threads, 5 s (events/s)"
        OURS="$BIN/rsysbench cpu --threads=2 --time=5 run" ORIG="sysbench cpu --threads=2 --time=5 run"
        EXTRACT=extract_sysbench_eps UNIT="events/s" ;;
    rsysbench-memory-1k)
        TOOL=rsysbench DESC="memory test, 1 KiB writes, 1 thread, 5 s (events/s)"
        OURS="$BIN/rsysbench memory --threads=1 --time=5 --memory-total-size=1T run"
        ORIG="sysbench memory --threads=1 --time=5 --memory-total-size=1T run"
        EXTRACT=extract_sysbench_eps_any UNIT="events/s" ;;
    rsysbench-memory-rnd-read)
        TOOL=rsysbench DESC="memory test, 1 KiB random reads, 1 thread, 5 s (events/s)"
        OURS="$BIN/rsysbench memory --memory-oper=read --memory-access-mode=rnd --time=5 --memory-total-size=1T run"
        ORIG="sysbench memory --memory-oper=read --memory-access-mode=rnd --time=5 --memory-total-size=1T run"
        EXTRACT=extract_sysbench_eps_any UNIT="events/s" ;;
    rsysbench-threads)
        TOOL=rsysbench DESC="threads test, 2 threads, 5 s (events/s)"
        OURS="$BIN/rsysbench threads --threads=2 --time=5 run" ORIG="sysbench threads --threads=2 --time=5 run"
        EXTRACT=extract_sysbench_eps_any UNIT="events/s" ;;
    rsysbench-mutex)
        TOOL=rsysbench DESC="mutex test, 2 threads (total time, s)"
        OURS="$BIN/rsysbench mutex --threads=2 run" ORIG="sysbench mutex --threads=2 run"
        EXTRACT=extract_sysbench_total_time UNIT="s" BETTER=lower ;;
    rsysbench-fileio-rndrd)
        TOOL=rsysbench DESC="fileio rndrd on the same 256 MiB of files, 5 s (events/s)"
        fileio_pair rndrd; EXTRACT=extract_sysbench_eps_any UNIT="events/s" ;;
    rsysbench-fileio-seqwr)
        TOOL=rsysbench DESC="fileio seqwr on the same 256 MiB of files, 5 s (events/s)"
        fileio_pair seqwr; EXTRACT=extract_sysbench_eps_any UNIT="events/s" ;;
    rsysbench-lua-empty)
        TOOL=rsysbench DESC="Lua script with an empty event(), 3M events, 1 thread (events/s)"
        OURS="$BIN/rsysbench $LUA_DIR/empty.lua --events=3000000 --time=0 run"
        ORIG="sysbench $LUA_DIR/empty.lua --events=3000000 --time=0 run"
        SETUP=lua_setup CLEANUP=lua_cleanup EXTRACT=extract_sysbench_eps_any UNIT="events/s" ;;
    rsysbench-oltp-ro-1)
        DESC="oltp_read_only, 1 thread, 5 s, same tables (COMPARE_DB, default pgsql) (tps)"
        oltp_pair oltp_read_only 1; EXTRACT=extract_sysbench_tps UNIT="tps" ;;
    rsysbench-oltp-ro-8)
        DESC="oltp_read_only, 8 threads, 5 s, same tables (tps)"
        oltp_pair oltp_read_only 8; EXTRACT=extract_sysbench_tps UNIT="tps" ;;
    rsysbench-oltp-ps-1)
        DESC="oltp_point_select, 1 thread, 5 s, same tables (tps)"
        oltp_pair oltp_point_select 1; EXTRACT=extract_sysbench_tps UNIT="tps" ;;
    rsysbench-oltp-ps-8)
        DESC="oltp_point_select, 8 threads, 5 s, same tables (tps)"
        oltp_pair oltp_point_select 8; EXTRACT=extract_sysbench_tps UNIT="tps" ;;
    rsysbench-oltp-ro-cpu)
        DESC="oltp_read_only, 1 thread, 5 s: client CPU (usr+sys) per transaction"
        oltp_cpu_pair oltp_read_only 1; EXTRACT=extract_client_cpu_us_per_trx UNIT="us/trx" BETTER=lower ;;
    rsysbench-oltp-ps-cpu)
        DESC="oltp_point_select, 1 thread, 5 s: client CPU (usr+sys) per transaction"
        oltp_cpu_pair oltp_point_select 1; EXTRACT=extract_client_cpu_us_per_trx UNIT="us/trx" BETTER=lower ;;
    # Each tool against its own server on loopback: what a user sees.
    riperf-tcp-1)
        TOOL=riperf DESC="TCP over loopback, 1 stream, 3 s, own server (Gbit/s received)"
        iperf_pair 25301 "-t 3"
        EXTRACT=extract_iperf_gbps UNIT="Gbit/s" ;;
    riperf-tcp-4)
        TOOL=riperf DESC="TCP over loopback, 4 streams, 3 s, own server (Gbit/s received)"
        iperf_pair 25303 "-t 3 -P 4"
        EXTRACT=extract_iperf_gbps UNIT="Gbit/s" ;;
    riperf-tcp-8)
        TOOL=riperf DESC="TCP over loopback, 8 streams, 3 s, own server (Gbit/s received)"
        iperf_pair 25305 "-t 3 -P 8"
        EXTRACT=extract_iperf_gbps UNIT="Gbit/s" ;;
    riperf-tcp-cpu)
        TOOL=riperf DESC="TCP over loopback, 1 stream, 3 s: CPU % (client + server) per Gbit/s"
        iperf_pair 25307 "-t 3"
        EXTRACT=extract_iperf_cpu_per_gbps UNIT="%/Gbit/s" BETTER=lower ;;
    riperf-udp-64)
        TOOL=riperf DESC="UDP over loopback, 64-byte datagrams, -b 0, 3 s (datagrams delivered/s)"
        iperf_pair 25309 "-u -l 64 -b 0 -t 3"
        EXTRACT=extract_iperf_udp_pps UNIT="datagrams/s" ;;
    # Pinned (server -A 0, client -A 1), 5 s: the comparisons issue 17 asks for.
    riperf-pin-self)
        TOOL=riperf DESC="riperf -> riperf against itself, pinned, 5 s (the harness's noise: Gbit/s)"
        OURS=$(pin_cmd "$BIN/riperf" "$BIN/riperf" 25321 "-t 5")
        ORIG=$(pin_cmd "$BIN/riperf" "$BIN/riperf" 25322 "-t 5")
        SETUP=pin_setup CLEANUP=pin_cleanup EXTRACT=extract_pin_gbps UNIT="Gbit/s"
        SIDE="extract_pin_cpu_client extract_pin_cpu_server" SIDE_NAMES="client-CPU-s/GB server-CPU-s/GB" ;;
    riperf-pin-1)
        TOOL=riperf DESC="riperf -> riperf vs iperf3 -> iperf3, 1 stream, pinned, 5 s (Gbit/s)"
        OURS=$(pin_cmd "$BIN/riperf" "$BIN/riperf" 25323 "-t 5")
        ORIG=$(pin_cmd iperf3 iperf3 25324 "-t 5")
        SETUP=pin_setup CLEANUP=pin_cleanup EXTRACT=extract_pin_gbps UNIT="Gbit/s"
        SIDE="extract_pin_cpu_client extract_pin_cpu_server" SIDE_NAMES="client-CPU-s/GB server-CPU-s/GB" ;;
    riperf-pin-cpu-client)
        TOOL=riperf DESC="as riperf-pin-1: the client's CPU seconds (usr+sys) per GB"
        OURS=$(pin_cmd "$BIN/riperf" "$BIN/riperf" 25325 "-t 5")
        ORIG=$(pin_cmd iperf3 iperf3 25326 "-t 5")
        SETUP=pin_setup CLEANUP=pin_cleanup EXTRACT=extract_pin_cpu_client UNIT="s/GB" BETTER=lower ;;
    riperf-pin-cpu-server)
        TOOL=riperf DESC="as riperf-pin-1: the server's CPU seconds (usr+sys) per GB"
        OURS=$(pin_cmd "$BIN/riperf" "$BIN/riperf" 25327 "-t 5")
        ORIG=$(pin_cmd iperf3 iperf3 25328 "-t 5")
        SETUP=pin_setup CLEANUP=pin_cleanup EXTRACT=extract_pin_cpu_server UNIT="s/GB" BETTER=lower ;;
    riperf-into-iperf3-1)
        TOOL=riperf DESC="riperf client vs iperf3 client into an iperf3 server, -P 1, pinned, 5 s (Gbit/s)"
        OURS=$(pin_cmd iperf3 "$BIN/riperf" 25329 "-t 5")
        ORIG=$(pin_cmd iperf3 iperf3 25330 "-t 5")
        SETUP=pin_setup CLEANUP=pin_cleanup EXTRACT=extract_pin_gbps UNIT="Gbit/s"
        SIDE="extract_pin_cpu_client extract_pin_cpu_server" SIDE_NAMES="client-CPU-s/GB server-CPU-s/GB" ;;
    riperf-into-iperf3-64)
        TOOL=riperf DESC="riperf client vs iperf3 client into an iperf3 server, -P 64 -w 256K -O 1, pinned, 5 s (Gbit/s)"
        OURS=$(pin_cmd iperf3 "$BIN/riperf" 25331 "-t 5 -P 64 -w 256K -O 1")
        ORIG=$(pin_cmd iperf3 iperf3 25332 "-t 5 -P 64 -w 256K -O 1")
        SETUP=pin_setup CLEANUP=pin_cleanup EXTRACT=extract_pin_gbps UNIT="Gbit/s"
        SIDE="extract_pin_cpu_client extract_pin_cpu_server" SIDE_NAMES="client-CPU-s/GB server-CPU-s/GB" ;;
    # The same job for both; latency stats (slat/clat/lat, percentiles) stay on.
    rfio-null-randread)
        DESC="ioengine=null, 4k randread, 3 s, full latency stats (read IOPS)"
        fio_pair "--ioengine=null --rw=randread --bs=4k --size=1G --time_based --runtime=3"
        EXTRACT=extract_fio_read_iops UNIT="IOPS" ;;
    rfio-psync-randread)
        DESC="ioengine=psync, 4k randread on a cached 1 GiB file, 3 s (read IOPS)"
        fio_pair "--filename=$FIO_FILE --ioengine=psync --invalidate=0 --rw=randread --bs=4k --size=1G --time_based --runtime=3"
        SETUP=fio_setup CLEANUP=fio_cleanup EXTRACT=extract_fio_read_iops UNIT="IOPS" ;;
    rfio-uring-randread-cpu)
        DESC="ioengine=io_uring, 4k randread, direct, iodepth=32, 3 s: CPU ns (usr+sys) per I/O"
        fio_pair "--filename=$FIO_FILE --ioengine=io_uring --direct=1 --iodepth=32 --rw=randread --bs=4k --size=1G --time_based --runtime=3"
        SETUP=fio_setup CLEANUP=fio_cleanup EXTRACT=extract_fio_cpu_ns_per_io UNIT="ns/IO" BETTER=lower ;;
    rfio-uring-randread-iops)
        DESC="ioengine=io_uring, 4k randread, direct, iodepth=32, 3 s (read IOPS)"
        fio_pair "--filename=$FIO_FILE --ioengine=io_uring --direct=1 --iodepth=32 --rw=randread --bs=4k --size=1G --time_based --runtime=3"
        SETUP=fio_setup CLEANUP=fio_cleanup EXTRACT=extract_fio_read_iops UNIT="IOPS" ;;
    # rbench's submitters=N extension against rfio itself (fio has none):
    # "original" is the same job on one submitter thread.
    rfio-null-submitters-2)
        DESC="ioengine=null, 4k randread, 3 s: rfio submitters=2 vs rfio submitters=1 (read IOPS)"
        fio_pair "--ioengine=null --rw=randread --bs=4k --size=1G --time_based --runtime=3"
        ORIG="$OURS --submitters=1" OURS="$OURS --submitters=2"
        EXTRACT=extract_fio_read_iops UNIT="IOPS" ;;
    rfio-libaio-write-1m)
        DESC="ioengine=libaio, 1M sequential write, direct, iodepth=8, 3 s (write MiB/s)"
        fio_pair "--filename=$FIO_FILE --ioengine=libaio --direct=1 --iodepth=8 --rw=write --bs=1M --size=1G --time_based --runtime=3"
        SETUP=fio_setup CLEANUP=fio_cleanup EXTRACT=extract_fio_write_mibps UNIT="MiB/s" ;;
    *) return 1 ;;
    esac
}

# min median max of numbers on stdin (one per line).
stats() {
    sort -g | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print "nan nan nan"; exit }
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.3f %.3f %.3f\n", v[1], m, v[NR] }'
}

measure() { # command -> metric, then the SIDE columns, on one line
    local out value pin="" e side=""
    [ -z "${COMPARE_CPU:-}" ] || pin="taskset -c $COMPARE_CPU"
    out=$($pin sh -c "$1" 2>/dev/null) || { echo "compare.sh: '$1' failed" >&2; return 1; }
    value=$(printf '%s\n' "$out" | "$EXTRACT")
    [ -n "$value" ] || { echo "compare.sh: no metric in the output of '$1'" >&2; return 1; }
    for e in ${SIDE:-}; do side="$side $(printf '%s\n' "$out" | "$e")"; done
    echo "$value$side"
}

# The SIDE columns: the lines measure() printed for each run are in
# OURS_LINES and ORIG_LINES; prints each column's medians and their ratio,
# and keeps the ratios in SIDE_SUMMARY for the summary table.
side_columns() {
    local k=2 name om rm ratio
    SIDE_SUMMARY=""
    for name in ${SIDE_NAMES:-}; do
        om=$(printf '%s' "$OURS_LINES" | awk -v k=$k '{ print $k }' | stats | cut -d' ' -f2)
        rm=$(printf '%s' "$ORIG_LINES" | awk -v k=$k '{ print $k }' | stats | cut -d' ' -f2)
        ratio=$(awk -v o="$om" -v r="$rm" 'BEGIN { printf "%.3f", (r == 0) ? 0 : o / r }')
        printf '   %-22s median ours %s, original %s, ratio %s\n' "$name" "$om" "$rm" "$ratio"
        SIDE_SUMMARY="$SIDE_SUMMARY  $name $ratio"
        k=$((k + 1))
    done
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?"; }

run_scenario() { # name runs
    local name=$1 runs=$2 i ours_vals="" orig_vals="" pair_vals="" o r
    scenario "$name" || { echo "compare.sh: unknown scenario '$name' (try: list)" >&2; return 2; }
    command -v "${ORIG%% *}" >/dev/null || { echo "compare.sh: the original '${ORIG%% *}' is not installed" >&2; return 2; }
    (cd "$ROOT" && cargo build --release -q -p "$TOOL")
    ( $SETUP ) || { echo "compare.sh: setup of '$name' failed" >&2; return 2; }
    trap '( $CLEANUP )' EXIT
    echo "== $name: $DESC"
    echo "   load average before: $(loadavg)"
    OURS_LINES="" ORIG_LINES=""
    for i in $(seq 1 "$runs"); do
        # Alternate which goes first so neither always runs on a warmer machine.
        if [ $((i % 2)) -eq 1 ]; then
            o=$(measure "$OURS"); r=$(measure "$ORIG")
        else
            r=$(measure "$ORIG"); o=$(measure "$OURS")
        fi
        OURS_LINES="$OURS_LINES$o
" ORIG_LINES="$ORIG_LINES$r
"
        [ -z "${SIDE:-}" ] || printf '   run %d columns (%s): ours %s, original %s\n' \
            "$i" "$SIDE_NAMES" "${o#* }" "${r#* }"
        o=${o%% *} r=${r%% *}
        ours_vals="$ours_vals$o
"
        orig_vals="$orig_vals$r
"
        pair_vals="$pair_vals$(awk -v o="$o" -v r="$r" 'BEGIN { printf "%.6f", (r == 0) ? 0 : o / r }')
"
        printf '   run %d: ours %s, original %s %s\n' "$i" "$o" "$r" "$UNIT"
    done
    set -- $(printf '%s' "$ours_vals" | stats)
    local omin=$1 omed=$2 omax=$3
    set -- $(printf '%s' "$orig_vals" | stats)
    local rmin=$1 rmed=$2 rmax=$3
    printf '   %-9s min %12s  median %12s  max %12s %s\n' "ours" "$omin" "$omed" "$omax" "$UNIT"
    printf '   %-9s min %12s  median %12s  max %12s %s\n' "original" "$rmin" "$rmed" "$rmax" "$UNIT"
    local ratio
    ratio=$(awk -v o="$omed" -v r="$rmed" 'BEGIN { printf "%.3f", (r == 0) ? 0 : o / r }')
    printf '   ratio ours/original (medians): %s (%s is better)\n' "$ratio" "$BETTER"
    set -- $(printf '%s' "$pair_vals" | stats)
    # Each pair ran back to back, so its ratio is less exposed to slow drifts
    # in machine load than the ratio of the two medians.
    printf '   paired ratios ours/original: min %s median %s max %s\n' "$1" "$2" "$3"
    local paired=$2
    side_columns
    echo "   load average after: $(loadavg)"
    ( $CLEANUP ); trap - EXIT
    SUMMARY="$SUMMARY$(printf '%-18s %14s %14s %7s %7s' "$name" "$rmed" "$omed" "$ratio" "$paired")$SIDE_SUMMARY
"
}

SUMMARY=""

main() {
    local what=${1:-} runs=${2:-5} s found=0
    case "$runs" in ''|*[!0-9]*|0) echo "compare.sh: RUNS must be a positive number" >&2; exit 2 ;; esac
    case "$what" in
    ''|-h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
    list)
        for s in $SCENARIOS; do scenario "$s"; printf '%-20s %-8s %s\n' "$s" "$TOOL" "$DESC"; done ;;
    *)
        for s in $SCENARIOS; do
            scenario "$s"
            if [ "$what" = all ] || [ "$what" = "$TOOL" ] || [ "$what" = "$s" ]; then
                found=1
                run_scenario "$s" "$runs"
            fi
        done
        [ $found -eq 1 ] || { echo "compare.sh: unknown scenario '$what' (try: list)" >&2; exit 2; }
        echo
        printf '%-18s %14s %14s %7s %7s\n' scenario "original med." "ours median" ratio paired
        printf '%s' "$SUMMARY" ;;
    esac
}

main "$@"
