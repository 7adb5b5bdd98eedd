// The console's pages for each role: the header names who is signed in and their role, and the forms a
// role cannot use are left out (the server refuses them anyway: admin/permissions.ts).
import { describe, expect, it } from 'vitest';
import { connectionPage } from '../../admin/console/pages.ts';
import type { SessionIdentity } from '../../admin/console/sessions.ts';
import type { ConnectionHealth } from '../../ops/connection-health.ts';
import type { DeadLetterView } from '../../ops/dead-letter-view.ts';

const health: ConnectionHealth = {
  id: 'c-1',
  name: 'acme',
  crmKind: 'salesforce',
  crm: 'Salesforce',
  writesBack: true,
  status: 'dead letters',
  summary: '2 records waiting',
  lastRun: null,
  crmCurrentAsOf: null,
  lagSeconds: null,
  openDeadLetters: 2,
  apiBudget: null,
  paused: false,
  needsReauthorisation: null,
};
const letter = (n: number): DeadLetterView => ({ id: n, entity: 'offer', sourceId: `offer-${n}`, reason: 'REQUIRED_FIELD_MISSING', attempts: 1, firstFailedAt: new Date(), lastFailedAt: new Date(), nextRetryAt: null });

function pageFor(who: SessionIdentity): string {
  return connectionPage(
    { csrf: 'c', who },
    {
      health,
      runs: [],
      letters: { total: 2, byEntity: { offer: 2 }, page: 1, limit: 50, first: 1, last: 2, pages: 1, letters: [letter(1), letter(2)] },
      cosell: { waiting: [], refused: [], made: 0, queuedStages: [] },
      entities: ['offer'],
      backfills: [],
    },
  );
}

const person = (role: 'viewer' | 'operator' | 'admin'): SessionIdentity => ({ via: 'oidc', role, person: { subject: 's-1', name: 'Ada <Lovelace>', email: 'ada@example.com' } });
const retryForms = (page: string) => page.match(/<form method="post" action="\/connections\/c-1\/retry"/g)?.length ?? 0;
const backfillForms = (page: string) => page.match(/<form method="post" action="\/connections\/c-1\/backfill"/g)?.length ?? 0;

describe('console pages by role', () => {
  it('name the person and their role in the header, escaped', () => {
    expect(pageFor(person('viewer'))).toContain('<p class="who" id="signed-in-as">Ada &lt;Lovelace&gt; <span class="role">viewer</span></p>');
    expect(pageFor({ via: 'token', role: 'admin' })).toContain('<p class="who" id="signed-in-as">admin token <span class="role">admin</span></p>');
  });

  it('leave out Retry, Retry all and the backfill form for a viewer', () => {
    const page = pageFor(person('viewer'));
    expect(retryForms(page)).toBe(0);
    expect(backfillForms(page)).toBe(0);
    expect(page).toContain('Starting a backfill needs the operator role.');
    // Sign out stays.
    expect(page).toContain('action="/logout"');
  });

  it('offer them to an operator and an admin (Retry all and one Retry per letter)', () => {
    for (const role of ['operator', 'admin'] as const) {
      const page = pageFor(person(role));
      expect(retryForms(page), role).toBe(3);
      expect(backfillForms(page), role).toBe(1);
    }
  });

  // Writing every record again rewrites the whole CRM side: the server lets only an admin ask (review finding).
  it('show "Write every record again" to an admin only', () => {
    expect(pageFor(person('operator'))).not.toContain('name="forgetLinks"');
    expect(pageFor(person('admin'))).toContain('name="forgetLinks"');
  });
});
