import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { ChildExitWatch, describeExit, ExitSource } from '../../src/childExit';

/** A child whose exit status the test hands out, whenever it likes. */
class FakeChild extends EventEmitter {
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  end(code: number | null, signal: NodeJS.Signals | null): void {
    this.exitCode = code;
    this.signalCode = signal;
    this.emit('exit', code, signal);
  }
}
const asSource = (c: FakeChild) => c as unknown as ExitSource;

test('describeExit names the signal, else the exit code', () => {
  assert.equal(describeExit(null, 'SIGKILL'), 'signal SIGKILL');
  assert.equal(describeExit(3, null), 'exit code 3');
});

test('an exit status that arrives long after the transport closed is still the one reported', async () => {
  // The crash race: stdout's close is seen first, the exit (with the signal) only later. No fixed delay fits.
  const child = new FakeChild();
  const watch = new ChildExitWatch(asSource(child));
  assert.equal(watch.ended, undefined);
  const reported = watch.wait(10000);
  setTimeout(() => child.end(null, 'SIGKILL'), 300); // far beyond the 50 ms the client once waited
  assert.equal(await reported, 'signal SIGKILL');
  assert.equal(watch.ended, 'signal SIGKILL');
});

test('a child that has already ended resolves at once, and the first status sticks', async () => {
  const child = new FakeChild();
  child.exitCode = 2;
  const watch = new ChildExitWatch(asSource(child));
  assert.equal(watch.ended, 'exit code 2');
  child.emit('exit', null, 'SIGTERM');
  assert.equal(await watch.wait(0), 'exit code 2');
});

test('a spawn error ends the wait with its message', async () => {
  const child = new FakeChild();
  const watch = new ChildExitWatch(asSource(child));
  child.emit('error', new Error('spawn /nope ENOENT'));
  assert.equal(await watch.wait(10000), 'spawn /nope ENOENT');
});

test('a child still running when the wait times out gives undefined', async () => {
  const watch = new ChildExitWatch(asSource(new FakeChild()));
  assert.equal(await watch.wait(20), undefined);
});

test('a real process killed by SIGKILL: after its stdout closed, the wait names the signal', async () => {
  const child = spawn('sleep', ['30'], { stdio: 'pipe' });
  const watch = new ChildExitWatch(child);
  const closed = new Promise<void>((resolve) => child.stdout.once('close', () => resolve()));
  child.kill('SIGKILL');
  await closed; // what the language client sees first
  assert.equal(await watch.wait(10000), 'signal SIGKILL');
});
