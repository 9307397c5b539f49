// The server's state as the status bar shows it. Pure.

export type ServerState =
  | { kind: 'starting' }
  | { kind: 'ready'; version?: string }
  | { kind: 'busy'; what: string }
  | { kind: 'stopped' }
  | { kind: 'crashed'; detail?: string }
  | { kind: 'missing'; reason: string };

export interface StatusPresentation {
  text: string;
  tooltip: string;
  /** A theme color id for the background, for states that need the user's attention. */
  background?: 'statusBarItem.errorBackground' | 'statusBarItem.warningBackground';
}

export function presentState(s: ServerState): StatusPresentation {
  switch (s.kind) {
    case 'starting':
      return { text: '$(loading~spin) denpex', tooltip: 'denpex: starting the server…' };
    case 'ready':
      return { text: '$(pulse) denpex', tooltip: `denpex: server running${s.version ? ` (${s.version})` : ''}. Click for actions.` };
    case 'busy':
      return { text: '$(loading~spin) denpex', tooltip: `denpex: ${s.what}…` };
    case 'stopped':
      return { text: '$(circle-slash) denpex', tooltip: 'denpex: server stopped. Click to restart.', background: 'statusBarItem.warningBackground' };
    case 'crashed':
      return {
        text: '$(error) denpex',
        tooltip: `denpex: the server stopped unexpectedly${s.detail ? ` (${s.detail})` : ''}. Click to restart.`,
        background: 'statusBarItem.errorBackground',
      };
    case 'missing':
      return { text: '$(warning) denpex', tooltip: `denpex: ${s.reason}`, background: 'statusBarItem.warningBackground' };
  }
}
