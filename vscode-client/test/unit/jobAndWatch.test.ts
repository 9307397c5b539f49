import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { isLogDocument, openLogDocuments } from '../../src/logDocuments';
import { WatchUpdate } from '../../src/protocol';
import { initiatingMessage } from '../../src/watchMessage';

const doc = (p: string, languageId = 'plaintext', scheme = 'file') =>
  ({ languageId, uri: { scheme, path: p, toString: () => `${scheme}://${p}` } });

test('log documents: languageId log or a log-like name, files and untitled only', () => {
  assert.equal(isLogDocument(doc('/runs/node0.log')), true);
  assert.equal(isLogDocument(doc('/runs/slurm-42.out')), true);
  assert.equal(isLogDocument(doc('/runs/train.log.1')), true);
  assert.equal(isLogDocument(doc('/runs/notes', 'log')), true);
  assert.equal(isLogDocument(doc('/runs/train.py', 'python')), false);
  assert.equal(isLogDocument(doc('/runs/node0.log', 'log', 'git')), false);
  assert.equal(isLogDocument({ ...doc('/runs/node0.log'), isClosed: true }), false);
});

test('open logs of a job come in URI order', () => {
  const got = openLogDocuments([doc('/r/node1.log'), doc('/r/train.py', 'python'), doc('/r/node0.log')]);
  assert.deepEqual(got.map((d) => d.uri.path), ['/r/node0.log', '/r/node1.log']);
});

test('the watch notification names the rank, its host and the failure', () => {
  const u: WatchUpdate = {
    watchId: 'watch-1', event: 'initiating', failure: 'cuda-oom', rank: 5, host: 'gpu-node-07',
    report: { diagnoses: [{ failure: { id: 'cuda-oom', title: 'CUDA out of memory' } }] } as unknown as WatchUpdate['report'],
  };
  assert.equal(initiatingMessage(u, 'run-42'), 'denpex: rank 5 on gpu-node-07 failed first in run-42: CUDA out of memory.');
  assert.equal(initiatingMessage({ watchId: 'w', event: 'initiating', process: 'pid 77' }, 'x'),
    'denpex: pid 77 failed first in x: a failure.');
});

test('denpex.saveHistory adds --save-history to the server arguments', async () => {
  const { serverArgs } = await import('../../src/serverConfig');
  const base = { path: '', knowledgeFolders: [], trace: 'off' as const };
  assert.ok(serverArgs({ ...base, saveHistory: true }, {}).includes('--save-history'));
  assert.ok(!serverArgs({ ...base, saveHistory: false }, {}).includes('--save-history'));
});
