#!/usr/bin/env bash
# `denpex kb export DIR` end to end: the static HTML encyclopedia is complete (index links to every entry page,
# every page exists, the NCCL comparison lists every nccl-* entry), self-contained (no scripts, no external
# assets), HTML-escaped, and renders in a real browser (headless Debian Chromium takes a non-trivial screenshot).
#
# usage: run_kb_export_test.sh BUILD_DIR      (BUILD_DIR holds the denpex binary)
# exit: 0 pass, 1 fail, 77 skip (only when Chromium is not installed and cannot be installed)
set -u
BUILD_DIR=${1:?usage: run_kb_export_test.sh BUILD_DIR}
DENPEX="$BUILD_DIR/denpex"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
OUT="$TMP/kb-html"
fails=0
check() {   # check NAME STATUS
    if [ "$2" -eq 0 ]; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi
}

[ -x "$DENPEX" ] || { echo "FAIL no denpex binary at $DENPEX"; exit 1; }

# --- export ---------------------------------------------------------------------------------------------------
"$DENPEX" kb export "$OUT" >"$TMP/stdout" 2>"$TMP/stderr"
rc=$?
if [ "$rc" -ne 0 ]; then
    echo "FAIL denpex kb export exited $rc: $(head -c 300 "$TMP/stderr")"
    grep -q "unknown kb subcommand" "$TMP/stderr" &&
        echo "     (the 'export' subcommand is not dispatched in cli/kb_command.cpp yet)"
    exit 1
fi
check "kb export exits 0" 0
[ -s "$OUT/index.html" ]; check "index.html written" $?
[ -s "$OUT/nccl-errors.html" ]; check "nccl-errors.html written" $?
[ -d "$OUT/entries" ]; check "entries/ written" $?

# An empty directory argument is a usage error; an unwritable target fails with one line on stderr.
"$DENPEX" kb export "" >/dev/null 2>"$TMP/err2"; rc=$?
check "kb export '' is a usage error (exit 2)" $([ "$rc" -eq 2 ] && echo 0 || echo 1)
touch "$TMP/a-file"
"$DENPEX" kb export "$TMP/a-file/sub" >/dev/null 2>"$TMP/err3"; rc=$?
check "kb export into a path under a file fails with exit 1 and one line" \
    $([ "$rc" -eq 1 ] && [ "$(wc -l <"$TMP/err3")" -eq 1 ] && echo 0 || echo 1)

# --- structure: every entry linked and present, NCCL page complete, self-contained, escaped ---------------------
"$DENPEX" kb list --json >"$TMP/list.json" || { echo "FAIL denpex kb list --json"; exit 1; }
python3 - "$OUT" "$TMP/list.json" <<'PY'
import html.parser, json, os, re, sys
out, listing = sys.argv[1], sys.argv[2]
ids = [e["id"] for e in json.load(open(listing))]
fails = 0
def check(name, ok, detail=""):
    global fails
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    fails += 0 if ok else 1

class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.hrefs, self.srcs, self.tags = [], [], []
    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for k, v in attrs:
            if k == "href" and v is not None: self.hrefs.append(v)
            if k == "src" and v is not None: self.srcs.append(v)

def parse(path):
    p = Links(); p.feed(open(path, encoding="utf-8").read()); p.close(); return p

index = parse(os.path.join(out, "index.html"))
linked = {h for h in index.hrefs}
missing_links = [i for i in ids if f"entries/{i}.html" not in linked]
check("index links to every entry page (%d entries)" % len(ids), not missing_links, ", ".join(missing_links[:10]))
missing_pages = [i for i in ids if not os.path.isfile(os.path.join(out, "entries", i + ".html"))]
check("every entry page exists", not missing_pages, ", ".join(missing_pages[:10]))
pages = sorted(os.listdir(os.path.join(out, "entries")))
check("no stray entry pages", len(pages) == len(ids), "%d pages for %d entries" % (len(pages), len(ids)))

nccl = parse(os.path.join(out, "nccl-errors.html"))
nccl_ids = [i for i in ids if i.startswith("nccl-")]
missing_nccl = [i for i in nccl_ids if f"entries/{i}.html" not in set(nccl.hrefs)]
check("nccl-errors.html lists every nccl-* entry (%d)" % len(nccl_ids), nccl_ids and not missing_nccl, ", ".join(missing_nccl))
nccl_text = open(os.path.join(out, "nccl-errors.html"), encoding="utf-8").read()
for var in ["NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "TORCH_NCCL_ASYNC_ERROR_HANDLING", "TORCH_NCCL_BLOCKING_WAIT",
            "NCCL_SOCKET_IFNAME", "NCCL_IB_", "TORCH_NCCL_TRACE_BUFFER_SIZE", "TORCH_NCCL_DUMP_ON_TIMEOUT"]:
    check("nccl-errors.html explains " + var, var in nccl_text)
