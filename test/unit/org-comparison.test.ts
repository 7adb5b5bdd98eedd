// The end-to-end comparison (test/support/salesforce-state.ts) on a small hand-made org: it must see a
// parent link that points at the wrong record, a field that differs, a duplicate and a record that
// should have been refused, or the big sync tests could pass over exactly those faults.
import { expect, it } from 'vitest';
import { expectedOrg, type CommerceSnapshot } from '../support/expected-crm.ts';
import { orgDifferences, type OrgDump } from '../support/salesforce-state.ts';

const at = '2026-02-01T10:00:00.000Z';
const snapshot: CommerceSnapshot = {
  buyer: [
    { id: 'b-1', name: 'One', partner: 'cloudA', status: 'ACTIVE', lastUpdateTime: at },
    { id: 'b-2', name: 'Two', partner: 'cloudB', status: 'DELETED', lastUpdateTime: at },
  ],
  contact: [{ id: 'c-1', buyerID: 'b-1', lastName: 'Lee', lastUpdateTime: at }],
  offer: [
    { id: 'o-1', name: 'Deal', buyerID: 'b-2', status: 'ACCEPTED', creationTime: at, lastUpdateTime: at },
    { id: 'o-2', name: 'N'.repeat(121), buyerID: 'b-1', status: 'ACCEPTED', creationTime: at, lastUpdateTime: at },
  ],
  entitlement: [{ id: 'e-1', name: 'Ent', buyerID: 'b-2', offerID: 'o-1', status: 'ACTIVE', lastUpdateTime: at }],
  referral: [{ id: 'r-1', name: 'Ref', offerID: 'o-2', lastUpdateTime: at }],
  entitlementTerms: [],
};

/** The org exactly as it should be, by hand. */
const inStep = (): OrgDump => ({
  buyer: [
    { Id: '001A', Commerce_Buyer_Id__c: 'b-1', Name: 'One', Marketplace__c: 'Marketplace A', Marketplace_Status__c: 'Active' },
    { Id: '001B', Commerce_Buyer_Id__c: 'b-2', Name: 'Two', Marketplace__c: 'Marketplace B', Marketplace_Status__c: 'Deleted' },
  ],
  contact: [{ Id: '003A', Commerce_Contact_Id__c: 'c-1', LastName: 'Lee', AccountId: '001A' }],
  offer: [{ Id: '006A', Commerce_Offer_Id__c: 'o-1', Name: 'Deal', StageName: 'Closed Won', CloseDate: '2026-02-01', Marketplace__c: null, Offer_Status__c: 'ACCEPTED', AccountId: '001B', Cosell_Share__c: false, Cosell_Submit__c: false, Private_Offer_Requested__c: false }],
  entitlement: [{ Id: 'a0EA', Commerce_Entitlement_Id__c: 'e-1', Name: 'Ent', Status__c: 'ACTIVE', Currency__c: 'USD', Auto_Renew__c: false, Offer_Id__c: 'o-1', Account__c: '001B', Opportunity__c: '006A' }],
  referral: [],
});

const differences = (org: OrgDump) => orgDifferences(snapshot, org, expectedOrg(snapshot, { opportunityIds: new Set(org.offer.map((row) => row.Id)) }));

it('finds nothing when the org holds exactly the expected records and links', () => {
  expect(differences(inStep())).toEqual([]);
  const expected = expectedOrg(snapshot);
  expect(expected.offer.rejected.get('o-2')).toBe('Opportunity.Name holds 120 characters, the record gives 121 (STRING_TOO_LONG)');
  expect(expected.referral.rejected.get('r-1')).toMatch(/^Foreign key external ID: o-2 not found for field Commerce_Offer_Id__c in entity Opportunity \(Opportunity.Name holds 120/);
});

it('sees a parent link pointing at another record of the right kind', () => {
  const org = inStep();
  org.entitlement[0].Account__c = '001A'; // an Account, but not the buyer's
  org.contact[0].AccountId = null;
  expect(differences(org)).toEqual(['contact c-1 AccountId: expected "001A", stored null', 'entitlement e-1 Account__c: expected "001B", stored "001A"']);
});

it('sees a field that differs, a field that should be empty, a duplicate and a record that should have been refused', () => {
  const org = inStep();
  org.buyer[1].Marketplace_Status__c = 'Active';
  org.buyer[0].Website = 'https://stale.example';
  org.contact.push({ ...org.contact[0], Id: '003B' });
  org.offer.push({ Id: '006B', Commerce_Offer_Id__c: 'o-2', Name: 'N'.repeat(121) });
  expect(differences(org)).toEqual([
    'buyer b-1 Website: expected null, stored "https://stale.example"',
    'buyer b-2 Marketplace_Status__c: expected "Deleted", stored "Active"',
    'contact c-1: 2 CRM records (duplicates)',
    'offer o-2: in the CRM, but expected to be rejected: Opportunity.Name holds 120 characters, the record gives 121 (STRING_TOO_LONG)',
  ]);
});
