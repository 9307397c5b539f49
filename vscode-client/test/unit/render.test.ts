import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildReportView } from '../../src/model';
import { DiagnoseResult } from '../../src/protocol';
import { escapeHtml, renderBody, renderHtml } from '../../src/render';

const fixture = (name: string): DiagnoseResult =>
  JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'test', 'fixtures', name), 'utf8'));
const files = () => buildReportView(fixture('oom-watchdog-files.json'), { kind: 'files', label: '2 files' }, { maskSecrets: true });
const text = (s: string) => s.replace(/<[^>]+>/g, '').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'");

test('escaping', () => {
  assert.equal(escapeHtml(`<img src=x onerror="a('b')">&`), '&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;');
});

test('the verdict comes first: failure, initiating rank and host, confidence', () => {
  const body = renderBody(files());
  const verdict = body.indexOf('class="verdict"');
  assert.ok(verdict >= 0 && verdict < body.indexOf('Evidence') && body.indexOf('Evidence') < body.indexOf('Collateral'));
  assert.match(body, /<strong data-testid="initiating">rank 5<\/strong> on <strong data-testid="host">gpu-node-02<\/strong>/);
  assert.match(body, /data-testid="failure">Watchdog timeout caused by silent single-rank OOM</);
  assert.match(body, /data-testid="confidence" class="confidence high">high</);
});

test('evidence lines are links by index, never by path', () => {
  const body = renderBody(files());
  assert.match(body, /<a href="#" class="where" data-target="0"[^>]*>node1\.log:25<\/a><code class="line">5: RuntimeError: CUDA out of memory/);
  assert.ok(!body.includes('file:///ws'));
});

test('collateral grouped by failure with a compact rank list', () => {
  assert.match(text(renderBody(files())), /Collateral \(7 processes, failed because of the above\)nccl-watchdog-timeout: ranks 0-4, 6, 7/);
});

test('fix: apply button only where the server can apply it; copy buttons; not-needed fixes folded', () => {
  const body = renderBody(files());
  assert.equal((body.match(/data-apply-fix=/g) ?? []).length, 1);
  assert.match(body, /data-apply-fix="0:1"/);
  assert.match(body, /<pre class="env" data-testid="fix-env">export NCCL_ASYNC_ERROR_HANDLING=1\nexport TORCH_NCCL_ASYNC_ERROR_HANDLING=1<\/pre>/);
  assert.match(body, /<details class="not-needed"><summary>Not needed here \(2\)<\/summary>/);
  assert.match(body, /<pre class="verify" data-testid="verify">grep -rnE &#39;CUDA out of memory/);
  assert.match(body, /data-copy="verify:0"/);
});

test('undetermined: the missing fact is shown before the evidence', () => {
  const r = fixture('oom-watchdog-text.json');
  r.diagnoses[0].undetermined = true;
  r.diagnoses[0].initiating.rank = null;
  r.diagnoses[0].missing = ['the logs of ranks 4-7 are not here'];
  const body = renderBody(buildReportView(r, { kind: 'terminal', label: 't' }, { maskSecrets: true }));
  assert.match(body, /class="undetermined" data-testid="initiating">undetermined</);
  assert.ok(body.indexOf('What would decide it') < body.indexOf('Evidence'));
  assert.match(body, /<ul class="missing" data-testid="missing"><li>the logs of ranks 4-7 are not here<\/li>/);
});

test('log text cannot inject markup', () => {
  const r = fixture('oom-watchdog-text.json');
  r.diagnoses[0].initiating.evidence[0].text = '<script>alert(1)</script>';
  r.diagnoses[0].failure!.title = '<b>x</b>';
  const body = renderBody(buildReportView(r, { kind: 'terminal', label: '<t>' }, { maskSecrets: false }));
  assert.ok(!body.includes('<script>') && !body.includes('<b>x</b>') && !body.includes('<t>'));
});

test('the page: CSP with a nonce for the only script and style', () => {
  const html = renderHtml(files(), { nonce: 'N0NCE', cspSource: 'vscode-webview://x' });
  assert.match(html, /Content-Security-Policy" content="default-src &#39;none&#39;; style-src vscode-webview:\/\/x &#39;nonce-N0NCE&#39;; script-src &#39;nonce-N0NCE&#39;;"/);
  assert.equal((html.match(/<script/g) ?? []).length, 1);
  assert.match(html, /<script nonce="N0NCE">/);
});

test('no failure found', () => {
  const body = renderBody(buildReportView({ diagnoses: [], ranks: [], inputs: ['terminal'], torch_versions: null, torchrun: false, world_size: null, bytes: 10, lines: 2, warnings: ['w1'] },
    { kind: 'terminal', label: 'terminal' }, { maskSecrets: true }));
  assert.match(body, /No failure found/);
  assert.match(body, /<li>w1<\/li>/);
});

test('stack fixes: the stack the report names when the entry has a fix for it, else every stack', () => {
  const r = fixture('oom-watchdog-files.json');
  r.diagnoses[0].stack_fixes = [
    { stack: 'hf-trainer', names: 'ddp_timeout', snippet: 'TrainingArguments(ddp_timeout=600)', versions: '>=4.30', source: 'src/transformers/training_args.py', in_logs: false },
    { stack: 'deepspeed', names: 'timeout', snippet: 'deepspeed.init_distributed(timeout=t)', versions: '', source: 'deepspeed/comm/comm.py', in_logs: false },
  ];
  r.stacks = ['deepspeed', 'torchrun'];
  let body = renderBody(buildReportView(r, { kind: 'files', label: 'f' }, { maskSecrets: true }));
  assert.match(body, /<h2>Fix in your stack<\/h2><ul class="stack-fixes" data-testid="stack-fixes"><li class="stack-fix" data-stack="deepspeed">/);
  assert.ok(!body.includes('ddp_timeout'));
  assert.ok(body.indexOf('Fix in your stack') < body.indexOf('Verify'));
  r.stacks = ['megatron'];
  body = renderBody(buildReportView(r, { kind: 'files', label: 'f' }, { maskSecrets: true }));
  assert.match(body, /<h2>Fix per stack<\/h2>/);
  assert.ok(body.includes('TrainingArguments(ddp_timeout=600)') && body.includes('deepspeed.init_distributed(timeout=t)'));
  delete r.stacks;
  delete r.diagnoses[0].stack_fixes;
  body = renderBody(buildReportView(r, { kind: 'files', label: 'f' }, { maskSecrets: true }));
  assert.ok(!body.includes('stack-fixes'));
});
