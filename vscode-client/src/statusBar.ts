// The status-bar item that shows the server's state; a click opens the server actions.
import * as vscode from 'vscode';
import { ServerManager } from './server';
import { presentState } from './serverState';

export class ServerStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('denpex.server', vscode.StatusBarAlignment.Right, 100);
  private readonly sub: vscode.Disposable;

  constructor(server: ServerManager) {
    this.item.name = 'denpex server';
    this.item.command = 'denpex.serverMenu';
    this.sub = server.onDidChangeState(() => this.update(server));
    this.update(server);
    this.item.show();
  }

  private update(server: ServerManager): void {
    const p = presentState(server.state);
    this.item.text = p.text;
    this.item.tooltip = p.tooltip;
    this.item.backgroundColor = p.background ? new vscode.ThemeColor(p.background) : undefined;
  }

  dispose(): void {
    this.sub.dispose();
    this.item.dispose();
  }
}
