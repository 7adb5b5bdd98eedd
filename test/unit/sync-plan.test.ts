import { describe, expect, it } from 'vitest';
import { offerToOpportunity } from '../../mappings/salesforce/opportunity.ts';
import { contentHash } from '../../sync/hash.ts';
import { planPage } from '../../sync/plan.ts';
import { MARKETPLACE_FIXTURES } from '../fixtures/commerce/marketplaces.ts';
import { applyMapping } from '../../mappings/overrides.ts';

const offerA = MARKETPLACE_FIXTURES.A.offer; // carries metaInfo.crmAOpportunityId
const offerB = MARKETPLACE_FIXTURES.B.offer;
const hashOf = (offer: typeof offerA) => {
  const mapped = applyMapping(offerToOpportunity, undefined, offer, undefined);
  if (!mapped.ok) throw new Error(mapped.reason);
  // What the link keeps is the hash of what an update sends: CurrencyIsoCode goes only with the create
  // (Salesforce will not change an Opportunity's currency once it has products).
  const { CurrencyIsoCode: _createOnly, ...updated } = mapped.record.fields;
  return contentHash({ ...mapped.record, fields: updated });
};

describe('planning a page', () => {
  it('skips records whose mapped content is unchanged, whatever volatile fields moved', () => {
    const links = new Map([[offerB.id, { sourceId: offerB.id, crmObject: 'Opportunity', crmId: '006B', contentHash: hashOf(offerB) }]]);
    const touched = { ...offerB, lastUpdateTime: '2026-09-09T09:09:09.000Z', metaInfo: { crmAOpportunityId: '006B' } };
    const plan = planPage({ records: [touched], related: () => undefined, mapping: offerToOpportunity, links });
    expect(plan).toEqual({ writes: [], unchanged: [offerB.id], rejected: [], superseded: [], unknown: [] });
  });

  it('writes a changed record by its linked CRM id, else the id the record carries, else by external id', () => {
    const links = new Map([[offerB.id, { sourceId: offerB.id, crmObject: 'Opportunity', crmId: '006LINKED', contentHash: 'old' }]]);
    const fresh = { ...offerB, id: 'offer-new', metaInfo: undefined };
    const plan = planPage({ records: [offerB, offerA, fresh], related: () => undefined, mapping: offerToOpportunity, links });
    expect(plan.writes.map((write) => [write.item.sourceId, write.item.crmId])).toEqual([
      [offerB.id, '006LINKED'],
      [offerA.id, '006000000000001AAA'],
      ['offer-new', undefined],
    ]);
    expect(plan.writes[2]!.item).toMatchObject({ externalIdField: 'Commerce_Offer_Id__c', externalId: 'offer-new' });
    // Only the carried id no write of this connection has confirmed may name nothing in this org.
    expect(plan.writes.map((write) => write.carriedUnconfirmed ?? false)).toEqual([false, true, false]);
  });

  it('a carried id the link already holds is confirmed', () => {
    const links = new Map([[offerA.id, { sourceId: offerA.id, crmObject: 'Opportunity', crmId: '006000000000001AAA', contentHash: 'old' }]]);
    const plan = planPage({ records: [offerA], related: () => undefined, mapping: offerToOpportunity, links });
    expect(plan.writes.map((write) => [write.item.crmId, write.carriedUnconfirmed ?? false])).toEqual([['006000000000001AAA', false]]);
  });

  it('rejects what cannot be mapped, with the reason, and keeps going', () => {
    const plan = planPage({ records: [{ ...offerB, expireTime: 'soon' }, offerA], related: () => undefined, mapping: offerToOpportunity, links: new Map() });
    expect(plan.rejected).toEqual([{ sourceId: offerB.id, reason: 'offer offer-cloudB: expireTime "soon" is not a date-time' }]);
    expect(plan.writes).toHaveLength(1);
  });

  it('hashes canonically: key order does not matter, values do', () => {
    const a = { object: 'X', externalIdField: 'E', externalId: '1', fields: { a: 1, b: { c: 2, d: 3 } } };
    const b = { object: 'X', externalIdField: 'E', externalId: '1', fields: { b: { d: 3, c: 2 }, a: 1 } };
    expect(contentHash(a)).toBe(contentHash(b));
    expect(contentHash({ ...a, fields: { ...a.fields, a: 2 } })).not.toBe(contentHash(a));
  });
});
