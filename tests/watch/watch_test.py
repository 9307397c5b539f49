#!/usr/bin/env python3
"""End-to-end checks of `denpex watch` against the real binary.

Every check waits for a condition (a line of output, a file's content, the process's exit) with a deadline;
no check passes by sleeping long enough. Usage: watch_test.py path/to/denpex source-dir
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

DENPEX, SRC = sys.argv[1], sys.argv[2]
DEADLINE = float(os.environ.get("DENPEX_WATCH_TEST_DEADLINE", "30"))
EXAMPLE = os.path.join(SRC, "tests/corpus/example-oom-watchdog")
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + str(detail)[:2000]))
    if not ok:
        failures.append(name)


def wait_until(pred, deadline=DEADLINE, step=0.02):
    """Polls a condition until it holds or the deadline passes; returns whether it held."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return pred()


class Watch:
    """A running `denpex watch`, its stdout collected line by line by a thread."""

    def __init__(self, *args, stdin=subprocess.DEVNULL, env=None):
        self.proc = subprocess.Popen([DENPEX, "watch", *args], stdin=stdin, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env)
        self.lines, self.errors, self.cond = [], [], threading.Condition()
        self.reader = threading.Thread(target=self._read, args=(self.proc.stdout, self.lines), daemon=True)
        self.reader.start()
        threading.Thread(target=self._read, args=(self.proc.stderr, self.errors), daemon=True).start()

    def _read(self, stream, into):
        for line in stream:
            with self.cond:
                into.append(line)
                self.cond.notify_all()

    def ready(self):
        """Waits for the line the watcher writes on stderr once it has read what the files held at its start."""
        end = time.monotonic() + DEADLINE
        with self.cond:
            while not any("watching" in l for l in self.errors):
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
        return True

    def wait_for(self, pred, deadline=DEADLINE):
        """Waits until pred(lines) is true; returns the matching result or None at the deadline."""
        end = time.monotonic() + deadline
        with self.cond:
            while True:
                found = pred(self.lines)
                if found:
                    return found
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)

    def events(self):
        out = []
        for line in list(self.lines):
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
        return out

    def stop(self, sig=signal.SIGINT):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            rc = self.proc.wait(DEADLINE)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        self.reader.join(DEADLINE)
        return rc


def json_event(kind, **want):
    def pred(lines):
        for line in lines:
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get("event") == kind and all(e.get(k) == v for k, v in want.items()):
                return e
        return None
    return pred


def append(path, text):
    with open(path, "a") as f:
        f.write(text)
        f.flush()


def example_parts():
    node0 = open(os.path.join(EXAMPLE, "node0.log")).read().splitlines(True)
    node1 = open(os.path.join(EXAMPLE, "node1.log")).read().splitlines(True)
    tb = next(i for i, l in enumerate(node1) if "Traceback" in l)
    oom = next(i for i, l in enumerate(node1) if "out of memory" in l)
    w0 = next(i for i, l in enumerate(node0) if "Watchdog" in l)
    return {"node0_before": "".join(node0[:w0]), "node0_after": "".join(node0[w0:]),
            "node1_before": "".join(node1[:tb]), "node1_oom": "".join(node1[tb:oom + 1]),
            "node1_after": "".join(node1[oom + 1:])}


OOM_LINES = ("{r}: Traceback (most recent call last):\n"
             "{r}:   File \"/home/u/train.py\", line 388, in main\n"
             "{r}: RuntimeError: CUDA out of memory. Tried to allocate 3.12 GiB (GPU 1; 79.35 GiB total capacity)\n")


