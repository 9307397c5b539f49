import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildReportView, formatRankList, verdictLine } from '../../src/model';
import { DiagnoseResult } from '../../src/protocol';

// Fixtures are real answers of `denpex serve` to denpex/diagnose on tests/corpus/example-oom-watchdog (paths
// rewritten to /ws/logs): both node logs from disk, and node1.log's text.
const fixture = (name: string): DiagnoseResult =>
  JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'test', 'fixtures', name), 'utf8'));

test('rank lists', () => {
  assert.equal(formatRankList([0, 1, 2, 3, 4, 6, 7]), '0-4, 6, 7');
  assert.equal(formatRankList([7, 6, 1, 0, 0]), '0, 1, 6, 7');
  assert.equal(formatRankList([]), '');
  assert.equal(formatRankList([5]), '5');
});

test('files: verdict, evidence as file links, collateral grouped', () => {
  const v = buildReportView(fixture('oom-watchdog-files.json'), { kind: 'files', label: '2 files' }, { maskSecrets: true });
  const d = v.diagnoses[0];
  assert.equal(d.title, 'Watchdog timeout caused by silent single-rank OOM');
  assert.equal(d.initiating, 'rank 5');
  assert.equal(d.host, 'gpu-node-02');
  assert.equal(d.confidence, 'high');
  assert.equal(d.evidence.length, 1);
  assert.equal(d.evidence[0].where, 'node1.log:25');
  assert.deepEqual(v.targets[d.evidence[0].target as number], { kind: 'uri', uri: 'file:///ws/logs/node1.log', line: 24 });
  assert.equal(d.collateral.length, 1);
  assert.equal(d.collateral[0].failureId, 'nccl-watchdog-timeout');
  assert.equal(d.collateral[0].ranksText, 'ranks 0-4, 6, 7');
  assert.equal(d.collateralCount, 7);
  assert.ok(d.fixes.some((f) => f.canApply && f.shell.includes('export TORCH_NCCL_ASYNC_ERROR_HANDLING=1')));
  assert.ok(d.fixes.filter((f) => !f.env.length).every((f) => !f.canApply && f.shell === ''));
  assert.match(d.verify, /grep -rnE/);
  assert.equal(verdictLine(v), 'Watchdog timeout caused by silent single-rank OOM: rank 5 on gpu-node-02 (high confidence)');
});

test('editor selection: evidence lines map back into the document', () => {
  const v = buildReportView(fixture('oom-watchdog-text.json'),
    { kind: 'editor', label: 'node1.log (lines 101-129)', documentUri: 'file:///ws/logs/big.log', startLine: 100 }, { maskSecrets: false });
  const d = v.diagnoses[0];
  assert.equal(d.initiating, 'rank 5');
  assert.equal(d.evidence[0].where, 'big.log:125'); // line 25 of the text, which starts at document line 101
  assert.deepEqual(v.targets[d.evidence[0].target as number], { kind: 'uri', uri: 'file:///ws/logs/big.log', line: 124 });
  assert.deepEqual(d.notes, ['The logs of ranks 0-3 are not here; a failure there cannot be ruled out, though nothing here points to one.']);
});

test('terminal text: evidence lines open the captured text', () => {
  const v = buildReportView(fixture('oom-watchdog-text.json'), { kind: 'terminal', label: 'terminal' }, { maskSecrets: true });
  const e = v.diagnoses[0].evidence[0];
  assert.equal(e.where, 'terminal:25');
  assert.deepEqual(v.targets[e.target as number], { kind: 'capturedText', line: 24 });
});

test('undetermined: the verdict says so and the missing fact leads', () => {
  const r = fixture('oom-watchdog-text.json');
  const d = r.diagnoses[0];
  d.undetermined = true;
  d.initiating = { rank: null, process: null, host: null, time: null, evidence: [] };
  d.missing = ['the logs of ranks 4-7 are not here; search them for \'CUDA out of memory\''];
  const v = buildReportView(r, { kind: 'files', label: 'node0.log' }, { maskSecrets: true });
  assert.equal(v.diagnoses[0].initiating, 'undetermined');
  assert.match(verdictLine(v), /undetermined \(the logs of ranks 4-7 are not here/);
});

test('secrets are masked in evidence when asked', () => {
  const r = fixture('oom-watchdog-text.json');
  r.diagnoses[0].initiating.evidence[0].text = '5: export HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz';
  assert.equal(buildReportView(r, { kind: 'terminal', label: 't' }, { maskSecrets: true }).diagnoses[0].evidence[0].text, '5: export HF_TOKEN=****');
  assert.match(buildReportView(r, { kind: 'terminal', label: 't' }, { maskSecrets: false }).diagnoses[0].evidence[0].text, /hf_abc/);
});

test('no diagnoses', () => {
  const v = buildReportView({ diagnoses: [], ranks: [], inputs: ['<text>'], torch_versions: null, torchrun: false, world_size: null, bytes: 3, lines: 1, warnings: [] },
    { kind: 'terminal', label: 't' }, { maskSecrets: true });
  assert.equal(verdictLine(v), 'no failure found');
});
