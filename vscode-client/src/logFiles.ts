// "Diagnose Log Files…": which rank/node logs (or folder) to diagnose. The server reads them from disk.
import * as path from 'path';
import * as vscode from 'vscode';

const LOG_GLOB = '**/{*.log,*.out,*.err,*.log.[0-9]*,slurm-*.txt}';
const EXCLUDE_GLOB = '**/{node_modules,.git,.venv,venv,__pycache__}/**';

type Item = vscode.QuickPickItem & { uri?: vscode.Uri; browse?: 'files' | 'folder' };

async function browse(kind: 'files' | 'folder'): Promise<vscode.Uri[] | undefined> {
  return vscode.window.showOpenDialog({
    canSelectFiles: kind === 'files',
    canSelectFolders: kind === 'folder',
    canSelectMany: kind === 'files',
    openLabel: 'Diagnose',
    title: kind === 'files' ? 'denpex: rank or node logs' : 'denpex: a folder of logs (read recursively)',
  });
}

export async function pickLogFiles(): Promise<vscode.Uri[] | undefined> {
  const found = await vscode.workspace.findFiles(LOG_GLOB, EXCLUDE_GLOB, 2000);
  found.sort((a, b) => a.fsPath.localeCompare(b.fsPath, undefined, { numeric: true }));
  const items: Item[] = found.map((uri) => ({
    label: path.basename(uri.fsPath),
    description: vscode.workspace.asRelativePath(path.dirname(uri.fsPath)),
    uri,
  }));
  const folders = vscode.workspace.workspaceFolders ?? [];
  const browseItems: Item[] = [
    { label: '$(files) Browse for log files…', browse: 'files', alwaysShow: true },
    { label: '$(folder-opened) Browse for a folder…', browse: 'folder', alwaysShow: true },
  ];
  if (!items.length) {
    const pick = await vscode.window.showQuickPick(browseItems, { title: 'denpex: no log files in the workspace' });
    return pick?.browse ? browse(pick.browse) : undefined;
  }
  if (folders.length) items.push({ label: '', kind: vscode.QuickPickItemKind.Separator });
  const qp = vscode.window.createQuickPick<Item>();
  qp.title = 'denpex: the logs of the job (every rank or node you have)';
  qp.placeholder = 'Pick the rank/node logs, then Enter';
  qp.canSelectMany = true;
  qp.matchOnDescription = true;
  qp.items = [...items, ...browseItems];
  qp.selectedItems = items.filter((i) => i.uri); // every log is the usual answer: the initiator is often in the one you'd skip
  const picked = await new Promise<readonly Item[] | undefined>((resolve) => {
    qp.onDidAccept(() => { resolve(qp.selectedItems); qp.hide(); });
    qp.onDidHide(() => resolve(undefined));
    qp.show();
  });
  qp.dispose();
  if (!picked || !picked.length) return undefined;
  const browseKind = picked.find((i) => i.browse)?.browse;
  const uris = picked.filter((i) => i.uri).map((i) => i.uri as vscode.Uri);
  if (browseKind) {
    const more = await browse(browseKind);
    if (more) uris.push(...more);
  }
  return uris.length ? uris : undefined;
}
