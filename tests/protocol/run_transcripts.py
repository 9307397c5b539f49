#!/usr/bin/env python3
"""Transcript tests for `denpex serve`: client messages in, expected server messages out, against the real binary.

usage: run_transcripts.py --denpex PATH [--only SUBSTRING] [--timeout-scale N] [-v] FILE_OR_DIR...

The server command is `<denpex> serve`. Each case runs in a fresh process.

Transcript format (*.txt), one directive per line; JSON may continue on the following lines:
    # comment
    %args ARGS...          server arguments (variables expanded, split like a shell): before the first case, the
                           file's default; inside a case, that case's own
    %timeout SECONDS       how long a `<<<` waits (default 10); scoped like %args
    === NAME               starts a case (a file without === is one case)
    >>> {json}             send a framed message
    >>> raw "..."          send raw bytes: a Python literal; a str is sent as UTF-8, a bytes literal b"..." as is
                           (for invalid UTF-8); literals may be joined with + and repeated with * ("x" * 100000)
    >>> frame "..."        send the literal's bytes as one frame with the right Content-Length
    <<< {pattern}          wait until an unconsumed server message matches the pattern, and consume it
    <<! {pattern}          assert that no message received so far matches
    <<< exit N             wait for the server to exit with code N
    !!! close              close the server's stdin
    !!! sleep SECONDS
    !!! genlog NAME MB     write a synthetic rank log of about MB MiB to ${TMP}/NAME (a CUDA OOM at its end)
    !!! appendline NAME TEXT  append TEXT and a newline to ${TMP}/NAME (created with its folders), as a running job
                           writes its log
Patterns match JSON by subset: objects need the listed keys (value "<absent>": key must be missing), lists match
element by element with the same length (a first element "<contains>" instead means: each further element matches
some element), strings "<any>" match any value and "re:REGEX" search the value's string form.
Variables: ${KNOWLEDGE} ${FIXTURES} ${FIXTURES_URI} ${TMP} ${TMP_URI} ${PID} ${DEAD_PID} (a process that has
exited). A JSON string that is exactly "<file:NAME>" is replaced by the text of fixtures/NAME (or of an absolute
path, ${TMP} allowed).

Checks on every case besides the expectations: stdout holds nothing but well-formed frames of JSON-RPC 2.0
messages, and no request is answered twice. When the server is still running at the end of a case, the runner
sends shutdown + exit, expects exit code 0, and then checks that every request the case sent was answered exactly
once. Exit status: 0 all passed, 1 a case failed, 2 usage error.
"""

import argparse
import ast
import json
import os
import queue
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))


class CaseFailure(Exception):
    pass


# ---- server command ------------------------------------------------------------------------------------------

def server_command(denpex):
    denpex = os.path.abspath(denpex)
    if not os.path.exists(denpex):
        raise SystemExit("run_transcripts: no denpex binary at %s" % denpex)
    return [denpex, "serve"]


# ---- matching ------------------------------------------------------------------------------------------------

def match(pattern, actual, path="$"):
    """Returns None when `actual` matches `pattern`, else a string saying where it does not."""
    if isinstance(pattern, str):
        if pattern == "<any>":
            return None
        if pattern.startswith("re:"):
            text = actual if isinstance(actual, str) else json.dumps(actual)
            return None if re.search(pattern[3:], text, re.S) else "%s: %r does not match /%s/" % (path, text[:200], pattern[3:])
        return None if pattern == actual else "%s: expected %r, got %r" % (path, pattern, actual)
    if isinstance(pattern, dict):
        if not isinstance(actual, dict):
            return "%s: expected an object, got %r" % (path, actual)
        for k, v in pattern.items():
            if v == "<absent>":
                if k in actual:
                    return "%s.%s: expected no such key, got %r" % (path, k, actual[k])
                continue
            if k not in actual:
                return "%s.%s: missing" % (path, k)
            err = match(v, actual[k], path + "." + k)
            if err:
                return err
        return None
    if isinstance(pattern, list):
        if not isinstance(actual, list):
            return "%s: expected an array, got %r" % (path, actual)
        if pattern and pattern[0] == "<contains>":
            for i, p in enumerate(pattern[1:]):
                if not any(match(p, a) is None for a in actual):
                    return "%s: no element matches %s" % (path, json.dumps(p)[:300])
            return None
        if len(pattern) != len(actual):
            return "%s: expected %d elements, got %d" % (path, len(pattern), len(actual))
        for i, (p, a) in enumerate(zip(pattern, actual)):
            err = match(p, a, "%s[%d]" % (path, i))
            if err:
                return err
        return None
    if isinstance(pattern, bool) or pattern is None:
        return None if pattern is actual or pattern == actual and type(pattern) == type(actual) else \
            "%s: expected %r, got %r" % (path, pattern, actual)
    return None if pattern == actual and not isinstance(actual, bool) else "%s: expected %r, got %r" % (path, pattern, actual)


