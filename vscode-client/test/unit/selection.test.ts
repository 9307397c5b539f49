import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import {
  captureTerminalText, extractEditorText, selectionLineSpan, Sel, sliceLines, TERMINAL_COMMANDS, TerminalCaptureDeps,
} from '../../src/selection';

const sel = (l1: number, c1: number, l2: number, c2: number): Sel => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });
const DOC = 'l0\nl1 rank 1\nl2 rank 2\nl3 rank 3\nl4';

test('no selection: the whole document', () => {
  assert.deepEqual(extractEditorText(DOC, [sel(2, 3, 2, 3)]), { text: DOC, startLine: 0, kind: 'document' });
  assert.deepEqual(extractEditorText(DOC, []), { text: DOC, startLine: 0, kind: 'document' });
});

test('a partial selection takes its lines whole', () => {
  assert.deepEqual(extractEditorText(DOC, [sel(1, 3, 2, 2)]), { text: 'l1 rank 1\nl2 rank 2', startLine: 1, kind: 'selection' });
});

test('a selection ending at column 0 does not take that line', () => {
  assert.deepEqual(selectionLineSpan([sel(1, 0, 3, 0)]), { startLine: 1, endLine: 2 });
  // but a one-line selection from column 0 to 0 of the same line is empty
  assert.equal(selectionLineSpan([sel(1, 0, 1, 0)]), undefined);
});

test('a reversed (bottom-up) selection', () => {
  assert.deepEqual(selectionLineSpan([sel(3, 2, 1, 1)]), { startLine: 1, endLine: 3 });
});

test('several selections: from the first to the last line they touch', () => {
  assert.deepEqual(selectionLineSpan([sel(3, 0, 3, 2), sel(0, 5, 0, 5), sel(1, 0, 1, 1)]), { startLine: 1, endLine: 3 });
});

test('CRLF documents', () => {
  assert.equal(sliceLines('a\r\nb\r\nc', { startLine: 1, endLine: 2 }), 'b\nc');
});

// --- terminal ----------------------------------------------------------------------------------------------

/** A fake clipboard + terminal: `selection` is what copySelection copies; selectAll selects `buffer`. */
function fakeTerminal(opts: { clipboard: string; selection?: string; buffer: string; lagPolls?: number; unreadable?: boolean }) {
  let clipboard = opts.clipboard;
  let selection = opts.selection;
  const log: string[] = [];
  let pending: { text: string; polls: number } | undefined;
  const deps: TerminalCaptureDeps = {
    readClipboard: async () => {
      if (opts.unreadable) throw new Error('denied');
      if (pending && pending.polls-- <= 0) { clipboard = pending.text; pending = undefined; }
      return clipboard;
    },
    writeClipboard: async (t) => { log.push(`write:${t.startsWith('\u2063') ? 'SENTINEL' : t}`); clipboard = t; },
    executeCommand: async (c) => {
      log.push(c);
      if (c === TERMINAL_COMMANDS.selectAll) selection = opts.buffer;
      if (c === TERMINAL_COMMANDS.clearSelection) selection = undefined;
      if (c === TERMINAL_COMMANDS.copySelection && selection) {
        if (opts.lagPolls) pending = { text: selection, polls: opts.lagPolls };
        else clipboard = selection;
      }
      return undefined;
    },
    sleep: async () => undefined,
    sentinel: () => '\u2063sentinel',
  };
  return { deps, log, clipboard: () => clipboard };
}

const FAST = { selectionWaitMs: 200, bufferWaitMs: 400, pollMs: 40 };

test('terminal: the selection, and the clipboard is restored', async () => {
  const t = fakeTerminal({ clipboard: 'user text', selection: 'rank 5 OOM', buffer: 'everything' });
  assert.deepEqual(await captureTerminalText(t.deps, FAST), { text: 'rank 5 OOM', kind: 'selection' });
  assert.equal(t.clipboard(), 'user text');
  assert.ok(!t.log.includes(TERMINAL_COMMANDS.selectAll));
});

test('terminal: no selection means the whole buffer, and the selection is cleared afterwards', async () => {
  const t = fakeTerminal({ clipboard: 'user text', buffer: '$ cat node1.log\nline' });
  assert.deepEqual(await captureTerminalText(t.deps, FAST), { text: '$ cat node1.log\nline', kind: 'buffer' });
  assert.equal(t.clipboard(), 'user text');
  assert.deepEqual(t.log, [
    'write:SENTINEL', TERMINAL_COMMANDS.copySelection,
    'write:SENTINEL', TERMINAL_COMMANDS.selectAll, TERMINAL_COMMANDS.copySelection, TERMINAL_COMMANDS.clearSelection,
    'write:user text',
  ]);
});

test('terminal: a copy that reaches the clipboard late is waited for', async () => {
  const t = fakeTerminal({ clipboard: '', selection: 'late', buffer: 'x', lagPolls: 3 });
  assert.deepEqual(await captureTerminalText(t.deps, FAST), { text: 'late', kind: 'selection' });
});

test('terminal: an empty terminal gives undefined and still restores the clipboard', async () => {
  const t = fakeTerminal({ clipboard: 'keep', buffer: '' });
  assert.equal(await captureTerminalText(t.deps, FAST), undefined);
  assert.equal(t.clipboard(), 'keep');
});

test('terminal: an unreadable clipboard gives undefined', async () => {
  const t = fakeTerminal({ clipboard: 'x', selection: 'sel', buffer: 'b', unreadable: true });
  assert.equal(await captureTerminalText(t.deps, FAST), undefined);
});

test('terminal: whitespace-only selection falls back to the buffer', async () => {
  const t = fakeTerminal({ clipboard: '', selection: '   \n', buffer: 'real text' });
  assert.deepEqual(await captureTerminalText(t.deps, FAST), { text: 'real text', kind: 'buffer' });
});

test('terminal: buffer mode does not try the selection first', async () => {
  const t = fakeTerminal({ clipboard: 'keep', selection: 'ignored', buffer: 'the buffer' });
  assert.deepEqual(await captureTerminalText(t.deps, FAST, 'buffer'), { text: 'the buffer', kind: 'buffer' });
  assert.deepEqual(t.log, ['write:SENTINEL', TERMINAL_COMMANDS.selectAll, TERMINAL_COMMANDS.copySelection, TERMINAL_COMMANDS.clearSelection, 'write:keep']);
});
