#!/usr/bin/env bash
# "Nothing leaves the machine": a whole `denpex diagnose` of the bundled example, `denpex watch` of it on stdin, and a
# short `denpex serve` session
# (initialize, a log document opened, shutdown, exit over stdin) make no network system call at all (socket,
# connect, bind, sendto, ...), followed into every thread with `strace -f -e trace=network`.
# Skipped (exit 77) when strace is not installed or may not trace here (ptrace forbidden in a container).
set -u
DENPEX=${1:?usage: no_network_test.sh path/to/denpex source-dir}
SRC=${2:?usage: no_network_test.sh path/to/denpex source-dir}
if ! command -v strace >/dev/null 2>&1; then
    echo "strace is not installed: skipped"
    exit 77
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if ! strace -f -qq -e trace=network -o "$TMP/probe.trace" true >/dev/null 2>&1; then
    echo "strace cannot trace processes here: skipped"
    exit 77
fi
fails=0
check() {   # check NAME CONDITION-EXIT-STATUS
    if [ "$2" -eq 0 ]; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi
}
no_network() {   # no_network TRACE-FILE: true when the trace holds no system call (only exit/signal notes)
    if grep -vE '^[0-9]+ +(\+\+\+|---)' "$1" | grep -q .; then
        echo "  network calls seen:"
        grep -vE '^[0-9]+ +(\+\+\+|---)' "$1" | head -20 | sed 's/^/    /'
        return 1
    fi
}
EX="$SRC/tests/corpus/example-oom-watchdog"

strace -f -qq -e trace=network -o "$TMP/diagnose.trace" "$DENPEX" diagnose --json "$EX" >"$TMP/diagnose.out" 2>"$TMP/diagnose.err"
rc=$?
check "diagnose of the example runs under strace and makes a diagnosis (exit $rc)" \
    $([ $rc -eq 0 ] && grep -q '"watchdog-timeout-silent-oom"' "$TMP/diagnose.out" && echo 0 || echo 1)
no_network "$TMP/diagnose.trace"; check "diagnose makes no socket/connect (no network) call" $?

# A watch of the example on stdin, to its end (the final report), with an --exec hook: no network either.
cat "$EX"/node*.log | strace -f -qq -e trace=network -o "$TMP/watch.trace" "$DENPEX" watch --exec 'cat >/dev/null' - \
    >"$TMP/watch.out" 2>"$TMP/watch.err"
rc=$?
check "watch of the example on stdin runs under strace and ends with its final report (exit $rc)" \
    $([ $rc -eq 0 ] && grep -q 'final report' "$TMP/watch.out" && echo 0 || echo 1)
no_network "$TMP/watch.trace"; check "watch makes no socket/connect (no network) call" $?

# The serve session, framed as LSP over stdin.
python3 - "$EX/node1.log" >"$TMP/session.in" <<'PY'
import json, sys
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
msgs = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "capabilities": {}}},
    {"jsonrpc": "2.0", "method": "initialized", "params": {}},
    {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": "file:///tmp/node1.log", "languageId": "log", "version": 1, "text": text}}},
    {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
    {"jsonrpc": "2.0", "method": "exit"},
]
out = sys.stdout.buffer
for m in msgs:
    body = json.dumps(m).encode()
    out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
PY
strace -f -qq -e trace=network -o "$TMP/serve.trace" "$DENPEX" serve --stdio <"$TMP/session.in" >"$TMP/serve.out" 2>"$TMP/serve.err"
rc=$?
check "serve session (initialize, didOpen, shutdown, exit) runs under strace and exits 0 (exit $rc)" \
    $([ $rc -eq 0 ] && grep -q '"id":2' "$TMP/serve.out" && echo 0 || echo 1)
no_network "$TMP/serve.trace"; check "serve makes no socket/connect (no network) call" $?

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
