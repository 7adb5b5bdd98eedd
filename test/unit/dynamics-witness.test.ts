// The Dynamics witness (test/support/dynamics-state.ts) against a hand-made commerce snapshot and a
// hand-made Dataverse dump: when they agree it finds no difference, and each single mutation of the dump
// (a wrong column, a missing row, a duplicate, a lookup on the wrong account, a merged person made twice)
// is reported by name. Rejections (a bad date, a child of a rejected parent) are expected as dead letters.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { CommerceSnapshot } from '../support/expected-crm.ts';
import {
  DYNAMICS_TARGET,
  dynamicsDifferences,
  dynamicsRejections,
  expectDynamicsMatchesCommerce,
  expectedDynamics,
  expectOpportunityWriteBack,
  normalGuid,
  type DynamicsDump,
} from '../support/dynamics-state.ts';

const guid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const ACCOUNT_1 = guid(1);
const ACCOUNT_2 = guid(2);
const CONTACT_1 = guid(11);
const CONTACT_3 = guid(13);
const OPPORTUNITY_1 = guid(21);
const OPPORTUNITY_3 = guid(23); // a seller's opportunity an offer was made from
const OPPORTUNITY_SELLER = guid(24); // a seller's opportunity a referral was made from
const ENTITLEMENT_1 = guid(31);
const REFERRAL_1 = guid(41);
const REFERRAL_2 = guid(42);

function snapshot(): CommerceSnapshot {
  return {
    buyer: [
      { id: 'B-1', name: 'Acme', emailDomain: 'acme.example', country: 'DE', partner: 'cloudA', externalID: 'acct-1', status: 'ACTIVE' },
      { id: 'B-2', partner: 'cloudB', externalID: 'acct-2', status: 'DELETED' },
    ],
    contact: [
      { id: 'C-1', buyerID: 'B-1', email: 'ada@acme.example', firstName: 'Ada', lastName: 'Lovelace', phone: '+49 30 1', title: 'CTO' },
      // The same person on another buyer: she is C-1's contact, which keeps B-1's account.
      { id: 'C-2', buyerID: 'B-2', email: 'ADA@acme.example', firstName: 'Ada' },
      { id: 'C-3', buyerID: 'B-2', lastName: 'Nomail' },
    ],
    offer: [
      {
        id: 'O-1', buyerID: 'B-1', name: 'Private offer', status: 'ACCEPTED', partner: 'cloudA', offerType: 'PRIVATE', expireTime: '2026-03-31T23:59:59Z',
        info: { commitAmount: 120000, privateOfferUrl: 'https://m.example/o-1' }, metaInfo: { crmCOpportunityId: OPPORTUNITY_1 },
      },
      { id: 'O-2', buyerID: 'B-1', status: 'ACTIVE', expireTime: 'next tuesday' },
      // Made from a seller's opportunity: carries its GUID (with braces and capitals: the row is the same).
      { id: 'O-3', buyerID: 'B-2', status: 'PENDING_ACCEPTANCE', partner: 'cloudB', metaInfo: { crmCOpportunityId: `{${OPPORTUNITY_3.toUpperCase()}}` } },
    ],
    entitlement: [
      {
        id: 'E-1', buyerID: 'B-1', offerID: 'O-1', name: 'Suite', status: 'ACTIVE', partner: 'cloudA', productID: 'prod-1', entitlementTermID: 'T-2',
        startTime: '2026-01-01T00:00:00Z', endTime: null, info: { annualizedAmount: 120000, cloudAAgreement: { agreementId: 'agmt-1' }, cloudALicenseArn: 'arn:lic' },
      },
      // Its offer is rejected (a bad date): its opportunity lookup cannot be bound.
      { id: 'E-2', buyerID: 'B-1', offerID: 'O-2', status: 'ACTIVE', partner: 'cloudA' },
    ],
    referral: [
      { id: 'R-1', buyerID: 'B-1', offerID: 'O-1', name: 'Co-sell', partner: 'cloudA', status: 'SUBMITTED', stage: 'Qualified', direction: 'OUTBOUND', dealValue: 50000, currency: 'USD', expectedCloseDate: '2026-06-30' },
      { id: 'R-2', buyerID: 'B-2', partner: 'cloudB', status: 'SUBMITTED', stage: 'Prospect', direction: 'OUTBOUND', crmCOpportunityId: OPPORTUNITY_SELLER },
    ],
    entitlementTerms: [
      { id: 'T-1', entitlementID: 'E-1', startTime: '2025-01-01T00:00:00Z', commitAmount: 1 },
      { id: 'T-2', entitlementID: 'E-1', startTime: '2026-01-01T00:00:00Z', commitAmount: 120000, usedCommitAmount: 30500.5, creditAmount: 0, usedCreditAmount: 0 },
    ],
  };
}

