// "Watch Log Folder…": the server follows a running job's log folder (`denpex/watch`) and says what changed
// (`denpex/watchUpdate`). The moment an initiating failure appears, a notification names it, with a button that
// opens the result panel — minutes before the other ranks' watchdogs would have failed the job. The watch runs
// until the user stops it (the progress notification's Cancel, which sends `denpex/stopWatch`).
import * as path from 'path';
import * as vscode from 'vscode';
import { LanguageClient, ResponseError } from 'vscode-languageclient/node';
import { buildReportView, Origin } from './model';
import { ResultPanel } from './panel';
import { STOP_WATCH_METHOD, WATCH_METHOD, WATCH_UPDATE_NOTIFICATION, WatchParams, WatchResult, WatchUpdate } from './protocol';
import { ServerManager } from './server';
import { initiatingMessage } from './watchMessage';

export class FolderWatcher implements vscode.Disposable {
  private registeredOn: LanguageClient | undefined;
  private nextId = 1;
  /** Running watches by id: the folder's label and what to do with its `ready` update. */
  private readonly watches = new Map<string, { label: string; ready: (u: WatchUpdate) => void }>();

  constructor(private readonly server: ServerManager, private readonly panel: ResultPanel) {}

  async watch(uri?: vscode.Uri): Promise<void> {
    let folder = uri;
    if (!folder) {
      const picked = await vscode.window.showOpenDialog({
        canSelectFolders: true, canSelectFiles: false, canSelectMany: false, openLabel: 'Watch',
        title: 'denpex: the log folder of a running job',
      });
      folder = picked?.[0];
    }
    if (!folder) return;
    if (folder.scheme !== 'file') {
      void vscode.window.showInformationMessage('denpex: only folders on this machine can be watched.');
      return;
    }
    const client = await this.server.ready();
    if (!client) return;
    this.listen(client);
    const label = path.basename(folder.fsPath) || folder.fsPath;
    const watchId = `vscode-${process.pid}-${this.nextId++}`;
    const params: WatchParams = { folder: folder.fsPath, watchId };
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `denpex: watching ${label}`, cancellable: true },
      async (progress, token) => {
        this.watches.set(watchId, {
          label,
          ready: (u) => progress.report({ message: `${u.files ?? 0} log file${u.files === 1 ? '' : 's'}; Cancel stops the watch` }),
        });
        // Cancel stops the watch; the server then answers the request with the final report.
        token.onCancellationRequested(() => void client.sendRequest(STOP_WATCH_METHOD, { watchId }));
        try {
          await client.sendRequest<WatchResult>(WATCH_METHOD, params);
          this.server.output.info(`watch of ${label} ended`);
        } catch (e) {
          if (!(e instanceof ResponseError && e.code === -32800)) {
            void vscode.window.showErrorMessage(`denpex: watching ${label} failed: ${e instanceof Error ? e.message : String(e)}`);
          }
        } finally {
          this.watches.delete(watchId);
        }
      });
  }

  private listen(client: LanguageClient): void {
    if (this.registeredOn === client) return;
    this.registeredOn = client;
    client.onNotification(WATCH_UPDATE_NOTIFICATION, (u: WatchUpdate) => this.onUpdate(u));
  }

  private onUpdate(u: WatchUpdate): void {
    const watch = this.watches.get(u.watchId);
    if (u.event === 'ready') {
      watch?.ready(u);
      return;
    }
    const folder = watch?.label ?? 'the watched folder';
    const report = u.report;
    if (!report) return;
    const origin: Origin = { kind: 'files', label: `${folder} (watched)` };
    const show = () => {
      const mask = vscode.workspace.getConfiguration('denpex').get<boolean>('maskSecrets', true);
      this.panel.showResult(buildReportView(report, origin, { maskSecrets: mask }));
    };
    if (u.event === 'initiating') {
      this.server.output.info(initiatingMessage(u, folder));
      void vscode.window.showWarningMessage(initiatingMessage(u, folder), 'Open Result').then((pick) => {
        if (pick === 'Open Result') show();
      });
    } else if (this.panel.summary !== undefined) {
      show(); // a verdict update refreshes a panel already open on it
    }
  }

  dispose(): void {
    this.watches.clear();
  }
}