# ---- the server process --------------------------------------------------------------------------------------

class Server:
    def __init__(self, cmd, stderr_path):
        self.stderr = open(stderr_path, "wb")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr)
        self.messages = []          # every message received, in order
        self.consumed = set()       # indexes of messages matched by `<<<`
        self.cond = threading.Condition()
        self.stream_error = None
        self.eof = False
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        out = self.proc.stdout
        try:
            while True:
                headers = {}
                first = True
                while True:
                    line = out.readline()
                    if not line:
                        if not first or headers:
                            raise CaseFailure("stdout ended inside a header block")
                        return
                    first = False
                    if not line.endswith(b"\r\n"):
                        raise CaseFailure("stdout: header line not terminated by CRLF: %r" % line[:100])
                    if line == b"\r\n":
                        break
                    name, sep, value = line[:-2].decode("ascii").partition(":")
                    if not sep:
                        raise CaseFailure("stdout: not a header line: %r" % line[:100])
                    headers[name.strip().lower()] = value.strip()
                if set(headers) != {"content-length"}:
                    raise CaseFailure("stdout: unexpected headers %r" % headers)
                n = int(headers["content-length"])
                body = out.read(n)
                if len(body) != n:
                    raise CaseFailure("stdout: body cut short (%d of %d bytes)" % (len(body), n))
                msg = json.loads(body.decode("utf-8"))
                if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
                    raise CaseFailure("stdout: not a JSON-RPC 2.0 message: %r" % body[:200])
                with self.cond:
                    self.messages.append(msg)
                    self.cond.notify_all()
        except Exception as e:  # noqa: BLE001 - any failure here is a protocol violation to report
            with self.cond:
                self.stream_error = str(e)
                self.cond.notify_all()
        finally:
            with self.cond:
                self.eof = True
                self.cond.notify_all()

    def send_bytes(self, data):
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass   # the server may have exited on purpose; expectations will say whether that was right

    def send(self, msg):
        body = json.dumps(msg).encode("utf-8")
        self.send_bytes(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def close_stdin(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass

    def wait_for(self, pattern, timeout):
        deadline = time.time() + timeout
        with self.cond:
            while True:
                if self.stream_error:
                    raise CaseFailure(self.stream_error)
                for i, m in enumerate(self.messages):
                    if i not in self.consumed and match(pattern, m) is None:
                        self.consumed.add(i)
                        return m
                left = deadline - time.time()
                if left <= 0 or (self.eof and self.proc.poll() is not None):
                    break
                self.cond.wait(min(left, 0.1))
        # Explain with the closest candidates.
        near = [json.dumps(m)[:400] + "\n      -> " + str(match(pattern, m)) for i, m in enumerate(self.messages)
                if i not in self.consumed][-6:]
        raise CaseFailure("no server message matched within %.1fs:\n    %s\n  unconsumed messages:\n    %s" %
                          (timeout, json.dumps(pattern)[:600], "\n    ".join(near) or "(none)"))

    def assert_none(self, pattern):
        with self.cond:
            for m in self.messages:
                if match(pattern, m) is None:
                    raise CaseFailure("a message matched although none should have: %s" % json.dumps(m)[:400])

    def wait_exit(self, timeout):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.reader.join(5)
        self.stderr.close()


# ---- transcript parsing --------------------------------------------------------------------------------------

def literal(text):
    """A Python string/bytes literal, or literals joined with + and repeated with * (for long inputs)."""
    def ev(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes, int)):
            return node.value
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult)):
            a, b = ev(node.left), ev(node.right)
            return a + b if isinstance(node.op, ast.Add) else a * b
        raise ValueError("only string literals, + and * are allowed: %r" % text[:80])
    return ev(ast.parse(text.strip(), mode="eval").body)


DIRECTIVE = re.compile(r"^(>>>|<<<|<<!|!!!|===|%args|%timeout)(\s|$)")


