import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { resolveServer, serverArgs } from '../../src/serverConfig';
import { presentState } from '../../src/serverState';
import { scriptRank } from '../../src/launchScriptOrder';

const ctx = (exists: string[]) => ({
  extensionPath: '/ext', workspacePath: '/ws', platform: 'linux', arch: 'x64', isExecutable: (p: string) => exists.includes(p),
});
const settings = (o: Partial<{ path: string; knowledgeFolders: string[]; trace: 'off' | 'messages' | 'verbose' }> = {}) =>
  ({ path: '', knowledgeFolders: [], trace: 'off' as const, ...o });

test('the bundled binary by default', () => {
  assert.deepEqual(resolveServer(settings(), ctx(['/ext/bin/linux-x64/denpex'])),
    { ok: true, command: '/ext/bin/linux-x64/denpex', args: ['serve', '--log=info'], bundled: true });
});

test('denpex.server.path wins, relative to the workspace, ~ expanded', () => {
  assert.equal((resolveServer(settings({ path: 'build/denpex' }), ctx(['/ws/build/denpex', '/ext/bin/linux-x64/denpex'])) as { command: string }).command, '/ws/build/denpex');
  assert.equal((resolveServer(settings({ path: '~/bin/denpex' }), ctx(['/home/u/bin/denpex']), '/home/u') as { command: string }).command, '/home/u/bin/denpex');
});

test('a configured path that is not executable is an error, not a silent fallback', () => {
  const r = resolveServer(settings({ path: '/nope/denpex' }), ctx(['/ext/bin/linux-x64/denpex']));
  assert.equal(r.ok, false);
  assert.match((r as { reason: string }).reason, /denpex\.server\.path is set to \/nope\/denpex/);
});

test('no binary at all', () => {
  const r = resolveServer(settings(), ctx([]));
  assert.equal(r.ok, false);
  assert.deepEqual((r as { tried: string[] }).tried, ['/ext/bin/linux-x64/denpex', '/ext/bin/denpex']);
});

test('knowledge folders and trace level become server arguments', () => {
  assert.deepEqual(serverArgs(settings({ knowledgeFolders: ['kb', '/abs/kb', ' ', '~/team'], trace: 'verbose' }), { workspacePath: '/ws' }, '/home/u'),
    ['serve', '--log=debug', '--knowledge=/ws/kb', '--knowledge=/abs/kb', '--knowledge=/home/u/team']);
});

test('status bar presentation', () => {
  assert.equal(presentState({ kind: 'ready' }).text, '$(pulse) denpex');
  const crashed = presentState({ kind: 'crashed', detail: 'signal SIGSEGV' });
  assert.equal(crashed.background, 'statusBarItem.errorBackground');
  assert.match(crashed.tooltip, /stopped unexpectedly \(signal SIGSEGV\)\. Click to restart/);
});

test('launch scripts are offered sbatch first', () => {
  const files = ['/ws/train.py', '/ws/k8s/job.yaml', '/ws/run.sh', '/ws/train.sbatch', '/ws/Dockerfile'];
  assert.deepEqual(files.sort((a, b) => scriptRank(a) - scriptRank(b)),
    ['/ws/train.sbatch', '/ws/run.sh', '/ws/Dockerfile', '/ws/k8s/job.yaml', '/ws/train.py']);
});
