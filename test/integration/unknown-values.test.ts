// Contract §9.5: a status the mapping's picklist map does not know never sends a record to the dead
// letters. The record is written without that field (the CRM keeps its last known stage), the raw value
// goes to the text field that holds it (Offer_Status__c), and the page reports the value so the worker
// counts it and says so once (activities/unknown-values.ts).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createBeat } from '../../activities/activity-context.ts';
import { syncRecordBatch } from '../../activities/record-sync.ts';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { commerceDump } from '../support/expected-crm.ts';
import { startMemoryStack, type MemoryStack } from '../support/memory-stack.ts';

let stack: MemoryStack;
beforeAll(async () => {
  stack = await startMemoryStack({ name: 'unknown-values', seed: 37 });
});
afterAll(() => stack?.stop());

const write = (entity: 'buyer' | 'offer', records: unknown[]) => syncRecordBatch(stack.runtime, { pool: stack.database.pool, clock: () => new Date(), beat: createBeat() }, { connectionId: stack.connectionId, entity, records, letters: [] });

it('an offer status no stage is mapped for: written without a stage change, raw status kept, reported, no dead letter', async () => {
  const offers = await commerceDump(stack.commerce, 'offers');
  const offer = offers.find((row) => row.buyerID)!;
  const buyer = (await commerceDump(stack.commerce, 'buyers')).find((row) => row.id === offer.buyerID)!;
  await write('buyer', [buyer]);
  const accepted = { ...offer, status: 'ACCEPTED', name: 'Known status deal', lastUpdateTime: '2026-06-01T00:00:00.000Z' };
  expect((await write('offer', [accepted])).failed).toBe(0);
  const opportunity = () => stack.crm.objects('Opportunity').find((row) => row.Commerce_Offer_Id__c === offer.id)!;
  expect(opportunity()).toMatchObject({ StageName: 'Closed Won', Offer_Status__c: 'ACCEPTED' });

  const onHold = { ...offer, status: 'ON_HOLD', name: 'Renamed while on hold', lastUpdateTime: '2026-06-02T00:00:00.000Z' };
  const outcome = await write('offer', [onHold]);
  expect(outcome).toMatchObject({ failed: 0, updated: 1 });
  expect(outcome.unknown).toEqual([{ field: 'StageName', value: 'ON_HOLD', records: 1, example: offer.id }]);
  // The last known stage stays; the other fields, the raw status among them, are written.
  expect(opportunity()).toMatchObject({ StageName: 'Closed Won', Offer_Status__c: 'ON_HOLD', Name: 'Renamed while on hold' });
  expect(await createDeadLetterStore(stack.database.pool).listOpen(stack.connectionId)).toEqual([]);
});

it('a NEW offer with an unknown status is made at the opening stage (Salesforce requires a stage), its raw status kept', async () => {
  const offers = await commerceDump(stack.commerce, 'offers');
  const offer = offers.filter((row) => row.buyerID).at(-1)!;
  const buyer = (await commerceDump(stack.commerce, 'buyers')).find((row) => row.id === offer.buyerID)!;
  await write('buyer', [buyer]);
  const outcome = await write('offer', [{ ...offer, status: 'ON_HOLD', lastUpdateTime: '2026-06-03T00:00:00.000Z' }]);
  expect(outcome).toMatchObject({ failed: 0, created: 1 });
  // The memory CRM refuses an Opportunity without StageName, as Salesforce does (REQUIRED_FIELD_MISSING).
  expect(stack.crm.objects('Opportunity').find((row) => row.Commerce_Offer_Id__c === offer.id)).toMatchObject({ StageName: 'Prospecting', Offer_Status__c: 'ON_HOLD' });
  // Read again unchanged, it is no news: nothing is written.
  expect(await write('offer', [{ ...offer, status: 'ON_HOLD', lastUpdateTime: '2026-06-03T00:00:00.000Z' }])).toMatchObject({ unchanged: 1, updated: 0 });
});
