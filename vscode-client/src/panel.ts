// The result panel: a webview that leads with the verdict. Links and buttons post messages back here; the
// webview never sees a path it could ask to open, only indices into the view model it was rendered from.
import * as crypto from 'crypto';
import * as vscode from 'vscode';
import { FixView, ReportView, Target, verdictLine } from './model';
import { renderHtml, renderMessageHtml } from './render';

export interface PanelActions {
  applyFix(fix: FixView): Promise<void>;
}

type Message =
  | { type: 'open'; target: number }
  | { type: 'copy'; what: string }
  | { type: 'applyFix'; fix: string };

export class ResultPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private view: ReportView | undefined;
  private capturedText: string | undefined;
  private capturedDoc: vscode.TextDocument | undefined;
  private runs = 0;

  constructor(private readonly actions: PanelActions) {}

  private ensure(): vscode.WebviewPanel {
    if (this.panel) {
      if (!this.panel.visible) this.panel.reveal(this.panel.viewColumn ?? vscode.ViewColumn.Beside, true);
      return this.panel;
    }
    const panel = vscode.window.createWebviewPanel('denpex.result', 'denpex', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
      enableScripts: true,
      enableFindWidget: true,
      retainContextWhenHidden: true,
      localResourceRoots: [],
    });
    panel.onDidDispose(() => {
      if (this.panel === panel) this.panel = undefined;
    });
    panel.webview.onDidReceiveMessage((m: Message) => this.onMessage(m));
    this.panel = panel;
    return panel;
  }

  private nonce(): string {
    return crypto.randomBytes(16).toString('base64');
  }

  showMessage(title: string, message: string): void {
    const panel = this.ensure();
    panel.title = `denpex: ${title}`;
    panel.webview.html = renderMessageHtml(title, message, { nonce: this.nonce(), cspSource: panel.webview.cspSource });
  }

  /** `capturedText`: the terminal text that was diagnosed, so that its evidence lines can be opened. */
  showResult(view: ReportView, capturedText?: string): void {
    const panel = this.ensure();
    this.view = view;
    this.capturedText = capturedText;
    this.capturedDoc = undefined;
    const d = view.diagnoses[0];
    panel.title = d ? `denpex: ${d.undetermined ? 'undetermined' : d.initiating}` : 'denpex: no failure found';
    panel.webview.html = renderHtml(view, { nonce: this.nonce(), cspSource: panel.webview.cspSource, run: ++this.runs });
  }

  get summary(): string | undefined {
    return this.view ? verdictLine(this.view) : undefined;
  }

  private async onMessage(m: Message): Promise<void> {
    try {
      if (m.type === 'open' && this.view) {
        const t = this.view.targets[m.target];
        if (t) await this.open(t);
      } else if (m.type === 'copy' && this.view) {
        const text = this.copyText(m.what);
        if (text !== undefined) {
          await vscode.env.clipboard.writeText(text);
          vscode.window.setStatusBarMessage('denpex: copied to the clipboard', 3000);
        }
      } else if (m.type === 'applyFix' && this.view) {
        const [d, i] = m.fix.split(':').map(Number);
        const fix = this.view.diagnoses[d]?.fixes[i];
        if (fix) await this.actions.applyFix(fix);
      }
    } catch (e) {
      void vscode.window.showErrorMessage(`denpex: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private copyText(what: string): string | undefined {
    const [kind, a, b] = what.split(':');
    const d = this.view?.diagnoses[Number(a)];
    if (!d) return undefined;
    if (kind === 'verify') return d.verify;
    if (kind === 'fix') return d.fixes[Number(b)]?.shell;
    return undefined;
  }

  private otherColumn(): vscode.ViewColumn {
    return this.panel?.viewColumn === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One;
  }

  private async open(t: Target): Promise<void> {
    let doc: vscode.TextDocument;
    if (t.kind === 'capturedText') {
      if (!this.capturedDoc || this.capturedDoc.isClosed) {
        this.capturedDoc = await vscode.workspace.openTextDocument({ language: 'log', content: this.capturedText ?? '' });
      }
      doc = this.capturedDoc;
    } else {
      doc = await vscode.workspace.openTextDocument(t.kind === 'uri' ? vscode.Uri.parse(t.uri) : vscode.Uri.file(t.path));
    }
    const line = Math.min(t.line, Math.max(0, doc.lineCount - 1));
    const range = new vscode.Range(line, 0, line, doc.lineAt(line).text.length);
    const editor = await vscode.window.showTextDocument(doc, { viewColumn: this.otherColumn(), selection: range, preview: true });
    editor.revealRange(range, vscode.TextEditorRevealType.InCenter);
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
