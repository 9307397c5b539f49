// Starts, stops and restarts `denpex serve` through vscode-languageclient, and reports its state. A crash is
// reported once, with a Restart action and how the server ended (it waits for the exit status, which can arrive
// after the transport's close); the client library's own error popups go to the output channel only.
import * as cp from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as vscode from 'vscode';
import {
  CloseAction, ErrorAction, LanguageClient, LanguageClientOptions, RevealOutputChannelOn, ServerOptions, State,
} from 'vscode-languageclient/node';
import { ChildExitWatch } from './childExit';
import { ResolvedServer, resolveServer, ServerSettings } from './serverConfig';
import { ServerState } from './serverState';

/** A LanguageClient that never shows its own notifications: the extension decides what the user sees. */
class QuietLanguageClient extends LanguageClient {
  override error(message: string, data?: unknown, _showNotification?: boolean | 'force'): void {
    super.error(message, data, false);
  }
}

export const DOCUMENT_SELECTOR = [
  { scheme: 'file', language: 'log' },
  { scheme: 'untitled', language: 'log' },
  { scheme: 'file', pattern: '**/slurm-*.out' },
  { scheme: 'file', language: 'shellscript' },
  { scheme: 'file', pattern: '**/*.{sbatch,slurm}' },
  { scheme: 'file', language: 'python' },
  { scheme: 'file', language: 'yaml' },
  { scheme: 'file', language: 'dockerfile' },
];

