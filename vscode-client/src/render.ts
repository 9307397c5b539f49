// The result panel's HTML from a ReportView. Pure: everything from the logs is escaped, the only script is the
// panel's own (nonce), and links carry indices into ReportView.targets rather than paths.
import { DiagnosisView, EvidenceView, FixView, ReportView, StackFixView } from './model';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

function evidenceItem(e: EvidenceView): string {
  const where = e.target !== undefined
    ? `<a href="#" class="where" data-target="${e.target}" title="Open at this line">${escapeHtml(e.where)}</a>`
    : `<span class="where">${escapeHtml(e.where)}</span>`;
  return `<li class="evidence">${where}<code class="line">${escapeHtml(e.text)}</code></li>`;
}

function copyButton(id: string, label = 'Copy'): string {
  return `<button class="secondary" data-copy="${escapeHtml(id)}">${escapeHtml(label)}</button>`;
}

function fixBlock(f: FixView, d: number, i: number): string {
  const applies = f.applies && f.applies !== 'yes' && f.applies !== 'not needed here'
    ? ` <span class="applies">(${escapeHtml(f.applies)})</span>` : '';
  const env = f.env.length
    ? `<pre class="env" data-testid="fix-env">${escapeHtml(f.shell)}</pre>` : '';
  const buttons: string[] = [];
  if (f.canApply) buttons.push(`<button data-apply-fix="${d}:${i}" data-testid="apply-fix">Apply to launch script…</button>`);
  if (f.env.length) buttons.push(copyButton(`fix:${d}:${i}`));
  return `<li class="fix"><div>${escapeHtml(f.text)}${applies}</div>`
    + (f.why ? `<div class="why">${escapeHtml(f.why)}</div>` : '')
    + env + (buttons.length ? `<div class="buttons">${buttons.join(' ')}</div>` : '') + '</li>';
}

function stackFixBlock(f: StackFixView): string {
  return `<li class="stack-fix" data-stack="${escapeHtml(f.stack)}"><div><span class="stack">${escapeHtml(f.stack)}</span> <code>${escapeHtml(f.names)}</code>`
    + (f.versions ? ` <span class="applies">(${escapeHtml(f.versions)})</span>` : '') + '</div>'
    + `<pre class="snippet">${escapeHtml(f.snippet)}</pre>`
    + (f.source ? `<div class="why">${escapeHtml(f.source)}</div>` : '') + '</li>';
}

function section(title: string, body: string, cls = ''): string {
  return `<section class="${cls}"><h2>${escapeHtml(title)}</h2>${body}</section>`;
}

