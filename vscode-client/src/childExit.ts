// How a child process ended, once it has. The language client learns that the server is gone when the server's
// stdout closes; the process's exit status (and the signal that ended it) comes in a separate event that may
// arrive later, after an arbitrary delay on a loaded machine. Anything that reports how the server ended must
// wait for that event, not for a fixed time.
import type { ChildProcess } from 'child_process';

/** "signal SIGKILL", "exit code 3". */
export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `signal ${signal}` : `exit code ${code}`;
}

/** The part of a ChildProcess this module needs (a test can stand in for it). */
export type ExitSource = Pick<ChildProcess, 'exitCode' | 'signalCode' | 'once'>;

/**
 * Watches one child from the moment it is spawned: `ended` is how it ended (undefined while it runs), `wait()`
 * resolves with it as soon as it is known.
 */
export class ChildExitWatch {
  private how: string | undefined;
  private readonly done: Promise<string>;

  constructor(child: ExitSource) {
    this.done = new Promise<string>((resolve) => {
      const settle = (how: string) => {
        if (this.how === undefined) this.how = how;
        resolve(this.how);
      };
      if (child.exitCode !== null || child.signalCode !== null) settle(describeExit(child.exitCode, child.signalCode));
      child.once('exit', (code: number | null, signal: NodeJS.Signals | null) => settle(describeExit(code, signal)));
      child.once('error', (e: Error) => settle(e.message)); // spawn failed: there will be no 'exit'
    });
  }

  get ended(): string | undefined {
    return this.how;
  }

  /** How the child ended, as soon as it has; undefined when it is still running after `timeoutMs`. */
  wait(timeoutMs: number): Promise<string | undefined> {
    if (this.how !== undefined) return Promise.resolve(this.how);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), timeoutMs);
    });
    return Promise.race([this.done, timeout]).finally(() => clearTimeout(timer));
  }
}
