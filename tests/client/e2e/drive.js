// Drives code-server (VS Code 1.100.3) in headless Chromium through the denpex extension's user-facing flows.
// usage: NODE_PATH=vscode-client/node_modules node drive.js <base-url> <workspace-dir> <screenshot-dir>
// Exit 0 only if every check held; on failure error.png (and the page's state) is written next to the screenshots.
'use strict';
const { chromium } = require('playwright-core');
const fs = require('fs');
const os = require('os');
const path = require('path');

const [base, ws, shots] = process.argv.slice(2);
const extensionsDir = path.join(path.dirname(ws), 'exts'); // run_e2e.sh's --extensions-dir, next to the workspace

/** PIDs of the `denpex serve` processes started from this run's installed extension. */
function serverPids() {
  return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((pid) => {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return argv[0].startsWith(extensionsDir + '/') && argv[0].endsWith('/denpex') && argv[1] === 'serve';
    } catch {
      return false;
    }
  });
}
const t0 = Date.now();
const log = (m) => console.log(`[drive ${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${m}`);
const check = (cond, msg) => {
  if (!cond) throw new Error('check failed: ' + msg);
  log('ok: ' + msg);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs fn until it succeeds, at most `attempts` times; UI steps can lose a key press or a re-render. */
async function retry(label, fn, attempts = 3) {
  for (let i = 1; ; i++) {
    try {
      return await fn(i);
    } catch (e) {
      if (i >= attempts) throw e;
      log(`retry ${label} (${i}/${attempts - 1}): ${e.message.split('\n')[0]}`);
      await sleep(500);
    }
  }
}

/** Polls fn() until it returns a truthy value; throws after timeoutMs with the last value in the message. */
async function until(label, fn, timeoutMs = 30000, everyMs = 250) {
  const end = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e.message;
    }
    if (Date.now() > end) throw new Error(`timed out (${timeoutMs} ms) waiting for ${label}; last: ${JSON.stringify(last)}`);
    await sleep(everyMs);
  }
}

