// The `denpex/diagnose` request and the engine's JSON contract it answers with (engine/report.hpp), plus the
// LSP locations the server adds to every evidence object (server/handlers/evidence_locations.hpp).
// Types only: no `vscode` import, so the pure modules and their unit tests can use them.

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface Location {
  uri: string;
  range: Range;
}

/** One log line. `location` when the source has a URI; only `range` (relative to the text sent) when not. */
export interface Evidence {
  file: string;
  line: number; // 1-based, as the engine counts
  text: string;
  range?: Range;
  location?: Location;
}

export interface Failure {
  id: string;
  title: string;
  category: string;
  severity: string;
}

export interface Initiating {
  rank: number | null;
  process: string | null;
  host: string | null;
  time: string | null;
  evidence: Evidence[];
}

export interface Collateral {
  rank: number | null;
  process: string;
  host: string | null;
  failure_id: string | null;
  evidence: Evidence[];
}

export interface FixAdvice {
  text: string;
  env: Record<string, string>;
  applies: string; // "yes", "if <condition>", "not needed here"
  why: string;
}

/** A fix in one training stack's own terms: the exact argument / config key / env var and a snippet naming it. */
export interface StackFix {
  stack: string; // pytorch | torchrun | hf-trainer | accelerate | deepspeed | megatron | lightning | vllm | ray
  names: string;
  snippet: string;
  versions: string;
  source: string;
  in_logs: boolean; // the logs show this stack
}

export interface Diagnosis {
  failure: Failure | null;
  confidence: string; // high | medium | low
  initiating: Initiating;
  undetermined: boolean;
  rank_not_applicable: boolean;
  affected_ranks: number[];
  strategies: string[];
  reasoning: string[];
  collateral: Collateral[];
  fix: FixAdvice[];
  /** The stack fixes, those for the stacks the logs show first (absent from servers before the field). */
  stack_fixes?: StackFix[];
  verify: string;
  missing: string[];
  notes: string[];
}

export interface RankState {
  rank: number | null;
  process: string;
  host: string | null;
  state: string; // initiating | collateral | silent | ok | affected
  last_line: Evidence;
}

export interface DiagnoseResult {
  diagnoses: Diagnosis[];
  ranks: RankState[];
  inputs: string[];
  torch_versions: string | null;
  torchrun: boolean;
  /** The training stacks the logs show, most specific first (absent from servers before the field). */
  stacks?: string[];
  world_size: number | null;
  bytes: number;
  lines: number;
  warnings: string[];
}

/** Params of `denpex/diagnose`: at least one of them. `name` names the text (default "<text>"). */
export interface DiagnoseParams {
  text?: string;
  name?: string;
  uris?: string[];
  paths?: string[];
}

export const DIAGNOSE_METHOD = 'denpex/diagnose';
/** Server-side command (workspace/executeCommand): inserts TORCH_NCCL_ASYNC_ERROR_HANDLING=1 into a launch script. */
export const INSERT_ASYNC_ERROR_HANDLING_COMMAND = 'denpex.server.insertAsyncErrorHandling';
export const ASYNC_ERROR_HANDLING_VAR = 'TORCH_NCCL_ASYNC_ERROR_HANDLING';
/** Server-side command: these open log documents are one job, diagnosed together (fewer than two unmark them). */
export const MARK_JOB_COMMAND = 'denpex.server.markJob';

export interface MarkJobResult {
  job: string;
  documents: number;
  open: number;
}

export interface InsertCommandResult {
  applied: boolean;
  reason?: string;
}

/** `denpex/watch`: follow a running job's log folder; answered when the watch ends (denpex/stopWatch). */
export const WATCH_METHOD = 'denpex/watch';
export const STOP_WATCH_METHOD = 'denpex/stopWatch';
export const WATCH_UPDATE_NOTIFICATION = 'denpex/watchUpdate';

export interface WatchParams {
  folder: string; // a path or a file: URI
  fromEnd?: boolean;
  /** The client's own name for the watch (unique while it runs): updates and denpex/stopWatch use it. */
  watchId?: string;
}

export interface WatchResult {
  watchId: string;
  report: DiagnoseResult;
}

/** `ready` once the files' present content was read; `initiating` the moment a new initiating failure appears. */
export interface WatchUpdate {
  watchId: string;
  event: 'ready' | 'initiating' | 'verdict';
  files?: number;
  failure?: string;
  rank?: number | null;
  process?: string;
  host?: string | null;
  report?: DiagnoseResult;
}
