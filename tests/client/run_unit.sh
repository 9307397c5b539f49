#!/usr/bin/env bash
# Unit tests of the VS Code client's own logic (selection/terminal extraction, result model and rendering, masking,
# server resolution): `npm test` in vscode-client/ (TypeScript compiled by tsc, run by node:test).
# usage: tests/client/run_unit.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CLIENT=$ROOT/vscode-client
command -v node >/dev/null && command -v npm >/dev/null || { echo "run_unit: node and npm are required (.ci/setup installs them)" >&2; exit 1; }
. "$ROOT/tests/client/node_modules.sh"
ensure_client_node_modules "$CLIENT"
cd "$CLIENT"
npm run --silent typecheck
npm test
