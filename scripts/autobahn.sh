#!/usr/bin/env bash
# Runs the Autobahn WebSocket test suite against JChomp:
#   scripts/autobahn.sh server   the server's echo path against `wstest -m fuzzingclient`
#   scripts/autobahn.sh client   the client connection code (the `autobahn_client` example of
#                                jchomp-tui) against `wstest -m fuzzingserver`
#   scripts/autobahn.sh all      both (the default)
# Installs what it needs itself: a Python 2.7 virtualenv holding the PyPI package
# `autobahntestsuite`, outside the repository (AUTOBAHN_HOME, default ~/.cache/jchomp-autobahn).
# Python 2.7 is taken from $PYTHON2, else pyenv's 2.7.x, else `python2.7` on the PATH.
# The size and rate limits are raised (by the server's flags, and in the echo client) so that the
# suite's 16 MiB and 1000-message cases run; AUTOBAHN_DEFAULT_LIMITS=1 keeps the defaults, and the
# cases past them then end with the limit's close code (which the suite counts as failures).
# Reports go to AUTOBAHN_HOME/reports/{server,client}; the script exits non-zero if any case
# ends in a verdict other than OK, NON-STRICT or INFORMATIONAL (UNIMPLEMENTED is allowed only
# for the compression cases 12.* and 13.*, which JChomp does not negotiate).
set -euo pipefail

MODE="${1:-all}"
HOME_DIR="${AUTOBAHN_HOME:-$HOME/.cache/jchomp-autobahn}"
VENV="$HOME_DIR/venv"
REPO="$(cd "$(dirname "$0")/.." && pwd)"
CARGO="${CARGO:-cargo}"

find_python2() {
    if [ -n "${PYTHON2:-}" ]; then echo "$PYTHON2"; return; fi
    if command -v pyenv >/dev/null 2>&1; then
        local root v
        root="$(pyenv root)"
        for v in "$root"/versions/2.7*; do
            if [ -x "$v/bin/python" ]; then echo "$v/bin/python"; return; fi
        done
    fi
    if command -v python2.7 >/dev/null 2>&1; then command -v python2.7; return; fi
    echo "autobahn.sh: Python 2.7 not found (set PYTHON2)" >&2
    exit 2
}

install() {
    if [ -x "$VENV/bin/wstest" ]; then return; fi
    local py
    py="$(find_python2)"
    mkdir -p "$HOME_DIR"
    echo "autobahn.sh: installing autobahntestsuite into $VENV (Python: $py)"
    # virtualenv 16 is a single module that runs on Python 2.7.
    "$py" -m pip install --disable-pip-version-check --quiet --target "$HOME_DIR/bootstrap" \
        'virtualenv==16.7.12'
    PYTHONPATH="$HOME_DIR/bootstrap" "$py" -m virtualenv --quiet "$VENV"
    # The last releases of the suite's dependencies that still run on Python 2.7.
    "$VENV/bin/pip" install --disable-pip-version-check --quiet \
        'autobahntestsuite==0.8.2' 'autobahn==0.10.9' 'twisted==20.3.0' \
        'pyopenssl==19.1.0' 'cryptography==3.3.2' 'service-identity==18.1.0' \
        'klein==17.10.0' 'werkzeug==1.0.1' 'jinja2==2.11.3' 'markupsafe==1.1.1' \
        'zope.interface==5.5.2' 'attrs==21.4.0' 'six==1.16.0' 'pyasn1==0.4.8' \
        'pyasn1-modules==0.2.8' 'incremental==21.3.0' 'constantly==15.1.0' \
        'automat==20.2.0' 'hyperlink==21.0.0' 'idna==2.10' 'pyhamcrest==1.10.1' \
        'unittest2==1.1.0' 'cffi==1.15.1' 'pycparser==2.21' 'enum34==1.1.10' \
        'ipaddress==1.0.23' 'typing==3.10.0.0' 'setuptools<45'
}

# Prints the failing cases of an index.json and returns non-zero if there are any.
check_report() {
    "$VENV/bin/python" - "$1" <<'PY'
import json, sys
index = json.load(open(sys.argv[1]))
bad, counts = [], {}
for agent, cases in sorted(index.items()):
    for case, r in sorted(cases.items()):
        for key in ("behavior", "behaviorClose"):
            v = r[key]
            counts[v] = counts.get(v, 0) + 1 if key == "behavior" else counts.get(v, 0)
            ok = v in ("OK", "NON-STRICT", "INFORMATIONAL") or (
                v == "UNIMPLEMENTED" and case.split(".")[0] in ("12", "13"))
            if not ok:
                bad.append("%s %s %s=%s" % (agent, case, key, v))
total = sum(len(c) for c in index.values())
print("cases: %d; verdicts: %s" % (total, ", ".join("%s=%d" % kv for kv in sorted(counts.items()) if kv[1])))
for b in bad:
    print("FAILED " + b)
sys.exit(1 if bad else 0)
PY
}

free_port() {
    "$VENV/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

run_server() {
    local out="$HOME_DIR/reports/server" data port pid
    rm -rf "$out"; mkdir -p "$out"
    data="$(mktemp -d)"
    port="$(free_port)"
    CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$REPO/target}" "$CARGO" build --release -q \
        --manifest-path "$REPO/Cargo.toml" -p jchomp-server
    local limits=(--max-message-bytes 16777216 --rate-limit 100000 --rate-burst 100000)
    if [ -n "${AUTOBAHN_DEFAULT_LIMITS:-}" ]; then limits=(); fi
    "${CARGO_TARGET_DIR:-$REPO/target}/release/jchomp-server" --addr "127.0.0.1:$port" \
        --data-dir "$data" --echo-path /echo "${limits[@]}" >/dev/null 2>&1 &
    pid=$!
    trap 'kill $pid 2>/dev/null || true; rm -rf "$data"' RETURN
    sleep 1
    cat >"$HOME_DIR/fuzzingclient.json" <<JSON
{"outdir": "$out", "servers": [{"agent": "jchomp-server", "url": "ws://127.0.0.1:$port/echo"}],
 "cases": ["*"], "exclude-cases": [], "exclude-agent-cases": {}}
JSON
    (cd "$HOME_DIR" && "$VENV/bin/wstest" -m fuzzingclient -s fuzzingclient.json >"$HOME_DIR/server.log" 2>&1)
    check_report "$out/index.json"
}

run_client() {
    local out="$HOME_DIR/reports/client" port pid
    rm -rf "$out"; mkdir -p "$out"
    port="$(free_port)"
    CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$REPO/target}" "$CARGO" build --release -q \
        --manifest-path "$REPO/Cargo.toml" -p jchomp-tui --example autobahn_client
    cat >"$HOME_DIR/fuzzingserver.json" <<JSON
{"url": "ws://127.0.0.1:$port", "outdir": "$out", "cases": ["*"], "exclude-cases": [],
 "exclude-agent-cases": {}}
JSON
    (cd "$HOME_DIR" && exec "$VENV/bin/wstest" -m fuzzingserver -s fuzzingserver.json -u 0 \
        >"$HOME_DIR/client.log" 2>&1) &
    pid=$!
    trap 'kill $pid 2>/dev/null || true' RETURN
    sleep 2
    "${CARGO_TARGET_DIR:-$REPO/target}/release/examples/autobahn_client" "ws://127.0.0.1:$port"
    check_report "$out/index.json"
}

install
case "$MODE" in
    install) ;;
    server) run_server ;;
    client) run_client ;;
    all) run_server; run_client ;;
    *) echo "usage: $0 [server|client|all|install]" >&2; exit 2 ;;
esac
