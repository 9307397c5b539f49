#!/usr/bin/env python3
"""History lookup cost with many saved incidents (`denpex diagnose` consulting the local history).

Usage: bench/history_bench.py [BUILD_DIR] [N_INCIDENTS] [REPEAT]      (defaults: build 10000 15)

Fills a temporary XDG_DATA_HOME with N incidents: one real `denpex diagnose --save` of the bundled example,
copied under N-1 fresh names (1 in 100 with the example's fingerprint, the rest with others), as a history
written over months would look. Then times, REPEAT times each, with the page cache warm:
  - `denpex diagnose EX` with no history (the baseline),
  - `denpex diagnose EX` with the N-incident history (lists the directory, reads the latest match),
  - `denpex history -n 20` (lists the directory, reads 20 incidents),
  - the lookup alone, in process (BUILD_DIR/bench/history_lookup_bench, when built).
The lookup's share of a whole diagnose is the difference of the medians of the first two. Nothing here is a test.
"""
import os, random, shutil, statistics, subprocess, sys, tempfile, time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 15
src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
denpex = os.path.join(build, "denpex")
ex = os.path.join(src, "tests/corpus/example-oom-watchdog")


def timed(args, env):
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        r = subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        samples.append(time.perf_counter() - t)
        assert r.returncode in (0, 3), (args, r.returncode, r.stderr[:500])
    return statistics.median(samples), min(samples)


with tempfile.TemporaryDirectory() as tmp:
    empty = dict(os.environ, XDG_DATA_HOME=os.path.join(tmp, "empty"))
    full = dict(os.environ, XDG_DATA_HOME=os.path.join(tmp, "full"))
    subprocess.run([denpex, "diagnose", "--save", ex], env=full, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    hist = os.path.join(tmp, "full", "denpex", "history")
    (fp,) = os.listdir(hist)
    (seed,) = os.listdir(os.path.join(hist, fp))
    seed = os.path.join(fp, seed)
    rng = random.Random(1)
    t0 = time.perf_counter()
    for i in range(n - 1):
        day = 20240101 + (i // 100) % 28 + 100 * ((i // 2800) % 12)
        when = "%08dT%02d%02d%02dZ" % (day, i % 24, i % 60, (i * 7) % 60)
        f = fp if i % 100 == 0 else "%016x" % rng.getrandbits(64)
        os.makedirs(os.path.join(hist, f), exist_ok=True)
        shutil.copyfile(os.path.join(hist, seed), os.path.join(hist, f, "%s-%012x.json" % (when, rng.getrandbits(48))))
    fill_s = time.perf_counter() - t0
    files = [os.path.join(r, x) for r, _, xs in os.walk(hist) for x in xs]
    size = sum(os.path.getsize(x) for x in files)
    # Warm the page cache and the binary.
    for env in (empty, full):
        subprocess.run([denpex, "diagnose", ex], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base_med, base_min = timed([denpex, "diagnose", ex], empty)
    hist_med, hist_min = timed([denpex, "diagnose", ex], full)
    list_med, list_min = timed([denpex, "history", "-n", "20"], full)
    out = subprocess.run([denpex, "diagnose", ex], env=full, capture_output=True, text=True).stdout
    seen = [l for l in out.splitlines() if l.startswith("Seen before")]
    print(f"incidents: {len(files)} ({size / 2**20:.1f} MiB), filled in {fill_s:.1f} s")
    print(seen[0] if seen else "no 'Seen before' line!")
    print(f"diagnose, no history:        median {base_med * 1000:.1f} ms (min {base_min * 1000:.1f})")
    print(f"diagnose, {n} incidents: median {hist_med * 1000:.1f} ms (min {hist_min * 1000:.1f})")
    print(f"lookup cost (difference of medians): {(hist_med - base_med) * 1000:.1f} ms")
    print(f"history -n 20:               median {list_med * 1000:.1f} ms (min {list_min * 1000:.1f})")
    lookup = os.path.join(build, "bench", "history_lookup_bench")
    if os.path.exists(lookup):
        print(subprocess.run([lookup, hist, fp, str(repeat * 2)], capture_output=True, text=True, check=True).stdout.strip())
