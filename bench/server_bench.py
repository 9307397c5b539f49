#!/usr/bin/env python3
"""Latency benchmark of `denpex serve` (a benchmark, not a test: it reports numbers and never fails on them).

usage: bench/server_bench.py [--build DIR] [--gb N] [--repeat N] [--open-mb N] [--only-open]
                             [--knowledge DIR --no-builtin-knowledge]

Measures, against the real server binary over stdio (Content-Length framing, as an editor talks to it):
  1. initialize: from spawning the process to the initialize response (knowledge loading included), and the
     initialize round trip alone;
  2. `denpex/diagnose` latency on a 10k-line and a 100k-line text (request written -> response parsed);
  3. hover latency while a diagnosis of N GB of rank logs on disk (default 1) runs on a worker, against the
     idle hover latency: the I/O thread must stay responsive;
  4. a large log document (default 60 MB, --open-mb): didOpen written -> its publishDiagnostics, the server's peak
     RSS (VmHWM in /proc/PID/status, a fresh server) over that open, and an appended line (incremental didChange)
     -> the new diagnostics (the debounce, --debounce-ms, included). `--only-open` runs this part alone (printed
     only: server_bench_results.md keeps its before/after table).
The server is `<build>/denpex serve`.
The 1 GB of logs come from bench/gen_logs (built by CMake) into ${TMPDIR:-/tmp}/denpex-server-bench, reused.
Output: a Markdown table on stdout, also written to bench/server_bench_results.md.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def log(msg):
    sys.stderr.write("server_bench: %s\n" % msg)
    sys.stderr.flush()


class Client:
    """A minimal LSP client: framed writes, a reader thread, responses matched by id."""

    def __init__(self, cmd):
        self.t_spawn = time.perf_counter()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.lock = threading.Condition()
        self.responses = {}   # id -> (message, arrival time)
        self.published = []   # (publishDiagnostics params, arrival time)
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            n = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line == b"\r\n":
                    break
                k, _, v = line.decode().partition(":")
                if k.lower() == "content-length":
                    n = int(v)
            msg = json.loads(out.read(n))
            now = time.perf_counter()
            if "id" in msg and "method" in msg:   # a request from the server (progress token): accept it
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
                continue
            if msg.get("method") == "textDocument/publishDiagnostics":
                with self.lock:
                    self.published.append((msg["params"], now))
                    self.lock.notify_all()
                continue
            if "id" in msg:
                with self.lock:
                    self.responses[msg["id"]] = (msg, now)
                    self.lock.notify_all()

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method, params):
        """Sends a request; returns (id, time it was written)."""
        rid = self.next_id
        self.next_id += 1
        t = time.perf_counter()
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return rid, t

    def wait(self, rid, timeout=600):
        deadline = time.time() + timeout
        with self.lock:
            while rid not in self.responses:
                if time.time() > deadline:
                    raise RuntimeError("no response to request %d" % rid)
                self.lock.wait(0.05)
            return self.responses.pop(rid)

    def call(self, method, params):
        rid, t = self.request(method, params)
        msg, arrived = self.wait(rid)
        if "error" in msg:
            raise RuntimeError("%s failed: %s" % (method, msg["error"]))
        return msg, arrived - t

    def wait_published(self, uri, version, timeout=600):
        """The arrival time of the first publishDiagnostics for (uri, version)."""
        deadline = time.time() + timeout
        with self.lock:
            while True:
                for params, t in self.published:
                    if params.get("uri") == uri and params.get("version") == version:
                        return params, t
                if time.time() > deadline:
                    raise RuntimeError("no diagnostics for %s version %s" % (uri, version))
                self.lock.wait(0.05)

    def status_kib(self, field):
        """A VmRSS/VmHWM-style field of the server's /proc status, in KiB."""
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        raise RuntimeError("no %s in /proc/%d/status" % (field, self.proc.pid))

    def cpu_seconds(self):
        """User + system CPU time of the server so far (/proc/PID/stat): unlike wall time, not inflated by a busy
        machine."""
        with open("/proc/%d/stat" % self.proc.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def close(self):
        try:
            self.call("shutdown", None)
            self.send({"jsonrpc": "2.0", "method": "exit"})
            self.proc.wait(10)
        except Exception:  # noqa: BLE001 - the benchmark is over; make sure nothing is left running
            self.proc.kill()


def server_cmd(build, extra):
    denpex = os.path.join(build, "denpex")
    if not os.path.exists(denpex):
        sys.exit("server_bench: no denpex binary in %s (build the denpex target)" % build)
    return [denpex, "serve"] + extra


def rank_log_text(lines):
    """A torchrun-style log of `lines` lines over 8 ranks, ending in rank 5's CUDA OOM and the others' timeouts."""
    out = []
    for i in range(lines - 8):
        r = i % 8
        out.append("[rank%d]:2024-10-23 12:%02d:%02d,%03d - trainer - INFO - step %d loss %.4f lr 3.0e-04 tokens/s 41790"
                   % (r, (i // 3600) % 60, (i // 60) % 60, i % 1000, i // 8, 2.0 + (i % 97) / 1000))
    out.append("[rank5]:RuntimeError: CUDA out of memory. Tried to allocate 3.12 GiB (GPU 5; 79.35 GiB total capacity)")
    for r in (0, 1, 2, 3, 4, 6, 7):
        out.append("[rank%d]:[E1023 12:11:22.100000 1234 ProcessGroupNCCL.cpp:607] [Rank %d] Watchdog caught collective "
                   "operation timeout: WorkNCCL(SeqNum=25517, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
                   "Timeout(ms)=600000) ran for 600103 milliseconds before timing out." % (r, r))
    return "\n".join(out) + "\n"


def open_large_document(cmd, mb, repeat):
    """Part 4: rows for a `mb` MB log document opened in a fresh server each time, then one line appended."""
    lines = int(mb * 1e6 / 107)
    text = rank_log_text(lines)
    body_mb = len(text) / 1e6
    uri = "file:///bench/large/node0.log"
    open_times, hwm, after, edits, open_cpu, edit_cpu = [], [], [], [], [], []
    found = None
    for _ in range(repeat):
        c = Client(cmd)
        c.call("initialize", {"processId": os.getpid(), "capabilities": {}})
        c.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        base = c.status_kib("VmRSS")
        cpu0 = c.cpu_seconds()
        t0 = time.perf_counter()
        c.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "log", "version": 1, "text": text}}})
        params, t1 = c.wait_published(uri, 1)
        open_times.append(t1 - t0)
        cpu1 = c.cpu_seconds()
        open_cpu.append(cpu1 - cpu0)
        hwm.append((c.status_kib("VmHWM"), base))
        after.append(c.status_kib("VmRSS"))
        found = [d for d in params["diagnostics"] if d.get("severity") == 1]
        last = text.count("\n")
        t2 = time.perf_counter()
        c.send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"range": {"start": {"line": last, "character": 0}, "end": {"line": last, "character": 0}},
                                "text": "[rank3]:RuntimeError: CUDA error: an illegal memory access was encountered\n"}]}})
        _, t3 = c.wait_published(uri, 2)
        edits.append(t3 - t2)
        edit_cpu.append(c.cpu_seconds() - cpu1)
        c.close()
    mib = lambda kib: kib / 1024.0
    rows = [
        ("large document: didOpen of %.1f MB -> publishDiagnostics (%s)" % (
            body_mb, found[0]["message"][:60] if found else "no Error"), summary(open_times)),
        ("large document: server CPU time (user + sys) for that open", "median %.2f s" % statistics.median(open_cpu)),
        ("large document: server peak RSS over the open (VmHWM; RSS before the open)",
         "median %.0f MiB (%.0f MiB before; %.1fx the document)" % (
             statistics.median(mib(h) for h, _ in hwm), statistics.median(mib(b) for _, b in hwm),
             statistics.median(mib(h) for h, _ in hwm) * 1048576 / len(text))),
        ("large document: RSS after the diagnostics", "median %.0f MiB" % statistics.median(mib(a) for a in after)),
        ("large document: one line appended -> new diagnostics (debounce included)", summary(edits)),
        ("large document: server CPU time for that edit", "median %.2f s" % statistics.median(edit_cpu)),
    ]
    return rows


