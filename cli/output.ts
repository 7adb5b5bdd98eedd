// How commands answer: tables and sentences for a person, JSON for scripts (`--json`, or
// CRM_SYNC_OUTPUT=json for every command of a script). Colours only when stdout is a terminal and
// NO_COLOR is unset. Commands build their result once and say how a person reads it.
import Table from 'cli-table3';
import pc from 'picocolors';

let json = false;

/** Set once per command, from its --json option (see program.ts's preAction hook). */
export function setJsonOutput(wanted: boolean | undefined): void {
  json = Boolean(wanted) || process.env.CRM_SYNC_OUTPUT === 'json';
}

export const jsonOutput = () => json;

/**
 * An error for the person on stderr and, under --json, also `{"error": ...}` as one line on stdout, so a
 * script reading stdout always gets one JSON document. The caller sets the exit code.
 */
export function reportError(message: string, asJson = json): void {
  process.stderr.write(`${message}\n`);
  if (asJson) process.stdout.write(JSON.stringify({ error: message }) + '\n');
}

/** Whether the command line asks for JSON, before commander has read it (its own errors). */
export const jsonWanted = (argv: string[] = process.argv) => argv.includes('--json') || process.env.CRM_SYNC_OUTPUT === 'json';

/** Colours for stdout: plain text when it is not a terminal, or NO_COLOR is set. */
export const colours = pc.createColors(Boolean(process.stdout.isTTY) && !process.env.NO_COLOR);

/** Prints `data` as one JSON document, or as `human(data)` for a person. */
export function printResult<T>(data: T, human: (data: T) => string): void {
  if (json) process.stdout.write(JSON.stringify(data) + '\n'); // one line: scripts read it whole or line by line
  else {
    const text = human(data);
    process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }
}

/** A table with a header row, sized to its content; no borders inside, so it reads like `kubectl get`. */
export function table(head: string[], rows: (string | number)[][]): string {
  const built = new Table({
    head: head.map((title) => colours.bold(title)),
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2 },
    chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '' },
  });
  built.push(...rows.map((row) => row.map(String)));
  return built.toString().split('\n').map((line) => line.trimEnd()).join('\n');
}

/** "label: value" lines, labels aligned. */
export function details(pairs: [string, string | number | undefined | null][]): string {
  const shown = pairs.filter(([, value]) => value !== undefined && value !== null && value !== '');
  const width = Math.max(...shown.map(([label]) => label.length));
  return shown.map(([label, value]) => `${colours.dim(label.padEnd(width))}  ${value}`).join('\n');
}

/** A time as a person reads it (UTC, to the second), or a dash. */
export function when(value: Date | string | null | undefined): string {
  if (!value) return '-';
  return new Date(value).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}
