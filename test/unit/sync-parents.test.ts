import { describe, expect, it } from 'vitest';
import { parentReferences } from '../../sync/parents.ts';

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
