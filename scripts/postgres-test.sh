#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for bot-store's tests.
#
#   scripts/postgres-test.sh start   install PostgreSQL from Debian if missing, start the test
#                                    cluster, create the test role and database, print the URL
#   scripts/postgres-test.sh url     print the URL (TEST_POSTGRES_URL) of the test cluster
#   scripts/postgres-test.sh stop    stop the test cluster (its data stays for the next start)
#
# Typical use:  export TEST_POSTGRES_URL="$(scripts/postgres-test.sh start)"
#
# The cluster is our own (initdb in FAIRYBOT_PG_DIR, default /tmp/fairybot-pg, listening only
# on 127.0.0.1:FAIRYBOT_PG_PORT, default 55432), so it never touches a system cluster on 5432.
# Idempotent: starting a running cluster, or stopping a stopped one, does nothing. Works as
# root with no standard input (CI: the server then runs as the `postgres` user, because initdb
# refuses root) and as an ordinary user with PostgreSQL already installed.
# Progress goes to stderr; stdout carries only the URL.
set -euo pipefail

PG_DIR="${FAIRYBOT_PG_DIR:-/tmp/fairybot-pg}"
PG_PORT="${FAIRYBOT_PG_PORT:-55432}"
PG_USER=fairybot
PG_PASSWORD=fairybot
PG_DB=fairybot_test
DATA="$PG_DIR/data"

log() { echo "postgres-test: $*" >&2; }

url() {
    echo "postgres://$PG_USER:$PG_PASSWORD@127.0.0.1:$PG_PORT/$PG_DB?sslmode=disable"
}

# The newest installed server's bin directory, or nothing.
find_bindir() {
    local dir
    dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
    if [[ -n "$dir" && -x "$dir/initdb" ]]; then
        echo "$dir"
    elif command -v initdb >/dev/null 2>&1; then
        dirname "$(command -v initdb)"
    fi
}

install_postgres() {
    if [[ "$(id -u)" -ne 0 ]]; then
        log "PostgreSQL is not installed; run as root or: sudo apt-get install -y postgresql"
        exit 1
    fi
    log "installing PostgreSQL from Debian"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends postgresql </dev/null >&2
}

# Run a command as the cluster's owner: `postgres` when we are root, ourselves otherwise.
as_owner() {
    if [[ "$(id -u)" -eq 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

is_running() {
    [[ -f "$DATA/PG_VERSION" ]] && as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1
}

psql_admin() {
    as_owner "$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PG_DIR" -p "$PG_PORT" -d postgres "$@"
}

start() {
    BIN="$(find_bindir)"
    if [[ -z "$BIN" ]]; then
        install_postgres
        BIN="$(find_bindir)"
        [[ -n "$BIN" ]] || { log "no initdb after installing postgresql"; exit 1; }
    fi

    mkdir -p "$PG_DIR"
    if [[ "$(id -u)" -eq 0 ]]; then
        chown postgres: "$PG_DIR"
    fi
    if [[ ! -f "$DATA/PG_VERSION" ]]; then
        log "creating the test cluster in $DATA"
        as_owner "$BIN/initdb" -D "$DATA" -U postgres --auth-local=trust \
            --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/dev/null
    fi
    if is_running; then
        log "the test cluster is already running on 127.0.0.1:$PG_PORT"
    else
        log "starting the test cluster on 127.0.0.1:$PG_PORT"
        # Only TCP on loopback plus a socket inside our own directory (no /var/run access
        # needed). fsync stays on: the tests measure nothing here, but durability settings
        # should match production's.
        as_owner "$BIN/pg_ctl" -D "$DATA" -l "$PG_DIR/server.log" -w -t 60 \
            -o "-c listen_addresses=127.0.0.1 -c port=$PG_PORT -c unix_socket_directories=$PG_DIR" \
            start >/dev/null || { cat "$PG_DIR/server.log" >&2; exit 1; }
    fi

    if [[ -z "$(psql_admin -tAc "SELECT 1 FROM pg_roles WHERE rolname = '$PG_USER'")" ]]; then
        psql_admin -c "CREATE ROLE $PG_USER LOGIN PASSWORD '$PG_PASSWORD'"
    fi
    if [[ -z "$(psql_admin -tAc "SELECT 1 FROM pg_database WHERE datname = '$PG_DB'")" ]]; then
        psql_admin -c "CREATE DATABASE $PG_DB OWNER $PG_USER"
    fi
    url
}

stop() {
    BIN="$(find_bindir)"
    if [[ -n "$BIN" ]] && is_running; then
        log "stopping the test cluster"
        as_owner "$BIN/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null
    else
        log "the test cluster is not running"
    fi
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    url) url ;;
    *)
        echo "usage: $0 start|stop|url" >&2
        exit 2
        ;;
esac