const meta = (n: number) => ({ createdon: '2026-11-25T10:00:00Z', modifiedon: '2026-11-25T10:00:00Z', versionnumber: 1000 + n });

/** The environment as the sandbox lists it after a correct sync (values in Dataverse's own shapes). */
function dump(): DynamicsDump {
  return {
    buyer: [
      { accountid: ACCOUNT_1, ccs_commercebuyerid: 'B-1', name: 'Acme', websiteurl: 'https://acme.example', address1_country: 'DE', ccs_marketplace: 'Marketplace A', ccs_marketplaceaccountid: 'acct-1', ccs_marketplacestatus: 'Active', ...meta(1) },
      // A deleted buyer keeps its account, marked Deleted.
      { accountid: ACCOUNT_2, ccs_commercebuyerid: 'B-2', name: 'B-2', websiteurl: null, address1_country: null, ccs_marketplace: 'Marketplace B', ccs_marketplaceaccountid: 'acct-2', ccs_marketplacestatus: 'Deleted', ...meta(2) },
      // A seller's account: no key, not the witness's business.
      { accountid: guid(9), name: 'Hand-made account', ...meta(9) },
    ],
    contact: [
      // C-2's columns were written onto C-1's row (the last written wins); the account stays B-1's.
      { contactid: CONTACT_1, ccs_commercecontactid: 'C-1', emailaddress1: 'ada@acme.example', firstname: 'Ada', lastname: 'Lovelace', telephone1: '+49 30 1', jobtitle: 'CTO', _parentcustomerid_value: ACCOUNT_1, ...meta(11) },
      { contactid: CONTACT_3, ccs_commercecontactid: 'C-3', lastname: 'Nomail', _parentcustomerid_value: ACCOUNT_2, ...meta(13) },
    ],
    offer: [
      {
        opportunityid: OPPORTUNITY_1, ccs_commerceofferid: 'O-1', name: 'Private offer', stepname: 'Won', statecode: 1, statuscode: 3, estimatedclosedate: '2026-03-31', estimatedvalue: '120000.0000', _parentaccountid_value: ACCOUNT_1,
        ccs_marketplace: 'Marketplace A', ccs_offertype: 'PRIVATE', ccs_offerstatus: 'ACCEPTED', ccs_offerurl: 'https://m.example/o-1', ccs_offerexpiration: '2026-03-31T23:59:59.000Z', ...meta(21),
      },
      // The seller's opportunity, taken over by O-3: the seller's own estimatedvalue stands.
      { opportunityid: OPPORTUNITY_3, ccs_commerceofferid: 'O-3', name: 'Offer O-3', stepname: '3-Propose', statecode: 0, statuscode: 1, estimatedvalue: 999, _parentaccountid_value: ACCOUNT_2, ccs_marketplace: 'Marketplace B', ccs_offerstatus: 'PENDING_ACCEPTANCE', ...meta(23) },
      { opportunityid: OPPORTUNITY_SELLER, name: 'Seller deal', stepname: '2-Develop', statecode: 0, statuscode: 1, _parentaccountid_value: ACCOUNT_2, ...meta(24) },
    ],
    entitlement: [
      {
        ccs_marketplaceentitlementid: ENTITLEMENT_1, ccs_entitlementid: 'E-1', ccs_name: 'Suite', ccs_status: 'ACTIVE', ccs_startdate: '2026-01-01T00:00:00Z', ccs_enddate: null,
        ccs_commitamount: 120000, ccs_usedcommitamount: 30500.5, ccs_creditamount: 0, ccs_usedcreditamount: 0, ccs_annualizedamount: 120000, ccs_currency: 'USD', ccs_marketplace: 'Marketplace A',
        ccs_marketplaceagreementid: 'agmt-1', ccs_marketplacesubscriptionid: 'arn:lic', ccs_productid: 'prod-1', ccs_offerid: 'O-1', _ccs_accountid_value: ACCOUNT_1, _ccs_opportunityid_value: OPPORTUNITY_1, ...meta(31),
      },
    ],
    referral: [
      {
        ccs_cosellreferralid: REFERRAL_1, ccs_commercereferralid: 'R-1', ccs_name: 'Co-sell', ccs_partner: 'Marketplace A', ccs_status: 'SUBMITTED', ccs_stage: 'Qualified', ccs_direction: 'OUTBOUND',
        ccs_dealvalue: 50000, ccs_currency: 'USD', ccs_expectedclosedate: '2026-06-30', _ccs_accountid_value: ACCOUNT_1, _ccs_opportunityid_value: OPPORTUNITY_1, ...meta(41),
      },
      {
        ccs_cosellreferralid: REFERRAL_2, ccs_commercereferralid: 'R-2', ccs_name: 'R-2', ccs_partner: 'Marketplace B', ccs_status: 'SUBMITTED', ccs_stage: 'Prospect', ccs_direction: 'OUTBOUND',
        _ccs_accountid_value: ACCOUNT_2, _ccs_opportunityid_value: OPPORTUNITY_SELLER, ...meta(42),
      },
    ],
  };
}

