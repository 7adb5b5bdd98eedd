// The console's pages escape everything they did not write themselves: a CRM's message, a record id or
// a payload can hold markup, and none of it may become markup in the page.
import { describe, expect, it } from 'vitest';
import { html, jsonBlock } from '../../admin/console/html.ts';
import { connectionPage, loginPage } from '../../admin/console/pages.ts';
import type { ConnectionHealth } from '../../ops/connection-health.ts';
import type { DeadLetterPage, DeadLetterView } from '../../ops/dead-letter-view.ts';

const HOSTILE = `<img src=x onerror="alert('x')">&"</script><script>alert(1)</script>`;

const health: ConnectionHealth = {
  id: 'c-1',
  name: `acme ${HOSTILE}`,
  crmKind: 'salesforce',
  crm: 'Salesforce',
  writesBack: true,
  status: 'dead letters',
  summary: `1 record waiting ${HOSTILE}`,
  lastRun: { id: 'r1', kind: 'incremental', status: 'completed', startedAt: new Date('2026-11-25T10:00:00Z'), finishedAt: new Date('2026-11-25T10:01:00Z'), error: null },
  crmCurrentAsOf: new Date('2026-11-25T10:00:00Z'),
  lagSeconds: 60,
  openDeadLetters: 1,
  apiBudget: null,
  paused: false,
  needsReauthorisation: null,
};

const onePage = (letters: DeadLetterView[]): DeadLetterPage => ({ total: letters.length, byEntity: { offer: letters.length }, page: 1, limit: 50, first: 1, last: letters.length, pages: 1, letters });

const letter = (n: number): DeadLetterView => ({ id: n, entity: 'offer', sourceId: `offer-${n}`, reason: 'REQUIRED_FIELD_MISSING', attempts: 1, firstFailedAt: new Date(), lastFailedAt: new Date(), nextRetryAt: null });
const quiet = { waiting: [], refused: [], made: 0, queuedStages: [] };

describe('console pages', () => {
  it('escape the CRM message, the record id, the payload and the runs chart data', () => {
    const page = connectionPage(
      { csrf: 'csrf-token-1', flash: HOSTILE },
      {
        health,
        runs: [{ id: 'r1', kind: 'incremental', status: 'failed', startedAt: new Date(), finishedAt: new Date(), seconds: 1, counts: { records: 1, created: 0, updated: 0, unchanged: 0, failed: 1 }, entities: { [HOSTILE]: { records: 1, created: 0, updated: 0, unchanged: 0, failed: 1 } }, error: HOSTILE }],
        letters: onePage([{ id: 1, entity: 'offer', sourceId: HOSTILE, reason: `STRING_TOO_LONG: ${HOSTILE}`, crmError: { message: HOSTILE }, payload: { Name: HOSTILE }, attempts: 1, firstFailedAt: new Date(), lastFailedAt: new Date(), nextRetryAt: null }]),
        cosell: { waiting: [], refused: [{ flow: 'opportunity-referral', crmId: HOSTILE, state: 'refused', commerceId: null, message: HOSTILE, updatedAt: new Date() }], made: 0, queuedStages: [] },
        entities: ['offer'],
        backfills: [],
      },
    );
    expect(page).not.toContain('<img');
    expect(page).not.toContain('<script>alert');
    expect(page).not.toContain('</script><script>');
    expect(page).toContain('&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;');
    // Every form carries the session's CSRF token.
    const forms = page.match(/<form /g)!.length;
    expect(page.match(/name="csrf" value="csrf-token-1"/g)!.length).toBe(forms);
  });

  it('shows one page of dead letters with the totals, links to the pages around it and a filter per entity', () => {
    // Page 2 of 20,000 offers and buyers, 50 a page, narrowed to offers (12,000 of them).
    const letters: DeadLetterPage = { total: 12_000, byEntity: { buyer: 8_000, offer: 12_000 }, page: 2, limit: 50, first: 51, last: 100, pages: 240, letters: Array.from({ length: 50 }, (_, i) => letter(51 + i)) };
    const page = connectionPage({ csrf: 'c' }, { health, runs: [], letters, lettersEntity: 'offer', cosell: quiet, entities: ['offer'], backfills: [] });
    expect(page.match(/<tr class="letter"/g)).toHaveLength(50);
    expect(page).toContain('Dead letters <span class="count">(12,000 offer)</span>');
    expect(page).toContain('Showing 51–100 of 12,000, page 2 of 240.');
    expect(page).toContain('<a href="/connections/c-1?entity=offer#dead-letters" rel="prev">Previous 50</a>');
    expect(page).toContain('<a href="/connections/c-1?entity=offer&amp;page=3#dead-letters" rel="next">Next 50</a>');
    expect(page).toContain('<a href="/connections/c-1#dead-letters">all (20,000)</a>');
    expect(page).toContain('<a href="/connections/c-1?entity=buyer#dead-letters">buyer (8,000)</a>');
    expect(page).toContain('<strong aria-current="page">offer (12,000)</strong>');
    // "Retry all" retries what is shown: the offers, all 12,000 of them, not the buyers.
    expect(page).toMatch(/<input type="hidden" name="entity" value="offer"><button type="submit">Retry all 12,000 offer<\/button>/);
  });

  it('the last page has no "next" link; a page past the end says so and links the first', () => {
    const last: DeadLetterPage = { total: 120, byEntity: { offer: 120 }, page: 3, limit: 50, first: 101, last: 120, pages: 3, letters: Array.from({ length: 20 }, (_, i) => letter(101 + i)) };
    const page = connectionPage({ csrf: 'c' }, { health, runs: [], letters: last, cosell: quiet, entities: ['offer'], backfills: [] });
    expect(page).toContain('Showing 101–120 of 120, page 3 of 3.');
    expect(page).not.toContain('rel="next"');
    expect(page).toContain('<a href="/connections/c-1?page=2#dead-letters" rel="prev">Previous 50</a>');
    const past = connectionPage({ csrf: 'c' }, { health, runs: [], letters: { ...last, page: 9, first: 0, last: 0, letters: [] }, cosell: quiet, entities: ['offer'], backfills: [] });
    expect(past).toContain('Page 9 is past the end: <a href="/connections/c-1#dead-letters">the first page</a>.');
  });

  it('keeps JSON data blocks closed and text escaped in the templates', () => {
    expect(jsonBlock('d', { x: '</script><b>' }).text).toBe('<script type="application/json" id="d">{"x":"\\u003c/script\\u003e\\u003cb\\u003e"}</script>');
    expect(html`<p>${'<b>&'}</p>`.text).toBe('<p>&lt;b&gt;&amp;</p>');
    expect(html`<p>${html`<b>${'<i>'}</b>`}</p>`.text).toBe('<p><b>&lt;i&gt;</b></p>');
    expect(loginPage({ next: `/"><script>`, nonce: 'n', css: 'body{}' })).toContain('value="/&quot;&gt;&lt;script&gt;"');
  });
});
