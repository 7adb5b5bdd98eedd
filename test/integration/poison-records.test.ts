// No single record, event or answer may stop a connection. Each poison the commerce side can serve
// becomes a dead letter with its reason while everything else goes on: a whole page of unreadable rows,
// a record read by id without a readable lastUpdateTime (the notification path and dead-letter retries),
// several events without an eventID on one feed page, a write-back PATCH refused with a 4xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCursorStore } from '../../store/cursors.ts';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { createRecordLinkStore } from '../../store/record-links.ts';
import { commerceDump } from '../support/expected-crm.ts';
import { fullPass } from '../support/memory-crm.ts';
import { startMemorySync, type MemorySync } from '../support/memory-sync.ts';

let setup: MemorySync;
beforeAll(async () => {
  setup = await startMemorySync({ name: 'poison', entitlements: 40, seed: 43, pageSize: 20 });
});
afterAll(() => setup?.stop());

const post = (path: string, body: unknown) => fetch(`${setup.commerce.apiUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const letters = (entity: string) => createDeadLetterStore(setup.database.pool).listOpen(setup.connectionId, entity);

describe('poison on the commerce side (real PostgreSQL, commerce sandbox, in-memory CRM)', () => {
  it('a whole page of unreadable rows is dead-lettered and stepped over; the rest of the entity and the entities after it sync', async () => {
    // 25 contacts without an id, older than every other contact: the first page (20 rows) holds nothing readable.
    const poison = Array.from({ length: 25 }, (_, index) => ({ lastUpdateTime: '2000-01-01T00:00:00.000Z', firstName: `Nobody ${index}`, email: `nobody${index}@example.com` }));
    expect((await post('/_sandbox/records/contacts', { records: poison })).status).toBe(200);
    const contacts = await fullPass(setup.activities, setup.connectionId, 'contact');
    const good = (await commerceDump(setup.commerce, 'contacts')).filter((contact) => typeof contact.id === 'string');
    expect(setup.crm.objects('Contact').map((row) => row.Commerce_Contact_Id__c).sort()).toEqual(good.map((contact) => contact.id).sort());
    const unreadable = await letters('contact');
    expect(unreadable).toHaveLength(25);
    expect(unreadable.every((letter) => letter.sourceId.startsWith('unreadable:') && /\bid\b/.test(letter.reason))).toBe(true);
    expect(contacts.failed).toBe(25);
    // The entity after it is not blocked.
    await fullPass(setup.activities, setup.connectionId, 'offer');
    expect(setup.crm.objects('Opportunity').length).toBe((await commerceDump(setup.commerce, 'offers')).length);
  });

  it('a write-back the commerce side refuses (409) is a dead letter of its record; the other ids go back and the cursor moves', async () => {
    const offers = await commerceDump(setup.commerce, 'offers');
    const refused = offers[3]!.id as string;
    // A new Opportunity for every offer needs its id written back: reset them so they are written again.
    await createRecordLinkStore(setup.database.pool).forget(setup.connectionId, ['offer']);
    await createCursorStore(setup.database.pool).reset(setup.connectionId, ['offer']);
    for (const offer of offers) await fetch(`${setup.commerce.apiUrl}/_sandbox/records/offers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ records: [{ ...offer, metaInfo: {} }] }) });
    await post('/_sandbox/faults', { operation: 'PATCH /org/{orgId}/offer/{offerId}/metaInfo', status: 409, ids: [refused], body: 'offer is locked while its marketplace listing is under review' });
    const pass = await fullPass(setup.activities, setup.connectionId, 'offer');
    expect(pass.failed).toBe(1);
    const [letter] = await letters('offer');
    expect(letter).toMatchObject({ sourceId: refused });
    expect(letter!.reason).toMatch(/refused to take the CRM id back/);
    expect(letter!.reason).toMatch(/under review/);
    const after = await commerceDump(setup.commerce, 'offers');
    expect(after.filter((offer) => offer.id !== refused).every((offer) => offer.metaInfo?.crmAOpportunityId)).toBe(true);
    expect(after.find((offer) => offer.id === refused)!.metaInfo?.crmAOpportunityId).toBeUndefined();
    expect(await createCursorStore(setup.database.pool).get(setup.connectionId, 'offer')).toBeDefined();

    // Once the commerce side accepts it, the retry writes the id back (no CRM write needed) and resolves the letter.
    await fetch(`${setup.commerce.apiUrl}/_sandbox/faults`, { method: 'DELETE' });
    await createDeadLetterStore(setup.database.pool).makeDue(setup.connectionId);
    const retried = await setup.activities.retryDeadLetters({ connectionId: setup.connectionId, entity: 'offer' });
    expect(retried.created + retried.updated).toBe(0);
    expect(retried.writeBacks).toBe(1);
    expect(await letters('offer')).toEqual([]);
  });

  it('a record whose lastUpdateTime cannot be read, named by the feed, is a dead letter; the other events sync; a retry does not throw either', async () => {
    const { connectionId, activities } = setup;
    await activities.syncFromNotifications({ connectionId }); // the feed's position: its end
    const offers = await commerceDump(setup.commerce, 'offers');
    const [bad, good] = [offers[5]!, offers[6]!];
    await post('/_sandbox/records/offers', { records: [{ ...bad, lastUpdateTime: 'not-a-date' }, { ...good, name: 'Renamed on the commerce side' }] });
    const event = (entityID: string, index: number) => ({ eventID: `evt-poison-${index}`, entityType: 'OFFER', entityID, action: 'UPDATED', version: 1, channels: ['EMAIL'], lastUpdateTime: new Date().toISOString() });
    await post('/_sandbox/records/notificationEvents', { records: [event(bad.id, 1), event(good.id, 2)] });
    const outcome = await activities.syncFromNotifications({ connectionId });
    expect(outcome.events).toBe(2);
    expect(setup.crm.objects('Opportunity').find((row) => row.Commerce_Offer_Id__c === good.id)?.Name).toBe('Renamed on the commerce side');
    const open = (await letters('offer')).find((letter) => letter.sourceId === bad.id);
    expect(open?.reason).toMatch(/lastUpdateTime/);
    await createDeadLetterStore(setup.database.pool).makeDue(connectionId);
    await expect(activities.retryDeadLetters({ connectionId, entity: 'offer' })).resolves.toMatchObject({ failed: 1 });
  });

  it('several events without an eventID on one feed page are each kept, and the feed moves past them', async () => {
    const { connectionId, activities } = setup;
    await activities.syncFromNotifications({ connectionId });
    const offers = await commerceDump(setup.commerce, 'offers');
    const nameless = [0, 1, 2].map((index) => ({ entityType: 'OFFER', entityID: offers[index]!.id, action: 'UPDATED', version: 1, note: `no id ${index}` }));
    await post('/_sandbox/records/notificationEvents', { records: nameless });
    const before = (await letters('notification')).length;
    const outcome = await activities.syncFromNotifications({ connectionId });
    expect(outcome.setAside).toBe(3);
    expect((await letters('notification')).length - before).toBe(3);
    expect((await activities.syncFromNotifications({ connectionId })).events).toBe(0);
  });
});