def parse_transcript(path, variables):
    cases = []
    current = None
    args = []
    timeout = 10.0
    steps_lines = open(path, encoding="utf-8").read().split("\n")

    def expand(s):
        for k, v in variables.items():
            s = s.replace("${%s}" % k, v)
        return s

    def new_case(name):
        return {"name": name, "args": list(args), "timeout": timeout, "steps": [], "file": path}

    i = 0
    while i < len(steps_lines):
        line = steps_lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = DIRECTIVE.match(line)
        if not m:
            raise SystemExit("%s:%d: expected a directive, got %r" % (path, i, line))
        kind = m.group(1)
        rest = line[len(kind):].strip()
        # JSON continues on following lines until the next directive, comment or blank line.
        while rest.startswith(("{", "[")) and i < len(steps_lines) and steps_lines[i].strip() and \
                not DIRECTIVE.match(steps_lines[i]) and not steps_lines[i].lstrip().startswith("#"):
            rest += "\n" + steps_lines[i]
            i += 1
        where = "%s:%d" % (os.path.basename(path), i)
        # Before the first case these set the file's defaults; inside a case, that case's only.
        if kind == "%args":
            if current:
                current["args"] = shlex.split(expand(rest))
            else:
                args = shlex.split(expand(rest))
            continue
        if kind == "%timeout":
            if current:
                current["timeout"] = float(rest)
            else:
                timeout = float(rest)
            continue
        if kind == "===":
            current = new_case(rest)
            cases.append(current)
            continue
        if current is None:
            current = new_case(os.path.basename(path))
            cases.append(current)
        if kind == ">>>":
            if rest.startswith(("raw ", "frame ")):
                word, _, lit = rest.partition(" ")
                value = literal(expand(lit))
                data = value if isinstance(value, bytes) else value.encode("utf-8", "surrogateescape")
                current["steps"].append((word, data, where))
            else:
                try:
                    current["steps"].append(("send", json.loads(expand(rest)), where))
                except json.JSONDecodeError as e:
                    raise SystemExit("%s: bad JSON: %s" % (where, e))
        elif kind in ("<<<", "<<!"):
            em = re.match(r"^exit\s+(-?\d+)$", rest)
            if em and kind == "<<<":
                current["steps"].append(("exit", int(em.group(1)), where))
            else:
                try:
                    current["steps"].append(("expect" if kind == "<<<" else "none", json.loads(expand(rest)), where))
                except json.JSONDecodeError as e:
                    raise SystemExit("%s: bad JSON pattern: %s" % (where, e))
        elif kind == "!!!":
            words = shlex.split(expand(rest))
            current["steps"].append(("action", words, where))
    return cases


# ---- running -------------------------------------------------------------------------------------------------

def genlog(path, mb):
    """A rank log of about `mb` MiB: rank 0's ordinary training lines, then a CUDA OOM at the very end, so a
    diagnosis has to read all of it."""
    block = "".join("[rank0]:2024-10-23 12:00:%02d,123 - trainer - INFO - step %d loss 2.%04d lr 3e-4\n" % (i % 60, i, i)
                    for i in range(2000)).encode()
    target = int(mb * (1 << 20))
    with open(path, "wb") as f:
        written = 0
        while written < target:
            f.write(block)
            written += len(block)
        f.write(b"[rank0]:RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.35 GiB total capacity)\n")


