// What "Diagnose Selection" hands to the server: the lines of an editor selection (the whole document when
// nothing is selected), or a terminal's selection (its whole buffer when nothing is selected). Pure: the editor
// side works on plain positions and text, the terminal side on injected clipboard and command functions, so both
// are unit-tested without VS Code.

export interface Pos {
  line: number;
  character: number;
}

export interface Sel {
  start: Pos;
  end: Pos;
}

/** The 0-based line span [startLine, endLine] the text comes from, inclusive. */
export interface LineSpan {
  startLine: number;
  endLine: number;
}

export interface Extracted {
  text: string;
  /** Line of the document where `text` starts: evidence line n (1-based) of the text is document line startLine + n - 1. */
  startLine: number;
  kind: 'selection' | 'document';
}

function isEmpty(s: Sel): boolean {
  return s.start.line === s.end.line && s.start.character === s.end.character;
}

/**
 * The whole lines that the non-empty selections touch, from the first one's first line to the last one's last
 * line; undefined when every selection is empty. A log line is only attributable to a rank with its prefix, so a
 * partly selected line is taken whole; a selection that ends at column 0 does not take that line.
 */
export function selectionLineSpan(selections: readonly Sel[]): LineSpan | undefined {
  let span: LineSpan | undefined;
  for (const s of selections) {
    if (isEmpty(s)) continue;
    const [a, b] = s.start.line < s.end.line || (s.start.line === s.end.line && s.start.character <= s.end.character)
      ? [s.start, s.end] : [s.end, s.start];
    const endLine = b.character === 0 && b.line > a.line ? b.line - 1 : b.line;
    span = span
      ? { startLine: Math.min(span.startLine, a.line), endLine: Math.max(span.endLine, endLine) }
      : { startLine: a.line, endLine };
  }
  return span;
}

/** Lines startLine..endLine (inclusive, 0-based) of `text`, joined with "\n". Line breaks are \n or \r\n. */
export function sliceLines(text: string, span: LineSpan): string {
  const lines = text.split(/\r?\n/);
  return lines.slice(span.startLine, span.endLine + 1).join('\n');
}

/** The editor text to diagnose: the selected lines, or the whole document when nothing is selected. */
export function extractEditorText(documentText: string, selections: readonly Sel[]): Extracted {
  const span = selectionLineSpan(selections);
  if (!span) return { text: documentText, startLine: 0, kind: 'document' };
  return { text: sliceLines(documentText, span), startLine: span.startLine, kind: 'selection' };
}

// --- terminal ------------------------------------------------------------------------------------------------

/**
 * There is no stable API for a terminal's selection (the proposed `Terminal.selection`, microsoft/vscode#188173),
 * so the terminal's own commands copy it to the clipboard, and the clipboard is put back afterwards.
 */
export const TERMINAL_COMMANDS = {
  copySelection: 'workbench.action.terminal.copySelection',
  selectAll: 'workbench.action.terminal.selectAll',
  clearSelection: 'workbench.action.terminal.clearSelection',
} as const;

export interface TerminalCaptureDeps {
  readClipboard(): Thenable<string>;
  writeClipboard(text: string): Thenable<void>;
  executeCommand(command: string): Thenable<unknown>;
  sleep(ms: number): Promise<void>;
  /** A string nothing else would put on the clipboard; a fresh one per call. */
  sentinel(): string;
}

export interface TerminalCaptureOptions {
  /** How long to wait for a copy of the selection to reach the clipboard (there may be no selection). */
  selectionWaitMs: number;
  /** How long to wait for a copy of the whole buffer. */
  bufferWaitMs: number;
  pollMs: number;
}

export const DEFAULT_CAPTURE_OPTIONS: TerminalCaptureOptions = { selectionWaitMs: 600, bufferWaitMs: 3000, pollMs: 40 };

export interface TerminalText {
  text: string;
  kind: 'selection' | 'buffer';
}

async function tryRead(deps: TerminalCaptureDeps): Promise<string | undefined> {
  try {
    return await deps.readClipboard();
  } catch {
    return undefined;
  }
}

/** Polls the clipboard until it holds something other than `sentinel`; undefined after `waitMs`. */
async function awaitCopy(deps: TerminalCaptureDeps, sentinel: string, waitMs: number, pollMs: number): Promise<string | undefined> {
  for (let waited = 0; ; waited += pollMs) {
    const now = await tryRead(deps);
    if (now !== undefined && now !== sentinel) return now;
    if (waited >= waitMs) return undefined;
    await deps.sleep(pollMs);
  }
}

/**
 * The active terminal's selection, or its whole buffer when nothing is selected; undefined when neither could be
 * copied (no terminal, or no clipboard access). The clipboard's previous text is restored in every case.
 */
/**
 * `mode`: 'auto' tries the selection, then the buffer (VS Code warns "The terminal has no selection to copy" when
 * there is none); 'buffer' goes straight to the buffer, for callers that know nothing is selected (a menu or
 * keybinding whose `when` clause checked `terminalTextSelected`).
 */
export async function captureTerminalText(
  deps: TerminalCaptureDeps,
  options: TerminalCaptureOptions = DEFAULT_CAPTURE_OPTIONS,
  mode: 'auto' | 'buffer' = 'auto',
): Promise<TerminalText | undefined> {
  const saved = await tryRead(deps);
  const sentinel = deps.sentinel();
  try {
    if (mode === 'auto') {
      await deps.writeClipboard(sentinel);
      await deps.executeCommand(TERMINAL_COMMANDS.copySelection);
      const selected = await awaitCopy(deps, sentinel, options.selectionWaitMs, options.pollMs);
      if (selected !== undefined && selected.trim() !== '') return { text: selected, kind: 'selection' };
    }

    await deps.writeClipboard(sentinel);
    await deps.executeCommand(TERMINAL_COMMANDS.selectAll);
    try {
      await deps.executeCommand(TERMINAL_COMMANDS.copySelection);
      const all = await awaitCopy(deps, sentinel, options.bufferWaitMs, options.pollMs);
      if (all !== undefined && all.trim() !== '') return { text: all, kind: 'buffer' };
      return undefined;
    } finally {
      await Promise.resolve(deps.executeCommand(TERMINAL_COMMANDS.clearSelection)).catch(() => undefined);
    }
  } finally {
    await Promise.resolve(deps.writeClipboard(saved ?? '')).catch(() => undefined);
  }
}
