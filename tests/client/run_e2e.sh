#!/usr/bin/env bash
# End-to-end test of the VS Code extension in a real VS Code: code-server 4.100.3 (VS Code 1.100.3) on 127.0.0.1,
# driven by playwright-core with Debian's headless Chromium. It packages the .vsix with BUILD_DIR's denpex binary,
# installs it, opens a workspace with rank logs and an sbatch script, and checks "Diagnose Selection" on an editor
# selection and on a terminal buffer, a hover on a watchdog line and the launch-script quick-fix.
#
# usage: tests/client/run_e2e.sh BUILD_DIR
#   writes screenshots and logs to BUILD_DIR/client-e2e/
#   DENPEX_E2E_CACHE  where code-server is installed once (default ${XDG_CACHE_HOME:-~/.cache}/denpex-client-e2e)
# exit: 0 pass, 1 fail, 77 skipped (only when Chromium is missing and cannot be installed)
set -euo pipefail
BUILD_DIR=$(cd "${1:?usage: run_e2e.sh BUILD_DIR}" && pwd)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/client
CLIENT=$ROOT/vscode-client
OUT=$BUILD_DIR/client-e2e
RUN=$OUT/run
CACHE=${DENPEX_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/denpex-client-e2e}
CS_VERSION=4.100.3
RG_PKG_VERSION=1.15.11 RG_VERSION=v13.0.0-10   # @vscode/ripgrep pinned by code-server 4.100.3
NODE_FALLBACK_VERSION=20.20.2                  # code-server 4.100.x and vsce 3.9 need Node 20
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
t0=$SECONDS
step() { printf '[e2e %4ds] %s\n' $((SECONDS - t0)) "$*"; }

SUDO=()
[ "$(id -u)" -eq 0 ] || { command -v sudo >/dev/null && SUDO=(sudo -n); }
apt_install() {   # apt_install PKG...: install the missing ones; fails when apt cannot
  local missing p
  missing=$(for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done | xargs)
  [ -z "$missing" ] && return 0
  step "apt-get install $missing"
  { [ "$(id -u)" -eq 0 ] || [ ${#SUDO[@]} -gt 0 ]; } || { echo "not root and no sudo: cannot install $missing" >&2; return 1; }
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq &&
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >/dev/null
}

rm -rf "$OUT" && mkdir -p "$OUT" "$CACHE"

# --- 1. Chromium: the only reason to skip ---------------------------------------------------------------------
if [ ! -x "$CHROMIUM" ]; then
  apt_install chromium || true
  if [ ! -x "$CHROMIUM" ]; then
    echo "SKIP: $CHROMIUM is missing and 'apt-get install chromium' failed; the VS Code end-to-end test needs it."
    exit 77
  fi
fi

# --- 2. Node 20 and the packages code-server builds natively -----------------------------------------------------
apt_install build-essential pkg-config python3 libkrb5-dev ripgrep curl
if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" != 20 ]; then
  # Debian 12's nodejs is 18: take Node 20 from the npm registry (the `node` package ships the binary).
  if [ ! -x "$CACHE/node20/node_modules/node/bin/node" ]; then
    step "node $(node --version 2>/dev/null || echo missing) is not 20: npm install node@$NODE_FALLBACK_VERSION"
    mkdir -p "$CACHE/node20" && echo '{"private": true}' > "$CACHE/node20/package.json"
    (cd "$CACHE/node20" && npm install --no-audit --no-fund "node@$NODE_FALLBACK_VERSION" </dev/null)
  fi
  export PATH=$CACHE/node20/node_modules/node/bin:$PATH
fi
step "node $(node --version), npm $(npm --version)"

# --- 3. code-server, once per cache -------------------------------------------------------------------------
TOOLS=$CACHE/tools
if [ ! -f "$TOOLS/.done-$CS_VERSION" ]; then
  step "npm install code-server@$CS_VERSION into $TOOLS (a few minutes, once)"
  rm -rf "$TOOLS" && mkdir -p "$TOOLS" && echo '{"private": true}' > "$TOOLS/package.json"
  case $(uname -m) in x86_64) RG_TARGET=x86_64-unknown-linux-musl ;; aarch64) RG_TARGET=aarch64-unknown-linux-musl ;;
                      *) echo "unsupported arch $(uname -m)" >&2; exit 1 ;; esac
  (
    # @vscode/ripgrep's postinstall downloads rg from GitHub unless this cache file exists: seed it with Debian's rg.
    export TMPDIR=$CACHE/tmp npm_config_cache=$CACHE/npm-cache
    mkdir -p "$TMPDIR/vscode-ripgrep-cache-$RG_PKG_VERSION"
    tar -czf "$TMPDIR/vscode-ripgrep-cache-$RG_PKG_VERSION/ripgrep-$RG_VERSION-$RG_TARGET.tar.gz" -C "$(dirname "$(command -v rg)")" rg
    cd "$TOOLS"
    # unsafe_perm: code-server's postinstall refuses root without it; yes: node-pty's postinstall runs `npx node-gyp`;
    # nodedir: build native modules against the installed Node headers instead of downloading them.
    # (With Node from the npm registry there are no local headers and node-gyp fetches them.)
    NODE_PREFIX=$(dirname "$(dirname "$(command -v node)")")
    [ -f "$NODE_PREFIX/include/node/node_version.h" ] && export npm_config_nodedir=$NODE_PREFIX
    npm_config_unsafe_perm=true npm_config_yes=true \
      npm install --no-audit --no-fund "code-server@$CS_VERSION" </dev/null
  )
  for f in code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg code-server/lib/vscode/node_modules/node-pty/build/Release/pty.node; do
    [ -e "$TOOLS/node_modules/$f" ] || { echo "code-server install incomplete: missing $f" >&2; exit 1; }
  done
  touch "$TOOLS/.done-$CS_VERSION"
