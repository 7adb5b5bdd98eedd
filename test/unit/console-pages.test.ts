// The console's pages escape everything they did not write themselves: a CRM's message, a record id or
// a payload can hold markup, and none of it may become markup in the page.
import { describe, expect, it } from 'vitest';
import { html, jsonBlock } from '../../admin/console/html.ts';
import { connectionPage, loginPage } from '../../admin/console/pages.ts';
import type { ConnectionHealth } from '../../ops/connection-health.ts';

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

describe('console pages', () => {
  it('escape the CRM message, the record id, the payload and the runs chart data', () => {
    const page = connectionPage(
      { csrf: 'csrf-token-1', flash: HOSTILE },
      {
        health,
        runs: [{ id: 'r1', kind: 'incremental', status: 'failed', startedAt: new Date(), finishedAt: new Date(), seconds: 1, counts: { records: 1, created: 0, updated: 0, unchanged: 0, failed: 1 }, entities: { [HOSTILE]: { records: 1, created: 0, updated: 0, unchanged: 0, failed: 1 } }, error: HOSTILE }],
        letters: [{ id: 1, entity: 'offer', sourceId: HOSTILE, reason: `STRING_TOO_LONG: ${HOSTILE}`, crmError: { message: HOSTILE }, payload: { Name: HOSTILE }, attempts: 1, firstFailedAt: new Date(), lastFailedAt: new Date(), nextRetryAt: null }],
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

  it('keeps JSON data blocks closed and text escaped in the templates', () => {
    expect(jsonBlock('d', { x: '</script><b>' }).text).toBe('<script type="application/json" id="d">{"x":"\\u003c/script\\u003e\\u003cb\\u003e"}</script>');
    expect(html`<p>${'<b>&'}</p>`.text).toBe('<p>&lt;b&gt;&amp;</p>');
    expect(html`<p>${html`<b>${'<i>'}</b>`}</p>`.text).toBe('<p><b>&lt;i&gt;</b></p>');
    expect(loginPage({ next: `/"><script>`, nonce: 'n', css: 'body{}' })).toContain('value="/&quot;&gt;&lt;script&gt;"');
  });
});