function diagnosisBlock(d: DiagnosisView, index: number): string {
  const parts: string[] = [];
  const tag = [d.failureId, d.category].filter(Boolean).map((s) => escapeHtml(s as string)).join(', ');
  const who = d.undetermined
    ? `<strong class="undetermined" data-testid="initiating">undetermined</strong>`
    : `<strong data-testid="initiating">${escapeHtml(d.initiating)}</strong>`
      + (d.host ? ` on <strong data-testid="host">${escapeHtml(d.host)}</strong>` : '');
  const conf = `<span data-testid="confidence" class="confidence ${escapeHtml(d.confidence)}">${escapeHtml(d.confidence || 'unknown')}</span>`
    + (d.strategies.length ? ` <span class="muted">(${escapeHtml(d.strategies.join(', '))})</span>` : '');
  parts.push(`<header class="verdict">
  <div class="row"><span class="label">FAILURE</span><span class="value"><strong data-testid="failure">${escapeHtml(d.title)}</strong>${tag ? ` <span class="muted">[${tag}]</span>` : ''}</span></div>
  <div class="row"><span class="label">INITIATING</span><span class="value">${who}${d.time ? ` <span class="muted">at ${escapeHtml(d.time)}</span>` : ''}</span></div>
  <div class="row"><span class="label">CONFIDENCE</span><span class="value">${conf}</span></div>
</header>`);
  if (d.missing.length) {
    parts.push(section(d.undetermined ? 'What would decide it' : 'Missing',
      `<ul class="missing" data-testid="missing">${d.missing.map((m) => `<li>${escapeHtml(m)}</li>`).join('')}</ul>`, 'missing'));
  }
  if (d.evidence.length) {
    parts.push(section('Evidence', `<ul class="evidence-list" data-testid="evidence">${d.evidence.map(evidenceItem).join('')}</ul>`));
  }
  if (d.collateral.length) {
    const groups = d.collateral.map((g) => {
      const members = g.members.map((m) => `<li>${escapeHtml(m.name)}${m.host ? ` <span class="muted">on ${escapeHtml(m.host)}</span>` : ''}`
        + (m.evidence ? `<ul>${evidenceItem(m.evidence)}</ul>` : '') + '</li>').join('');
      return `<details class="collateral-group"><summary><code>${escapeHtml(g.failureId ?? 'unclassified')}</code>: ${escapeHtml(g.ranksText)}</summary><ul>${members}</ul></details>`;
    }).join('');
    parts.push(section(`Collateral (${d.collateralCount} ${d.collateralCount === 1 ? 'process' : 'processes'}, failed because of the above)`,
      `<div data-testid="collateral">${groups}</div>`));
  }
  if (d.fixes.length) {
    const needed = d.fixes.map((f, i) => [f, i] as const).filter(([f]) => f.applies !== 'not needed here');
    const other = d.fixes.map((f, i) => [f, i] as const).filter(([f]) => f.applies === 'not needed here');
    const list = (xs: ReadonlyArray<readonly [FixView, number]>) => xs.map(([f, i]) => fixBlock(f, index, i)).join('');
    parts.push(section('Fix', `<ul class="fixes" data-testid="fixes">${list(needed)}</ul>`
      + (other.length ? `<details class="not-needed"><summary>Not needed here (${other.length})</summary><ul class="fixes">${list(other)}</ul></details>` : '')));
  }
  if (d.stackFixes.length) {
    const title = d.stackFromLogs ? 'Fix in your stack' : 'Fix per stack';
    parts.push(section(title, `<ul class="stack-fixes" data-testid="stack-fixes">${d.stackFixes.map(stackFixBlock).join('')}</ul>`));
  }
  if (d.verify) {
    parts.push(section('Verify', `<pre class="verify" data-testid="verify">${escapeHtml(d.verify)}</pre><div class="buttons">${copyButton(`verify:${index}`, 'Copy command')}</div>`));
  }
  if (d.reasoning.length) {
    parts.push(`<details class="reasoning"><summary>Why this verdict</summary><ol>${d.reasoning.map((r) => `<li>${escapeHtml(r)}</li>`).join('')}</ol></details>`);
  }
  if (d.notes.length) {
    parts.push(section('Notes', `<ul>${d.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>`, 'notes'));
  }
  return `<article class="diagnosis" data-testid="diagnosis">${parts.join('\n')}</article>`;
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export function renderBody(view: ReportView): string {
  const out: string[] = [];
  out.push(`<p class="source muted">Diagnosed: ${escapeHtml(view.source)}</p>`);
  if (!view.diagnoses.length) {
    out.push(`<header class="verdict"><div class="row"><span class="label">RESULT</span><span class="value"><strong data-testid="failure">No failure found</strong></span></div></header>`
      + '<p>denpex found nothing that failed in this text. Select more of the log (the lines before the first error), or diagnose the log files of every rank.</p>');
  }
  view.diagnoses.forEach((d, i) => {
    if (i === 1) out.push(`<h2 class="more">Also found (${view.diagnoses.length - 1})</h2>`);
    out.push(diagnosisBlock(d, i));
  });
  if (view.warnings.length) {
    out.push(section('Warnings', `<ul>${view.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul>`, 'warnings'));
  }
  const facts = [
    `${view.lines} lines, ${formatBytes(view.bytes)}`,
    view.worldSize !== null ? `world size ${view.worldSize}` : '',
    view.torchVersions ? `PyTorch ${view.torchVersions}` : '',
    view.stacks.length ? `stack: ${view.stacks.join(', ')}` : (view.torchrun ? 'torchrun' : ''),
    view.inputs.length ? `inputs: ${view.inputs.join(', ')}` : '',
  ].filter(Boolean);
  out.push(`<footer class="muted">${escapeHtml(facts.join(' · '))}</footer>`);
  return out.join('\n');
}

const STYLE = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 16px 16px; line-height: 1.45; }
.verdict { border-left: 4px solid var(--vscode-errorForeground, #f14c4c); padding: 6px 12px; margin: 12px 0; background: var(--vscode-editor-inactiveSelectionBackground, transparent); }
.verdict .row { display: flex; gap: 12px; }
.verdict .label { width: 92px; flex: none; font-weight: 600; letter-spacing: .04em; opacity: .8; }
.verdict strong { font-size: 1.05em; }
.undetermined { color: var(--vscode-editorWarning-foreground, #cca700); }
.confidence.high { color: var(--vscode-testing-iconPassed, #73c991); }
.confidence.low { color: var(--vscode-editorWarning-foreground, #cca700); }
h2 { font-size: 1em; margin: 16px 0 6px; text-transform: uppercase; letter-spacing: .05em; opacity: .85; }
h2.more { margin-top: 28px; border-top: 1px solid var(--vscode-panel-border, #444); padding-top: 12px; }
ul { padding-left: 18px; margin: 4px 0; }
li.evidence { list-style: none; margin-left: -18px; display: flex; gap: 10px; align-items: baseline; }
.where { white-space: nowrap; font-family: var(--vscode-editor-font-family); }
a { color: var(--vscode-textLink-foreground); text-decoration: none; }
a:hover { text-decoration: underline; }
code.line { font-family: var(--vscode-editor-font-family); white-space: pre-wrap; overflow-wrap: anywhere; }
pre { font-family: var(--vscode-editor-font-family); background: var(--vscode-textCodeBlock-background, rgba(128,128,128,.15)); padding: 6px 10px; white-space: pre-wrap; overflow-wrap: anywhere; margin: 6px 0; }
.muted { opacity: .7; }
.missing li { color: var(--vscode-editorWarning-foreground, #cca700); }
.why { opacity: .85; margin: 2px 0; }
li.fix { margin-bottom: 10px; }
li.stack-fix { list-style: none; margin: 0 0 10px -18px; }
.stack { font-weight: 600; }
button { background: var(--vscode-button-background); color: var(--vscode-button-foreground); border: none; padding: 4px 10px; cursor: pointer; font-family: inherit; }
button:hover { background: var(--vscode-button-hoverBackground); }
button.secondary { background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground); }
details { margin: 4px 0; }
summary { cursor: pointer; }
footer { margin-top: 20px; font-size: .9em; }
`;

const SCRIPT = `
const vscode = acquireVsCodeApi();
document.addEventListener('click', (ev) => {
  const el = ev.target.closest('[data-target],[data-copy],[data-apply-fix]');
  if (!el) return;
  ev.preventDefault();
  if (el.dataset.target !== undefined) vscode.postMessage({ type: 'open', target: Number(el.dataset.target) });
  else if (el.dataset.copy !== undefined) vscode.postMessage({ type: 'copy', what: el.dataset.copy });
  else if (el.dataset.applyFix !== undefined) vscode.postMessage({ type: 'applyFix', fix: el.dataset.applyFix });
});
`;

export interface HtmlOptions {
  nonce: string;
  cspSource: string;
  /** Counts the results shown in this panel, so that a new result can be told from the previous one. */
  run?: number;
}

export function renderHtml(view: ReportView, options: HtmlOptions): string {
  const csp = `default-src 'none'; style-src ${options.cspSource} 'nonce-${options.nonce}'; script-src 'nonce-${options.nonce}';`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>denpex</title>
<style nonce="${options.nonce}">${STYLE}</style>
</head><body data-run="${options.run ?? 0}">
${renderBody(view)}
<script nonce="${options.nonce}">${SCRIPT}</script>
</body></html>`;
}

/** A short page while the server works, or when it failed. */
export function renderMessageHtml(title: string, message: string, options: HtmlOptions): string {
  const csp = `default-src 'none'; style-src ${options.cspSource} 'nonce-${options.nonce}';`;
  return `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<style nonce="${options.nonce}">${STYLE}</style></head><body>
<header class="verdict"><div class="row"><span class="label">DENPEX</span><span class="value"><strong data-testid="status">${escapeHtml(title)}</strong></span></div></header>
<p>${escapeHtml(message)}</p></body></html>`;
}
