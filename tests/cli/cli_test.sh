#!/usr/bin/env bash
# End-to-end checks of the `denpex` command line against the real binary: exit codes, usage errors on one
# line, JSON contract fields, stdin, directories, and inputs that must not break it (binary junk, a 12 MB
# line, CRLF, ANSI colours, invalid UTF-8).
set -u
DENPEX=${1:?usage: cli_test.sh path/to/denpex source-dir}
SRC=${2:?usage: cli_test.sh path/to/denpex source-dir}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# The local history lives here, never in the tester's home; NO_COLOR is the tester's choice, not the test's.
export XDG_DATA_HOME="$TMP/xdg"
unset NO_COLOR
fails=0
check() {   # check NAME CONDITION-EXIT-STATUS
    if [ "$2" -eq 0 ]; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi
}
EX="$SRC/tests/corpus/example-oom-watchdog"

# Usage errors: exit 2 and exactly one line on stderr.
for args in "" "frobnicate" "diagnose" "diagnose --bogus $EX" "diagnose /no/such/file" "kb" "kb show" "diagnose --knowledge" \
            "kb fingerprints --format xml" "kb fingerprints --format" "kb fingerprints --bogus"; do
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
check "binary junk does not crash (exit $rc)" $([ $rc -le 1 ] || [ $rc -eq 3 ] && echo 0 || echo 1)
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

# kb show: the on-call fields, in the order an on-call engineer reads them.
"$DENPEX" kb show cuda-oom >"$TMP/show"
check "kb show: kind, cheapest confirmation, per-stack fixes and fingerprint" \
    $(grep -q "^\*\*Configuration\.\*\* " "$TMP/show" && grep -q "^## Cheapest confirmation" "$TMP/show" &&
      grep -q "^## Fix in your stack" "$TMP/show" && grep -q "^### Hugging Face Trainer" "$TMP/show" &&
      grep -q "^### DeepSpeed" "$TMP/show" && grep -q "^## Fingerprint" "$TMP/show" && echo 0 || echo 1)
"$DENPEX" kb show watchdog-timeout-silent-oom | grep -A3 "^## Verify" | grep -q "/proc/\$p/environ"
check "kb show: the seed entry's verify reads the workers' environment, not the disk" $?

# kb fingerprints: one line per entry (id TAB pattern) for monitoring systems; grep -E runs the default form as is.
"$DENPEX" kb fingerprints >"$TMP/fp"
check "kb fingerprints: id TAB pattern, one line per converted entry" \
    $([ "$(wc -l <"$TMP/fp")" -ge 50 ] && ! grep -qv "^[a-z0-9-]*	." "$TMP/fp" && echo 0 || echo 1)
