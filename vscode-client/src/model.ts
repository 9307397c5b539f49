// From the server's answer to what the result panel shows: verdict first, evidence with where each line can be
// opened, collateral ranks grouped by failure, fixes, the verification command, the missing fact. Pure.
import { maskSecrets } from './mask';
import {
  ASYNC_ERROR_HANDLING_VAR, Collateral, DiagnoseResult, Diagnosis, Evidence, FixAdvice, StackFix,
} from './protocol';

/** Where the diagnosed text came from, so that evidence lines can be mapped back to it. */
export type Origin =
  | { kind: 'editor'; label: string; documentUri: string; startLine: number }
  | { kind: 'terminal'; label: string }
  | { kind: 'files'; label: string };

/** Where an evidence link leads. `line` is 0-based. */
export type Target =
  | { kind: 'uri'; uri: string; line: number }
  | { kind: 'path'; path: string; line: number }
  | { kind: 'capturedText'; line: number }; // a line of the terminal text that was diagnosed

export interface EvidenceView {
  where: string; // "node1.log:25"
  text: string;
  target?: number; // index into ReportView.targets
}

export interface CollateralMember {
  name: string; // "rank 3" or the engine's process name
  rank: number | null;
  host: string | null;
  evidence?: EvidenceView;
}

export interface CollateralGroup {
  failureId: string | null;
  ranksText: string; // "ranks 0-3, 6, 7" (or the process names when they have no rank)
  members: CollateralMember[];
}

export interface FixView {
  text: string;
  applies: string;
  why: string;
  env: Array<[string, string]>;
  /** `export K=V` lines, for the copy button. */
  shell: string;
  /** The server can insert it into a launch script (it sets TORCH_NCCL_ASYNC_ERROR_HANDLING). */
  canApply: boolean;
}

export interface StackFixView {
  stack: string;
  names: string;
  snippet: string;
  versions: string;
  source: string;
}

export interface DiagnosisView {
  title: string;
  failureId: string | null;
  category: string | null;
  severity: string | null;
  initiating: string; // "rank 5", "undetermined", ...
  host: string | null;
  time: string | null;
  confidence: string;
  strategies: string[];
  undetermined: boolean;
  rankNotApplicable: boolean;
  evidence: EvidenceView[];
  collateral: CollateralGroup[];
  collateralCount: number;
  fixes: FixView[];
  /** The fixes for the stack the report names when it names one the entry has a fix for; else every stack's. */
  stackFixes: StackFixView[];
  /** Whether `stackFixes` were chosen by the stack the logs show (else they are every stack's). */
  stackFromLogs: boolean;
  verify: string;
  missing: string[];
  reasoning: string[];
  notes: string[];
}

export interface ReportView {
  source: string;
  diagnoses: DiagnosisView[];
  inputs: string[];
  lines: number;
  bytes: number;
  worldSize: number | null;
  torchVersions: string | null;
  torchrun: boolean;
  stacks: string[];
  warnings: string[];
  targets: Target[];
}

export interface ViewOptions {
  maskSecrets: boolean;
}

/** "0-3, 6, 7" for [0, 1, 2, 3, 6, 7]; runs of three or more are ranges. Sorted and de-duplicated. */
export function formatRankList(ranks: readonly number[]): string {
  const sorted = [...new Set(ranks)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    if (j - i >= 2) parts.push(`${sorted[i]}-${sorted[j]}`);
    else for (let k = i; k <= j; k++) parts.push(String(sorted[k]));
    i = j + 1;
  }
  return parts.join(', ');
}

