#!/usr/bin/env bash
# A throwaway Synapse homeserver on loopback for bot-matrix's end-to-end tests.
#
#   scripts/synapse-test.sh start   install Synapse from PyPI into a venv if missing, write its
#                                   configuration once, start it, wait until it answers, print
#                                   its URL (FAIRYBOT_TEST_SYNAPSE_URL)
#   scripts/synapse-test.sh url     print the URL of the test homeserver
#   scripts/synapse-test.sh stop    stop it (its database stays for the next start)
#
# Typical use:  export FAIRYBOT_TEST_SYNAPSE_URL="$(scripts/synapse-test.sh start)"
#
# The server is named `localhost` (user ids `@name:localhost`), listens only on
# 127.0.0.1:FAIRYBOT_SYNAPSE_PORT (default 58008), has no federation and never contacts
# matrix.org (trusted_key_servers is empty). Registration is open without verification, so the
# tests create their own users with fresh names through the client API, and every rate limit is
# lifted (Synapse's defaults answer 429 within seconds of a test suite). Never expose it.
#
# FAIRYBOT_SYNAPSE_DIR (default /tmp/fairybot-synapse) holds the venv, the configuration, the
# database and the log; FAIRYBOT_SYNAPSE_VERSION pins the PyPI release (default 1.163.2).
# Idempotent: starting a running server, or stopping a stopped one, does nothing. Progress goes
# to stderr; stdout carries only the URL. The configuration is written on the first start;
# to change the port later, use another FAIRYBOT_SYNAPSE_DIR (or delete this one).
set -euo pipefail

DIR="${FAIRYBOT_SYNAPSE_DIR:-/tmp/fairybot-synapse}"
PORT="${FAIRYBOT_SYNAPSE_PORT:-58008}"
VERSION="${FAIRYBOT_SYNAPSE_VERSION:-1.163.2}"
VENV="$DIR/venv"
CONFIG="$DIR/homeserver.yaml"
# Written by Synapse itself when it daemonizes (as synctl starts it), so it is the server's
# own pid whatever shell or job control started this script.
PIDFILE="$DIR/data/homeserver.pid"

log() { echo "synapse-test: $*" >&2; }

url() {
    echo "http://127.0.0.1:$PORT"
}

answers() {
    curl -fsS --max-time 2 "$(url)/_matrix/client/versions" >/dev/null 2>&1
}

install_synapse() {
    if [[ -x "$VENV/bin/python" ]] && "$VENV/bin/python" -c "import synapse" 2>/dev/null; then
        return
    fi
    local python
    python="$(command -v python3 || true)"
    [[ -n "$python" ]] || { log "python3 (3.10 or newer) is needed to install Synapse"; exit 1; }
    log "installing matrix-synapse $VERSION from PyPI into $VENV (about 30 s)"
    rm -rf "$VENV"
    "$python" -m venv "$VENV" >&2
    "$VENV/bin/pip" install -q --disable-pip-version-check "matrix-synapse==$VERSION" >&2
}

write_config() {
    [[ -f "$CONFIG" ]] && return
    log "generating the configuration in $DIR"
    mkdir -p "$DIR/data"
    # The generated log configuration names homeserver.log relative to the current directory.
    (cd "$DIR" && "$VENV/bin/python" -m synapse.app.homeserver --server-name localhost \
        --config-path "$CONFIG" --data-directory "$DIR/data" \
        --generate-config --report-stats=no >/dev/null)
    # Keep the generated secrets and signing key; replace what the tests need.
    "$VENV/bin/python" - "$CONFIG" "$PORT" "$DIR" <<'PY'
import sys, yaml
path, port, d = sys.argv[1], int(sys.argv[2]), sys.argv[3]
c = yaml.safe_load(open(path))
c["listeners"] = [{"port": port, "bind_addresses": ["127.0.0.1"], "type": "http",
                   "tls": False, "x_forwarded": False,
                   "resources": [{"names": ["client"], "compress": False}]}]
c["database"] = {"name": "sqlite3", "args": {"database": f"{d}/data/homeserver.db"}}
c["pid_file"] = f"{d}/data/homeserver.pid"
c["media_store_path"] = f"{d}/data/media_store"
c["enable_registration"] = True
c["enable_registration_without_verification"] = True
c["report_stats"] = False
c["trusted_key_servers"] = []
c["suppress_key_server_warning"] = True
c["federation_domain_whitelist"] = []
c["url_preview_enabled"] = False
c["presence"] = {"enabled": False}
c["enable_metrics"] = False
c["max_upload_size"] = "10M"
unlimited = {"per_second": 10000, "burst_count": 10000}
for key in ["rc_message", "rc_registration", "rc_joins_per_room", "rc_3pid_validation",
            "rc_admin_redaction", "rc_media_create", "rc_room_creation", "rc_presence",
            "rc_delayed_event_mgmt", "rc_reports", "rc_user_directory", "rc_key_requests"]:
    c[key] = dict(unlimited)
c["rc_login"] = {"address": unlimited, "account": unlimited, "failed_attempts": unlimited}
c["rc_joins"] = {"local": unlimited, "remote": unlimited}
c["rc_invites"] = {"per_room": unlimited, "per_user": unlimited, "per_issuer": unlimited}
yaml.safe_dump(c, open(path, "w"))
PY
}

is_running() {
    [[ -f "$PIDFILE" ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null
}

start() {
    mkdir -p "$DIR"
    install_synapse
    write_config
    if is_running && answers; then
        log "already running on $(url)"
        url
        return
    fi
    if answers; then
        log "port $PORT answers but is not our server; set FAIRYBOT_SYNAPSE_PORT"
        exit 1
    fi
    log "starting on $(url)"
    # --daemonize: the server detaches, outlives this script and writes its pid file.
    rm -f "$PIDFILE"
    (cd "$DIR" && "$VENV/bin/python" -m synapse.app.homeserver -c "$CONFIG" --daemonize \
        >"$DIR/synapse.out" 2>&1 </dev/null) || true
    for _ in $(seq 1 240); do
        if answers; then
            url
            return
        fi
        sleep 0.25
    done
    log "Synapse did not start; the end of $DIR/synapse.out:"
    tail -n 40 "$DIR/synapse.out" >&2 || true
    exit 1
}

stop() {
    if is_running; then
        log "stopping"
        local pid
        pid="$(cat "$PIDFILE")"
        kill "$pid"
        for _ in $(seq 1 80); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.25
        done
    else
        log "not running"
    fi
    rm -f "$PIDFILE"
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