def ms(seconds):
    return "%.1f" % (seconds * 1000)


def summary(values):
    values = sorted(values)
    p95 = values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]
    return "median %s ms, p95 %s ms, max %s ms (n=%d)" % (ms(statistics.median(values)), ms(p95), ms(values[-1]), len(values))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--gb", type=float, default=1.0, help="size of the big diagnosis (default 1 GB)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--open-mb", type=float, default=60.0, help="size of the large log document (default 60 MB)")
    ap.add_argument("--only-open", action="store_true", help="run only the large-document part")
    ap.add_argument("--knowledge", action="append", default=[])
    ap.add_argument("--no-builtin-knowledge", action="store_true")
    a = ap.parse_args()
    extra = ["--log=error"] + ["--knowledge=" + k for k in a.knowledge] + \
            (["--no-builtin-knowledge"] if a.no_builtin_knowledge else [])
    cmd = server_cmd(os.path.abspath(a.build), extra)
    log("server: " + " ".join(cmd))
    rows = []
    if a.only_open:
        rows += open_large_document(cmd, a.open_mb, a.repeat)
        return write_results(rows, cmd, save=False)

    # 1. initialize
    spawn_to_init, init_rtt = [], []
    for _ in range(a.repeat):
        c = Client(cmd)
        rid, t = c.request("initialize", {"processId": os.getpid(), "capabilities": {}})
        _, arrived = c.wait(rid)
        spawn_to_init.append(arrived - c.t_spawn)
        init_rtt.append(arrived - t)
        c.close()
    rows.append(("initialize: spawn -> response (knowledge loaded)", summary(spawn_to_init)))
    rows.append(("initialize: request -> response", summary(init_rtt)))

    # 2. denpex/diagnose on texts
    c = Client(cmd)
    c.call("initialize", {"processId": os.getpid(), "capabilities": {}})
    for lines in (10_000, 100_000):
        text = rank_log_text(lines)
        times = []
        for _ in range(a.repeat):
            msg, dt = c.call("denpex/diagnose", {"text": text})
            times.append(dt)
        found = msg["result"]["diagnoses"][0]["failure"]["id"] if msg["result"]["diagnoses"] else "nothing"
        rows.append(("denpex/diagnose, %dk-line text (%.1f MB) -> %s" % (lines // 1000, len(text) / 1e6, found),
                     summary(times)))

    # 3. hover while a big diagnosis runs
    data = os.path.join(os.environ.get("TMPDIR", "/tmp"), "denpex-server-bench", "%gg" % a.gb)
    size_mb = int(a.gb * 1024)
    marker = os.path.join(data, ".complete")
    if not os.path.exists(marker):
        gen = os.path.join(os.path.abspath(a.build), "bench", "gen_logs")
        if not os.path.exists(gen):
            sys.exit("server_bench: %s is missing (cmake --build %s --target gen_logs)" % (gen, a.build))
        log("generating %d MB of rank logs in %s" % (size_mb, data))
        os.makedirs(data, exist_ok=True)
        subprocess.run([gen, data, str(size_mb), "16"], check=True, stdout=subprocess.DEVNULL)
        open(marker, "w").close()
    total = sum(os.path.getsize(os.path.join(data, f)) for f in os.listdir(data) if f.endswith(".log"))
    small = rank_log_text(200)
    c.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": "file:///bench/small.log", "languageId": "log", "version": 1, "text": small}}})
    hover = {"textDocument": {"uri": "file:///bench/small.log"}, "position": {"line": 192, "character": 10}}
    idle = []
    for _ in range(50):
        msg, dt = c.call("textDocument/hover", hover)
        idle.append(dt)
    if not msg.get("result"):
        log("warning: the hover found no knowledge entry for the OOM line")
    # Page the logs in first, so the run measures the server rather than the disk.
    for f in os.listdir(data):
        with open(os.path.join(data, f), "rb") as fh:
            while fh.read(1 << 24):
                pass
    rid, t0 = c.request("denpex/diagnose", {"paths": [data]})
    busy = []
    while True:
        with c.lock:
            done = rid in c.responses
        if done:
            break
        msg, dt = c.call("textDocument/hover", hover)
        busy.append(dt)
        time.sleep(0.02)
    result, t1 = c.wait(rid)
    big = t1 - t0
    c.close()
    rows.append(("hover, idle", summary(idle)))
    rows.append(("hover while denpex/diagnose reads %.2f GB on a worker" % (total / 1e9),
                 summary(busy) if busy else "(the diagnosis finished before the first hover)"))
    found = result["result"]["diagnoses"][0]["initiating"]["rank"] if "result" in result and result["result"]["diagnoses"] else None
    rows.append(("that diagnosis: %.2f GB in" % (total / 1e9),
                 "%.2f s = %.0f MB/s (initiating rank %s)" % (big, total / big / 1e6, found)))

    rows += open_large_document(cmd, a.open_mb, a.repeat)
    return write_results(rows, cmd)


def write_results(rows, cmd, save=True):
    header = "| measurement | result |\n|---|---|\n"
    table = header + "".join("| %s | %s |\n" % r for r in rows)
    meta = "denpex serve latency, %s, %s, %d CPUs, %s\n\nserver: `%s`\n\n" % (
        time.strftime("%Y-%m-%d %H:%M"), platform.platform(), os.cpu_count(), platform.python_version(), " ".join(cmd))
    print(meta + table)
    if save:
        with open(os.path.join(HERE, "server_bench_results.md"), "w") as f:
            f.write(meta + table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