function baseName(p: string): string {
  const clean = p.replace(/[?#].*$/, '');
  const i = Math.max(clean.lastIndexOf('/'), clean.lastIndexOf('\\'));
  const name = i >= 0 ? clean.slice(i + 1) : clean;
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

class Builder {
  readonly targets: Target[] = [];

  constructor(private readonly origin: Origin, private readonly options: ViewOptions) {}

  mask(s: string): string {
    return this.options.maskSecrets ? maskSecrets(s) : s;
  }

  private addTarget(t: Target): number {
    this.targets.push(t);
    return this.targets.length - 1;
  }

  evidence(e: Evidence): EvidenceView {
    const text = this.mask(e.text ?? '');
    const textLine = e.range ? e.range.start.line : Math.max(0, (e.line ?? 1) - 1); // 0-based line within its source
    if (e.location && e.location.uri) {
      const line = e.location.range.start.line;
      return { where: `${baseName(e.location.uri)}:${line + 1}`, text, target: this.addTarget({ kind: 'uri', uri: e.location.uri, line }) };
    }
    const fromText = !e.location && (e.range !== undefined || this.origin.kind !== 'files');
    if (fromText && this.origin.kind === 'editor') {
      const line = this.origin.startLine + textLine;
      return {
        where: `${baseName(this.origin.documentUri)}:${line + 1}`,
        text,
        target: this.addTarget({ kind: 'uri', uri: this.origin.documentUri, line }),
      };
    }
    if (fromText && this.origin.kind === 'terminal') {
      return { where: `terminal:${textLine + 1}`, text, target: this.addTarget({ kind: 'capturedText', line: textLine }) };
    }
    if (e.file && e.file.startsWith('/')) {
      return { where: `${baseName(e.file)}:${e.line}`, text, target: this.addTarget({ kind: 'path', path: e.file, line: textLine }) };
    }
    return { where: `${e.file}:${e.line}`, text };
  }

  collateral(list: readonly Collateral[]): CollateralGroup[] {
    const groups = new Map<string, CollateralGroup>();
    for (const c of list) {
      const key = c.failure_id ?? '';
      let g = groups.get(key);
      if (!g) {
        g = { failureId: c.failure_id, ranksText: '', members: [] };
        groups.set(key, g);
      }
      const name = c.rank !== null && c.rank !== undefined ? `rank ${c.rank}` : c.process;
      g.members.push({ name, rank: c.rank ?? null, host: c.host ?? null, evidence: c.evidence?.length ? this.evidence(c.evidence[0]) : undefined });
    }
    for (const g of groups.values()) {
      g.members.sort((a, b) => (a.rank ?? Number.MAX_SAFE_INTEGER) - (b.rank ?? Number.MAX_SAFE_INTEGER));
      const ranked = g.members.filter((m) => m.rank !== null).map((m) => m.rank as number);
      const unranked = g.members.filter((m) => m.rank === null).map((m) => m.name);
      const parts: string[] = [];
      if (ranked.length) parts.push(`${ranked.length === 1 ? 'rank' : 'ranks'} ${formatRankList(ranked)}`);
      parts.push(...unranked);
      g.ranksText = parts.join(', ');
    }
    return [...groups.values()];
  }

  fix(f: FixAdvice): FixView {
    const env = Object.entries(f.env ?? {});
    return {
      text: f.text,
      applies: f.applies,
      why: f.why,
      env,
      shell: env.map(([k, v]) => `export ${k}=${/^[A-Za-z0-9_.,:/=+-]*$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`}`).join('\n'),
      canApply: env.some(([k]) => k === ASYNC_ERROR_HANDLING_VAR),
    };
  }

  /** The report's stack's fixes when it names a stack the entry has fixes for, else all of them. */
  stackFixes(list: readonly StackFix[], stacks: readonly string[]): { fixes: StackFixView[]; fromLogs: boolean } {
    const view = (f: StackFix): StackFixView => ({ stack: f.stack, names: f.names, snippet: f.snippet, versions: f.versions ?? '', source: f.source ?? '' });
    const matching = list.filter((f) => stacks.includes(f.stack));
    return matching.length ? { fixes: matching.map(view), fromLogs: true } : { fixes: list.map(view), fromLogs: false };
  }

  diagnosis(d: Diagnosis, stacks: readonly string[] = []): DiagnosisView {
    const stackFixes = this.stackFixes(d.stack_fixes ?? [], stacks);
    const rank = d.initiating?.rank;
    let initiating: string;
    if (d.undetermined) initiating = 'undetermined';
    else if (d.rank_not_applicable) initiating = 'no single rank (every rank has it)';
    else if (rank !== null && rank !== undefined) initiating = `rank ${rank}`;
    else initiating = d.initiating?.process || 'unknown';
    return {
      title: d.failure?.title ?? 'Unknown failure',
      failureId: d.failure?.id ?? null,
      category: d.failure?.category ?? null,
      severity: d.failure?.severity ?? null,
      initiating,
      host: d.initiating?.host ?? null,
      time: d.initiating?.time ?? null,
      confidence: d.confidence ?? '',
      strategies: d.strategies ?? [],
      undetermined: !!d.undetermined,
      rankNotApplicable: !!d.rank_not_applicable,
      evidence: (d.initiating?.evidence ?? []).map((e) => this.evidence(e)),
      collateral: this.collateral(d.collateral ?? []),
      collateralCount: (d.collateral ?? []).length,
      fixes: (d.fix ?? []).map((f) => this.fix(f)),
      stackFixes: stackFixes.fixes,
      stackFromLogs: stackFixes.fromLogs,
      verify: d.verify ?? '',
      missing: (d.missing ?? []).map((m) => this.mask(m)),
      reasoning: (d.reasoning ?? []).map((m) => this.mask(m)),
      notes: (d.notes ?? []).map((m) => this.mask(m)),
    };
  }
}

export function buildReportView(result: DiagnoseResult, origin: Origin, options: ViewOptions): ReportView {
  const b = new Builder(origin, options);
  const stacks = result.stacks ?? [];
  const diagnoses = (result.diagnoses ?? []).map((d) => b.diagnosis(d, stacks));
  return {
    source: origin.label,
    diagnoses,
    inputs: result.inputs ?? [],
    lines: result.lines ?? 0,
    bytes: result.bytes ?? 0,
    worldSize: result.world_size ?? null,
    torchVersions: result.torch_versions ?? null,
    torchrun: !!result.torchrun,
    stacks,
    warnings: (result.warnings ?? []).map((w) => b.mask(w)),
    targets: b.targets,
  };
}

/** One line for notifications and the status bar: "CUDA out of memory: rank 5 on gpu-node-02 (high)". */
export function verdictLine(view: ReportView): string {
  const d = view.diagnoses[0];
  if (!d) return 'no failure found';
  if (d.undetermined) return `${d.title}: initiating rank undetermined${d.missing[0] ? ` (${d.missing[0]})` : ''}`;
  return `${d.title}: ${d.initiating}${d.host ? ` on ${d.host}` : ''}${d.confidence ? ` (${d.confidence} confidence)` : ''}`;
}
