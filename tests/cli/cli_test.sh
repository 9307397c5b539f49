#!/usr/bin/env bash
# End-to-end checks of the `denpex` command line against the real binary: exit codes, usage errors on one
# line, JSON contract fields, stdin, directories, and inputs that must not break it (binary junk, a 12 MB
# line, CRLF, ANSI colours, invalid UTF-8).
set -u
DENPEX=${1:?usage: cli_test.sh path/to/denpex source-dir}
SRC=${2:?usage: cli_test.sh path/to/denpex source-dir}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
check() {   # check NAME CONDITION-EXIT-STATUS
    if [ "$2" -eq 0 ]; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi
}
EX="$SRC/tests/corpus/example-oom-watchdog"

# Usage errors: exit 2 and exactly one line on stderr.
for args in "" "frobnicate" "diagnose" "diagnose --bogus $EX" "diagnose /no/such/file" "kb" "kb show" "diagnose --knowledge"; do
    # shellcheck disable=SC2086
    "$DENPEX" $args >"$TMP/out" 2>"$TMP/err"
    rc=$?
    lines=$(wc -l <"$TMP/err")
    check "usage error '$args' exits 2 with one line" $([ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && echo 0 || echo 1)
done

# The bundled example: text verdict first, the OOM rank as initiator.
"$DENPEX" diagnose "$EX" >"$TMP/text"
rc=$?
check "example exits 0" $rc
head -1 "$TMP/text" | grep -qiE "out of memory|OOM"; check "text report leads with the failure" $?
sed -n 2p "$TMP/text" | grep -q "rank 5 on gpu-node-02"; check "second line names rank 5 on gpu-node-02" $?
grep -q "TORCH_NCCL_ASYNC_ERROR_HANDLING=1" "$TMP/text"; check "text report gives the async error handling fix" $?
grep -q "^Verify" "$TMP/text"; check "text report gives a verify command" $?
grep -q "Watchdog" "$TMP/text"; check "text report shows the collateral watchdog timeouts" $?

# JSON contract.
"$DENPEX" diagnose --json "$EX" >"$TMP/json"
python3 - "$TMP/json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
d = r["diagnoses"][0]
assert d["initiating"]["rank"] == 5, d["initiating"]
assert d["initiating"]["host"] == "gpu-node-02"
assert d["initiating"]["evidence"][0]["file"].endswith("node1.log")
assert "out of memory" in d["initiating"]["evidence"][0]["text"]
assert {c["rank"] for c in d["collateral"]} == {0, 1, 2, 3, 4, 6, 7}, d["collateral"]
assert all(c["failure_id"] for c in d["collateral"])
for key in ("failure", "confidence", "fix", "verify", "missing"):
    assert key in d, key
assert {"id", "title", "category"} <= set(d["failure"])
states = {x["rank"]: x["state"] for x in r["ranks"]}
assert states[5] == "initiating" and states[0] == "collateral", states
PY
check "JSON contract on the example" $?

# stdin, and nothing to diagnose -> exit 1.
cat "$EX"/node*.log | "$DENPEX" diagnose --json - >"$TMP/stdin.json"
check "stdin input exits 0" $?
python3 -c "import json,sys; d=json.load(open('$TMP/stdin.json'))['diagnoses'][0]; assert d['initiating']['rank']==5" 
check "stdin input names rank 5" $?
printf 'INFO step 1 loss 2.0\nINFO step 2 loss 1.9\n' >"$TMP/healthy.log"
"$DENPEX" diagnose "$TMP/healthy.log" >/dev/null
check "a healthy log exits 1" $([ $? -eq 1 ] && echo 0 || echo 1)

# Hostile input: binary junk, a 12 MB line, CRLF + ANSI + invalid UTF-8 around the decisive line.
# A text log that turns into junk (a disk error, a binary dumped into it) is read to the end without a crash.
{ for i in $(seq 1 400); do echo "[rank0]: step $i loss 2.0"; done; head -c 2000000 /dev/urandom; } >"$TMP/junk.log"
"$DENPEX" diagnose "$TMP/junk.log" >/dev/null 2>&1
rc=$?
check "binary junk does not crash (exit $rc)" $([ $rc -le 1 ] && echo 0 || echo 1)
# A file that is binary from its first bytes (a core dump) is not read: one line says so, exit 2.
head -c 200000 /dev/urandom >"$TMP/core.1234"
"$DENPEX" diagnose "$TMP/core.1234" >/dev/null 2>"$TMP/err"
rc=$?
check "a binary file named by hand is refused with one line (exit $rc)" \
    $([ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "binary" "$TMP/err" && echo 0 || echo 1)
# Beside a real log, it is listed as not read and the log is diagnosed.
"$DENPEX" diagnose --json "$EX" "$TMP/core.1234" >"$TMP/with-core.json"
check "a binary beside logs is listed as not read" \
    $(python3 -c "import json,sys; w=json.load(open(sys.argv[1]))['warnings']; sys.exit(0 if any('core.1234' in x and 'binary' in x for x in w) else 1)" "$TMP/with-core.json" && echo 0 || echo 1)
"$DENPEX" diagnose --help >/dev/null
check "diagnose --help prints the usage and exits 0" $?
"$DENPEX" --version extra >/dev/null 2>&1
check "--version with an argument is a usage error" $([ $? -eq 2 ] && echo 0 || echo 1)
{
    printf '[rank1]: step 7 '; head -c 12000000 /dev/zero | tr '\0' 'x'; printf '\n'
    printf '\033[31m[rank0]:[E1023 14:32:03.123456789 ProcessGroupNCCL.cpp:629] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600081 milliseconds before timing out.\033[0m\r\n'
    printf '[rank1]: caf\xff\xfe torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.11 GiB of which 1.02 GiB is free.\r\n'
} >"$TMP/hostile.log"
"$DENPEX" diagnose --json "$TMP/hostile.log" >"$TMP/hostile.json"
check "hostile log exits 0" $?
python3 -c "import json; d=json.load(open('$TMP/hostile.json'))['diagnoses'][0]; assert d['initiating']['rank']==1, d['initiating']"
check "hostile log still names rank 1" $?

# --knowledge adds a team's entry; a broken one is a usage error, not silently ignored.
mkdir -p "$TMP/kb"
cat >"$TMP/kb/team-disk.json" <<'JSON'
{"id":"team-disk","title":"Scratch disk full","category":"Software","severity":"error","what":"w","mechanism":"m",
 "confirm":["df -h /scratch"],"fix":[{"text":"free space"}],"verify":"df -h /scratch",
 "signatures":[{"id":"enospc","role":"initiating","pattern":"No space left on device","examples":["OSError: [Errno 28] No space left on device"],"source":"errno(3)"}]}
JSON
"$DENPEX" kb list --knowledge "$TMP/kb" | grep -q "^team-disk"; check "--knowledge adds entries" $?
echo '{' >"$TMP/kb/broken.json"
"$DENPEX" diagnose --knowledge "$TMP/kb" "$EX" >/dev/null 2>"$TMP/err"
check "a broken knowledge file is an error" $([ $? -eq 2 ] && grep -q broken.json "$TMP/err" && echo 0 || echo 1)

# Hostile team knowledge is refused with a warning on stderr, entry by entry; built-in matching keeps working.
mkdir -p "$TMP/hostile-kb"
team_entry() {   # team_entry ID PATTERN
    printf '{"id":"%s","title":"t","category":"Software","severity":"error","what":"w","mechanism":"m","confirm":["c"],"fix":[{"text":"f"}],"verify":"v","signatures":[{"id":"s","role":"initiating","pattern":"%s","examples":["x"],"source":"src"}]}\n' "$1" "$2"
}
team_entry watchdog-timeout-silent-oom 'CUDA out of memory' >"$TMP/hostile-kb/a-dup-builtin.json"
team_entry team-disk 'No space left on device' >"$TMP/hostile-kb/b-disk.json"
team_entry team-disk 'Disk quota exceeded' >"$TMP/hostile-kb/c-dup-team.json"
team_entry "$(printf 'a%.0s' $(seq 300))" 'boom' >"$TMP/hostile-kb/d-long-id.json"
team_entry 'Bad_Id' 'boom' >"$TMP/hostile-kb/e-bad-id.json"
team_entry team-slow '[a-z].{30}[0-9]{3}z' >"$TMP/hostile-kb/f-slow.json"
"$DENPEX" diagnose --json --knowledge "$TMP/hostile-kb" "$EX" >"$TMP/out" 2>"$TMP/err"
rc=$?
check "hostile team knowledge: the built-in example is still diagnosed (exit $rc)" \
    $([ $rc -eq 0 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['diagnoses'][0]; assert d['failure']['id']=='watchdog-timeout-silent-oom' and d['initiating']['rank']==5, d" "$TMP/out" && echo 0 || echo 1)
for f in a-dup-builtin c-dup-team d-long-id e-bad-id f-slow; do
    grep -q "denpex: warning: knowledge: .*$f.json: entry .* refused" "$TMP/err"
    check "hostile team knowledge: $f is refused with a warning on stderr" $?
done
! grep -q "b-disk.json: entry" "$TMP/err"; check "hostile team knowledge: a good team entry beside them is taken silently" $?
python3 -c "import json,sys; w=json.load(open(sys.argv[1]))['warnings']; assert sum('refused' in x for x in w)==5, w" "$TMP/out"
check "hostile team knowledge: the refusals are in the report's warnings" $?
"$DENPEX" kb list --knowledge "$TMP/hostile-kb" >"$TMP/out" 2>"$TMP/err"
check "hostile team knowledge: kb list warns and lists the good entry" \
    $(grep -q "^team-disk" "$TMP/out" && grep -q "f-slow.json: entry .* refused" "$TMP/err" && echo 0 || echo 1)
"$DENPEX" kb export "$TMP/export" --knowledge "$TMP/hostile-kb" >/dev/null 2>&1
check "hostile team knowledge: kb export completes" $([ $? -eq 0 ] && [ -f "$TMP/export/index.html" ] && echo 0 || echo 1)

# kb show renders a reference card.
"$DENPEX" kb show watchdog-timeout-silent-oom | grep -q "^## How to confirm"; check "kb show renders markdown" $?
"$DENPEX" kb show no-such-entry >/dev/null 2>&1; check "kb show unknown id exits 1" $([ $? -eq 1 ] && echo 0 || echo 1)
[ "$("$DENPEX" kb patterns | wc -l)" -ge 40 ]; check "kb patterns prints the signature set" $?

# The portable pattern set is accepted by ripgrep (the benchmark's reference tool).
if command -v rg >/dev/null; then
    "$DENPEX" kb patterns --no-captures >"$TMP/patterns"
    echo "nothing" | rg --no-config -c -f "$TMP/patterns" >/dev/null 2>"$TMP/rg.err"
    check "ripgrep accepts kb patterns --no-captures" $([ $? -le 1 ] && echo 0 || echo 1)
fi

# --- Never crash: numbers that do not fit are no numbers (engine/bounded_number.hpp) ---------------------------
printf 'srun: error: gpu-a18: tasks 2-99999999999: Terminated\n' | "$DENPEX" diagnose - >/dev/null 2>"$TMP/err"
rc=$?
check "a task range past int does not abort (exit $rc)" $([ $rc -le 1 ] && echo 0 || echo 1)
printf '[rank99999999999]: x\nSending process 99999999999999999999 closing signal SIGTERM\n[rank1]: RuntimeError: boom\n' \
    | "$DENPEX" diagnose --json - >/dev/null 2>&1
rc=$?
check "ranks and pids past long do not abort (exit $rc)" $([ $rc -le 1 ] && echo 0 || echo 1)

# --- Never leak: secrets are masked in the text report and in --json -----------------------------------------
cat >"$TMP/secrets.log" <<'LOG'
[rank0]: launch: python train.py --password=Hunter2Secret --hf_token hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567
[rank0]: step 1 loss 2.0 WANDB_API_KEY=0123456789abcdef0123456789abcdef01234567 AKIAIOSFODNN7EXAMPLE
[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. fetch https://alice:S3cr3tPassw0rd@hub.example.com by jane.doe@example.com with ghp_0123456789abcdefghijABCDEFGHIJ012345
LOG
"$DENPEX" diagnose "$TMP/secrets.log" >"$TMP/secrets.txt" 2>&1
check "a log with secrets is still diagnosed" $?
"$DENPEX" diagnose --json "$TMP/secrets.log" >"$TMP/secrets.json" 2>&1
leaks=0
for secret in Hunter2Secret hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567 0123456789abcdef0123456789abcdef01234567 \
              AKIAIOSFODNN7EXAMPLE S3cr3tPassw0rd jane.doe@example.com ghp_0123456789abcdefghijABCDEFGHIJ012345; do
    if grep -qF "$secret" "$TMP/secrets.txt" "$TMP/secrets.json"; then echo "     leaked: $secret"; leaks=1; fi
done
check "text and --json outputs mask every secret" $leaks
grep -q "CUDA out of memory" "$TMP/secrets.txt"; check "masking keeps the evidence readable" $?
"$DENPEX" diagnose --no-mask --json "$TMP/secrets.log" | grep -qF S3cr3tPassw0rd; check "--no-mask shows the raw text" $?
"$DENPEX" diagnose --mask-hosts --json "$TMP/secrets.log" >"$TMP/hosts.json"
check "--mask-hosts replaces host names" $(grep -qF hub.example.com "$TMP/hosts.json" && echo 1 || echo 0)

# --- Never cry wolf: text that is not a training job's output is not diagnosed ---------------------------------
printf 'License: GPLWithACException\n' | "$DENPEX" diagnose - >"$TMP/out" 2>&1
check "a licence line is not a failure (exit 1)" $([ $? -eq 1 ] && echo 0 || echo 1)
cat >"$TMP/README.md" <<'MD'
# Troubleshooting

If training stops with `RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB`, lower the batch size.
A `NCCL error: unhandled system error` usually means the network interface is wrong; a
`torch.distributed.DistBackendError: NCCL communicator was aborted` follows from another rank's failure.
Segmentation fault (core dumped) means a native extension crashed.
MD
"$DENPEX" diagnose "$TMP/README.md" >"$TMP/out" 2>"$TMP/err"
check "a README quoting an OOM line: nothing found (exit 1)" $([ $? -eq 1 ] && echo 0 || echo 1)
grep -q "does not look like a training job's output" "$TMP/err"; check "... and stderr says why" $?
cat >"$TMP/oom_guard.py" <<'PY'
def guard():
    raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total capacity)")
PY
"$DENPEX" diagnose "$TMP/oom_guard.py" >/dev/null 2>&1
check "source code that raises an OOM message is not diagnosed (exit 1)" $([ $? -eq 1 ] && echo 0 || echo 1)
printf 'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n' \
    | "$DENPEX" diagnose - >/dev/null 2>&1
check "a pasted traceback is still a job's output (exit 0)" $?
printf '20:28:49.899 [rank4]:[E317 20:28:49.594512873 ProcessGroupNCCL.cpp:1870] [PG ID 3 PG GUID 7(TENSOR_MODEL_PARALLEL_GROUP) Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600081 milliseconds before timing out.\n' \
    | "$DENPEX" diagnose - >/dev/null 2>&1
check "a c10 line behind a log collector's time prefix is a job's output (exit 0)" $?
if [ -d /usr/share/doc ]; then
    timeout 300 "$DENPEX" diagnose --json /usr/share/doc >"$TMP/doc.json" 2>/dev/null
    python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['diagnoses']; sys.exit(1 if any(x['confidence'] in ('medium','high') for x in d) else 0)" "$TMP/doc.json"
    check "/usr/share/doc gives no medium or high verdict" $?
fi

# --- CLI contract: each command's own --help; unknown commands; inputs that never end or cannot be read --------
"$DENPEX" serve --help >"$TMP/out" 2>&1; rc=$?
check "serve --help lists serve's options" $([ $rc -eq 0 ] && grep -q -- "--max-message-bytes" "$TMP/out" && grep -q -- "--clientProcessId" "$TMP/out" && echo 0 || echo 1)
"$DENPEX" diagnose --help >"$TMP/out" 2>&1
check "diagnose --help lists diagnose's options" $(grep -q -- "--mask-hosts" "$TMP/out" && grep -q -- "--json" "$TMP/out" && ! grep -q -- "--max-message-bytes" "$TMP/out" && echo 0 || echo 1)
"$DENPEX" kb --help >"$TMP/out" 2>&1
check "kb --help lists kb's subcommands" $(grep -q -- "--no-captures" "$TMP/out" && grep -q "export DIR" "$TMP/out" && echo 0 || echo 1)
"$DENPEX" frobnicate --help >/dev/null 2>"$TMP/err"
check "an unknown command with --help exits 2 with one line" $([ $? -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && echo 0 || echo 1)
for dev in /dev/zero /dev/urandom; do
    timeout 20 "$DENPEX" diagnose "$dev" >/dev/null 2>"$TMP/err"
    rc=$?
    check "$dev is not read forever (exit $rc)" $([ $rc -eq 2 ] && grep -q "not a regular file" "$TMP/err" && echo 0 || echo 1)
done
mkfifo "$TMP/fifo"
timeout 20 "$DENPEX" diagnose "$TMP/fifo" "$EX" >/dev/null 2>"$TMP/err"
rc=$?
check "a FIFO beside logs is skipped with a warning (exit $rc)" $([ $rc -eq 0 ] && grep -q "FIFO" "$TMP/err" && echo 0 || echo 1)
mkdir -p "$TMP/locked/inner" && cp "$EX/node1.log" "$TMP/locked/inner/" && chmod 700 "$TMP/locked/inner" && chmod 755 "$TMP" "$TMP/locked"
if [ "$(id -u)" -ne 0 ] || command -v setpriv >/dev/null; then
    run_as=(); [ "$(id -u)" -eq 0 ] && run_as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    "${run_as[@]}" "$DENPEX" diagnose "$TMP/locked" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    check "an unreadable directory is named on stderr when nothing is found (exit $rc)" \
        $([ $rc -ne 0 ] && grep -q "locked/inner" "$TMP/err" && echo 0 || echo 1)
    chmod 755 "$TMP/locked/inner" && chmod 600 "$TMP/locked/inner/node1.log"
    "${run_as[@]}" "$DENPEX" diagnose "$TMP/locked/inner/node1.log" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    check "an unreadable file is named on stderr when nothing is found (exit $rc)" \
        $([ $rc -ne 0 ] && grep -q "node1.log" "$TMP/err" && echo 0 || echo 1)
fi

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
