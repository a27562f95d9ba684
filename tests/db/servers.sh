#!/usr/bin/env bash
# Throwaway PostgreSQL and MariaDB servers on loopback for the tests.
#
#   tests/db/servers.sh start DIR   initialise (once) and start both under DIR
#   tests/db/servers.sh stop DIR    stop both (idempotent)
#   tests/db/servers.sh env DIR     print the exports the tests read
#
# Both listen on 127.0.0.1 only, on ports no default install uses, with a
# user sbtest/sbtest owning a database sbtest, as sysbench's docs and cram
# suite expect. Run as root (PostgreSQL's files belong to the postgres user).
set -euo pipefail

cmd=${1:?usage: servers.sh start|stop|env DIR}
dir=${2:?usage: servers.sh start|stop|env DIR}
pg_port=${RBENCH_PG_PORT:-15432}
my_port=${RBENCH_MY_PORT:-13306}
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
pg=$dir/pgsql
my=$dir/mysql

as_pg() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi; }

start_pg() {
    mkdir -p "$pg"
    [ "$(id -u)" = 0 ] && chown postgres: "$pg"
    if [ ! -f "$pg/data/PG_VERSION" ]; then
        as_pg "'$pg_bin/initdb' -D '$pg/data' -A trust -U postgres >'$pg/initdb.log' 2>&1"
    fi
    as_pg "'$pg_bin/pg_ctl' -D '$pg/data' -l '$pg/server.log' -w -t 60 \
        -o \"-h 127.0.0.1 -p $pg_port -k '$pg' -c fsync=off -c max_connections=300\" start" >/dev/null
    "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -q -v ON_ERROR_STOP=0 postgres >/dev/null 2>&1 <<SQL || true
CREATE USER sbtest WITH PASSWORD 'sbtest' CREATEDB;
CREATE DATABASE sbtest OWNER sbtest;
SQL
}

start_my() {
    mkdir -p "$my"
    [ "$(id -u)" = 0 ] && chown mysql: "$my" 2>/dev/null || true
    if [ ! -d "$my/data/mysql" ]; then
        mariadb-install-db --no-defaults --datadir="$my/data" --user="$(id -un | sed 's/^root$/mysql/')" \
            --auth-root-authentication-method=normal >"$my/install.log" 2>&1
    fi
    mariadbd --no-defaults --datadir="$my/data" --user=mysql --bind-address=127.0.0.1 \
        --port="$my_port" --socket="$my/mysql.sock" --pid-file="$my/mysqld.pid" \
        --log-error="$my/server.log" --skip-name-resolve --max-connections=300 \
        --innodb-flush-log-at-trx-commit=0 --innodb-buffer-pool-size=256M >/dev/null 2>&1 &
    for _ in $(seq 600); do
        mariadb-admin --no-defaults -S "$my/mysql.sock" -uroot ping >/dev/null 2>&1 && break
        sleep 0.1
    done
    mariadb --no-defaults -S "$my/mysql.sock" -uroot <<SQL
CREATE DATABASE IF NOT EXISTS sbtest;
CREATE USER IF NOT EXISTS 'sbtest'@'%' IDENTIFIED BY 'sbtest';
CREATE USER IF NOT EXISTS 'sbtest'@'localhost' IDENTIFIED BY 'sbtest';
GRANT ALL ON *.* TO 'sbtest'@'%';
GRANT ALL ON *.* TO 'sbtest'@'localhost';
SQL
}

stop_pg() {
    [ -f "$pg/data/postmaster.pid" ] || return 0
    as_pg "'$pg_bin/pg_ctl' -D '$pg/data' -m fast -w -t 60 stop" >/dev/null 2>&1 || true
}

stop_my() {
    [ -f "$my/mysqld.pid" ] || return 0
    local pid; pid=$(cat "$my/mysqld.pid" 2>/dev/null || true)
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    for _ in $(seq 600); do
        [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
}

case "$cmd" in
start) mkdir -p "$dir"; start_pg; start_my ;;
stop) stop_my; stop_pg ;;
env)
    echo "export RBENCH_PGSQL_ARGS='--pgsql-host=127.0.0.1 --pgsql-port=$pg_port --pgsql-user=sbtest --pgsql-password=sbtest --pgsql-db=sbtest'"
    echo "export RBENCH_MYSQL_ARGS='--mysql-socket=$my/mysql.sock --mysql-user=sbtest --mysql-password=sbtest --mysql-db=sbtest'"
    ;;
*) echo "usage: servers.sh start|stop|env DIR" >&2; exit 2 ;;
esac
