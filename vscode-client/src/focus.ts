// Whether the user was last in an editor or in a terminal. The command palette takes focus away from both and no
// API tells which one had it, so "Diagnose Selection" from the palette follows the last interaction seen here.
import * as vscode from 'vscode';

export type FocusKind = 'editor' | 'terminal';

export class FocusTracker implements vscode.Disposable {
  private last: FocusKind | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor() {
    const editor = () => { this.last = 'editor'; };
    const terminal = () => { this.last = 'terminal'; };
    this.subscriptions.push(
      vscode.window.onDidChangeTextEditorSelection((e) => { if (e.textEditor.document.uri.scheme !== 'output') editor(); }),
      vscode.window.onDidChangeActiveTextEditor((e) => { if (e) editor(); }),
      vscode.window.onDidChangeActiveTerminal((t) => { if (t) terminal(); }),
      vscode.window.onDidOpenTerminal(terminal),
      vscode.window.onDidChangeTerminalState((t) => { if (t.state.isInteractedWith) terminal(); }),
      vscode.window.onDidStartTerminalShellExecution(terminal),
      vscode.window.onDidEndTerminalShellExecution(terminal),
    );
  }

  /** Where "Diagnose Selection" without arguments should look. */
  current(): FocusKind | undefined {
    const hasEditor = !!vscode.window.activeTextEditor;
    const hasTerminal = !!vscode.window.activeTerminal;
    if (this.last === 'terminal' && hasTerminal) return 'terminal';
    if (hasEditor) return 'editor';
    if (hasTerminal) return 'terminal';
    return undefined;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}
