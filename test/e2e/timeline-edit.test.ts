// `crm-sync edit` sets the timeline setting (issue #27 follow-up 2), and `crm-sync errors --entity alert`
// lists the alerts that could not be delivered (follow-up 3), as processes against a real PostgreSQL, a
// real Temporal server and the commerce and Salesforce sandboxes: the edit's values are what `show
// --json` and the audit trail's settings.edit row hold afterwards; a wrong value exits 2 with one line
// naming the flag, and changes nothing.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { cliEnv, cliOutcome } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startSandboxes } from '../support/sync-harness.ts';

describe('crm-sync edit --timeline-* and errors --entity alert (real PostgreSQL, real Temporal, sandboxes)', () => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxes>>;
  let env: NodeJS.ProcessEnv;
  let connectionId = '';

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxes({ entitlements: 2, seed: 27 });
    env = cliEnv({
      databaseUrl: database.url,
      secretKey: randomBytes(32).toString('base64'),
      taskQueue: `timeline-edit-${Date.now()}`, // no worker: nothing here needs a run to finish
      commerceClientSecret: sandboxes.commerce.clientSecret,
      salesforceClientSecret: sandboxes.salesforce.clientSecret,
    });
    connectionId = (
      await json([
        'connect', '--name', 'acme', '--paused',
        '--commerce-url', sandboxes.commerce.apiUrl, '--commerce-auth-url', sandboxes.commerce.authUrl,
        '--commerce-client-id', sandboxes.commerce.clientId, '--commerce-org', sandboxes.commerce.organizationId,
        '--salesforce-login-url', sandboxes.salesforce.loginUrl, '--salesforce-client-id', sandboxes.salesforce.clientId,
        '--entities', 'buyer,offer',
      ])
    ).connection;
  });
  afterAll(async () => {
    await sandboxes?.stop();
    await database?.drop();
  });

  async function json(args: string[]) {
    const outcome = await cliOutcome(env, args);
    expect(outcome.code, outcome.stderr).toBe(0);
    return JSON.parse(outcome.stdout);
  }
  const timeline = async () => (await json(['show', 'acme'])).settings.timeline;

  it('a new connection runs with the default timeline setting', async () => {
    expect(await timeline()).toEqual({ eventTypes: 'default', openTasksFor: 'action-items', backfillDays: 30 });
  });

  it('edit sets the event types, the open tasks and the backfill days; show and the audit trail hold them', async () => {
    await json(['edit', 'acme', '--timeline-events', 'OFFER, entitlement:STATUS_CHANGED', '--timeline-open-tasks', 'ENTITLEMENT:STATUS_CHANGED:PENDING_CANCEL', '--timeline-backfill-days', '7']);
    expect(await timeline()).toEqual({ eventTypes: ['OFFER', 'entitlement:STATUS_CHANGED'], openTasksFor: ['ENTITLEMENT:STATUS_CHANGED:PENDING_CANCEL'], backfillDays: 7 });
    const [edit] = (await json(['audit', '--action', 'settings'])).events;
    expect(edit.before.timeline).toEqual({ eventTypes: 'default', openTasksFor: 'action-items', backfillDays: 30 });
    expect(edit.after.timeline).toEqual({ eventTypes: ['OFFER', 'entitlement:STATUS_CHANGED'], openTasksFor: ['ENTITLEMENT:STATUS_CHANGED:PENDING_CANCEL'], backfillDays: 7 });

    // One flag changes only its part; back to the defaults by their words.
    await json(['edit', 'acme', '--timeline-open-tasks', 'none']);
    expect(await timeline()).toEqual({ eventTypes: ['OFFER', 'entitlement:STATUS_CHANGED'], openTasksFor: [], backfillDays: 7 });
    await json(['edit', 'acme', '--timeline-events', 'default', '--timeline-open-tasks', 'action-items']);
    expect(await timeline()).toEqual({ eventTypes: 'default', openTasksFor: 'action-items', backfillDays: 7 });
  });

  const MISTAKES: [string[], string][] = [
    [['--timeline-events', 'OFFER:'], '--timeline-events: "OFFER:" is not an event type; give default, or event types such as OFFER, OFFER:STATUS_CHANGED or OFFER:STATUS_CHANGED:ACCEPTED, comma-separated'],
    [['--timeline-events', ','], '--timeline-events: no event type given; give default, or event types such as OFFER, OFFER:STATUS_CHANGED or OFFER:STATUS_CHANGED:ACCEPTED, comma-separated'],
    [['--timeline-open-tasks', 'action items'], '--timeline-open-tasks: "action items" is not an event type; give action-items, none, or event types such as OFFER, OFFER:STATUS_CHANGED or OFFER:STATUS_CHANGED:ACCEPTED, comma-separated'],
    [['--timeline-backfill-days', '0'], '--timeline-backfill-days: "0" is not a whole number from 1 to 3650'],
    [['--timeline-backfill-days', 'month'], '--timeline-backfill-days: "month" is not a whole number from 1 to 3650'],
  ];

  it('a wrong timeline value: exit 2, one line naming the flag, nothing changed', async () => {
    const before = await timeline();
    const outcomes = await Promise.all(MISTAKES.map(([flags]) => cliOutcome(env, ['edit', 'acme', ...flags])));
    outcomes.forEach((outcome, index) => {
      expect(outcome.code, outcome.stderr).toBe(2);
      expect(outcome.stderr).toBe(`${MISTAKES[index]![1]}\n`);
    });
    expect(await timeline()).toEqual(before);
  });

  it('errors --entity alert lists the alerts that could not be delivered, and only those', async () => {
    const letters = createDeadLetterStore(database.pool);
    await letters.record(connectionId, 'alert', [{ sourceId: 'r-1a2b3c4d:evt-9', reason: 'Slack answered 404 no_service: the webhook was removed', crmError: { service: 'Slack', status: 404, answer: 'no_service' } }]);
    await letters.record(connectionId, 'offer', [{ sourceId: 'offer-1', reason: 'Salesforce refused it' }]);
    const listed = await json(['errors', 'acme', '--entity', 'alert']);
    expect(listed.map((letter: { entity: string; sourceId: string }) => [letter.entity, letter.sourceId])).toEqual([['alert', 'r-1a2b3c4d:evt-9']]);
    const retried = await cliOutcome(env, ['retry', 'acme', '--entity', 'alert']);
    expect(retried.code).toBe(2);
    expect(retried.stderr).toBe('--entity: alerts that could not be delivered are not retried (a retry could send one twice); list them with crm-sync errors <connection> --entity alert\n');
  });
});
