// Entry point: starts `denpex serve`, registers the commands, the status-bar item and the result panel. No
// diagnosis logic lives here; the server does it all.
import * as vscode from 'vscode';
import { Diagnoser } from './diagnose';
import { FocusTracker } from './focus';
import { applyAsyncErrorHandling, pickLaunchScript } from './launchScripts';
import { ResultPanel } from './panel';
import { ServerManager } from './server';
import { ServerStatusBar } from './statusBar';
import { FolderWatcher } from './watch';

let server: ServerManager | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('denpex', { log: true });
  server = new ServerManager(context, output);
  const s = server;
  const focus = new FocusTracker();
  const panel = new ResultPanel({
    applyFix: async () => {
      const uri = await pickLaunchScript();
      if (uri) await applyAsyncErrorHandling(s, uri);
    },
  });
  const diagnoser = new Diagnoser(s, panel, focus);
  const watcher = new FolderWatcher(s, panel);

  context.subscriptions.push(
    output, s, focus, panel, watcher, new ServerStatusBar(s),
    vscode.commands.registerCommand('denpex.diagnoseSelection', (arg?: unknown) => diagnoser.diagnoseSelection(arg)),
    vscode.commands.registerCommand('denpex.diagnoseEditorSelection', (uri?: unknown) =>
      diagnoser.diagnoseEditor(uri instanceof vscode.Uri ? uri : undefined)),
    vscode.commands.registerCommand('denpex.diagnoseTerminalSelection', () => diagnoser.diagnoseTerminal('auto')),
    vscode.commands.registerCommand('denpex.diagnoseTerminalBuffer', () => diagnoser.diagnoseTerminal('buffer')),
    vscode.commands.registerCommand('denpex.diagnoseFiles', (uri?: unknown, uris?: unknown) =>
      diagnoser.diagnoseFiles(uri instanceof vscode.Uri ? uri : undefined,
        Array.isArray(uris) ? uris.filter((u): u is vscode.Uri => u instanceof vscode.Uri) : undefined)),
    vscode.commands.registerCommand('denpex.diagnoseOpenLogsAsJob', () => diagnoser.diagnoseOpenLogsAsJob()),
    vscode.commands.registerCommand('denpex.watchFolder', (uri?: unknown) =>
      watcher.watch(uri instanceof vscode.Uri ? uri : undefined)),
    vscode.commands.registerCommand('denpex.restartServer', () => s.restart()),
    vscode.commands.registerCommand('denpex.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('denpex.serverMenu', async () => {
      const items = [
        { label: '$(debug-restart) Restart Server', command: 'denpex.restartServer' },
        { label: '$(output) Show Server Output', command: 'denpex.showOutput' },
        { label: '$(search) Diagnose Selection', command: 'denpex.diagnoseSelection' },
        { label: '$(files) Diagnose Log Files…', command: 'denpex.diagnoseFiles' },
        { label: '$(gear) Settings', command: 'workbench.action.openSettings', arg: 'denpex.' },
      ];
      const pick = await vscode.window.showQuickPick(items, { title: `denpex — ${panel.summary ?? 'server actions'}` });
      if (pick) await vscode.commands.executeCommand(pick.command, ...(pick.arg ? [pick.arg] : []));
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('denpex.server.path') || e.affectsConfiguration('denpex.knowledge.folders') ||
        e.affectsConfiguration('denpex.saveHistory')) void s.restart();
      else if (e.affectsConfiguration('denpex.trace.server')) void s.restart(); // the server's own log level follows it
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => void s.restart()),
  );

  await s.start();
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
