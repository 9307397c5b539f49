#!/usr/bin/env python3
"""Re-check knowledge/sources/stack_fix_evidence.json against local git clones of the upstream projects.

Each record says where a stack fix's `names` was seen: repo, commit, path and (for records made from a full clone)
line. For every record whose repository has a local clone, this runs `git grep` at the recorded commit and path and
requires the identifier (or its recorded `spelled` form) within a few lines of the recorded line, or anywhere in the
file when no line is recorded. A repository without a local clone, or a clone without the recorded commit, is
skipped with a message; --strict turns skips into failures. It also checks that every record still matches a stack
fix in knowledge/*.json (entry, index, stack, source, names), as the unit test does.

Clones are looked up under each --mirrors directory (default: $DENPEX_MIRRORS, colon-separated) as
  <dir>/<owner>+<name>/repo, <dir>/<owner>+<name>, <dir>/<owner>/<name> or <dir>/<name>
(bare or not). microsoft/DeepSpeed and deepspeedai/DeepSpeed are the same repository.

Exit status: 0 when nothing failed, 1 when a record failed, 2 on a usage error.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

NEAR = 5  # lines either side of the recorded line
ALIASES = {"deepspeedai/DeepSpeed": ["microsoft/DeepSpeed"], "microsoft/DeepSpeed": ["deepspeedai/DeepSpeed"]}


def git(clone, *args):
    return subprocess.run(["git", "-C", clone, *args], capture_output=True, text=True)


def find_clone(repo, dirs):
    for name in [repo] + ALIASES.get(repo, []):
        owner, short = name.split("/", 1)
        for d in dirs:
            for c in (os.path.join(d, owner + "+" + short, "repo"), os.path.join(d, owner + "+" + short),
                      os.path.join(d, owner, short), os.path.join(d, short)):
                if os.path.isdir(c) and git(c, "rev-parse", "--git-dir").returncode == 0:
                    return c
    return None


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirrors", action="append", default=None,
                    help="directory holding clones (repeatable; default $DENPEX_MIRRORS, colon-separated)")
    ap.add_argument("--evidence", default=os.path.join(root, "knowledge", "sources", "stack_fix_evidence.json"))
    ap.add_argument("--knowledge", default=os.path.join(root, "knowledge"))
    ap.add_argument("--strict", action="store_true", help="a skipped record (no clone, no commit) fails")
    args = ap.parse_args()
    dirs = args.mirrors or [d for d in os.environ.get("DENPEX_MIRRORS", "").split(":") if d]
    if not dirs:
        print("check_stack_fix_sources: no --mirrors and no $DENPEX_MIRRORS; nothing to check against", file=sys.stderr)
        return 2

    records = json.load(open(args.evidence))["records"]
    fixes = {}
    for f in sorted(glob.glob(os.path.join(args.knowledge, "*.json"))):
        e = json.load(open(f))
        for i, s in enumerate(e.get("stack_fixes", [])):
            fixes[(e["id"], i)] = s

    failed, skipped, checked = [], {}, 0
    seen = set()
    for r in records:
        key = (r["entry"], r["fix"])
        where = "%s stack_fixes[%d] %s" % (r["entry"], r["fix"], r["identifier"])
        seen.add(key)
        f = fixes.get(key)
        if f is None:
            failed.append(where + ": no such stack fix in knowledge/")
            continue
        for field, want in (("stack", f["stack"]), ("source", f["source"]), ("identifier", f["names"])):
            if r[field] != want:
                failed.append("%s: record %s %r, stack fix has %r" % (where, field, r[field], want))
        clone = find_clone(r["repo"], dirs)
        if clone is None:
            skipped.setdefault(r["repo"], []).append(where)
            continue
        if git(clone, "cat-file", "-e", r["commit"] + "^{commit}").returncode != 0:
            skipped.setdefault(r["repo"] + " (clone lacks " + r["commit"][:12] + ")", []).append(where)
            continue
        token = r.get("spelled", r["identifier"])
        g = git(clone, "grep", "-n", "-F", "-e", token, r["commit"], "--", r["path"])
        lines = []
        for out in g.stdout.splitlines():
            parts = out.split(":", 3)  # <commit>:<path>:<line>:<text>
            if len(parts) == 4 and parts[2].isdigit():
                lines.append(int(parts[2]))
        checked += 1
        if not lines:
            failed.append("%s: %r not in %s at %s:%s" % (where, token, r["repo"], r["commit"][:12], r["path"]))
        elif "line" in r and not any(abs(n - r["line"]) <= NEAR for n in lines):
            failed.append("%s: %r is at lines %s of %s, not near the recorded line %d"
                          % (where, token, lines[:5], r["path"], r["line"]))
    for key in sorted(set(fixes) - seen):
        failed.append("%s stack_fixes[%d] %s: no evidence record" % (key[0], key[1], fixes[key]["names"]))

    for repo, items in sorted(skipped.items()):
        print("skipped %d record(s): no usable local clone of %s" % (len(items), repo))
    for msg in failed:
        print("FAIL " + msg)
    nskip = sum(len(v) for v in skipped.values())
    print("%d record(s) checked against clones, %d skipped, %d failed" % (checked, nskip, len(failed)))
    return 1 if failed or (args.strict and nskip) else 0


if __name__ == "__main__":
    sys.exit(main())
