// The lock re-send rules on their own: only locked rows go again, with growing, jittered waits, and a
// row still locked keeps Salesforce's words; Bulk rows are ordered so a parent's children sit together.
import { describe, expect, it } from 'vitest';
import type { FieldSchema, ObjectSchema, UpsertItem, UpsertResult } from '../../crm/connector.ts';
import { orderByParent, parentKey, parentReferences } from '../../crm/salesforce/bulk.ts';
import { lockedJobRows, lockRetryDelay, retryLockedRows } from '../../crm/salesforce/lock-retry.ts';

const item = (id: string, fields: Record<string, unknown> = {}): UpsertItem => ({ sourceId: id, externalIdField: 'Ext__c', externalId: id, fields });
const ok = (sourceId: string): UpsertResult => ({ sourceId, ok: true, crmId: `id-${sourceId}`, created: true });
const locked = (sourceId: string): UpsertResult => ({ sourceId, ok: false, error: { code: 'UNABLE_TO_LOCK_ROW', message: 'unable to obtain exclusive access to this record or 1 records: 001000000000001AAA' } });
const refused = (sourceId: string): UpsertResult => ({ sourceId, ok: false, error: { code: 'STRING_TOO_LONG', message: 'Name: data value too large' } });

describe('Salesforce lock re-sends', () => {
  it('waits between half and all of a doubling ceiling, capped', () => {
    const settings = { attempts: 4, minDelayMs: 100, maxDelayMs: 500 };
    expect([1, 2, 3, 4].map((attempt) => lockRetryDelay(settings, attempt, () => 0))).toEqual([50, 100, 200, 250]);
    expect([1, 2, 3, 4].map((attempt) => lockRetryDelay(settings, attempt, () => 0.999999))).toEqual([100, 200, 400, 500]);
  });

  it('sends again only the locked rows, until none is locked; other refusals stay as they were', async () => {
    const items = ['a', 'b', 'c', 'd'].map((id) => item(id));
    const sent: string[][] = [];
    let round = 0;
    const results = await retryLockedRows(items, [ok('a'), locked('b'), refused('c'), locked('d')], async (again) => {
      sent.push(again.map((one) => one.sourceId));
      round += 1;
      return again.map((one) => (round === 1 && one.sourceId === 'd' ? locked('d') : ok(one.sourceId)));
    }, { minDelayMs: 1, maxDelayMs: 2 });
    expect(sent).toEqual([['b', 'd'], ['d']]);
    expect(results).toEqual([ok('a'), ok('b'), refused('c'), ok('d')]);
  });

  it("gives a row still locked after the last re-send back with Salesforce's code and message and what was tried", async () => {
    let resent = 0;
    const [result] = await retryLockedRows([item('a')], [locked('a')], async (again) => again.map((one) => locked(one.sourceId)), {
      attempts: 3,
      minDelayMs: 1,
      maxDelayMs: 2,
      onResent: (count) => (resent += count),
    });
    expect(resent).toBe(3);
    expect(result).toMatchObject({ ok: false, error: { code: 'UNABLE_TO_LOCK_ROW' } });
    const message = (result as Extract<UpsertResult, { ok: false }>).error.message;
    expect(message.startsWith('unable to obtain exclusive access to this record or 1 records: 001000000000001AAA (Salesforce could not lock')).toBe(true);
    expect(message).toMatch(/Sent again 3 times over [\d.]+ s, it was still locked\. The sync tries this record again later\.\)$/);
  });

  it('stops waiting when the signal aborts, with a retryable cancellation', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(retryLockedRows([item('a')], [locked('a')], async () => [ok('a')], { signal: controller.signal })).rejects.toMatchObject({ code: 'CANCELLED', retryable: true });
  });

  it("orders Bulk rows by their parents, keeping each parent's rows in input order and rows without a parent last", () => {
    const rows = [
      item('c1', { Account: { Commerce_Buyer_Id__c: 'b-2' } }),
      item('x', { Name: 'no parent' }),
      item('c2', { Account: { Commerce_Buyer_Id__c: 'b-1' } }),
      item('c3', { Account: { Commerce_Buyer_Id__c: 'b-2' } }),
      item('c4', { AccountId: '001Sb000000000AIAQ' }),
      item('c5', { Account: { Commerce_Buyer_Id__c: 'b-1' } }),
    ];
    expect(orderByParent(rows, new Set(['AccountId'])).map((row) => row.sourceId)).toEqual(['c2', 'c5', 'c1', 'c3', 'c4', 'x']);
    // Both parents of an entitlement, in field order; text that only looks like an id in a plain field is no parent.
    expect(parentKey({ Account__r: { Commerce_Buyer_Id__c: 'b-1' }, Opportunity__r: { Commerce_Offer_Id__c: 'o-1' }, Name: '001Sb000000000AIAQ' }, new Set())).toBe(
      'Account__r.Commerce_Buyer_Id__c=b-1\u0000Opportunity__r.Commerce_Offer_Id__c=o-1',
    );
  });

  it('keys a row by the reference fields the describe names, never by a custom text field holding an id-shaped value', () => {
    const schema: ObjectSchema = {
      name: 'Marketplace_Entitlement__c',
      fields: new Map(
        [
          { name: 'Opportunity__c', type: 'reference', referenceTo: ['Opportunity'] },
          { name: 'Product_Id__c', type: 'string' },
          { name: 'Name', type: 'string' },
        ].map((field) => [field.name, { required: false, createable: true, updateable: true, externalId: false, ...field } as FieldSchema]),
      ),
    };
    const references = parentReferences(schema);
    expect([...references]).toEqual(['Opportunity__c']);
    // Product_Id__c holds an 18-character id-shaped product code: no parent (it used to be the first key).
    expect(parentKey({ Product_Id__c: 'a0BSb000000000AIAQ', Opportunity__c: '006Sb000000000AIAQ' }, references)).toBe('Opportunity__c=006Sb000000000AIAQ');
    const rows = [
      item('e1', { Product_Id__c: 'a0BSb000000000BBBB', Opportunity__c: '006Sb00000000002AA' }),
      item('e2', { Product_Id__c: 'a0BSb000000000AAAA', Opportunity__c: '006Sb00000000001AA' }),
      item('e3', { Product_Id__c: 'a0BSb000000000AAAA', Opportunity__c: '006Sb00000000002AA' }),
    ];
    expect(orderByParent(rows, references).map((row) => row.sourceId)).toEqual(['e2', 'e1', 'e3']);
  });

  it("re-sends after a Bulk job only the job's own locked rows, not those collections wrote (and lock-retried) for a resumed job", () => {
    // Rows 1 and 3 were not in the resumed job (undefined): collections already retried their locks.
    expect(lockedJobRows([locked('a'), undefined, ok('c'), undefined, locked('e')], 5)).toEqual([0, 4]);
  });
});
