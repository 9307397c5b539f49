#!/usr/bin/env python3
"""Neovim as a real LSP client of `denpex serve` (Debian's neovim, headless).

usage: run_nvim_test.py --denpex PATH

Runs test.lua in `nvim --headless` against the server and checks what Neovim saw: the diagnostics of a rank log
(the initiating Error and the collateral Information lines), a hover, and the TORCH_NCCL_ASYNC_ERROR_HANDLING
quick-fix applied by Neovim to a launch script, after which the Warning is gone.
Exit status: 0 passed, 1 failed, 77 skipped (nvim is not installed).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROTOCOL = os.path.dirname(HERE)
sys.path.insert(0, PROTOCOL)
from run_transcripts import server_command  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--denpex")
    a = ap.parse_args()
    nvim = shutil.which("nvim")
    if not nvim:
        print("SKIP: nvim is not installed (apt-get install neovim, or run .ci/setup); the Neovim client test did not run")
        return 77
    cmd = server_command(a.denpex) + [
        "--no-builtin-knowledge", "--knowledge=" + os.path.join(PROTOCOL, "knowledge"), "--debounce-ms=50"]
    work = tempfile.mkdtemp(prefix="denpex-nvim-")
    for name in ("train_8ranks.log", "train.sbatch"):
        shutil.copy(os.path.join(PROTOCOL, "fixtures", name), os.path.join(work, name))
    out = os.path.join(work, "result.json")
    env = dict(os.environ, DENPEX_SERVER_CMD=json.dumps(cmd), DENPEX_WORKDIR=work, DENPEX_OUT=out,
               HOME=work, XDG_CACHE_HOME=os.path.join(work, "cache"), XDG_STATE_HOME=os.path.join(work, "state"),
               XDG_DATA_HOME=os.path.join(work, "data"), XDG_CONFIG_HOME=os.path.join(work, "config"))
    version = subprocess.run([nvim, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    print("client: %s; server: %s" % (version, " ".join(cmd)))
    try:
        p = subprocess.run([nvim, "--headless", "--clean", "-n", "-i", "NONE", "-u", "NONE",
                            "-c", "luafile " + os.path.join(HERE, "test.lua")],
                           env=env, cwd=work, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        print("FAIL: nvim did not finish within 120 s")
        return 1
    if not os.path.exists(out):
        print("FAIL: nvim wrote no result (exit %d)\n%s" % (p.returncode, p.stderr[-2000:]))
        return 1
    r = json.load(open(out))
    failures = []

    def check(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            failures.append(what)

    check(p.returncode == 0 and r.get("ok") and "error" not in r, "every step ran (exit %d, error %r)" % (p.returncode, r.get("error")))
    if "error" in r and "log_diagnostics" not in r:
        return 1
    log = r.get("log_diagnostics", [])
    errors = [d for d in log if d["severity"] == 1]
    infos = [d for d in log if d["severity"] == 3]
    check(len(errors) == 1, "the log has one Error diagnostic")
    if errors:
        e = errors[0]
        # The server speaks UTF-16 (Neovim 0.7 offers no other encoding): the non-ASCII line ends at unit 184, which
        # Neovim turns into byte column 187 — the whole line, exactly.
        raw = r.get("log_error_lsp_range") or {}
        check(e["lnum"] == 33 and e["col"] == 0 and e["end_col"] == 187 and raw.get("end", {}).get("character") == 184,
              "the Error covers the whole OOM line (UTF-16 184 -> byte 187): %r, LSP range %r" %
              ({k: e[k] for k in ("lnum", "col", "end_col")}, raw))
        check(e["message"].startswith("CUDA out of memory on rank 5") and "initiating" in e["message"],
              "the Error names the failure and the rank: %r" % e["message"])
        check(e.get("code") == "cuda-oom", "its code is the knowledge entry id")
    check(len(infos) == 7 and all(d["message"].startswith("collateral: caused by rank 5's CUDA out of memory at line 34")
                                  and d["related"] == 1 for d in infos),
          "seven collateral Information lines point at the initiating line")
    hover = r.get("hover") or ""
    check(r.get("hover_kind") == "markdown" and "CUDA out of memory" in hover and "**initiating**" in hover
          and "**Fix.**" in hover and "denpex kb show cuda-oom" in hover and "## " not in hover,
          "the hover is the entry's short card: the role, the fix, where the whole entry is")
    script = r.get("script_diagnostics", [])
    check(len(script) == 1 and script[0]["lnum"] == 10 and script[0]["severity"] == 2 and
          "TORCH_NCCL_ASYNC_ERROR_HANDLING is not set" in script[0]["message"],
          "the launch script has a Warning on the srun torchrun line")
    check(r.get("code_action_kind") == "quickfix" and "TORCH_NCCL_ASYNC_ERROR_HANDLING" in (r.get("code_action_title") or ""),
          "a quick-fix is offered: %r" % r.get("code_action_title"))
    after = r.get("script_after_fix", [])
    check(len(after) > 11 and after[10] == "export TORCH_NCCL_ASYNC_ERROR_HANDLING=1" and after[11].startswith("srun torchrun"),
          "Neovim applied the edit: the export is right before the launch line")
    check(sum(1 for l in after if "TORCH_NCCL_ASYNC_ERROR_HANDLING" in l) == 1, "the variable is set once")
    check(r.get("script_diagnostics_after_fix") == [] and r.get("code_actions_after_fix") == 0,
          "after the fix: no Warning, no quick-fix offered again")
    print("%d checks failed" % len(failures) if failures else "all checks passed")
    if failures:
        print("nvim stderr:\n" + p.stderr[-2000:] + "\n(files kept in %s)" % work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
