// The file under both sandboxes' journals: append-only JSON lines, one entry a line. An entry is
// written with a synchronous write() before the caller goes on to answer the request, so once a
// client has its answer the entry is in the OS page cache, which a SIGKILL of the process does not
// lose (only a machine crash would, hence no fsync).
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, truncateSync, writeSync } from 'node:fs';
import path from 'node:path';

export type JournalFile = {
  readonly path: string;
  /** Every complete entry of the file when it was opened, oldest first. */
  readonly entries: unknown[];
  /** Appends one entry; it is in the file when this returns. */
  append(entry: unknown): void;
  /** Replaces the whole file atomically (temp file + rename), then appends after those entries. */
  rewrite(entries: readonly unknown[]): void;
  close(): void;
};

const lineOf = (entry: unknown) => `${JSON.stringify(entry)}\n`;

function writeAll(fd: number, text: string) {
  const buffer = Buffer.from(text, 'utf8');
  let written = 0;
  while (written < buffer.length) written += writeSync(fd, buffer, written, buffer.length - written);
}

/**
 * The entries of `file` (none when it does not exist). A last line without its newline is what a
 * kill in the middle of a write leaves: it was never acknowledged, so it is dropped and cut off (so
 * that the next entry does not land on the end of it). A damaged line before it is refused.
 */
function readEntries(file: string): unknown[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const end = text.lastIndexOf('\n') + 1;
  if (end < text.length) truncateSync(file, Buffer.byteLength(text.slice(0, end)));
  const entries: unknown[] = [];
  const lines = text.slice(0, end).split('\n');
  lines.pop(); // the empty string after the last newline
  lines.forEach((line, index) => {
    try {
      entries.push(JSON.parse(line));
    } catch (error) {
      throw new Error(`journal ${file} is damaged at line ${index + 1} (${(error as Error).message}); move it away to start from fresh data`);
    }
  });
  return entries;
}

export function openJournalFile(file: string): JournalFile {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const entries = readEntries(file);
  let fd: number | undefined = openSync(file, 'a', 0o600);
  const open = () => {
    if (fd === undefined) throw new Error(`journal ${file} is closed`);
    return fd;
  };
  return {
    path: file,
    entries,
    append(entry) {
      writeAll(open(), lineOf(entry));
    },
    rewrite(next) {
      open();
      const temp = `${file}.${process.pid}.tmp`;
      const tempFd = openSync(temp, 'w', 0o600);
      try {
        writeAll(tempFd, next.map(lineOf).join(''));
      } finally {
        closeSync(tempFd);
      }
      renameSync(temp, file);
      // The old descriptor still points at the replaced file: append to the new one from now on.
      closeSync(fd!);
      fd = openSync(file, 'a', 0o600);
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}