check("nccl-errors.html tells initiating from collateral", "initiating" in nccl_text and "collateral" in nccl_text)

# Links between pages resolve; nothing is loaded from outside; no scripts.
broken, external, scripts = [], [], []
all_pages = [os.path.join(out, "index.html"), os.path.join(out, "nccl-errors.html")] + \
            [os.path.join(out, "entries", p) for p in pages]
for page in all_pages:
    p = parse(page)
    if "script" in p.tags: scripts.append(page)
    if "link" in p.tags or "img" in p.tags or "iframe" in p.tags or p.srcs: external.append(page)
    for h in p.hrefs:
        if h.startswith("#") or re.match(r"^[a-z]+:", h): continue
        target = os.path.normpath(os.path.join(os.path.dirname(page), h.split("#")[0]))
        if not os.path.isfile(target): broken.append(f"{os.path.relpath(page, out)} -> {h}")
check("every relative link resolves", not broken, "; ".join(broken[:5]))
check("no <script> anywhere", not scripts, ", ".join(scripts[:3]))
check("no external assets (link/img/iframe/src)", not external, ", ".join(external[:3]))

# Everything from the knowledge base is escaped: RE2 named groups and example lines with < > & stay literal text.
oom = open(os.path.join(out, "entries", "cuda-oom.html"), encoding="utf-8").read()
check("patterns are escaped ((?P&lt;bytes&gt;...)", "(?P&lt;bytes&gt;" in oom and "(?P<bytes>" not in oom)
ib = open(os.path.join(out, "entries", "nccl-ib-completion-error.html"), encoding="utf-8").read()
check("angle brackets in example lines are escaped", "&lt;51022&gt;" in ib and "<51022>" not in ib)
page = open(os.path.join(out, "entries", "cuda-oom.html"), encoding="utf-8").read()
for section in ["What it is", "Why it happens", "How to confirm", "Fix", "Verify", "Prevention", "Signatures",
                "Related", "Sources"]:
    check("entry page has section '" + section + "'", ">" + section + "<" in page)
check("entry page shows fix version conditions", "when PyTorch" in page)
check("entry page shows example lines", "Tried to allocate" in page)
sys.exit(1 if fails else 0)
PY
check "structure checks" $?

# --- render in headless Chromium ----------------------------------------------------------------------------
find_chromium() {
    for c in chromium chromium-browser google-chrome; do
        command -v "$c" >/dev/null 2>&1 && { command -v "$c"; return 0; }
    done
    return 1
}
CHROMIUM=$(find_chromium)
if [ -z "$CHROMIUM" ]; then
    # The CI setup script (.ci/setup) installs Debian's chromium; try the same here before giving up.
    if command -v apt-get >/dev/null 2>&1; then
        SUDO=""
        [ "$(id -u)" -ne 0 ] && SUDO="sudo -n"
        if [ "$(id -u)" -eq 0 ] || sudo -n true 2>/dev/null; then
            DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 ||
                { $SUDO apt-get update -qq >/dev/null 2>&1 &&
                  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1; }
        fi
    fi
    CHROMIUM=$(find_chromium)
fi
if [ -z "$CHROMIUM" ]; then
    echo "skip: chromium is not installed and could not be installed (see .ci/setup)"
    [ "$fails" -eq 0 ] && exit 77 || exit 1
fi

PROFILE=$(mktemp -d)
PNG="$OUT/index.png"
timeout 180 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$PROFILE" \
    --screenshot="$PNG" --window-size=1280,1600 "file://$OUT/index.html" >"$TMP/chromium.log" 2>&1
rc=$?
rm -rf "$PROFILE"
check "chromium renders index.html (exit $rc)" $rc
[ -f "$PNG" ]; check "screenshot written" $?
size=$(stat -c %s "$PNG" 2>/dev/null || echo 0)
check "screenshot is non-trivial ($size bytes > 20480)" $([ "$size" -gt 20480 ] && echo 0 || echo 1)
head -c 8 "$PNG" 2>/dev/null | od -An -tx1 | tr -d ' \n' | grep -q '^89504e470d0a1a0a$'
check "screenshot is a PNG" $?

if [ "$fails" -ne 0 ]; then
    echo "$fails check(s) failed"
    [ -s "$TMP/chromium.log" ] && tail -5 "$TMP/chromium.log"
    exit 1
fi
echo "all kb export checks passed"
