// "Apply to launch script…": pick a launch script, then let the server insert TORCH_NCCL_ASYNC_ERROR_HANDLING=1
// in the form that file needs (workspace/executeCommand → the server answers with workspace/applyEdit).
import * as path from 'path';
import * as vscode from 'vscode';
import { ExecuteCommandRequest } from 'vscode-languageclient/node';
import { scriptRank } from './launchScriptOrder';
import { INSERT_ASYNC_ERROR_HANDLING_COMMAND, InsertCommandResult } from './protocol';
import { ServerManager } from './server';

const SCRIPT_GLOB = '**/{*.sh,*.bash,*.sbatch,*.slurm,*.py,*.yaml,*.yml,Dockerfile,Dockerfile.*,*.dockerfile}';
const EXCLUDE_GLOB = '**/{node_modules,.git,.venv,venv,__pycache__,.tox,build,dist}/**';

export async function pickLaunchScript(): Promise<vscode.Uri | undefined> {
  const found = await vscode.workspace.findFiles(SCRIPT_GLOB, EXCLUDE_GLOB, 500);
  found.sort((a, b) => scriptRank(a.fsPath) - scriptRank(b.fsPath) || a.fsPath.localeCompare(b.fsPath));
  type Item = vscode.QuickPickItem & { uri?: vscode.Uri };
  const items: Item[] = found.map((uri) => ({
    label: path.basename(uri.fsPath),
    description: vscode.workspace.asRelativePath(path.dirname(uri.fsPath)),
    uri,
  }));
  items.push({ label: '$(folder-opened) Browse…', alwaysShow: true });
  const pick = await vscode.window.showQuickPick(items, {
    title: 'denpex: apply the fix to which launch script?',
    placeHolder: 'sbatch / shell script, Python entry point, Kubernetes YAML or Dockerfile',
    matchOnDescription: true,
  });
  if (!pick) return undefined;
  if (pick.uri) return pick.uri;
  const chosen = await vscode.window.showOpenDialog({ canSelectMany: false, openLabel: 'Apply fix', title: 'Launch script' });
  return chosen?.[0];
}

export async function applyAsyncErrorHandling(server: ServerManager, uri: vscode.Uri): Promise<void> {
  const client = await server.ready();
  if (!client) return;
  const before = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  const wasDirty = before?.isDirty ?? false;
  const result = await client.sendRequest(ExecuteCommandRequest.type, {
    command: INSERT_ASYNC_ERROR_HANDLING_COMMAND,
    arguments: [{ uri: uri.toString() }],
  }) as InsertCommandResult | null;
  const name = path.basename(uri.fsPath);
  if (!result || !result.applied) {
    void vscode.window.showInformationMessage(`denpex: nothing changed in ${name}${result?.reason ? `: ${result.reason}` : ''}.`);
    return;
  }
  const doc = await vscode.workspace.openTextDocument(uri);
  if (!wasDirty && doc.isDirty) await doc.save(); // the user asked for the change; keep their own unsaved edits unsaved
  // Beside the result panel, not over it: the first editor group that shows a text editor.
  const column = vscode.window.visibleTextEditors.find((e) => e.viewColumn !== undefined)?.viewColumn ?? vscode.ViewColumn.One;
  await vscode.window.showTextDocument(doc, { preview: false, viewColumn: column });
  void vscode.window.showInformationMessage(`denpex: TORCH_NCCL_ASYNC_ERROR_HANDLING=1 is now set in ${name}.`);
}