fi
CODE_SERVER=$TOOLS/node_modules/.bin/code-server

# --- 4. The .vsix, with BUILD_DIR's denpex --------------------------------------------------------------------
. "$HERE/node_modules.sh"
ensure_client_node_modules "$CLIENT"
step "package the extension"
(
  exec 9>"$CLIENT/.npm-ci.lock"; flock -w 600 9   # bin/ and dist/ are shared with other packaging runs
  cd "$CLIENT" && DENPEX_BIN=$BUILD_DIR/denpex DENPEX_VSIX_OUT=$OUT/denpex.vsix npm run --silent package </dev/null
) > "$OUT/package.log" 2>&1 || { cat "$OUT/package.log" >&2; exit 1; }
grep '^package:' "$OUT/package.log" || true

# --- 5. Workspace, settings, install ------------------------------------------------------------------------
mkdir -p "$RUN"/{data/User,exts,tmp,xdg} "$OUT/screenshots"
cp -r "$HERE/e2e/workspace" "$RUN/ws"
cat > "$RUN/data/User/settings.json" <<'JSON'
{
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoUpdate": false,
  "extensions.autoCheckUpdates": false,
  "security.workspace.trust.enabled": false,
  "editor.hover.delay": 200,
  "editor.minimap.enabled": false,
  "terminal.integrated.gpuAcceleration": "off",
  "terminal.integrated.enablePersistentSessions": false,
  "terminal.integrated.environmentChangesRelaunch": false,
  "terminal.integrated.defaultProfile.linux": "bash",
  "terminal.integrated.env.linux": { "HISTFILE": "/dev/null" }
}
JSON
export XDG_CONFIG_HOME=$RUN/xdg/config XDG_DATA_HOME=$RUN/xdg/data XDG_CACHE_HOME=$RUN/xdg/cache TMPDIR=$RUN/tmp
CS_DIRS=(--config "$RUN/config.yaml" --user-data-dir "$RUN/data" --extensions-dir "$RUN/exts")
step "install the .vsix"
timeout 120 "$CODE_SERVER" "${CS_DIRS[@]}" --install-extension "$OUT/denpex.vsix" </dev/null > "$OUT/install.log" 2>&1 ||
  { cat "$OUT/install.log" >&2; exit 1; }