(async () => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'denpex-e2e-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    viewport: { width: 1440, height: 900 },
  });
  // The terminal's text reaches the extension through the clipboard (there is no stable terminal-selection API).
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  const page = ctx.pages()[0] || (await ctx.newPage());
  page.setDefaultTimeout(30000);
  page.on('pageerror', (e) => log('pageerror: ' + e.message.split('\n')[0]));
  const shot = async (name) => {
    await page.screenshot({ path: path.join(shots, name) });
    log('screenshot ' + name);
  };

  const quickInput = async (key, text, rowText) => {
    await retry(`quick input ${text}`, async () => {
      // Escape only closes a leftover quick input: in the editor it would also drop the selection.
      if (await page.locator('.quick-input-widget').isVisible()) await page.keyboard.press('Escape');
      await page.keyboard.press(key);
      const input = page.locator('.quick-input-widget input.input');
      await input.waitFor({ state: 'visible', timeout: 10000 });
      await input.fill(text);
      if (rowText) await page.locator('.quick-input-list .monaco-list-row', { hasText: rowText }).first().waitFor({ timeout: 15000 });
      else await sleep(300);
      await page.keyboard.press('Enter');
    });
  };
  const palette = (title) => quickInput('F1', '>' + title, title);
  const openFile = async (name) => {
    await quickInput('Control+P', name, name);
    await page.locator('.tab.active', { hasText: name }).first().waitFor();
  };
  const goToLine = (n) => quickInput('Control+P', ':' + n, null);
  const statusBar = () => page.locator('.part.statusbar').innerText();

  /** Text of the first element matching `selector` in any frame (the result panel is a webview: nested iframes). */
  const panelText = async (selector) => {
    for (const f of page.frames()) {
      try {
        const el = await f.$(selector);
        if (el) return (await el.innerText()).trim();
      } catch {
        /* a frame that went away */
      }
    }
    return undefined;
  };
  const panelFrame = async (selector) => {
    for (const f of page.frames()) {
      try {
        if (await f.$(selector)) return f;
      } catch {
        /* gone */
      }
    }
    return undefined;
  };
  /** How many results the panel has shown (its body's data-run); 0 before the first. */
  const panelRun = async () => {
    for (const f of page.frames()) {
      try {
        const run = await f.$eval('body[data-run]', (b) => Number(b.dataset.run));
        if (run) return run;
      } catch {
        /* not the panel, or gone */
      }
    }
    return 0;
  };
  /** Waits until the panel shows a result newer than `afterRun` for `sourceText`, and returns its verdict. */
  const panelResult = async (sourceText, afterRun = 0) => until(`the result panel for "${sourceText}"`, async () => {
    const run = await panelRun();
    const source = await panelText('.source');
    if (run <= afterRun || !source || !source.includes(sourceText)) return undefined;
    return {
      run,
      source,
      failure: await panelText('[data-testid=failure]'),
      initiating: await panelText('[data-testid=initiating]'),
      host: await panelText('[data-testid=host]'),
      confidence: await panelText('[data-testid=confidence]'),
      evidence: await panelText('[data-testid=evidence]'),
    };
  }, 60000);

  let rc = 1;
  try {
    await page.goto(`${base}/?folder=${encodeURIComponent(ws)}`, { waitUntil: 'domcontentloaded', timeout: 60000 });
    await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: 90000 });
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'train.sbatch' }).first().waitFor({ timeout: 60000 });
    log('workbench ready');

    // 1. A log in the editor: the extension starts the server, which publishes diagnostics (Problems view).
    await openFile('node1.log');
    await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 90000 });
    check(true, 'the server published diagnostics for node1.log');
    await until('the denpex status-bar item', async () => /denpex/.test(await statusBar()), 30000);

    // 2. "Diagnose Selection" on an editor selection: lines 4 to the end.
    await goToLine(4);
    await page.keyboard.press('Home');
    await page.keyboard.press('Shift+Control+End');
    await palette('Denpex: Diagnose Selection');
    const ed = await panelResult('node1.log (lines 4-');
    log('editor result: ' + JSON.stringify(ed));
    check(ed.initiating === 'rank 5', 'editor selection: the panel names rank 5 as the initiating rank');
    check(ed.host === 'gpu-node-02', 'editor selection: on gpu-node-02');
    check(/node1\.log:25/.test(ed.evidence) && /CUDA out of memory/.test(ed.evidence), 'editor selection: evidence node1.log:25, the OOM line');
    await shot('1-editor-selection.png');
    // The evidence line is a link that opens the file at that line.
    const frame = await panelFrame('[data-testid=evidence] a.where');
    await frame.click('[data-testid=evidence] a.where');
    await until('the editor at line 25', async () => /Ln 25, Col/.test(await statusBar()), 15000);
    check(true, 'the evidence link opened node1.log at line 25');

    // 3. "Diagnose Selection" on a terminal buffer, after cat-ing a log.
    await palette('Terminal: Create New Terminal');
    const rows = page.locator('.terminal-wrapper .xterm-rows').first();
    await rows.filter({ hasText: /[$#]/ }).waitFor({ timeout: 30000 });
    await page.locator('.terminal-wrapper .xterm-screen').first().click();
    await page.keyboard.type('clear; cat logs/node1.log', { delay: 15 });
    await page.keyboard.press('Enter');
    await page.locator('.terminal-wrapper .xterm-rows', { hasText: 'CANCELLED AT' }).first().waitFor({ timeout: 30000 });
    await sleep(500);
    await palette('Denpex: Diagnose Selection');
    const term = await panelResult('terminal', ed.run);
    log('terminal result: ' + JSON.stringify(term));
    check(/whole buffer|selection/.test(term.source), 'terminal: the terminal text was diagnosed');
    check(term.initiating === 'rank 5', 'terminal buffer: the panel names rank 5 as the initiating rank');
    check(/terminal:\d+/.test(term.evidence) && /CUDA out of memory/.test(term.evidence), 'terminal buffer: evidence is the OOM line');
    await shot('2-terminal-buffer.png');

    // The keybinding in the terminal (nothing selected: its whole buffer, without VS Code's no-selection warning).
    await page.keyboard.press('Escape');
    await page.locator('.terminal-wrapper .xterm-screen').first().click();
    await page.keyboard.press('Control+Alt+D');
    const key = await panelResult('terminal', term.run);
    check(key.initiating === 'rank 5' && /whole buffer/.test(key.source), 'Ctrl+Alt+D in the terminal diagnoses its buffer');

    // 4. Hover on a watchdog line (line 26: rank 4's watchdog timeout) explains it is collateral of rank 5.
    await openFile('node1.log');
    await goToLine(26);
    const hover = await retry('hover', async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+K');
      await page.keyboard.press('Control+I');
      const h = page.locator('.monaco-hover', { hasText: 'collateral' }).first();
      await h.waitFor({ timeout: 10000 });
      return h.innerText();
    }, 4);
    log('hover: ' + JSON.stringify(hover.slice(0, 300)));
    await sleep(600); // the hover fades in
    check(/NCCL collective timed out/.test(hover), 'hover names the watchdog failure');
    check(/collateral/.test(hover) && /caused by rank 5/.test(hover), "hover: collateral, caused by rank 5's failure");
    await shot('3-hover.png');
    await page.keyboard.press('Escape');

    // 5. The launch-script quick-fix: .sbatch is a shell script; the fix exports the variable; saved to disk.
    await openFile('train.sbatch');
    await until('language mode Shell Script', async () => /Shell Script/.test(await statusBar()), 15000);
    check(true, '.sbatch is treated as a shell script');
    await page.locator('.monaco-editor .squiggly-warning').first().waitFor({ timeout: 30000 });
    await goToLine(11);
    await retry('quick fix', async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+.');
      const row = page.locator('.action-widget .monaco-list-row', { hasText: 'TORCH_NCCL_ASYNC_ERROR_HANDLING' }).first();
      await row.waitFor({ timeout: 10000 });
      for (let i = 0; i < 6 && !(await row.getAttribute('class')).includes('focused'); i++) await page.keyboard.press('Down');
      await shot('4-quickfix-menu.png');
      await page.keyboard.press('Enter'); // click() is intercepted by the context view's pointer block
      await page.locator('.monaco-editor .view-lines', { hasText: 'export TORCH_NCCL_ASYNC_ERROR_HANDLING=1' }).first().waitFor({ timeout: 10000 });
    });
    await page.keyboard.press('Control+S');
    const script = path.join(ws, 'train.sbatch');
    await until('train.sbatch on disk to export the variable',
      () => /^export TORCH_NCCL_ASYNC_ERROR_HANDLING=1$/m.test(fs.readFileSync(script, 'utf8')), 15000);
    check(true, 'train.sbatch on disk now exports TORCH_NCCL_ASYNC_ERROR_HANDLING=1');
    await page.locator('.monaco-editor .squiggly-warning').first().waitFor({ state: 'detached', timeout: 15000 });
    check(true, 'the launch-script warning is gone');
    await shot('5-quickfix-applied.png');

    // 6. "Diagnose Log Files…": both node logs from disk; the README's screenshot of the panel.
    await palette('Denpex: Diagnose Log Files…');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'node0.log' }).first().waitFor({ timeout: 15000 });
    await page.keyboard.press('Enter');
    const files = await panelResult('2 files', key.run);
    log('files result: ' + JSON.stringify(files));
    check(files.initiating === 'rank 5' && files.host === 'gpu-node-02' && files.confidence === 'high',
      'log files: rank 5 on gpu-node-02, high confidence');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+J'); // hide the terminal and the side bar: the result panel gets the room
    await page.keyboard.press('Control+B');
    await page.locator('.part.panel').first().waitFor({ state: 'hidden', timeout: 5000 }).catch(() => log('the bottom panel stayed'));
    await sleep(800); // let the progress notification fade
    await shot('6-log-files-panel.png');
    await page.locator('iframe.webview.ready').last().screenshot({ path: path.join(shots, 'result-panel.png') });
    log('screenshot result-panel.png');

    // 7. The panel's fix button: apply it to a chosen launch script (the server edits it; the client saves it).
    const fixFrame = await panelFrame('[data-testid=apply-fix]');
    check(!!fixFrame, 'the panel offers "Apply to launch script…" for the async-error-handling fix');
    await fixFrame.click('[data-testid=apply-fix]');
    const pickInput = page.locator('.quick-input-widget input.input');
    await pickInput.waitFor({ state: 'visible', timeout: 15000 });
    await pickInput.fill('launch_debug.sh');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'launch_debug.sh' }).first().waitFor({ timeout: 15000 });
    await page.keyboard.press('Enter');
    const launcher = path.join(ws, 'launch_debug.sh');
    await until('launch_debug.sh on disk to export the variable',
      () => /^export TORCH_NCCL_ASYNC_ERROR_HANDLING=1\nsrun /m.test(fs.readFileSync(launcher, 'utf8')), 20000);
    check(true, 'the panel button wrote the export into launch_debug.sh on disk');
    await shot('7-panel-fix-applied.png');

    // 7b. "Diagnose Open Logs as One Job": node0.log (only timeouts) and node1.log (rank 5's OOM), open in the editor,
    // diagnosed together by the server from the documents' text (node1.log's tab is open since step 1).
    await openFile('node0.log');
    const beforeJob = await panelRun();
    await palette('Denpex: Diagnose Open Logs as One Job');
    const job = await panelResult('open logs as one job', beforeJob);
    log('job result: ' + JSON.stringify(job));
    check(job.initiating === 'rank 5' && job.host === 'gpu-node-02' && /node1\.log:25/.test(job.evidence),
      "open logs as one job: rank 5's OOM at node1.log:25");

    // 9. "Watch Log Folder…" on a running job's folder (explorer context menu): a line appended to a log there is
    // announced by a notification whose button opens the result panel.
    const live = path.join(ws, 'live');
    fs.mkdirSync(live, { recursive: true });
    const liveLog = path.join(live, 'node3.log');
    fs.writeFileSync(liveLog, '[rank3]:2024-10-23 12:00:01,000 - trainer - INFO - step 1 loss 2.01\n');
    await page.keyboard.press('Control+B'); // the side bar again (hidden for the panel's screenshot)
    const liveRow = page.locator('.explorer-folders-view .monaco-list-row', { hasText: /^live$/ }).first();
    await retry('the explorer to show live/', async (attempt) => {
      // The explorer's file watcher shows a new folder on its own; its Refresh button is the fallback.
      if (attempt > 1) await page.locator('.explorer-viewlet .codicon-explorer-refresh').first().click().catch(() => {});
      await liveRow.waitFor({ timeout: 15000 });
    });
    await retry('Watch Log Folder… from the explorer', async () => {
      await page.keyboard.press('Escape');
      await liveRow.click({ button: 'right' });
      const item = page.locator('.monaco-menu .action-item', { hasText: 'Watch Log Folder' }).first();
      await item.waitFor({ timeout: 10000 });
      // A click that lands the moment the menu is drawn can be dropped (seen on two machines: the menu stays open,
      // the item highlighted, and the command never runs). Hover first and wait until the menu has given the item
      // its focus: the menu is then taking mouse input, and the click runs the command.
      await item.hover();
      await until('the menu item to take the focus', () => item.evaluate((e) => e.classList.contains('focused')), 5000);
      await item.click();
      await page.locator('.notifications-toasts .notification-toast', { hasText: 'denpex: watching live' }).first()
        .waitFor({ timeout: 15000 });
    });
    await page.locator('.notifications-toasts .notification-toast', { hasText: /log file.*Cancel stops the watch/ }).first()
      .waitFor({ timeout: 30000 });
    check(true, 'the watch of live/ is running (its first update arrived)');
    fs.appendFileSync(liveLog, '[rank3]:RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 3; 79.35 GiB total capacity)\n');
    const watchToast = page.locator('.notifications-toasts .notification-toast', { hasText: 'failed first' }).first();
    await watchToast.waitFor({ timeout: 30000 });
    const watchText = await watchToast.innerText();
    const watchLine = watchText.split('\n').find((l) => /failed first/.test(l)) ?? watchText;
    check(/rank 3/.test(watchLine) && /CUDA out of memory/i.test(watchLine), `the watch notification names rank 3's OOM: ${JSON.stringify(watchLine)}`);
    await watchToast.locator('.monaco-button', { hasText: 'Open Result' }).first().waitFor();
    await until('the notification to finish fading in', () => watchToast.evaluate((e) => getComputedStyle(e).opacity === '1'), 5000);
    await shot('9-watch-notification.png');
    const beforeWatchRun = await panelRun();
    await watchToast.locator('.monaco-button', { hasText: 'Open Result' }).first().click();
    const watched = await panelResult('live (watched)', beforeWatchRun);
    log('watch result: ' + JSON.stringify(watched));
    check(watched.initiating === 'rank 3' && /node3\.log:2/.test(watched.evidence), "Open Result shows rank 3's OOM at node3.log:2");
    await shot('10-watch-result.png');
    // Cancel on the progress notification stops the watch (denpex/stopWatch); the notification goes away.
    const watching = page.locator('.notifications-toasts .notification-toast', { hasText: 'denpex: watching live' }).first();
    await watching.locator('.monaco-button', { hasText: 'Cancel' }).first().click();
    await watching.waitFor({ state: 'detached', timeout: 15000 });
    check(true, 'Cancel stopped the watch');

    const toasts = await page.locator('.notifications-toasts').innerText().catch(() => '');
    check(!/stopped unexpectedly|not running/.test(toasts), 'no server crash was reported so far');

    // 8. A server crash is reported once, with a Restart action; the status bar shows it; Restart brings it back.
    const before = serverPids();
    check(before.length === 1, `one denpex server runs (pids ${before})`);
    process.kill(Number(before[0]), 'SIGKILL');
    // The client shows the notification only once the server's exit status is known (it arrives after the
    // transport's close, late on a loaded machine), and a toast's text never changes once shown: wait for the toast,
    // then for the text the check needs, rather than reading it once.
    const crashToast = page.locator('.notifications-toasts .notification-toast', { hasText: 'stopped unexpectedly' });
    await crashToast.first().waitFor({ timeout: 30000 });
    const crashText = await until('the crash notification to name how the server ended', async () => {
      const t = await crashToast.first().innerText();
      return /signal SIGKILL/.test(t) && t;
    }, 10000);
    check(true, `the notification names how the server ended: ${JSON.stringify(crashText.split('\n').find((l) => /stopped unexpectedly/.test(l)))}`);
    await page.locator('.part.statusbar .codicon-error').first().waitFor({ timeout: 10000 });
    // Not a wait for a state but the window in which a second notification (a stream of errors) would show up.
    await sleep(3000);
    check((await crashToast.count()) === 1, 'the crash is reported once (one notification)');
    await shot('8-server-crash.png');
    await crashToast.first().locator('.monaco-button', { hasText: 'Restart' }).first().click();
    await until('a new server process', () => { const p = serverPids(); return p.length === 1 && p[0] !== before[0]; }, 20000);
    await page.locator('.part.statusbar .codicon-pulse').first().waitFor({ timeout: 20000 });
    check(true, 'Restart started a new server and the status bar shows it running');
    rc = 0;
  } catch (e) {
    log('ERROR ' + e.message.split('\n').slice(0, 6).join(' | '));
    await page.screenshot({ path: path.join(shots, 'error.png') }).catch(() => {});
  } finally {
    await ctx.close().catch(() => {});
    fs.rmSync(profile, { recursive: true, force: true });
  }
  log(rc === 0 ? 'PASS' : 'FAIL');
  process.exit(rc);
})();
