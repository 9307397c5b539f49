// What the watch notification says. Pure (no `vscode`), so it has unit tests.
import { WatchUpdate } from './protocol';

/** The notification's text for an initiating update: who failed first, where, with what. */
export function initiatingMessage(u: WatchUpdate, folder: string): string {
  const d = u.report?.diagnoses?.find((x) => x.failure?.id === u.failure) ?? u.report?.diagnoses?.[0];
  const what = d?.failure?.title ?? u.failure ?? 'a failure';
  const who = u.rank !== undefined && u.rank !== null ? `rank ${u.rank}` : u.process || 'a process';
  const where = u.host ? ` on ${u.host}` : '';
  return `denpex: ${who}${where} failed first in ${folder}: ${what}.`;
}
