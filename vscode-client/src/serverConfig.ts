// How `denpex serve` is started: which binary, with which arguments. Pure (file checks are injected).

export interface ServerSettings {
  /** `denpex.server.path`; VS Code already drops a workspace value in untrusted workspaces (restrictedConfigurations). */
  path: string;
  /** `denpex.knowledge.folders`, as written. */
  knowledgeFolders: string[];
  /** `denpex.trace.server`. */
  trace: 'off' | 'messages' | 'verbose';
  /** `denpex.saveHistory` (default true): each diagnosis is saved to the local history (`--save-history`). */
  saveHistory?: boolean;
}

export interface ResolveContext {
  /** Absolute path of the extension's folder. */
  extensionPath: string;
  /** First workspace folder's path, for relative knowledge folders and server path. */
  workspacePath?: string;
  platform: string; // process.platform
  arch: string; // process.arch
  isExecutable(path: string): boolean;
}

export type ResolvedServer =
  | { ok: true; command: string; args: string[]; bundled: boolean }
  | { ok: false; reason: string; tried: string[] };

function isAbsolute(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p);
}

function join(a: string, b: string): string {
  return a.replace(/[\\/]+$/, '') + '/' + b;
}

export function expandHome(p: string, home: string | undefined): string {
  if (home && (p === '~' || p.startsWith('~/'))) return home + p.slice(1);
  return p;
}

/** Where the .vsix puts the server: bin/<platform>-<arch>/denpex (vsce --target linux-x64). */
export function bundledServerCandidates(ctx: ResolveContext): string[] {
  const exe = ctx.platform === 'win32' ? 'denpex.exe' : 'denpex';
  return [join(ctx.extensionPath, `bin/${ctx.platform}-${ctx.arch}/${exe}`), join(ctx.extensionPath, `bin/${exe}`)];
}

export function serverArgs(settings: ServerSettings, ctx: Pick<ResolveContext, 'workspacePath'>, home?: string): string[] {
  const args = ['serve'];
  args.push(`--log=${settings.trace === 'verbose' ? 'debug' : 'info'}`);
  for (const raw of settings.knowledgeFolders) {
    const f = expandHome(raw.trim(), home);
    if (!f) continue;
    const dir = isAbsolute(f) || !ctx.workspacePath ? f : join(ctx.workspacePath, f);
    args.push(`--knowledge=${dir}`);
  }
  if (settings.saveHistory) args.push('--save-history');
  return args;
}

export function resolveServer(settings: ServerSettings, ctx: ResolveContext, home?: string): ResolvedServer {
  const args = serverArgs(settings, ctx, home);
  const configured = expandHome(settings.path.trim(), home);
  if (configured) {
    const p = isAbsolute(configured) || !ctx.workspacePath ? configured : join(ctx.workspacePath, configured);
    if (ctx.isExecutable(p)) return { ok: true, command: p, args, bundled: false };
    return { ok: false, reason: `denpex.server.path is set to ${p}, which is not an executable file.`, tried: [p] };
  }
  const tried = bundledServerCandidates(ctx);
  for (const c of tried) if (ctx.isExecutable(c)) return { ok: true, command: c, args, bundled: true };
  return {
    ok: false,
    reason: `This denpex extension has no server binary for ${ctx.platform}-${ctx.arch}. Set denpex.server.path to a denpex binary.`,
    tried,
  };
}
