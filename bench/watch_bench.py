#!/usr/bin/env python3
"""Benchmark of `denpex watch`: report latency, idle CPU, memory while ~200 MB of ordinary lines stream in.

Usage: bench/watch_bench.py path/to/denpex [--trials 20] [--idle 10] [--mb 200]

- latency: a fresh watcher per trial follows a log; once it has the file open, an OOM traceback is appended and
  the time until its "initiating" JSON line arrives on stdout is measured (median, min, max over the trials);
- idle CPU: the watcher's user+system CPU seconds (/proc/PID/stat) over --idle seconds with nothing written;
- memory: VmRSS before and after appending --mb MB of ordinary training lines (the end of the stream is known
  when an OOM line appended after them is announced, so every line before it has been read), and VmHWM.
Prints a markdown table (paste into bench/results.md).
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import threading
import time

OOM = ("5: Traceback (most recent call last):\n"
       "5:   File \"/home/u/train.py\", line 388, in main\n"
       "5: RuntimeError: CUDA out of memory. Tried to allocate 3.12 GiB (GPU 1; 79.35 GiB total capacity)\n")
START = "5: gpu-node-02:38107:38167 [1] NCCL INFO comm 0xd616f03675a rank 5 nranks 8 cudaDev 1 busId 41000 - Init COMPLETE\n"
DEADLINE = 120.0


class Watcher:
    def __init__(self, denpex, path):
        self.path = path
        self.proc = subprocess.Popen([denpex, "watch", "--json", path], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, bufsize=0)
        self.first_initiating = None
        self.done, self.started = threading.Event(), threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stderr(self):
        for line in self.proc.stderr:
            if b"watching" in line:
                self.started.set()

    def _read(self):
        for line in self.proc.stdout:
            if self.first_initiating is None and b'"event":"initiating"' in line:
                self.first_initiating = time.monotonic()
                self.done.set()

    def wait_ready(self):
        """The watcher has read what the log held at its start (it says so once on stderr)."""
        if not self.started.wait(DEADLINE):
            raise RuntimeError("watcher never became ready on " + self.path)

    def cpu_seconds(self):
        fields = open("/proc/%d/stat" % self.proc.pid).read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def status_kib(self, key):
        for line in open("/proc/%d/status" % self.proc.pid):
            if line.startswith(key + ":"):
                return int(line.split()[1])
        return 0

    def stop(self):
        self.proc.terminate()
        self.proc.wait(DEADLINE)


def append(path, text):
    with open(path, "a") as f:
        f.write(text)


def latency_trials(denpex, tmp, trials):
    delays = []
    for i in range(trials):
        log = os.path.join(tmp, "lat%d.log" % i)
        append(log, START)
        w = Watcher(denpex, log)
        w.wait_ready()
        t0 = time.monotonic()
        append(log, OOM)
        if not w.done.wait(DEADLINE):
            raise RuntimeError("no initiating event in trial %d" % i)
        delays.append((w.first_initiating - t0) * 1000)
        w.stop()
    return delays


def idle_cpu(denpex, tmp, seconds):
    log = os.path.join(tmp, "idle.log")
    append(log, START)
    w = Watcher(denpex, log)
    w.wait_ready()
    before = w.cpu_seconds()
    time.sleep(seconds)   # the measurement window: nothing is written
    used = w.cpu_seconds() - before
    w.stop()
    return used


def memory(denpex, tmp, mb):
    log = os.path.join(tmp, "big.log")
    append(log, START)
    w = Watcher(denpex, log)
    w.wait_ready()
    rss_before = w.status_kib("VmRSS")
    block = "".join("%d: 2023-03-14 13:58:%02d,%03d INFO train: step %d loss 2.%04d lr 2.9e-04 tokens/s 41790\n"
                    % (i % 8, i % 60, i % 1000, i, i % 10000) for i in range(12000))
    blocks = max(1, (mb << 20) // len(block))
    t0 = time.monotonic()
    with open(log, "a") as f:
        for _ in range(blocks):
            f.write(block)
            f.flush()
    append(log, OOM)
    if not w.done.wait(DEADLINE * 5):
        raise RuntimeError("the OOM after the big append was never announced")
    elapsed = time.monotonic() - t0
    rss_after, hwm = w.status_kib("VmRSS"), w.status_kib("VmHWM")
    w.stop()
    return rss_before, rss_after, hwm, blocks * len(block), elapsed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("denpex")
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--idle", type=float, default=10.0)
    ap.add_argument("--mb", type=int, default=200)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        delays = latency_trials(a.denpex, tmp, a.trials)
        cpu = idle_cpu(a.denpex, tmp, a.idle)
        before, after, hwm, size, elapsed = memory(a.denpex, tmp, a.mb)
    print("| measure | value |")
    print("|---|---:|")
    print("| initiating line written → JSON report on stdout, median of %d (ms) | %.1f |" % (len(delays), statistics.median(delays)))
    print("| same, min / max (ms) | %.1f / %.1f |" % (min(delays), max(delays)))
    print("| CPU used while idle for %.0f s (s) | %.3f |" % (a.idle, cpu))
    print("| RSS before / after appending %.0f MiB of ordinary lines (MiB) | %.1f / %.1f |" % (size / 2**20, before / 1024, after / 1024))
    print("| peak RSS (VmHWM, MiB) | %.1f |" % (hwm / 1024))
    print("| %.0f MiB appended → all read and the OOM after it announced (s, MiB/s) | %.2f (%.0f) |" % (size / 2**20, elapsed, size / 2**20 / elapsed))


if __name__ == "__main__":
    main()