oom_grep=$(awk -F'\t' '$1 == "cuda-oom" { print $2 }' "$TMP/fp")
grep -qE "$oom_grep" "$EX"/*; check "kb fingerprints: the grep form finds the example's OOM with grep -E" $?
"$DENPEX" kb fingerprints --format=grep | cmp -s - "$TMP/fp"; check "kb fingerprints: --format=grep is the default" $?
"$DENPEX" kb fingerprints --format re2 | grep -q "^cuda-oom	"; check "kb fingerprints --format re2" $?
"$DENPEX" kb fingerprints --format json >"$TMP/fp.json"
python3 -c "import json,sys; l=json.load(open(sys.argv[1])); assert len(l)>=50 and all({'id','re2','grep'} <= set(x) for x in l)" "$TMP/fp.json"
check "kb fingerprints --format json: an array of {id, re2, grep}" $?

# The stack the logs show leads the per-stack fixes (DeepSpeed's launcher lines here).
printf '%s\n' "[2024-01-08 21:30:02,118] [INFO] [launch.py:145:main] WORLD INFO DICT: {'localhost': [0, 1]}" \
    "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.50 GiB. GPU 1 has a total capacity of 79.11 GiB of which 1.20 GiB is free." \
    >"$TMP/ds.log"
"$DENPEX" diagnose "$TMP/ds.log" >"$TMP/ds.txt" 2>/dev/null
check "text report: the fix for the stack the logs show comes first" \
    $(grep -A1 "^Fix in your stack (the logs show DeepSpeed)" "$TMP/ds.txt" | grep -q "^  deepspeed: " && echo 0 || echo 1)
"$DENPEX" diagnose --json "$TMP/ds.log" >"$TMP/ds.json" 2>/dev/null
python3 -c "
import json,sys; r=json.load(open(sys.argv[1])); assert r['stacks']==['deepspeed'], r['stacks']
f=r['diagnoses'][0]['stack_fixes']; assert f[0]['stack']=='deepspeed' and f[0]['in_logs'] and not f[-1]['in_logs'], f" "$TMP/ds.json"
check "JSON report: stacks and stack_fixes, the logs' stack first" $?

# The portable pattern set is accepted by ripgrep (the benchmark's reference tool).
if command -v rg >/dev/null; then
    "$DENPEX" kb patterns --no-captures >"$TMP/patterns"
    echo "nothing" | rg --no-config -c -f "$TMP/patterns" >/dev/null 2>"$TMP/rg.err"
    check "ripgrep accepts kb patterns --no-captures" $([ $? -le 1 ] && echo 0 || echo 1)
fi

# --- Never crash: numbers that do not fit are no numbers (engine/bounded_number.hpp) ---------------------------
printf 'srun: error: gpu-a18: tasks 2-99999999999: Terminated\n' | "$DENPEX" diagnose - >/dev/null 2>"$TMP/err"
rc=$?
check "a task range past int does not abort (exit $rc)" $([ $rc -le 1 ] || [ $rc -eq 3 ] && echo 0 || echo 1)
printf '[rank99999999999]: x\nSending process 99999999999999999999 closing signal SIGTERM\n[rank1]: RuntimeError: boom\n' \
    | "$DENPEX" diagnose --json - >/dev/null 2>&1
rc=$?
check "ranks and pids past long do not abort (exit $rc)" $([ $rc -le 1 ] || [ $rc -eq 3 ] && echo 0 || echo 1)

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
rc=$?
check "a pasted traceback is still a job's output (exit $rc: decided or undetermined)" \
    $([ $rc -eq 0 ] || [ $rc -eq 3 ] && echo 0 || echo 1)
printf '20:28:49.899 [rank4]:[E317 20:28:49.594512873 ProcessGroupNCCL.cpp:1870] [PG ID 3 PG GUID 7(TENSOR_MODEL_PARALLEL_GROUP) Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600081 milliseconds before timing out.\n' \
    | "$DENPEX" diagnose - >/dev/null 2>&1
rc=$?
check "a c10 line behind a log collector's time prefix is a job's output (exit $rc: decided or undetermined)" \
    $([ $rc -eq 0 ] || [ $rc -eq 3 ] && echo 0 || echo 1)
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

# --- Exit codes a script can branch on: 0 decided, 1 nothing found, 2 usage error, 3 undetermined -------------
"$DENPEX" diagnose "$EX" >/dev/null 2>&1; check "exit code: decided is 0" $?
"$DENPEX" diagnose "$EX/node0.log" >"$TMP/out" 2>/dev/null
rc=$?
check "exit code: the master node's log alone is undetermined, 3 (got $rc)" \
    $([ $rc -eq 3 ] && grep -q "^INITIATING  undetermined" "$TMP/out" && echo 0 || echo 1)
"$DENPEX" diagnose "$TMP/healthy.log" >/dev/null 2>&1
check "exit code: nothing found is 1" $([ $? -eq 1 ] && echo 0 || echo 1)
"$DENPEX" diagnose --json --sarif "$EX" >/dev/null 2>"$TMP/err"
check "exit code: --json with --sarif is a usage error, 2, one line" \
    $([ $? -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && echo 0 || echo 1)
"$DENPEX" diagnose --help >"$TMP/out"
check "diagnose --help documents the four exit codes" \
    $(grep -q "0 decided" "$TMP/out" && grep -q "1 nothing failed" "$TMP/out" && grep -q "2 usage error" "$TMP/out" && grep -q "3 undetermined" "$TMP/out" && echo 0 || echo 1)
grep -q '`3` undetermined' "$SRC/README.md"; check "the README documents exit code 3" $?

# --- SARIF 2.1.0 ------------------------------------------------------------------------------------------------
"$DENPEX" diagnose --sarif "$EX" >"$TMP/sarif.json"
check "--sarif on the example exits 0" $?
python3 - "$TMP/sarif.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["version"] == "2.1.0" and len(s["runs"]) == 1
run = s["runs"][0]
rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
assert run["tool"]["driver"]["name"] == "denpex" and run["tool"]["driver"]["version"]
r = run["results"][0]
assert r["ruleId"] == "watchdog-timeout-silent-oom" and rules[r["ruleIndex"]] == r["ruleId"], r["ruleId"]
assert r["level"] in ("error", "warning", "note")
loc = r["locations"][0]["physicalLocation"]
assert loc["artifactLocation"]["uri"].endswith("node1.log") and loc["region"]["startLine"] >= 1, loc
assert "out of memory" in loc["region"]["snippet"]["text"]
rel = [l["physicalLocation"]["artifactLocation"]["uri"] for l in r["relatedLocations"]]
assert len(rel) == 7 and all(u.endswith(".log") for u in rel), rel
assert len(r["partialFingerprints"]["denpexFailure/v1"]) == 16
PY
check "--sarif: one run, rules, the initiating line as the result, 7 collateral related locations" $?
"$DENPEX" diagnose --sarif "$EX/node0.log" >"$TMP/sarif-u.json" 2>/dev/null
rc=$?
python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['runs'][0]['results'][0]
assert r['level']=='note' and 'Missing to decide' in r['message']['text'] and r['properties']['missing'], r" "$TMP/sarif-u.json"
check "--sarif: an undetermined verdict is a note with the missing fact (exit $rc)" $([ $? -eq 0 ] && [ $rc -eq 3 ] && echo 0 || echo 1)
"$DENPEX" diagnose --sarif "$TMP/secrets.log" >"$TMP/secrets.sarif" 2>&1
leaks=0
for secret in Hunter2Secret hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567 S3cr3tPassw0rd jane.doe@example.com ghp_0123456789abcdefghijABCDEFGHIJ012345; do
    if grep -qF "$secret" "$TMP/secrets.sarif"; then echo "     leaked: $secret"; leaks=1; fi
done
check "--sarif masks every secret" $leaks
python3 - "$TMP/secrets.sarif" "$TMP/secrets.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); j = json.load(open(sys.argv[2]))
snippet = s["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["snippet"]["text"]
assert snippet == j["diagnoses"][0]["initiating"]["evidence"][0]["text"], (snippet,)
PY
check "--sarif shows the evidence exactly as --json does (same masking)" $?

# --- Terminals: colour and progress -----------------------------------------------------------------------------
"$DENPEX" diagnose "$EX" >"$TMP/plain" 2>"$TMP/err"
check "not a terminal: no colour on stdout, nothing but warnings on stderr" \
    $(! grep -q $'\x1b' "$TMP/plain" && ! grep -qv "^denpex: warning: " "$TMP/err" && echo 0 || echo 1)
"$DENPEX" diagnose --color=always "$EX" >"$TMP/colour" 2>/dev/null
check "--color=always colours the labels even into a file" $(head -1 "$TMP/colour" | grep -q $'\x1b\\[1;31mFAILURE' && echo 0 || echo 1)
NO_COLOR=1 "$DENPEX" diagnose --color=always "$EX" | grep -q $'\x1b'; check "--color=always outranks NO_COLOR" $?
"$DENPEX" diagnose --color=never "$EX" | grep -q $'\x1b'; check "--color=never: no escape codes" $([ $? -ne 0 ] && echo 0 || echo 1)
"$DENPEX" diagnose --color=sometimes "$EX" >/dev/null 2>&1; check "--color=sometimes is a usage error" $([ $? -eq 2 ] && echo 0 || echo 1)
# On a pseudo-terminal: auto colours unless NO_COLOR; stderr carries the progress line, cleared at the end.
python3 - "$DENPEX" "$EX" "$TMP" <<'PY'
import os, pty, subprocess, sys, select
denpex, ex, tmp = sys.argv[1:4]
def on_pty(args, env, stdout_file=None):
    master, slave = pty.openpty()
    out = open(stdout_file, "wb") if stdout_file else slave
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    data = b""
    while True:
        r, _, _ = select.select([master], [], [], 60)
        if not r: break
        try: chunk = os.read(master, 65536)
        except OSError: break
        if not chunk: break
        data += chunk
    p.wait()
    os.close(master)
    return p.returncode, data
env = dict(os.environ); env.pop("NO_COLOR", None)
rc, data = on_pty([denpex, "diagnose", ex], env)
assert rc == 0 and b"\x1b[1;31mFAILURE" in data, ("auto colours on a terminal", rc, data[:200])
env["NO_COLOR"] = "1"
rc, data = on_pty([denpex, "diagnose", ex], env)
assert rc == 0 and b"\x1b[1;31m" not in data, "NO_COLOR turns auto off"
# A big input: the progress line is drawn on stderr (a terminal), rewritten in place, cleared at the end.
big = os.path.join(tmp, "big.log")
with open(big, "w") as f:
    line = "[rank0]: step %d loss 2.0 lr 0.0001 tokens/s 123456 some padding text to make the line longer\n"
    f.write("".join(line % i for i in range(700000)))
    f.write("[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
rc, err = on_pty([denpex, "diagnose", big], env, os.path.join(tmp, "big.out"))
report = open(os.path.join(tmp, "big.out"), "rb").read()
assert rc == 0, rc
assert b"\r" not in report and b"denpex: " not in report, "the report on stdout has no progress"
assert b"denpex: " in err and b"/s" in err and b"ETA" in err and b"MiB / " in err, err[:300]
assert err.endswith(b"\r\x1b[K"), ("the line is cleared at the end", err[-40:])
rc, err = on_pty([denpex, "diagnose", "--quiet", big], env, os.path.join(tmp, "big.out"))
assert rc == 0 and err == b"", ("--quiet draws nothing", err[:200])
PY
check "a terminal: auto colour, NO_COLOR, a progress line on stderr cleared at the end, none with --quiet" $?
"$DENPEX" diagnose "$TMP/big.log" >/dev/null 2>"$TMP/err"
check "stderr not a terminal: no progress line" $([ ! -s "$TMP/err" ] && echo 0 || echo 1)

# --- Local history: --save, seen before, history list / show, corrupt files ------------------------------------
"$DENPEX" diagnose "$EX" >"$TMP/out" 2>&1
check "no history yet: nothing said about it" $(! grep -qi "seen before" "$TMP/out" && [ ! -e "$XDG_DATA_HOME/denpex" ] && echo 0 || echo 1)
"$DENPEX" diagnose --save "$EX" >"$TMP/out" 2>"$TMP/err"
check "--save stores the incident (exit $?)" \
    $(grep -q "saved as incident" "$TMP/err" && [ "$(ls "$XDG_DATA_HOME"/denpex/history/*/*.json | wc -l)" -eq 1 ] && echo 0 || echo 1)