def test_oom_before_watchdog(tmp):
    parts = example_parts()
    d = os.path.join(tmp, "job")
    os.mkdir(d)
    n0, n1 = os.path.join(d, "node0.log"), os.path.join(d, "node1.log")
    append(n0, parts["node0_before"])
    append(n1, parts["node1_before"])
    w = Watch("--json", d)
    check("the watcher is ready", w.ready(), w.errors)
    # Nothing failed yet: no initiating event, whatever the watcher printed about the training lines.
    append(n1, parts["node1_oom"])
    written = time.monotonic()
    e = w.wait_for(json_event("initiating", rank=5))
    check("OOM on rank 5 announced before any watchdog line is written", e is not None, w.lines)
    if e:
        check("announcement names the host", e.get("host") == "gpu-node-02", e)
        d0 = e["report"]["diagnoses"][0]
        check("announcement carries the diagnose --json contract with evidence",
              d0["initiating"]["rank"] == 5 and "out of memory" in d0["initiating"]["evidence"][0]["text"], d0)
        print("     (announced %.0f ms after the OOM line was written)" % ((time.monotonic() - written) * 1000))
    append(n0, parts["node0_after"])
    append(n1, parts["node1_after"])
    collateral = lambda lines: [ev for ev in map(safe_json, lines) if ev and ev.get("event") == "verdict"
                                and len(ev["report"]["diagnoses"][0].get("collateral", [])) == 7]
    check("verdict updated with the 7 collateral ranks", w.wait_for(collateral) is not None, w.lines[-3:])
    verdicts = [ev for ev in w.events() if ev.get("event") == "verdict"]
    keys = [json.dumps(ev["report"]["diagnoses"][0].get("collateral")) + ev["report"]["diagnoses"][0]["confidence"]
            for ev in verdicts]
    check("a verdict is printed only when it changes", len(keys) == len(set(keys)), keys)
    check("the initiator is announced once", len([ev for ev in w.events() if ev.get("event") == "initiating"]) == 1,
          w.events())
    rc = w.stop(signal.SIGINT)
    final = [ev for ev in w.events() if ev.get("event") == "final"]
    check("SIGINT gives the final report and exit 0 (decided)", rc == 0 and len(final) == 1, (rc, w.lines[-2:]))


def safe_json(line):
    try:
        return json.loads(line)
    except ValueError:
        return None


def test_truncated_file(tmp):
    log = os.path.join(tmp, "trunc.log")
    append(log, "".join("3: 2023-03-14 13:58:%02d,846 INFO train: step %d\n" % (i, i) for i in range(10)))
    w = Watch("--json", log)
    check("the watcher is ready", w.ready(), w.errors)
    with open(log, "w") as f:   # truncate, then new content
        f.write("3: 2023-03-14 13:59:10,846 INFO train: step 11\n" + OOM_LINES.format(r=3))
    e = w.wait_for(json_event("initiating", rank=3))
    check("after truncation the new content is read", e is not None, w.lines)
    if e:
        line = e["report"]["diagnoses"][0]["initiating"]["evidence"][0]["line"]
        check("lines after truncation are numbered from the new start", 2 <= line <= 4, line)
    w.stop(signal.SIGTERM)
    final = [x for x in w.events() if x.get("event") == "final"]
    check("SIGTERM ends the watch with a final report", len(final) == 1, w.lines[-1:])
    check("no line read twice (10 before, 4 after the truncation)", final and final[0]["report"]["lines"] == 14,
          final and final[0]["report"]["lines"])


def test_rotated_file(tmp):
    log = os.path.join(tmp, "rot.log")
    append(log, "1: 2023-03-14 13:58:10,846 INFO train: step 1\n")
    w = Watch("--json", log)
    check("the watcher is ready", w.ready(), w.errors)
    os.rename(log, log + ".1")
    append(log, OOM_LINES.format(r=6))
    check("a rotated file's successor is followed", w.wait_for(json_event("initiating", rank=6)) is not None, w.lines)
    w.stop()