def run_case(case, cmd, verbose):
    tmp = tempfile.mkdtemp(prefix="denpex-transcript-")
    variables = dict(BASE_VARIABLES, TMP=tmp, TMP_URI="file://" + urllib.parse.quote(tmp))
    # Steps were parsed with the base variables; ${TMP} is substituted now.

    def subst(v):
        if isinstance(v, str):
            m = re.match(r"^<file:(.+)>$", v)
            if m:   # the whole string is replaced by a file's text: a fixture, or a file the case generated
                name = subst(m.group(1))
                path = name if os.path.isabs(name) else os.path.join(BASE_VARIABLES["FIXTURES"], name)
                return open(path, encoding="utf-8", errors="surrogateescape").read()
            return v.replace("${TMP}", variables["TMP"]).replace("${TMP_URI}", variables["TMP_URI"])
        if isinstance(v, list):
            return [subst(x) for x in v]
        if isinstance(v, dict):
            return {k: subst(x) for k, x in v.items()}
        return v

    stderr_path = os.path.join(tmp, "stderr.txt")
    server = Server(cmd + [subst(a) for a in case["args"]], stderr_path)
    sent_ids = []
    exited = None
    try:
        for kind, value, where in case["steps"]:
            try:
                if kind == "send":
                    msg = subst(value)
                    if isinstance(msg, dict) and "method" in msg and (
                            isinstance(msg.get("id"), str) or (isinstance(msg.get("id"), int) and
                                                               not isinstance(msg.get("id"), bool))):
                        sent_ids.append(json.dumps(msg["id"]))   # a request with a valid id: it must be answered
                    server.send(msg)
                elif kind == "raw":
                    server.send_bytes(subst(value.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape"))
                elif kind == "frame":
                    body = subst(value.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
                    server.send_bytes(b"Content-Length: %d\r\n\r\n" % len(body) + body)
                elif kind == "expect":
                    m = server.wait_for(subst(value), case["timeout"])
                    if verbose:
                        print("    matched: " + json.dumps(m)[:200])
                elif kind == "none":
                    server.assert_none(subst(value))
                elif kind == "exit":
                    code = server.wait_exit(case["timeout"])
                    if code is None:
                        raise CaseFailure("the server did not exit within %.1fs" % case["timeout"])
                    if code != value:
                        raise CaseFailure("exit code %d, expected %d" % (code, value))
                    exited = code
                elif kind == "action":
                    if value[0] == "close":
                        server.close_stdin()
                    elif value[0] == "sleep":
                        time.sleep(float(value[1]))
                    elif value[0] == "genlog":
                        genlog(os.path.join(tmp, value[1]), float(value[2]))
                    elif value[0] == "appendline":
                        target = os.path.join(tmp, value[1])
                        os.makedirs(os.path.dirname(target), exist_ok=True)
                        with open(target, "a") as f:
                            f.write(value[2] + "\n")
                    else:
                        raise CaseFailure("unknown action %r" % value[0])
            except CaseFailure as e:
                raise CaseFailure("%s: %s" % (where, e))

        if exited is None and server.proc.poll() is None:
            server.send({"jsonrpc": "2.0", "id": "transcript-final-shutdown", "method": "shutdown"})
            server.wait_for({"id": "transcript-final-shutdown", "result": None}, case["timeout"])
            server.send({"jsonrpc": "2.0", "method": "exit"})
            code = server.wait_exit(case["timeout"])
            if code != 0:
                raise CaseFailure("after shutdown + exit the server exited with %r, expected 0" % code)
            server.reader.join(5)
            answered = {}
            for m in server.messages:
                if "id" in m and "method" not in m:
                    answered[json.dumps(m["id"])] = answered.get(json.dumps(m["id"]), 0) + 1
            for rid in sent_ids:
                if answered.get(rid, 0) != sent_ids.count(rid):
                    raise CaseFailure("request id %s was answered %d times, expected %d" %
                                      (rid, answered.get(rid, 0), sent_ids.count(rid)))
        server.reader.join(5)
        if server.stream_error:
            raise CaseFailure(server.stream_error)
        seen = {}
        for m in server.messages:
            if "id" in m and "method" not in m and m["id"] is not None:
                key = json.dumps(m["id"])
                seen[key] = seen.get(key, 0) + 1
                if seen[key] > sent_ids.count(key) and sent_ids.count(key) > 0:
                    raise CaseFailure("request id %s was answered more than once" % key)
        return None
    except CaseFailure as e:
        server.kill()
        err = open(stderr_path, encoding="utf-8", errors="replace").read()
        return "%s\n  server stderr (last lines):\n    %s" % (e, "\n    ".join(err.strip().split("\n")[-15:]))
    finally:
        server.kill()
        shutil.rmtree(tmp, ignore_errors=True)   # generated logs can be hundreds of MB


BASE_VARIABLES = {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--denpex")
    ap.add_argument("--only", default="")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--timeout-scale", type=float, default=1.0,
                    help="multiply every wait (a sanitized or debug build is several times slower)")
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()
    cmd = server_command(a.denpex)
    fixtures = os.path.join(HERE, "fixtures")
    dead = subprocess.Popen(["true"])
    dead.wait()
    BASE_VARIABLES.update(KNOWLEDGE=os.path.join(HERE, "knowledge"), FIXTURES=fixtures,
                          FIXTURES_URI="file://" + urllib.parse.quote(fixtures), PID=str(os.getpid()),
                          DEAD_PID=str(dead.pid))
    files = []
    for p in a.paths:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".txt"))
        else:
            files.append(p)
    print("server: %s" % " ".join(cmd))
    failures = 0
    total = 0
    for f in files:
        for case in parse_transcript(f, BASE_VARIABLES):
            label = "%s / %s" % (os.path.basename(f), case["name"])
            if a.only and a.only not in label:
                continue
            total += 1
            case["timeout"] *= a.timeout_scale
            t0 = time.time()
            err = run_case(case, cmd, a.verbose)
            if err:
                failures += 1
                print("FAIL %s (%.2fs)\n  %s" % (label, time.time() - t0, err))
            else:
                print("ok   %s (%.2fs)" % (label, time.time() - t0))
    print("%d cases, %d failed" % (total, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
