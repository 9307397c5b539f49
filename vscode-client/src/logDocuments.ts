// Which open documents are training logs, as the server decides it (server/launch_scripts/document_kind.cpp:
// languageId `log`, or a log-like file name). Pure: takes the documents' facts, not `vscode`.

const LOG_NAME = /(\.(log|out|err)|\.log\.\d+)$|(^|\/)slurm-[^/]*\.out$/;

export interface DocumentFacts {
  languageId: string;
  uri: { scheme: string; path: string; toString(): string };
  isClosed?: boolean;
}

export function isLogDocument(d: DocumentFacts): boolean {
  if (d.isClosed) return false;
  if (d.uri.scheme !== 'file' && d.uri.scheme !== 'untitled') return false;
  return d.languageId === 'log' || LOG_NAME.test(d.uri.path);
}

/** The open log documents, in URI order (the order the server reads a job in). */
export function openLogDocuments<T extends DocumentFacts>(docs: readonly T[]): T[] {
  return docs.filter(isLogDocument).sort((a, b) => a.uri.toString().localeCompare(b.uri.toString()));
}