def test_new_file_in_directory(tmp):
    d = os.path.join(tmp, "logs")
    os.mkdir(d)
    append(os.path.join(d, "node0.log"), "0: 2023-03-14 13:58:10,846 INFO train: step 1\n")
    w = Watch("--json", d)
    check("the watcher is ready", w.ready(), w.errors)
    sub = os.path.join(d, "attempt_1")
    os.mkdir(sub)
    append(os.path.join(sub, "node1.log"), OOM_LINES.format(r=7))
    e = w.wait_for(json_event("initiating", rank=7))
    check("a new file in a new subdirectory is followed", e is not None, w.lines)
    w.stop()


def test_stdin_eof(tmp):
    parts = example_parts()
    text = parts["node1_before"] + parts["node1_oom"] + parts["node1_after"]
    w = Watch("-", stdin=subprocess.PIPE)
    w.proc.stdin.write(text)
    w.proc.stdin.close()
    try:
        rc = w.proc.wait(DEADLINE)
    except subprocess.TimeoutExpired:
        rc = None
    w.reader.join(DEADLINE)
    out = "".join(w.lines)
    check("stdin EOF ends the watch with the final report", rc == 0 and "final report" in out, (rc, out[-500:]))
    check("human output announces the initiator", "INITIATING" in out and "rank 5" in out, out[:800])
    w.stop()


def test_exec_receives_json(tmp):
    d = os.path.join(tmp, "exec")
    os.mkdir(d)
    log = os.path.join(d, "node.log")
    append(log, "5: 2023-03-14 13:58:10,846 INFO train: step 1\n")
    out_json, out_env = os.path.join(tmp, "hook.json"), os.path.join(tmp, "hook.env")
    cmd = "cat > '%s.tmp' && mv '%s.tmp' '%s'; env | grep '^DENPEX_' > '%s.tmp' && mv '%s.tmp' '%s'" % (
        out_json, out_json, out_json, out_env, out_env, out_env)
    w = Watch("--exec", cmd, log)
    check("the watcher is ready", w.ready(), w.errors)
    # Log text that a shell would run if it were ever interpolated: it must stay data.
    pwned = os.path.join(tmp, "PWNED")
    append(log, "5: Traceback (most recent call last):\n"
                "5: RuntimeError: CUDA out of memory. $(touch %s) `touch %s` ; touch %s\n" % (pwned, pwned, pwned))
    got = wait_until(lambda: os.path.exists(out_env) and os.path.exists(out_json))
    check("--exec ran once the initiator appeared", got, w.lines)
    if got:
        j = json.load(open(out_json))
        check("--exec gets the diagnosis JSON on stdin", j["event"] == "initiating" and
              j["report"]["diagnoses"][0]["initiating"]["rank"] == 5, j)
        env = dict(l.rstrip("\n").split("=", 1) for l in open(out_env) if "=" in l)
        check("--exec gets DENPEX_* variables", env.get("DENPEX_RANK") == "5" and env.get("DENPEX_EVENT") == "initiating", env)
    w.stop()
    check("log text is never executed", not os.path.exists(pwned))


def test_usage():
    for args in ([], ["--bogus", "x"], ["/no/such/path"], ["--exec"], ["-", "-"]):
        p = subprocess.run([DENPEX, "watch", *args], capture_output=True, text=True, timeout=DEADLINE)
        check("usage error %s exits 2 with one line" % args, p.returncode == 2 and len(p.stderr.splitlines()) == 1,
              (p.returncode, p.stderr))
    p = subprocess.run([DENPEX, "watch", "--help"], capture_output=True, text=True, timeout=DEADLINE)
    check("watch --help lists its options", p.returncode == 0 and "--exec" in p.stdout and "--json" in p.stdout, p.stdout)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_DATA_HOME"] = os.path.join(tmp, "xdg")
        test_usage()
        for t in (test_oom_before_watchdog, test_truncated_file, test_rotated_file, test_new_file_in_directory,
                  test_stdin_eof, test_exec_receives_json):
            sub = os.path.join(tmp, t.__name__)
            os.mkdir(sub)
            t(sub)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
