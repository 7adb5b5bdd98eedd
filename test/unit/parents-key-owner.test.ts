// A reference by a key several flows write by names the flow that makes the record (the first in run
// order), never one that only sets fields on it: a buyer's live-agreement mark, an entitlement's usage summary.
import { describe, expect, it } from 'vitest';
import { parentReferences, referencedRecords } from '../../sync/parents.ts';

describe('which flow a reference names when flows share a key', () => {
  it('the buyer, whichever order the keys come in', () => {
    const fields = { Account: { Commerce_Buyer_Id__c: 'buyer-000002' } };
    expect(parentReferences(fields, { 'live-agreement': 'Commerce_Buyer_Id__c', buyer: 'Commerce_Buyer_Id__c' })).toEqual([{ entity: 'buyer', sourceId: 'buyer-000002' }]);
    expect(parentReferences(fields, { buyer: 'Commerce_Buyer_Id__c', 'live-agreement': 'Commerce_Buyer_Id__c' })).toEqual([{ entity: 'buyer', sourceId: 'buyer-000002' }]);
  });

  it('the entitlement, not its usage summary', () => {
    const fields = { marketplace_entitlement: [{ entitlement_id: 'ent-000001' }] };
    expect(referencedRecords(fields, { 'usage-summary': 'entitlement_id', entitlement: 'entitlement_id', renewal: 'commerce_renewal_key' })).toEqual([{ entity: 'entitlement', sourceId: 'ent-000001', key: 'entitlement_id=ent-000001' }]);
  });
});