function isExecutable(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function readSettings(): ServerSettings {
  const c = vscode.workspace.getConfiguration('denpex');
  const trace = c.get<string>('trace.server', 'off');
  return {
    path: c.get<string>('server.path', '') ?? '',
    knowledgeFolders: c.get<string[]>('knowledge.folders', []) ?? [],
    trace: trace === 'messages' || trace === 'verbose' ? trace : 'off',
    saveHistory: c.get<boolean>('saveHistory', true) ?? true,
  };
}

type Spawned = { child: cp.ChildProcess; exit: ChildExitWatch };

/** How long a crash report waits for the exit status after the server's output closed. */
const EXIT_STATUS_WAIT_MS = 10000;

export class ServerManager implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private process: cp.ChildProcess | undefined;
  private stopping = false;
  private crashReported = false;
  private missingReported = '';
  private stateValue: ServerState = { kind: 'stopped' };
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  readonly onDidChangeState = this.stateEmitter.event;

  constructor(private readonly context: vscode.ExtensionContext, readonly output: vscode.LogOutputChannel) {}

  get state(): ServerState {
    return this.stateValue;
  }

  private setState(s: ServerState): void {
    this.stateValue = s;
    this.stateEmitter.fire(s);
  }

  /** The running client, or undefined (and the user told why) when the server is not running. */
  async ready(): Promise<LanguageClient | undefined> {
    if (this.client && this.client.state === State.Running) return this.client;
    if (this.client && this.client.state === State.Starting) {
      try {
        await this.client.start();
        return this.client;
      } catch {
        /* reported by start() */
      }
    }
    const pick = await vscode.window.showErrorMessage(
      `denpex: the server is not running${this.stateValue.kind === 'missing' ? ` (${this.stateValue.reason})` : ''}.`,
      'Restart', 'Show Output');
    if (pick === 'Restart') {
      await this.restart();
      return this.client && this.client.state === State.Running ? this.client : undefined;
    }
    if (pick === 'Show Output') this.output.show(true);
    return undefined;
  }

  markBusy(what: string): vscode.Disposable {
    const before = this.stateValue;
    if (before.kind === 'ready') this.setState({ kind: 'busy', what });
    return new vscode.Disposable(() => {
      if (this.stateValue.kind === 'busy') this.setState(before);
    });
  }

  async start(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const resolved: ResolvedServer = resolveServer(readSettings(), {
      extensionPath: this.context.extensionPath,
      workspacePath: folder?.uri.scheme === 'file' ? folder.uri.fsPath : undefined,
      platform: process.platform,
      arch: process.arch,
      isExecutable,
    }, os.homedir());
    if (!resolved.ok) {
      this.output.error(`${resolved.reason} Tried: ${resolved.tried.join(', ')}`);
      this.setState({ kind: 'missing', reason: resolved.reason });
      if (this.missingReported !== resolved.reason) {
        this.missingReported = resolved.reason;
        void vscode.window.showErrorMessage(`denpex: ${resolved.reason}`, 'Open Settings', 'Show Output').then((pick) => {
          if (pick === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'denpex.server.path');
          if (pick === 'Show Output') this.output.show(true);
        });
      }
      return;
    }
    this.missingReported = '';
    this.output.info(`starting ${resolved.command} ${resolved.args.join(' ')}`);

    let spawned: Spawned | undefined; // this client's server process, watched from its spawn
    const serverOptions: ServerOptions = async () => {
      const child = cp.spawn(resolved.command, resolved.args, {
        cwd: vscode.workspace.workspaceFolders?.[0]?.uri.scheme === 'file' ? vscode.workspace.workspaceFolders[0].uri.fsPath : undefined,
        stdio: 'pipe',
      });
      this.process = child;
      const exit = new ChildExitWatch(child);
      spawned = { child, exit };
      child.on('error', (e) => this.output.error(`denpex serve: ${e.message}`));
      child.on('exit', () => {
        this.output.info(`denpex serve exited (${exit.ended})`);
        if (this.process === child) this.process = undefined;
      });
      return child;
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: DOCUMENT_SELECTOR,
      outputChannel: this.output,
      traceOutputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      markdown: { isTrusted: false, supportHtml: false },
      errorHandler: {
        error: () => ({ action: ErrorAction.Continue, handled: true }),
        closed: () => {
          if (!this.stopping) void this.reportCrashOnceEnded(client, spawned);
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
      initializationFailedHandler: (error) => {
        this.output.error(`initialize failed: ${error instanceof Error ? error.message : String(error)}`);
        return false;
      },
    };
    const client = new QuietLanguageClient('denpex', 'denpex', serverOptions, clientOptions);
    this.client = client;
    this.stopping = false;
    this.setState({ kind: 'starting' });
    client.onDidChangeState((e) => {
      if (this.client !== client) return;
      if (e.newState === State.Running) {
        this.crashReported = false;
        const info = client.initializeResult?.serverInfo;
        this.setState({ kind: 'ready', version: info ? `${info.name} ${info.version ?? ''}`.trim() : undefined });
      } else if (e.newState === State.Starting) {
        this.setState({ kind: 'starting' });
      }
    });
    try {
      await client.start();
    } catch (e) {
      if (this.client === client && !this.stopping) {
        this.output.error(`could not start the server: ${e instanceof Error ? e.message : String(e)}`);
        await this.reportCrashOnceEnded(client, spawned);
      }
    }
  }

  /**
   * Reports the crash of `client`'s server once its process has ended, naming how: the transport's close comes
   * first and the exit status (with the signal) in an event of its own, later on a loaded machine. A server that
   * closed its output but still runs after EXIT_STATUS_WAIT_MS is stopped and reported as such.
   */
  private async reportCrashOnceEnded(client: LanguageClient, spawned: Spawned | undefined): Promise<void> {
    let how = spawned ? await spawned.exit.wait(EXIT_STATUS_WAIT_MS) : undefined;
    if (spawned && how === undefined) {
      how = 'closed its connection without exiting';
      spawned.child.kill();
    }
    if (this.client !== client || this.stopping) return; // stopped or restarted meanwhile
    this.reportCrash(how);
  }

  private reportCrash(how: string | undefined): void {
    if (this.stopping) return;
    this.setState({ kind: 'crashed', detail: how });
    if (this.crashReported) return;
    this.crashReported = true;
    const detail = how ? ` (${how})` : '';
    void vscode.window.showErrorMessage(
      `denpex: the server stopped unexpectedly${detail}. Log diagnostics, hovers and Diagnose need it.`,
      'Restart', 'Show Output').then((pick) => {
      if (pick === 'Restart') void this.restart();
      if (pick === 'Show Output') this.output.show(true);
    });
  }

  async stop(): Promise<void> {
    const client = this.client;
    const child = this.process;
    this.stopping = true;
    this.client = undefined;
    if (client) {
      try {
        await client.dispose(3000); // stops it if it runs; drops its listeners and registered server commands
      } catch (e) {
        this.output.warn(`stopping the server: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    if (child && child.exitCode === null && child.signalCode === null) child.kill();
    this.process = undefined;
    this.setState({ kind: 'stopped' });
  }

  async restart(): Promise<void> {
    await this.stop();
    this.crashReported = false;
    await this.start();
  }

  dispose(): void {
    void this.stop();
    this.stateEmitter.dispose();
  }
}
