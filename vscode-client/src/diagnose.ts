// The "Diagnose" commands: collect the text (editor selection or document, terminal selection or buffer) or the
// files, send `denpex/diagnose`, and show the result in the panel.
import * as crypto from 'crypto';
import * as path from 'path';
import * as vscode from 'vscode';
import { ExecuteCommandRequest, ResponseError } from 'vscode-languageclient/node';
import { FocusTracker } from './focus';
import { pickLogFiles } from './logFiles';
import { buildReportView, Origin, verdictLine } from './model';
import { ResultPanel } from './panel';
import { openLogDocuments } from './logDocuments';
import { DIAGNOSE_METHOD, DiagnoseParams, DiagnoseResult, MARK_JOB_COMMAND, MarkJobResult } from './protocol';
import { captureTerminalText, DEFAULT_CAPTURE_OPTIONS, extractEditorText } from './selection';
import { ServerManager } from './server';

function lineLabel(kind: string, startLine: number, text: string): string {
  if (kind === 'document') return 'whole document';
  const n = text.split('\n').length;
  return n === 1 ? `line ${startLine + 1}` : `lines ${startLine + 1}-${startLine + n}`;
}

export class Diagnoser {
  constructor(
    private readonly server: ServerManager,
    private readonly panel: ResultPanel,
    private readonly focus: FocusTracker,
  ) {}

  /** The palette command: the editor or the terminal, whichever the user was in. */
  async diagnoseSelection(arg?: unknown): Promise<void> {
    if (arg instanceof vscode.Uri) return this.diagnoseEditor(arg);
    const where = this.focus.current();
    if (where === 'terminal') return this.diagnoseTerminal();
    if (where === 'editor') return this.diagnoseEditor();
    void vscode.window.showInformationMessage('denpex: open a log in an editor or a terminal first, and select the lines to diagnose.');
  }

  async diagnoseEditor(uri?: vscode.Uri): Promise<void> {
    let editor = vscode.window.activeTextEditor;
    if (uri && (!editor || editor.document.uri.toString() !== uri.toString())) {
      editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
    }
    if (!editor) {
      void vscode.window.showInformationMessage('denpex: no editor to diagnose.');
      return;
    }
    const doc = editor.document;
    const extracted = extractEditorText(doc.getText(), editor.selections);
    const name = path.basename(doc.uri.scheme === 'file' ? doc.uri.fsPath : doc.uri.path) || 'untitled';
    const label = `${name} (${lineLabel(extracted.kind, extracted.startLine, extracted.text)})`;
    if (!extracted.text.trim()) {
      void vscode.window.showInformationMessage('denpex: the selection is empty.');
      return;
    }
    // A whole, saved file is read by the server itself (no size limit, exact file name and locations).
    if (extracted.kind === 'document' && doc.uri.scheme === 'file' && !doc.isDirty) {
      return this.run({ paths: [doc.uri.fsPath] }, { kind: 'files', label });
    }
    return this.run({ text: extracted.text, name }, {
      kind: 'editor', label, documentUri: doc.uri.toString(), startLine: extracted.startLine,
    });
  }

  /** `mode` 'buffer' when the caller knows nothing is selected (menus and keybindings check terminalTextSelected). */
  async diagnoseTerminal(mode: 'auto' | 'buffer' = 'auto'): Promise<void> {
    const terminal = vscode.window.activeTerminal;
    if (!terminal) {
      void vscode.window.showInformationMessage('denpex: no terminal to diagnose.');
      return;
    }
    const captured = await captureTerminalText({
      readClipboard: () => vscode.env.clipboard.readText(),
      writeClipboard: (t) => vscode.env.clipboard.writeText(t),
      executeCommand: (c) => vscode.commands.executeCommand(c),
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      sentinel: () => `\u2063denpex-${crypto.randomBytes(6).toString('hex')}`,
    }, DEFAULT_CAPTURE_OPTIONS, mode);
    if (!captured) {
      void vscode.window.showWarningMessage(
        'denpex: could not read the terminal (its text is copied through the clipboard; the browser may deny clipboard access). Select the text and try again, or save the output to a file and use "Denpex: Diagnose Log Files…".');
      return;
    }
    const label = `terminal "${terminal.name}" (${captured.kind === 'selection' ? 'selection' : 'whole buffer'})`;
    return this.run({ text: captured.text, name: 'terminal' }, { kind: 'terminal', label }, captured.text);
  }

  async diagnoseFiles(uri?: vscode.Uri, uris?: vscode.Uri[]): Promise<void> {
    let picked: vscode.Uri[] | undefined = uris && uris.length ? uris : uri ? [uri] : undefined;
    if (!picked) picked = await pickLogFiles();
    if (!picked || !picked.length) return;
    const files = picked.filter((u) => u.scheme === 'file');
    if (!files.length) {
      void vscode.window.showInformationMessage('denpex: only files on this machine can be diagnosed.');
      return;
    }
    const label = files.length === 1 ? path.basename(files[0].fsPath) : `${files.length} files`;
    return this.run({ paths: files.map((u) => u.fsPath) }, { kind: 'files', label });
  }

  /** "Diagnose Open Logs as One Job": the server links their diagnostics across documents; the panel shows the job. */
  async diagnoseOpenLogsAsJob(): Promise<void> {
    const logs = openLogDocuments(vscode.workspace.textDocuments);
    if (logs.length < 2) {
      void vscode.window.showInformationMessage('denpex: open the logs of the job first (two or more: every node or rank you have).');
      return;
    }
    const client = await this.server.ready();
    if (!client) return;
    const uris = logs.map((d) => d.uri.toString());
    await client.sendRequest(ExecuteCommandRequest.type, { command: MARK_JOB_COMMAND, arguments: [{ uris }] }) as MarkJobResult | null;
    return this.run({ uris }, { kind: 'files', label: `${uris.length} open logs as one job` });
  }

  private async run(params: DiagnoseParams, origin: Origin, capturedText?: string): Promise<void> {
    const client = await this.server.ready();
    if (!client) return;
    this.panel.showMessage('diagnosing…', `Diagnosing ${origin.label}.`);
    const busy = this.server.markBusy(`diagnosing ${origin.label}`);
    try {
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `denpex: diagnosing ${origin.label}`, cancellable: true },
        (_progress, token) => client.sendRequest<DiagnoseResult>(DIAGNOSE_METHOD, params, token),
      );
      const mask = vscode.workspace.getConfiguration('denpex').get<boolean>('maskSecrets', true);
      const view = buildReportView(result, origin, { maskSecrets: mask });
      this.panel.showResult(view, capturedText);
      this.server.output.info(`diagnosed ${origin.label}: ${verdictLine(view)}`);
    } catch (e) {
      const cancelled = e instanceof ResponseError && e.code === -32800;
      const msg = e instanceof Error ? e.message : String(e);
      this.panel.showMessage(cancelled ? 'cancelled' : 'diagnosis failed', cancelled ? 'The diagnosis was cancelled.' : msg);
      if (!cancelled) this.server.output.error(`diagnose ${origin.label}: ${msg}`);
    } finally {
      busy.dispose();
    }
  }
}