! grep -q "out of memory. Tried to allocate 3.12" "$XDG_DATA_HOME"/denpex/history/*/*.json
check "a saved incident holds no raw log text" $?
"$DENPEX" diagnose --save "$EX" >/dev/null 2>&1
"$DENPEX" diagnose "$EX" >"$TMP/out" 2>&1
check "a new diagnosis says it was seen before, with the fingerprint" \
    $(grep -q "^Seen before: 2 times, last on .* (logs in .*example-oom-watchdog), same fingerprint [0-9a-f]\{16\}" "$TMP/out" && echo 0 || echo 1)
"$DENPEX" diagnose --json "$EX" >"$TMP/out.json"
python3 -c "import json,sys; h=json.load(open(sys.argv[1]))['history']; assert h['seen_before']==2 and len(h['fingerprint'])==16 and h['last']['id'], h" "$TMP/out.json"
check "--json carries the history's answer" $?
"$DENPEX" history >"$TMP/list"
check "history lists both incidents" $([ "$(grep -c watchdog-timeout-silent-oom "$TMP/list")" -eq 2 ] && echo 0 || echo 1)
id=$(head -1 "$TMP/list" | cut -d' ' -f1)
"$DENPEX" history show "$id" >"$TMP/shown"
check "history show ID prints the old report" $(head -1 "$TMP/shown" | grep -q "^FAILURE .*watchdog-timeout-silent-oom" && echo 0 || echo 1)
"$DENPEX" history show nosuchid >/dev/null 2>&1; check "history show of an unknown id exits 1" $([ $? -eq 1 ] && echo 0 || echo 1)
"$DENPEX" history --help | grep -q -- "show ID"; check "history --help lists its subcommands" $?
fp=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['history']['fingerprint'])" "$TMP/out.json")
printf '{"format": "denpex-incid' >"$XDG_DATA_HOME/denpex/history/$fp/29990101T000000Z-aaaaaaaaaaaa.json"
printf 'garbage' >"$XDG_DATA_HOME/denpex/history/$fp/stray.json"
"$DENPEX" diagnose --save "$EX" >"$TMP/out" 2>"$TMP/err"
rc=$?
check "a corrupt history never breaks a diagnosis (exit $rc, warnings on stderr, still saved)" \
    $([ $rc -eq 0 ] && grep -q "^FAILURE" "$TMP/out" && grep -q "Seen before: 3 times" "$TMP/out" && grep -q "warning: history" "$TMP/err" && grep -q "saved as incident" "$TMP/err" && echo 0 || echo 1)
"$DENPEX" history >"$TMP/list" 2>"$TMP/err"
check "history lists a corrupt incident as corrupt, with a warning" \
    $([ $? -eq 0 ] && grep -q "(corrupt)" "$TMP/list" && grep -q "warning" "$TMP/err" && echo 0 || echo 1)
mkdir -p "$TMP/flat" && printf x >"$TMP/flat/denpex"
XDG_DATA_HOME="$TMP/flat" "$DENPEX" diagnose --save "$EX" >"$TMP/out" 2>"$TMP/err"
check "a history that cannot be created: a warning, the diagnosis stands (exit $?)" \
    $(grep -q "^FAILURE" "$TMP/out" && grep -q "not saved" "$TMP/err" && echo 0 || echo 1)
# Concurrent writers: eight diagnoses saving at once, every incident kept, each readable.
mkdir -p "$TMP/conc"
for i in 1 2 3 4 5 6 7 8; do XDG_DATA_HOME="$TMP/conc" "$DENPEX" diagnose --save "$EX" >/dev/null 2>&1 & done
wait
XDG_DATA_HOME="$TMP/conc" "$DENPEX" history --json >"$TMP/conc.json" 2>"$TMP/err"
python3 -c "import json,sys; l=json.load(open(sys.argv[1])); assert len(l)==8 and not any(x['corrupt'] for x in l), l" "$TMP/conc.json"
check "eight concurrent --save: eight readable incidents" $([ $? -eq 0 ] && [ ! -s "$TMP/err" ] && echo 0 || echo 1)

# --- Partial models: scan on each "node", diagnose the partials ---------------------------------------------------
mkdir -p "$TMP/partials" "$TMP/nodes/a" "$TMP/nodes/b"
cp "$EX/node0.log" "$TMP/nodes/a/"; cp "$EX/node1.log" "$TMP/nodes/b/"
"$DENPEX" scan --quiet --partial "$TMP/partials/partial-a.json" "$TMP/nodes/a" 2>"$TMP/err"
check "scan --partial writes node a's partial (exit 0, quiet)" $([ $? -eq 0 ] && [ -s "$TMP/partials/partial-a.json" ] && [ ! -s "$TMP/err" ] && echo 0 || echo 1)
"$DENPEX" scan --quiet --partial - "$TMP/nodes/b" >"$TMP/partials/partial-b.json"
check "scan --partial - writes node b's partial to stdout" $?
head -c 26 "$TMP/partials/partial-a.json" | grep -qF '{"format":"denpex-partial"'; check "a partial starts with its magic" $?
env -u SLURMD_NODENAME "$DENPEX" scan --quiet --partial "$TMP/partials/p-%N.json" "$TMP/nodes/a"
check "scan --partial expands %N to the short host name" $([ -s "$TMP/partials/p-$(hostname | cut -d. -f1).json" ] && echo 0 || echo 1)
SLURMD_NODENAME=node7 "$DENPEX" scan --quiet --partial "$TMP/partials/p-%N-%%.json" "$TMP/nodes/a"
check "... and to SLURMD_NODENAME in a Slurm step; %% is a %" $([ -s "$TMP/partials/p-node7-%.json" ] && echo 0 || echo 1)
rm -f "$TMP/partials/p-"*.json
"$DENPEX" scan --quiet --partial "$TMP/labelled.json" --label nodeA "$TMP/nodes/a"
"$DENPEX" diagnose --json "$TMP/labelled.json" "$TMP/partials/partial-b.json" >"$TMP/labelled-report.json"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert any(i.startswith('nodeA:') and i.endswith('node0.log') for i in r['inputs']), r['inputs']" "$TMP/labelled-report.json"
check "scan --label shows the inputs as LABEL:PATH" $?
mkdir -p "$TMP/nodes/empty"
"$DENPEX" scan --quiet --partial "$TMP/empty.json" "$TMP/nodes/empty" 2>"$TMP/err"
check "a node without logs writes its partial, with a warning" $([ $? -eq 0 ] && [ -s "$TMP/empty.json" ] && grep -q "no log files found" "$TMP/err" && echo 0 || echo 1)
"$DENPEX" diagnose --json "$TMP/nodes" >"$TMP/single.json"; rc_single=$?
# Named in reverse: partials are merged in the order of their inputs' paths, not the command line's.
"$DENPEX" diagnose --json "$TMP/partials/partial-b.json" "$TMP/partials/partial-a.json" >"$TMP/merged.json"; rc_merged=$?
check "diagnose of two partials exits as the single-machine diagnosis ($rc_merged vs $rc_single)" $([ "$rc_single" -eq 0 ] && [ "$rc_merged" -eq "$rc_single" ] && echo 0 || echo 1)
python3 - "$TMP/single.json" "$TMP/merged.json" <<'PY'
import json, sys
one, many = (json.load(open(p)) for p in sys.argv[1:3])
assert one["diagnoses"] == many["diagnoses"], (one["diagnoses"][0]["initiating"], many["diagnoses"][0]["initiating"])
assert one["inputs"] == many["inputs"] and one["bytes"] == many["bytes"]
assert many["diagnoses"][0]["initiating"]["rank"] == 5
PY
check "two nodes' partials merged give the single-machine report (rank 5)" $?
"$DENPEX" scan --quiet --partial "$TMP/ab.json" "$TMP/partials/partial-b.json" "$TMP/partials/partial-a.json"
"$DENPEX" diagnose --json "$TMP/ab.json" >"$TMP/ab-report.json"
python3 -c "import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); assert a['diagnoses']==b['diagnoses'] and a['inputs']==b['inputs']" "$TMP/single.json" "$TMP/ab-report.json"
check "scan merges partials into one (a rack's partial): the same report" $?
"$DENPEX" diagnose --json "$TMP/partials/partial-b.json" "$TMP/nodes/a" >"$TMP/mixed.json"
python3 -c "import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); assert a['diagnoses']==b['diagnoses']" "$TMP/single.json" "$TMP/mixed.json"
check "a partial beside raw logs gives the same diagnoses" $?
head -c 300 "$TMP/partials/partial-a.json" >"$TMP/cut.json"
sed 's/"version":1,/"version":99,/' "$TMP/partials/partial-a.json" >"$TMP/v99.json"
sed 's/"knowledge":"fnv1a64:[0-9a-f]*"/"knowledge":"fnv1a64:0000000000000000"/' "$TMP/partials/partial-a.json" >"$TMP/otherkb.json"
for bad in cut v99 otherkb; do
    "$DENPEX" diagnose "$TMP/$bad.json" "$TMP/partials/partial-b.json" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    check "a $bad partial is refused: exit 2, one line naming the file" \
        $([ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "$bad.json: partial model refused" "$TMP/err" && echo 0 || echo 1)
done
"$DENPEX" diagnose "$TMP/v99.json" 2>&1 | grep -q "format version 99"; check "the version refusal names the version" $?
"$DENPEX" scan "$TMP/nodes/a" >/dev/null 2>"$TMP/err"
check "scan without --partial is a usage error (exit 2, one line)" $([ $? -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && echo 0 || echo 1)
"$DENPEX" scan --partial "$TMP/nope/x.json" "$TMP/nodes/a" >/dev/null 2>"$TMP/err"
check "scan to an unwritable place: exit 2, one line" $([ $? -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && echo 0 || echo 1)

# --- Every subcommand's --help lists its own options -------------------------------------------------------------
"$DENPEX" serve --help >"$TMP/out"
missing=""
for opt in $(grep -o 'name == "--[a-zA-Z-]*"' "$SRC/server/options.cpp" | grep -o -- '--[a-zA-Z-]*' | sort -u); do
    grep -q -- "$opt" "$TMP/out" || missing="$missing $opt"
done
check "serve --help lists every option serve parses${missing:+ (missing:$missing)}" $([ -z "$missing" ] && echo 0 || echo 1)
"$DENPEX" --help >"$TMP/out"
check "--help names every command" $(grep -q "denpex history" "$TMP/out" && grep -q "denpex serve" "$TMP/out" && grep -q "denpex kb" "$TMP/out" && grep -q "denpex scan" "$TMP/out" && echo 0 || echo 1)
"$DENPEX" scan --help | grep -q -- "--partial OUT"; check "scan --help lists --partial" $?

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