timeout 60 "$CODE_SERVER" "${CS_DIRS[@]}" --list-extensions --show-versions </dev/null > "$OUT/extensions.txt" 2>&1
grep -q '^denpex\.denpex@' "$OUT/extensions.txt" || { echo "the extension is not installed:" >&2; cat "$OUT/extensions.txt" "$OUT/install.log" >&2; exit 1; }

# --- 6. code-server in its own process group on a free loopback port; the driver; stop everything ---------
RUN_ID=denpex-e2e-$$-$RANDOM
start_group() {   # start_group NAME CMD...: CMD leads a new session; its pgid goes to $RUN/NAME.pgid
  local f=$RUN/$1.pgid; shift
  E2E_RUN_ID=$RUN_ID setsid -w bash -c 'echo $$ > "$0"; exec "$@"' "$f" "$@" &
  for _ in $(seq 100); do [ -s "$f" ] && return 0; sleep 0.05; done
  echo "start_group: no pgid for $*" >&2; return 1
}
stop_all() {
  local rc=$? g pg pids
  trap - EXIT
  for g in driver server; do
    [ -s "$RUN/$g.pgid" ] || continue; pg=$(cat "$RUN/$g.pgid")
    kill -TERM -- "-$pg" 2>/dev/null || continue
    for _ in $(seq 50); do kill -0 -- "-$pg" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pg" 2>/dev/null && echo "process group $g ($pg) needed SIGKILL" || true
  done
  # Terminal shells and the language server run in sessions of their own; kill any straggler of this run by PID.
  pids=$({ grep -lsa "E2E_RUN_ID=$RUN_ID" /proc/[0-9]*/environ || true; } | cut -d/ -f3 | { grep -vx "$$" || true; } | xargs)
  if [ -n "$pids" ]; then kill -KILL $pids 2>/dev/null || true; fi
  cp "$RUN/server.log" "$OUT/code-server.log" 2>/dev/null || true
  find "$RUN/data/logs" -name '*denpex*' -exec cp {} "$OUT/" \; 2>/dev/null || true
  step "done (rc=$rc); screenshots in $OUT/screenshots: $(ls "$OUT/screenshots" 2>/dev/null | xargs)"
  exit $rc
}
trap stop_all EXIT
step "start code-server"
start_group server "$CODE_SERVER" "${CS_DIRS[@]}" --auth none --bind-addr 127.0.0.1:0 \
  --disable-telemetry --disable-update-check --disable-workspace-trust --disable-getting-started-override \
  "$RUN/ws" >"$RUN/server.log" 2>&1 </dev/null
BASE=
for _ in $(seq 600); do   # the port from the log, then /healthz (60 s at most)
  BASE=$(grep -o 'HTTP server listening on http://127\.0\.0\.1:[0-9]*' "$RUN/server.log" | head -1 | sed 's/.* on //') || true
  [ -n "$BASE" ] && curl -sf -o /dev/null "$BASE/healthz" && break
  BASE=; sleep 0.1
done
[ -n "$BASE" ] || { echo "code-server did not come up:" >&2; cat "$RUN/server.log" >&2; exit 1; }
step "code-server up at $BASE"
start_group driver env NODE_PATH="$CLIENT/node_modules" CHROMIUM="$CHROMIUM" \
  timeout 240 node "$HERE/e2e/drive.js" "$BASE" "$RUN/ws" "$OUT/screenshots" </dev/null
wait $! && rc=0 || rc=$?
step "driver exit $rc"
exit $rc
