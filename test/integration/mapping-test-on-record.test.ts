// The console's mapping page behind the page (issue #26 section 3), against real PostgreSQL and the
// Salesforce and commerce sandboxes: testing unsaved overrides on a real offer shows the exact payload
// and what Salesforce's describe says of each value (a stage the org lacks is refused, by name) without a
// single write; saving goes through the same check (a refused mapping saves nothing), keeps versions
// and audit events, and a rollback saves an old version again as the newest.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionReads, testMappingOnRecord } from '../../ops/mapping-test.ts';
import { MappingOverridesRefused, rollBackFlowOverrides, saveFlowOverrides } from '../../ops/mapping-save.ts';
import { offerToOpportunity } from '../../mappings/salesforce/opportunity.ts';
import { createAuditStore } from '../../store/audit.ts';
import { createConnectionStore, type Connection } from '../../store/connections.ts';
import { createMappingVersionStore } from '../../store/mapping-versions.ts';
import { createRuntimeCache, type ConnectionRuntime } from '../../sync/runtime.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { commerceDump, createSandboxConnection, salesforceCalls, startSandboxes, TEST_SECRET_BOX, writeCalls } from '../support/sync-harness.ts';

describe('mapping page: test on a record, save, roll back (real PostgreSQL, Salesforce and commerce sandboxes)', () => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxes>>;
  let connection: Connection;
  let rt: ConnectionRuntime;
  let offer: { id: string; name: string; offerType: string; status: string };

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxes({ entitlements: 6, seed: 26 });
    connection = await createSandboxConnection(database, sandboxes.commerce, sandboxes.salesforce, { entities: ['buyer', 'offer'] });
    rt = await createRuntimeCache(createConnectionStore(database.pool, TEST_SECRET_BOX))(connection.id);
    offer = (await commerceDump(sandboxes.commerce, 'offers')).find((candidate) => candidate.status === 'ACCEPTED' && candidate.offerType);
  });
  afterAll(async () => {
    await sandboxes?.stop();
    await database?.drop();
  });

  it('shows the exact payload of a real offer with the unsaved overrides, and Salesforce refusing a stage it lacks, writing nothing', async () => {
    expect(offer, 'the sandbox has an accepted offer').toBeDefined();
    const writesBefore = writeCalls(await salesforceCalls(sandboxes.salesforce));
    const result = await testMappingOnRecord(connectionReads(rt, database.pool, 'offer'), {
      mapping: offerToOpportunity,
      overrides: { map: { Description: 'offerType' }, picklists: { StageName: { ACCEPTED: 'Signed' } } },
      recordId: offer.id,
    });
    // Never written: a create keyed by the offer id, with the values of the offer as the commerce API has them.
    expect(result.crmId).toBeUndefined();
    expect(result).toMatchObject({ object: 'Opportunity', externalIdField: 'Commerce_Offer_Id__c', externalId: offer.id, ok: false });
    expect(result.payload).toMatchObject({ Name: offer.name, Offer_Type__c: offer.offerType, Description: offer.offerType, Offer_Status__c: 'ACCEPTED', StageName: 'Signed' });
    expect(result.fields.find((field) => field.field === 'StageName')?.refused).toMatch(/^"Signed" is not a value of the picklist StageName \(it has: Prospecting, Qualification, /);
    expect(result.fields.filter((field) => field.refused).map((field) => field.field)).toEqual(['StageName']);
    expect(result.problems).toEqual(['"Signed" (for ACCEPTED) is not a value of the picklist Opportunity.StageName']);
    expect(writeCalls(await salesforceCalls(sandboxes.salesforce)) - writesBefore).toBe(0);

    const fitting = await testMappingOnRecord(connectionReads(rt, database.pool, 'offer'), { mapping: offerToOpportunity, overrides: { map: { Description: 'offerType' } }, recordId: offer.id });
    expect(fitting).toMatchObject({ ok: true, problems: [], missing: [] });
    expect(fitting.payload).toMatchObject({ StageName: 'Closed Won', Description: offer.offerType });
    const missing = await testMappingOnRecord(connectionReads(rt, database.pool, 'offer'), { mapping: offerToOpportunity, overrides: undefined, recordId: 'offer-that-is-not-there' });
    expect(missing).toMatchObject({ ok: false, refused: 'There is no offer offer-that-is-not-there in the commerce organization.' });
    expect(writeCalls(await salesforceCalls(sandboxes.salesforce)) - writesBefore).toBe(0);
  });

  it('saves through the same check as mapping --edit, keeps versions and audit events, and rolls back', async () => {
    const deps = { pool: database.pool, connections: createConnectionStore(database.pool, TEST_SECRET_BOX), crm: rt.crm };
    const actor = { kind: 'token' as const };
    const refused = saveFlowOverrides(deps, { connection, flow: 'offer', overrides: { picklists: { StageName: { ACCEPTED: 'Signed' } } }, actor, via: 'console' });
    await expect(refused).rejects.toBeInstanceOf(MappingOverridesRefused);
    await expect(refused).rejects.toMatchObject({ problems: ['"Signed" (for ACCEPTED) is not a value of the picklist Opportunity.StageName'] });
    const versions = createMappingVersionStore(database.pool);
    expect(await versions.list(connection.id, 'offer')).toEqual([]);

    const saved = await saveFlowOverrides(deps, { connection, flow: 'offer', overrides: { map: { Description: 'offerType' }, createOnly: ['Description'], disable: [] }, actor, via: 'console' });
    expect(saved).toMatchObject({ version: 2, overrides: { map: { Description: 'offerType' }, createOnly: ['Description'] }, savedBy: 'token' });
    const stored = (await deps.connections.get(connection.id))!;
    expect(stored.settings.overrides).toEqual({ offer: { map: { Description: 'offerType' }, createOnly: ['Description'] } });

    const rolledBack = await rollBackFlowOverrides(deps, { connection: stored, flow: 'offer', version: 1, actor, via: 'console' });
    expect(rolledBack).toMatchObject({ version: 3, overrides: {}, rolledBackFrom: 1 });
    expect((await deps.connections.get(connection.id))!.settings.overrides).toEqual({});
    expect((await versions.list(connection.id, 'offer')).map((version) => [version.version, version.savedBy])).toEqual([
      [3, 'token'],
      [2, 'token'],
      [1, 'in effect before the first save here'],
    ]);
    const audit = await createAuditStore(database.pool).list({ connectionId: connection.id, action: 'mapping', limit: 10 });
    expect(audit.events.map((event) => [event.action, event.target, event.before, event.after, event.detail])).toEqual([
      ['mapping.rollback', 'offer', { map: { Description: 'offerType' }, createOnly: ['Description'] }, {}, { version: 3, rolledBackFrom: 1 }],
      ['mapping.edit', 'offer', {}, { map: { Description: 'offerType' }, createOnly: ['Description'] }, { version: 2 }],
    ]);
  });

  // Review finding: two pages read the same settings, then both save (another flow each): the second
  // save kept its stale copy of the settings and lost the first one's change.
  it('two saves from pages read at the same time keep both changes', async () => {
    const deps = { pool: database.pool, connections: createConnectionStore(database.pool, TEST_SECRET_BOX), crm: rt.crm };
    const actor = { kind: 'token' as const };
    const page = (await deps.connections.get(connection.id))!;
    await saveFlowOverrides(deps, { connection: page, flow: 'offer', overrides: { disable: ['Offer_Type__c'] }, actor, via: 'console' });
    await saveFlowOverrides(deps, { connection: page, flow: 'buyer', overrides: { disable: ['Website'] }, actor, via: 'console' });
    expect((await deps.connections.get(connection.id))!.settings.overrides).toEqual({ offer: { disable: ['Offer_Type__c'] }, buyer: { disable: ['Website'] } });
  });
});
