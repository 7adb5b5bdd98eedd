// A create-only field (the stage of an Opportunity made for an inbound referral) is written when the CRM
// record is made and never on an update; changing it alone is no change to write.
import { describe, expect, it } from 'vitest';
import { inboundReferralToOpportunity } from '../../mappings/salesforce/inbound-referral.ts';
import { offerToOpportunity } from '../../mappings/salesforce/opportunity.ts';
import { ok, type EntityMapping } from '../../mappings/types.ts';
import { MARKETPLACE_FIXTURES } from '../fixtures/commerce/marketplaces.ts';
import type { RecordLink } from '../../store/record-links.ts';
import { planPage } from '../../sync/plan.ts';

type Source = { id: string; name: string; stage: string };
const mapping: EntityMapping<Source> = {
  entity: 'inbound-referral',
  object: 'Opportunity',
  externalIdField: 'Commerce_Referral_Id__c',
  picklists: {},
  createOnly: ['StageName'],
  describe: { Name: 'name', StageName: 'stage' },
  map: (source) => ok({ object: 'Opportunity', externalIdField: 'Commerce_Referral_Id__c', externalId: source.id, fields: { Name: source.name, StageName: source.stage } }),
};
const plan = (records: Source[], links: Map<string, RecordLink>) => planPage({ records, related: () => undefined, mapping, links });

describe('create-only fields', () => {
  it('go out when the record is made, and not once it is linked', () => {
    const first = plan([{ id: 'r1', name: 'Deal', stage: 'Prospecting' }], new Map());
    expect(first.writes[0]!.item.fields).toEqual({ Name: 'Deal', StageName: 'Prospecting' });
    const link: RecordLink = { sourceId: 'r1', crmObject: 'Opportunity', crmId: '006X', contentHash: first.writes[0]!.hash };
    // The stage moved on the commerce side: not this flow's to write any more, so nothing to do.
    expect(plan([{ id: 'r1', name: 'Deal', stage: 'Qualification' }], new Map([['r1', link]]))).toMatchObject({ writes: [], unchanged: ['r1'] });
    // Another field changed: written by Id, without the stage.
    const renamed = plan([{ id: 'r1', name: 'Bigger deal', stage: 'Qualification' }], new Map([['r1', link]]));
    expect(renamed.writes[0]!.item).toMatchObject({ crmId: '006X', fields: { Name: 'Bigger deal' } });
    expect(renamed.writes[0]!.item.fields).not.toHaveProperty('StageName');
  });

  // Salesforce refuses to change the currency of an Opportunity that has products: its currency is set
  // when the sync makes it and never sent again (review of issue #23 item 5).
  it("an Opportunity's CurrencyIsoCode goes out when the sync makes it, never on an update", () => {
    const cases: [EntityMapping<any, any>, { id: string; [field: string]: unknown }][] = [
      // Without the Opportunity ids the fixtures carry (such an Opportunity is the seller's, not made by the sync).
      [offerToOpportunity, { ...MARKETPLACE_FIXTURES.A.offer, metaInfo: undefined, info: { ...MARKETPLACE_FIXTURES.A.offer.info, currency: 'EUR' } }],
      [inboundReferralToOpportunity, { ...MARKETPLACE_FIXTURES.A.referral, crmAOpportunityId: undefined, currency: 'EUR' }],
    ];
    for (const [mapping, source] of cases) {
      const made = planPage({ records: [source], related: () => undefined, mapping, links: new Map() });
      expect(made.writes[0]!.item.fields).toMatchObject({ CurrencyIsoCode: 'EUR' });
      const link: RecordLink = { sourceId: source.id, crmObject: 'Opportunity', crmId: '006X', contentHash: 'an older version' };
      const updated = planPage({ records: [source], related: () => undefined, mapping, links: new Map([[source.id, link]]) });
      expect(updated.writes[0]!.item.crmId).toBe('006X');
      expect(updated.writes[0]!.item.fields).not.toHaveProperty('CurrencyIsoCode');
    }
  });

  // Create-only and seller-kept fields a connection adds on the console's mapping page (overrides
  // createOnly / sellerKeeps) are kept out of updates like the mapping's own (issue #26 section 3).
  it("the connection's own create-only and seller-kept fields are left out of updates too", () => {
    const overrides = { createOnly: ['Name'] };
    const made = planPage({ records: [{ id: 'r2', name: 'Deal', stage: 'Prospecting' }], related: () => undefined, mapping, links: new Map(), overrides });
    expect(made.writes[0]!.item.fields).toEqual({ Name: 'Deal', StageName: 'Prospecting' });
    const link: RecordLink = { sourceId: 'r2', crmObject: 'Opportunity', crmId: '006Y', contentHash: made.writes[0]!.hash };
    // Both fields are create-only now (StageName by the mapping, Name by the connection): a new name is no change to write.
    const updated = planPage({ records: [{ id: 'r2', name: 'Renamed deal', stage: 'Prospecting' }], related: () => undefined, mapping, links: new Map([['r2', link]]), overrides });
    expect(updated).toMatchObject({ writes: [], unchanged: ['r2'] });

    const sellerMapping: EntityMapping<Source> = { ...mapping, createOnly: [] };
    const seller = planPage({ records: [{ id: 'r3', name: 'Seller deal', stage: 'Negotiation' }], related: () => undefined, mapping: sellerMapping, links: new Map([['r3', { sourceId: 'r3', crmObject: 'Opportunity', crmId: '006Z', contentHash: 'older' }]]), overrides: { sellerKeeps: ['StageName'] }, sellersRecords: new Set(['r3']) });
    expect(seller.writes[0]!.item).toMatchObject({ crmId: '006Z', fields: { Name: 'Seller deal' } });
    expect(seller.writes[0]!.item.fields).not.toHaveProperty('StageName');
  });
});
