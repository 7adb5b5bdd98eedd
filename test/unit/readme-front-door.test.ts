// The README is the front door (issue #26 section 5): short, with the two commands CI and newcomers run,
// and a link to every docs page the rest moved to. Every relative link in the README and docs/ must reach
// a file and, with an anchor, a heading in it: moving a section breaks links silently otherwise.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(import.meta.dirname, '..', '..');
const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\w\- ]/g, '').replaceAll(' ', '-');
}

/** The anchors of a Markdown file's headings, leaving out `#` lines inside code blocks. */
function anchorsIn(file: string): Set<string> {
  const anchors = new Set<string>();
  let inCode = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    const heading = inCode ? null : /^#{1,6} (.*)$/.exec(line);
    if (heading?.[1]) anchors.add(anchorOf(heading[1]));
  }
  return anchors;
}

/** Links of a Markdown file that do not reach their file or heading, as `file: target`. */
function brokenLinks(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^[a-z]+:/.test(target))
    .filter((target) => {
      const [filePart = '', anchor = ''] = target.split('#');
      const reached = filePart ? path.resolve(path.dirname(file), filePart) : file;
      if (!existsSync(reached)) return true;
      return Boolean(anchor) && reached.endsWith('.md') && !anchorsIn(reached).has(anchor);
    })
    .map((target) => `${path.relative(ROOT, file)}: ${target}`);
}

describe('README.md as a front door', () => {
  it('has the two commands, exactly as CI and a newcomer run them', () => {
    expect(readme).toContain('\nnpm install && npm start   #');
    expect(readme).toContain('\nnpm test                   #');
    expect(readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8')).toMatch(/\nnpm test\n/);
  });

  it('reads in five minutes', () => {
    expect(readme.split('\n').length).toBeLessThan(200);
  });

  it('links every page the old sections moved to, and the reference pages', () => {
    const pages = [
      'running-locally', 'operations-and-console', 'configuration', 'architecture', 'cosell', 'salesforce',
      'hubspot', 'dynamics', 'revenue-renewals-usage', 'crm-fields', 'benchmarks', 'testing',
      'commerce-api-spec', 'commerce-api-assumptions', 'crm-wire-behaviour',
    ];
    for (const page of pages) expect(readme, page).toContain(`](docs/${page}.md`);
  });

  it('each moved page opens with one line and a link back to the README', () => {
    for (const page of ['running-locally', 'operations-and-console', 'configuration', 'architecture', 'cosell',
      'salesforce', 'hubspot', 'dynamics', 'revenue-renewals-usage', 'benchmarks', 'testing']) {
      const [title, blank, intro] = readFileSync(path.join(ROOT, 'docs', `${page}.md`), 'utf8').split('\n');
      expect(title, page).toMatch(/^# \S/);
      expect(blank, page).toBe('');
      expect(intro, page).toContain('[README](../README.md)');
    }
  });

  it('finds a broken link and a missing anchor (so the check below can fail)', () => {
    const anchors = anchorsIn(path.join(ROOT, 'README.md'));
    expect(anchors.has('two-commands')).toBe(true);
    expect(anchors.has('no-such-heading')).toBe(false);
    expect(anchorOf('Co-sell both ways (Salesforce)')).toBe('co-sell-both-ways-salesforce');
    expect(anchorOf('The `crm-sync` command')).toBe('the-crm-sync-command');
  });

  it('has no broken relative link in the README or docs/', () => {
    const docs = readdirSync(path.join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => path.join(ROOT, 'docs', name));
    expect(docs.length).toBeGreaterThan(10);
    expect([path.join(ROOT, 'README.md'), ...docs].flatMap(brokenLinks)).toEqual([]);
  });
});
