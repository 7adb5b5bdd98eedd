// A clone of the repository alone must run and test: no TypeScript file may reach for the team's
// `../shared/` folder (the contract lives in docs/commerce-api-spec.md). A grep over every .ts file.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(import.meta.dirname, '..', '..');
const SKIPPED_FOLDERS = new Set(['node_modules', '.git', '.data']);
const THIS_FILE = path.resolve(import.meta.filename);

/** '../shared', '/shared/', and path.join(..., '..', 'shared', ...) where the segments are separate. */
const OUTSIDE_PATHS = [/\.\.[\\/]shared\b/, /[\\/]shared[\\/]/, /(['"`])\.\.\1\s*,\s*(['"`])shared\2/];

function typeScriptFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : typeScriptFiles(full);
    return /\.[cm]?ts$/.test(entry.name) ? [full] : [];
  });
}

/** Comment lines only talk about a path; code lines are what could read one. */
function codeLines(text: string): { number: number; line: string }[] {
  return text
    .split('\n')
    .map((line, index) => ({ number: index + 1, line }))
    .filter(({ line }) => !/^\s*(\/\/|\/\*|\*)/.test(line));
}

function findOutsidePaths(files: string[]): string[] {
  return files.flatMap((file) =>
    codeLines(readFileSync(file, 'utf8'))
      .filter(({ line }) => OUTSIDE_PATHS.some((pattern) => pattern.test(line)))
      .map(({ number, line }) => `${path.relative(ROOT, file)}:${number}: ${line.trim()}`),
  );
}

describe('the repository is self-contained', () => {
  it('recognises each way of naming the shared folder (so the scan below can fail)', () => {
    const samples = [
      "const SPEC = path.join(import.meta.dirname, '..', '..', '..', 'shared', 'commerce-api-spec.md');",
      "readFileSync('../shared/commerce-api-spec.md')",
      'readFileSync("/work/shared/reference/crm-wire-behaviour.md")',
    ];
    for (const sample of samples) expect(OUTSIDE_PATHS.some((pattern) => pattern.test(sample)), sample).toBe(true);
    expect(OUTSIDE_PATHS.some((pattern) => pattern.test("path.join(ROOT, 'docs', 'commerce-api-spec.md')"))).toBe(false);
  });

  it('no TypeScript file outside node_modules reads a path in ../shared', () => {
    const files = typeScriptFiles(ROOT).filter((file) => path.resolve(file) !== THIS_FILE);
    expect(files.length).toBeGreaterThan(50);
    expect(findOutsidePaths(files)).toEqual([]);
  });
});
