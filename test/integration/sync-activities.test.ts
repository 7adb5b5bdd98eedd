// The page activity's own logic against real PostgreSQL and the commerce sandbox, with an in-memory
// CRM: counts, content hashes, cursors that move only after writes, dead letters, write-back, the feed.
// The CRM holds the buyers' Accounts before each scenario (startMemorySync): like Salesforce, it
// refuses a child whose parent is missing. Look-back: production's 600 s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSyncActivities } from '../../activities/sync.ts';
import { createCommerceClient } from '../../commerce/index.ts';
import { checkMappings, MappingConfigError } from '../../mappings/check.ts';
import { SALESFORCE_MAPPINGS } from '../../mappings/salesforce/index.ts';
import { createCursorStore } from '../../store/cursors.ts';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { connectionSettingsSchema } from '../../sync/connection-settings.ts';
import { startCommerceSandbox } from '../../sandbox/commerce/index.ts';
import { createMemoryCrm, fullPass } from '../support/memory-crm.ts';
import { startMemorySync, type MemorySync } from '../support/memory-sync.ts';

describe('sync activities (real PostgreSQL, commerce sandbox, in-memory CRM)', () => {
  let setup: MemorySync;
  let database: MemorySync['database'];
  let commerce: MemorySync['commerce'];
  let crm: MemorySync['crm'];
  let activities: MemorySync['activities'];
  let connectionId: string;

  beforeAll(async () => {
    setup = await startMemorySync({ name: 'memory', entitlements: 120, seed: 5, pageSize: 25, writeChunk: 10 });
    ({ database, commerce, crm, activities, connectionId } = setup);
  });
  afterAll(() => setup?.stop());

  const syncEntity = (entity: 'buyer' | 'offer' | 'entitlement') => fullPass(activities, connectionId, entity);

  it('pages through every offer once, writes each, moves the cursor, and writes the CRM id back', async () => {
    const offers = (await (await fetch(`${commerce.apiUrl}/_sandbox/records/offers`)).json()) as { id: string; lastUpdateTime: string }[];
    const first = await syncEntity('offer');
    expect(first.records).toBe(offers.length);
    expect(first.created).toBe(offers.length);
    expect(first.pages).toBe(Math.floor(offers.length / 25) + 1);
    expect(crm.objects('Opportunity')).toHaveLength(offers.length);
    const latest = offers.reduce((a, b) => (Date.parse(b.lastUpdateTime) > Date.parse(a.lastUpdateTime) || (b.lastUpdateTime === a.lastUpdateTime && b.id > a.id) ? b : a));
    expect((await createCursorStore(database.pool).get(connectionId, 'offer'))?.id).toBe(latest.id);
    // Write-back: every offer now carries its Opportunity id.
    const after = (await (await fetch(`${commerce.apiUrl}/_sandbox/records/offers`)).json()) as { id: string; metaInfo?: { crmAOpportunityId?: string } }[];
    const opportunityIds = new Set(crm.objects('Opportunity').map((row) => row.Id));
    expect(after.every((offer) => opportunityIds.has(offer.metaInfo?.crmAOpportunityId))).toBe(true);
    expect(first.writeBacks).toBe(offers.length);
  });

  it('a second pass over unchanged data makes no CRM write at all', async () => {
    await createCursorStore(database.pool).reset(connectionId, ['offer']);
    const calls = crm.stats.writeCalls;
    const again = await syncEntity('offer');
    expect(again.created + again.updated).toBe(0);
    expect(again.unchanged).toBe(again.records);
    expect(crm.stats.writeCalls).toBe(calls);
  });

  it('a rejected record becomes a dead letter with the CRM message, the rest of its page goes on, and a fix resolves it', async () => {
    const token = (await (await fetch(`${commerce.authUrl}/oauth2/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: commerce.clientId, client_secret: commerce.clientSecret, resource: commerce.apiUrl }) })).json()) as { access_token: string };
    const api = (path: string, method: string, body: unknown) =>
      fetch(`${commerce.apiUrl}/org/${commerce.organizationId}${path}`, { method, headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<any>);
    const bad = await api('/offer', 'POST', { name: 'X'.repeat(150), productID: 'prod-000001', buyerID: 'buyer-000001' });
    const good = await api('/offer', 'POST', { name: 'Fits', productID: 'prod-000001', buyerID: 'buyer-000001' });
    expect(bad.id, JSON.stringify(bad)).toBeTruthy();
    const pass = await syncEntity('offer');
    expect(pass.failed).toBe(1);
    expect(pass.created).toBeGreaterThanOrEqual(1); // the good offer (and all offers when this test runs alone)
    const letters = await createDeadLetterStore(database.pool).listOpen(connectionId);
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ entity: 'offer', sourceId: bad.id, attempts: 1 });
    expect(letters[0]!.reason).toMatch(/^STRING_TOO_LONG: Name: data value too large/);
    expect(crm.objects('Opportunity').some((row) => row.Commerce_Offer_Id__c === good.id)).toBe(true);

    // Nothing changed: the due retry fails again (attempt 2); after a fix it succeeds and resolves.
    await createDeadLetterStore(database.pool).makeDue(connectionId);
    expect((await activities.retryDeadLetters({ connectionId, entity: 'offer' })).failed).toBe(1);
    const fixed = await api(`/draftOffer`, 'POST', { id: bad.id, name: 'Shorter now' });
    expect(fixed.name, JSON.stringify(fixed)).toBe('Shorter now');
    expect(await createDeadLetterStore(database.pool).makeDue(connectionId)).toBe(1);
    const retried = await activities.retryDeadLetters({ connectionId, entity: 'offer' });
    expect(retried).toMatchObject({ created: 1, failed: 0 });
    expect(await createDeadLetterStore(database.pool).listOpen(connectionId)).toEqual([]);
  });

  it('syncs entitlements with the amounts of their terms', async () => {
    const pass = await syncEntity('entitlement');
    expect(pass.failed).toBe(0);
    const terms = (await (await fetch(`${commerce.apiUrl}/_sandbox/records/entitlementTerms`)).json()) as { entitlementID: string; commitAmount?: number; info?: { parentEntitlementTermId?: string } }[];
    const rows = crm.objects('Marketplace_Entitlement__c');
    expect(rows).toHaveLength(120);
    const withCommit = rows.filter((row) => typeof row.Commit_Amount__c === 'number');
    expect(withCommit.length).toBeGreaterThan(0);
    for (const row of withCommit.slice(0, 20)) {
      const own = terms.filter((term) => term.entitlementID === row.Commerce_Entitlement_Id__c && !term.info?.parentEntitlementTermId);
      if (own.length) expect(own.map((term) => term.commitAmount)).toContain(row.Commit_Amount__c);
    }
  });

  it('the notification feed syncs just the entities it names, from its stored offset', async () => {
    // Start the feed at its current end, then make changes that emit events.
    await activities.syncFromNotifications({ connectionId });
    const changes = (await (await fetch(`${commerce.apiUrl}/_sandbox/changes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 10 }) })).json()) as { changes: unknown[] };
    expect(changes.changes.length).toBe(10);
    const outcome = await activities.syncFromNotifications({ connectionId });
    expect(outcome.events).toBeGreaterThanOrEqual(10);
    expect(outcome.created + outcome.updated + outcome.unchanged).toBeGreaterThan(0);
    expect(outcome.done).toBe(true);
    // Read again from the stored offset: only the echoes of our own write-backs (metaInfo events), which
    // change nothing in the CRM; after them, nothing at all.
    const echoes = await activities.syncFromNotifications({ connectionId });
    expect(echoes.events).toBeLessThanOrEqual(outcome.writeBacks);
    expect(echoes.created + echoes.updated).toBe(0);
    expect((await activities.syncFromNotifications({ connectionId })).events).toBe(0);
  });

  it('sets envelopes of an unknown version aside as dead letters, keeping the event', async () => {
    await fetch(`${commerce.apiUrl}/_sandbox/reset`, { method: 'POST' });
    const versioned = await startCommerceSandbox({ entitlements: 20, seed: 6, unknownEventVersionRate: 1 });
    try {
      const rt = await (async () => {
        const settings = connectionSettingsSchema.parse({
          commerce: { baseUrl: versioned.apiUrl, authUrl: versioned.authUrl, clientId: versioned.clientId, organizationId: versioned.organizationId },
          crm: { loginUrl: 'https://memory.example', clientId: 'memory' },
        });
        return { id: connectionId, name: 'memory', settings, commerce: createCommerceClient({ baseUrl: versioned.apiUrl, authUrl: versioned.authUrl, clientId: versioned.clientId, clientSecret: versioned.clientSecret }), crm: crm.connector, mappings: SALESFORCE_MAPPINGS };
      })();
      const feed = createSyncActivities({ pool: database.pool, runtimeFor: async () => rt });
      await createCursorStore(database.pool).reset(connectionId, ['notification-feed']);
      await feed.syncFromNotifications({ connectionId });
      await fetch(`${versioned.apiUrl}/_sandbox/changes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 5 }) });
      const outcome = await feed.syncFromNotifications({ connectionId });
      expect(outcome.setAside).toBeGreaterThanOrEqual(5);
      const kept = await createDeadLetterStore(database.pool).listOpen(connectionId, 'notification');
      expect(kept.length).toBe(outcome.setAside);
      expect(kept[0]!.reason).toMatch(/envelope version .* left for redelivery/);
      expect(kept[0]!.payload).toMatchObject({ eventID: kept[0]!.sourceId });
    } finally {
      await versioned.stop();
    }
  });
});

describe('the in-memory CRM stands for the org, not for the mappings', () => {
  it('describes the org\'s own fields: a mapping field the org lacks fails the mapping check by name', async () => {
    const crm = createMemoryCrm();
    await expect(checkMappings(crm.connector, SALESFORCE_MAPPINGS)).resolves.toBeUndefined();
    const withExtra = { ...SALESFORCE_MAPPINGS.buyer, describe: { ...SALESFORCE_MAPPINGS.buyer.describe, Segment__c: 'buyer.metaInfo.customMetaInfo.segment' } };
    const refused = await checkMappings(crm.connector, { buyer: withExtra }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MappingConfigError);
    expect((refused as MappingConfigError).problems).toEqual(["Account has no field 'Segment__c' (written by the buyer mapping)"]);
  });

  it('refuses a child whose parent is not there with Salesforce\'s error; it waits as a dead letter and the retry writes it once the parent is in', async () => {
    const setup = await startMemorySync({ name: 'orphans', entitlements: 20, seed: 8, pageSize: 100, accountsFirst: false });
    try {
      const { database, commerce, crm, activities, connectionId } = setup;
      const offers = (await (await fetch(`${commerce.apiUrl}/_sandbox/records/offers`)).json()) as { id: string; buyerID?: string }[];
      const withBuyer = offers.filter((offer) => offer.buyerID);
      expect(withBuyer.length).toBeGreaterThan(0);
      const first = await fullPass(activities, connectionId, 'offer');
      expect(first.failed).toBe(withBuyer.length);
      expect(crm.objects('Opportunity').map((row) => row.Commerce_Offer_Id__c).sort()).toEqual(offers.filter((offer) => !offer.buyerID).map((offer) => offer.id).sort());
      const letters = await createDeadLetterStore(database.pool).listOpen(connectionId, 'offer');
      const byOffer = new Map(letters.map((letter) => [letter.sourceId, letter.reason]));
      for (const offer of withBuyer) {
        expect(byOffer.get(offer.id)).toBe(`INVALID_FIELD: Foreign key external ID: ${offer.buyerID} not found for field Commerce_Buyer_Id__c in entity Account`);
      }

      await fullPass(activities, connectionId, 'buyer');
      await createDeadLetterStore(database.pool).makeDue(connectionId);
      expect(await activities.retryDeadLetters({ connectionId, entity: 'offer' })).toMatchObject({ created: withBuyer.length, failed: 0 });
      const accountOf = new Map(crm.objects('Account').map((row) => [row.Commerce_Buyer_Id__c, row.Id]));
      for (const offer of withBuyer) {
        const row = crm.objects('Opportunity').find((opportunity) => opportunity.Commerce_Offer_Id__c === offer.id);
        expect(row?.AccountId, offer.id).toBe(accountOf.get(offer.buyerID));
      }
    } finally {
      await setup.stop();
    }
  });
});
