import { describe, expect, it } from 'vitest';
import { parentReferences, referencedRecords } from '../../sync/parents.ts';

describe('parentReferences', () => {
  const keys = { buyer: 'Commerce_Buyer_Id__c', offer: 'Commerce_Offer_Id__c' };

  it('names the parents that relationship references point at, by their external id field', () => {
    const fields = { Name: 'x', Account__r: { Commerce_Buyer_Id__c: 'buyer-1' }, Opportunity__r: { Commerce_Offer_Id__c: 'offer-2' }, Amount: 3 };
    expect(parentReferences(fields, keys)).toEqual([
      { entity: 'buyer', sourceId: 'buyer-1' },
      { entity: 'offer', sourceId: 'offer-2' },
    ]);
  });

  it('ignores references to entities not listed, empty references and values that are not references', () => {
    const fields = { Account__r: { Commerce_Buyer_Id__c: '' }, Other__r: { External__c: 'x' }, Tags: ['a'], Meta: { a: 1, b: 2 }, Empty: null };
    expect(parentReferences(fields, keys)).toEqual([]);
    expect(parentReferences({ Opportunity__r: { Commerce_Offer_Id__c: 'offer-2' } }, { buyer: 'Commerce_Buyer_Id__c' })).toEqual([]);
  });
});

describe('referencedRecords', () => {
  const keys = { buyer: 'commerce_buyer_id', contact: 'commerce_contact_id' };

  it('names every referenced record, lists included, with the key the connector looks it up by', () => {
    const fields = { dealname: 'x', companies: { commerce_buyer_id: 'b1' }, contacts: [{ commerce_contact_id: 'c1' }, { commerce_contact_id: "c'2" }, { other: 'z' }] };
    expect(referencedRecords(fields, keys)).toEqual([
      { entity: 'buyer', sourceId: 'b1', key: 'commerce_buyer_id=b1' },
      { entity: 'contact', sourceId: 'c1', key: 'commerce_contact_id=c1' },
      { entity: 'contact', sourceId: "c'2", key: "commerce_contact_id=c'2" },
    ]);
  });

  it('a list is no parent to wait for: parentReferences keeps to single references', () => {
    expect(parentReferences({ contacts: [{ commerce_contact_id: 'c1' }] }, keys)).toEqual([]);
  });
});
