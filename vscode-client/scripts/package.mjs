// npm run package: build the extension and write denpex-<version>.vsix here, shipping the denpex server binary
// for linux-x64 in bin/linux-x64/denpex.
//
// The binary: $DENPEX_BIN, else ../build/denpex. It must answer `serve --help`.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
const out = resolve(process.env.DENPEX_VSIX_OUT || join(here, `denpex-${pkg.version}.vsix`));

function servesLsp(bin) {
  if (!existsSync(bin)) return false;
  const r = spawnSync(bin, ['serve', '--help'], { encoding: 'utf8', timeout: 20000 });
  return r.status === 0 && /denpex serve/.test(r.stdout);
}

const bin = resolve(process.env.DENPEX_BIN || join(here, '..', 'build', 'denpex'));
if (!servesLsp(bin)) {
  console.error(`package: ${bin} does not run 'serve'. Build it (cmake --build build) or set DENPEX_BIN.`);
  process.exit(1);
}

const dest = join(here, 'bin', 'linux-x64', 'denpex');
rmSync(join(here, 'bin'), { recursive: true, force: true });
mkdirSync(dirname(dest), { recursive: true });
// Debug info makes the binary several times larger; the .vsix does not need it.
const stripped = spawnSync('strip', ['--strip-debug', '-o', dest, bin], { stdio: 'inherit' });
if (stripped.status !== 0) copyFileSync(bin, dest);
chmodSync(dest, 0o755);
if (!servesLsp(dest)) {
  console.error(`package: the copied binary ${dest} does not run`);
  process.exit(1);
}

const vsce = join(here, 'node_modules', '.bin', 'vsce');
execFileSync(vsce, ['package', '--target', 'linux-x64', '--no-dependencies', '--skip-license', '--allow-missing-repository',
  '--readme-path', 'media/vsix-README.md', '--out', out], { cwd: here, stdio: ['ignore', 'inherit', 'inherit'] });
console.log(`package: wrote ${out} (server: ${bin})`);
