// The near-real-time path keeps the same promises as the full pass: it stops at once for a connection
// marked for re-authorisation (instead of going to the login every 30 s), any CRM word for refused
// credentials marks the connection, and notification events set aside for an unknown envelope version
// are taken up as soon as the worker understands that version.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSyncActivities } from '../../activities/sync.ts';
import { classifyEvent } from '../../commerce/index.ts';
import { CrmCredentialsRefusedError } from '../../crm/connector.ts';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { createReauthorisationStore } from '../../store/reauthorisation.ts';
import { commerceDump } from '../support/expected-crm.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { createMemoryCrm, fullPass, memoryConnection } from '../support/memory-crm.ts';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';

/** Whether this worker understands envelope version 2 (a newer worker would). */
let understandsVersion2 = false;
let setup: { database: TestDatabase; commerce: CommerceSandbox; crm: ReturnType<typeof createMemoryCrm>; connectionId: string; activities: ReturnType<typeof createSyncActivities> };
beforeAll(async () => {
  const database = await createTestDatabase();
  const commerce = await startCommerceSandbox({ entitlements: 20, seed: 47 });
  const crm = createMemoryCrm();
  const made = await memoryConnection(database.pool, commerce, { name: 'realtime', crm: crm.connector });
  const activities = createSyncActivities({
    pool: database.pool,
    runtimeFor: async () => made.runtime,
    classifyEvent: (event) => (understandsVersion2 && event.version === 2 ? { accepted: true, event, auditOnly: false } : classifyEvent(event)),
  });
  setup = { database, commerce, crm, connectionId: made.connectionId, activities };
  await fullPass(activities, made.connectionId, 'buyer');
});
afterAll(async () => {
  await setup?.commerce.stop();
  await setup?.database.drop();
});

const post = (path: string, body?: unknown) => fetch(`${setup.commerce.apiUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
const commerceCalls = async () => ((await (await fetch(`${setup.commerce.apiUrl}/_sandbox/calls`)).json()) as { total: number }).total;

describe('the notification path', () => {
  it('takes up set-aside events once this worker understands their version', async () => {
    const { connectionId, activities } = setup;
    await activities.syncFromNotifications({ connectionId });
    const offers = await commerceDump(setup.commerce, 'offers');
    await post('/_sandbox/records/offers', { records: [{ ...offers[0], name: 'Named in a version 2 event' }] });
    await post('/_sandbox/records/notificationEvents', { records: [{ eventID: 'evt-v2-1', entityType: 'OFFER', entityID: offers[0]!.id, action: 'UPDATED', version: 2, channels: ['EMAIL'] }] });
    expect((await activities.syncFromNotifications({ connectionId })).setAside).toBe(1);
    expect(setup.crm.objects('Opportunity').some((row) => row.Name === 'Named in a version 2 event')).toBe(false);

    // A newer worker understands version 2: the kept event is taken up, its record synced, its letter resolved.
    understandsVersion2 = true;
    await activities.syncFromNotifications({ connectionId });
    expect(setup.crm.objects('Opportunity').find((row) => row.Commerce_Offer_Id__c === offers[0]!.id)?.Name).toBe('Named in a version 2 event');
    expect(await createDeadLetterStore(setup.database.pool).listOpen(connectionId, 'notification')).toEqual([]);
  });

  it('stops at once, calling nobody, while the connection needs re-authorisation', async () => {
    const { connectionId, activities } = setup;
    await createReauthorisationStore(setup.database.pool).mark(connectionId, 'Salesforce refused the credentials: inactive_user');
    const before = await commerceCalls();
    await expect(activities.syncFromNotifications({ connectionId })).rejects.toMatchObject({ type: 'ConnectionNeedsReauthorisation', nonRetryable: true });
    expect(await commerceCalls()).toBe(before);
    await setup.database.pool.query('UPDATE connections SET reauthorisation_reason = NULL, reauthorisation_since = NULL WHERE id = $1', [connectionId]);
  });

  it.each(['inactive_user', 'unauthorized_client', 'invalid_client_id', 'invalid_grant'])('a CRM that refuses the credentials with %s marks the connection', async (code) => {
    const crm = createMemoryCrm();
    const made = await memoryConnection(setup.database.pool, setup.commerce, { name: `refused-${code}`, crm: crm.connector });
    crm.connector.upsert = async () => {
      throw new CrmCredentialsRefusedError(`Salesforce refused the connection's credentials: ${code}: user is inactive or the app is not allowed`, code);
    };
    const activities = createSyncActivities({ pool: setup.database.pool, runtimeFor: async () => made.runtime });
    const started = await activities.startSync({ connectionId: made.connectionId, entities: ['buyer'] });
    await expect(activities.syncEntityPage({ connectionId: made.connectionId, entity: 'buyer', cursor: started.starts.buyer!, until: started.until, pageSize: 100, advanceStoredCursor: true })).rejects.toMatchObject({ nonRetryable: true });
    const mark = await createReauthorisationStore(setup.database.pool).get(made.connectionId);
    expect(mark?.reason).toContain(code);
    await expect(activities.syncFromNotifications({ connectionId: made.connectionId })).rejects.toMatchObject({ type: 'ConnectionNeedsReauthorisation' });
  });
});