const ids = (rows: Record<string, unknown>[], column: string) => new Set(rows.map((row) => normalGuid(row[column])!));
const view = (data: DynamicsDump) => expectedDynamics(snapshot(), undefined, { opportunityIds: ids(data.offer, 'opportunityid'), accountIds: ids(data.buyer, 'accountid') });
const differences = (mutate: (data: DynamicsDump) => void = () => {}) => {
  const data = dump();
  mutate(data);
  return dynamicsDifferences(snapshot(), data, view(data));
};
const row = (rows: Record<string, unknown>[], column: string, value: string) => rows.find((r) => r[column] === value)!;

describe('the Dynamics witness', () => {
  it('names the documented tables, entity sets and keys', () => {
    expect(DYNAMICS_TARGET.offer).toEqual({ table: 'opportunity', entitySet: 'opportunities', key: 'ccs_commerceofferid' });
    expect(DYNAMICS_TARGET.entitlement).toEqual({ table: 'ccs_marketplaceentitlement', entitySet: 'ccs_marketplaceentitlements', key: 'ccs_entitlementid' });
  });

  it('finds no difference when the environment agrees with the commerce side', () => {
    expect(differences()).toEqual([]);
  });

  it('expects the unmappable and their children as rejections, with reasons', () => {
    const expected = view(dump());
    expect(dynamicsRejections(expected)).toEqual(['entitlement:E-2', 'offer:O-2']);
    expect(expected.offer.rejected.get('O-2')).toMatch(/expireTime "next tuesday" is not a date-time/);
    expect(expected.entitlement.rejected.get('E-2')).toMatch(/ccs_opportunityid: no opportunity with ccs_commerceofferid 'O-2'/);
    // The record the witness builds: lookups as commerce ids, the carried GUID lowercased without braces.
    expect(expected.offer.records.get('O-3')).toMatchObject({ crmId: OPPORTUNITY_3, lookups: { parentaccountid: { entity: 'buyer', id: 'B-2' } }, columns: { stepname: '3-Propose' } });
    expect(expected.referral.records.get('R-2')!.lookups.ccs_opportunityid).toEqual({ guid: OPPORTUNITY_SELLER });
  });

  it('rejects a referral carrying the GUID of no opportunity', () => {
    const data = dump();
    data.offer = data.offer.filter((r) => r.opportunityid !== OPPORTUNITY_SELLER);
    expect(view(data).referral.rejected.get('R-2')).toMatch(/carried opportunity .* is no opportunity/);
    expect(dynamicsDifferences(snapshot(), data, view(data))).toContainEqual(expect.stringMatching(/^referral R-2: in Dataverse, but expected to be rejected/));
  });

  it('reports a wrong column value', () => {
    expect(differences((data) => (row(data.buyer, 'ccs_commercebuyerid', 'B-1').name = 'Acme Ltd'))).toEqual(['buyer B-1: name is "Acme Ltd", expected "Acme"']);
    expect(differences((data) => (row(data.offer, 'ccs_commerceofferid', 'O-1').stepname = '3-Propose'))).toEqual(['offer O-1: stepname is "3-Propose", expected "Won"']);
    // Won is a state too (issue #22 item 8): an accepted offer's opportunity left Open is a difference.
    expect(differences((data) => (row(data.offer, 'ccs_commerceofferid', 'O-1').statecode = 0))).toEqual(['offer O-1: statecode is 0, expected 1']);
    expect(differences((data) => (row(data.entitlement, 'ccs_entitlementid', 'E-1').ccs_usedcommitamount = 30500))).toEqual(['entitlement E-1: ccs_usedcommitamount is 30500, expected 30500.5']);
    expect(differences((data) => (row(data.offer, 'ccs_commerceofferid', 'O-1').ccs_offerexpiration = '2026-04-01T00:00:00Z'))).toHaveLength(1);
    // A column the record does not give must be empty on a row the sync made.
    expect(differences((data) => (row(data.buyer, 'ccs_commercebuyerid', 'B-2').address1_country = 'FR'))).toEqual(['buyer B-2: address1_country is "FR", expected null']);
  });

  it('reports a missing row', () => {
    expect(differences((data) => (data.entitlement = []))).toEqual(['entitlement E-1: missing from Dataverse']);
    expect(differences((data) => (data.contact = data.contact.filter((r) => r.ccs_commercecontactid !== 'C-3')))).toEqual(['contact C-3: 0 contact rows hold id C-3']);
  });

  it('reports a duplicate row', () => {
    const found = differences((data) => data.offer.push({ ...row(data.offer, 'ccs_commerceofferid', 'O-1'), opportunityid: guid(99) }));
    expect(found).toContain('offer O-1: 2 opportunity rows hold it (duplicates)');
  });

  it('reports a row the witness expects rejected', () => {
    const found = differences((data) => data.offer.push({ opportunityid: guid(98), ccs_commerceofferid: 'O-2', name: 'Offer O-2', ...meta(98) }));
    expect(found).toEqual([expect.stringMatching(/^offer O-2: in Dataverse, but expected to be rejected: offer O-2: expireTime/)]);
  });

  it('reports a lookup pointing at the wrong account', () => {
    expect(differences((data) => (row(data.offer, 'ccs_commerceofferid', 'O-1')._parentaccountid_value = ACCOUNT_2))).toEqual([
      `offer O-1: _parentaccountid_value is "${ACCOUNT_2}" (buyer B-2), expected the account of buyer B-1 ("${ACCOUNT_1}")`,
    ]);
    expect(differences((data) => (row(data.entitlement, 'ccs_entitlementid', 'E-1')._ccs_opportunityid_value = OPPORTUNITY_3))).toEqual([
      `entitlement E-1: _ccs_opportunityid_value is "${OPPORTUNITY_3}" (offer O-3), expected the opportunity of offer O-1 ("${OPPORTUNITY_1}")`,
    ]);
    // A referral carrying a GUID is bound to that opportunity, not to its offer's.
    expect(differences((data) => (row(data.referral, 'ccs_commercereferralid', 'R-2')._ccs_opportunityid_value = OPPORTUNITY_1))).toHaveLength(1);
  });

  it('reports a merged contact made twice, or moved to the later buyer', () => {
    const twice = differences((data) =>
      data.contact.push({ contactid: guid(12), ccs_commercecontactid: 'C-2', emailaddress1: 'ADA@acme.example', firstname: 'Ada', _parentcustomerid_value: ACCOUNT_2, ...meta(12) }),
    );
    expect(twice).toContain('contact C-1, C-2: 2 contact rows hold email ada@acme.example (duplicates)');
    expect(twice).toContainEqual(expect.stringMatching(/^contact C-2: a second contact row holds it/));
    const moved = differences((data) => (row(data.contact, 'ccs_commercecontactid', 'C-1')._parentcustomerid_value = ACCOUNT_2));
    expect(moved).toEqual([`contact C-1: _parentcustomerid_value is "${ACCOUNT_2}" (buyer B-2), expected the account of buyer B-1 ("${ACCOUNT_1}")`]);
  });

  it('reports a row that does not carry the GUID its commerce record names', () => {
    // The seller's opportunity is left as it was and a second one made for the offer.
    const found = differences((data) => {
      const seller = row(data.offer, 'ccs_commerceofferid', 'O-3');
      data.offer.push({ ...seller, opportunityid: guid(77) });
      delete seller.ccs_commerceofferid;
    });
    expect(found).toContainEqual(expect.stringMatching(/^offer O-3: is opportunityid .*, expected the carried/));
  });

  it('expects nothing of an entity the connection does not sync, and rejects children bound to it', () => {
    const data = dump();
    const only = expectedDynamics(snapshot(), ['buyer', 'entitlement']);
    expect(dynamicsRejections(only)).toEqual(['entitlement:E-1', 'entitlement:E-2']);
    expect(only.entitlement.rejected.get('E-1')).toMatch(/offers are not synced/);
    expect(dynamicsDifferences(snapshot(), data, only)).toContain('offer O-1: in Dataverse, but the witness expects none');
  });

  it('reads both sides through their test controls, and checks the GUIDs going back', async () => {
    const commerce: Record<string, unknown[]> = { buyers: snapshot().buyer, contacts: snapshot().contact, offers: snapshot().offer, entitlements: snapshot().entitlement, referrals: snapshot().referral, entitlementTerms: snapshot().entitlementTerms };
    const data = dump();
    // The witness asks for tables by logical name (the sandbox's control takes a name or an entity set).
    const tables = Object.fromEntries(Object.entries(DYNAMICS_TARGET).map(([entity, { table }]) => [table, data[entity as keyof DynamicsDump]]));
    const server = createServer((req, res) => {
      const commerceKind = /^\/_sandbox\/records\/(\w+)$/.exec(req.url ?? '')?.[1];
      const table = /^\/dataverse\/records\/(\w+)$/.exec(req.url ?? '')?.[1];
      const body = commerceKind ? commerce[commerceKind] : table ? { value: tables[table] } : undefined;
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? { error: 'no such list' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const dynamics = { controlUrl: `${base}/dataverse` };
      expect(dynamicsRejections(await expectDynamicsMatchesCommerce({ apiUrl: base }, dynamics))).toEqual(['entitlement:E-2', 'offer:O-2']);
      // O-1 carries its opportunity's GUID; O-3 carries it with braces and capitals, which is not how it goes back.
      await expect(expectOpportunityWriteBack({ apiUrl: base }, dynamics)).rejects.toThrow(/offers O-3 carries its opportunity's GUID/);
      (commerce.offers![2] as any).metaInfo.crmCOpportunityId = OPPORTUNITY_3;
      await expectOpportunityWriteBack({ apiUrl: base }, dynamics);
      row(data.buyer, 'ccs_commercebuyerid', 'B-1').ccs_marketplace = 'Marketplace B';
      await expect(expectDynamicsMatchesCommerce({ apiUrl: base }, dynamics)).rejects.toThrow(/buyer B-1: ccs_marketplace is "Marketplace B", expected "Marketplace A"/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
