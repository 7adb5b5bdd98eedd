// The default Salesforce mappings against a table worked out by hand (test/fixtures/salesforce):
// whole records, every field, for one buyer, contact, offer, entitlement and referral per marketplace.
// The end-to-end witness (test/support/expected-crm.ts) is held to the same table, so the expectation
// the big sync tests compare against is itself checked against hand-worked values.
import { describe, expect, it } from 'vitest';
import { applyMapping } from '../../mappings/overrides.ts';
import { SALESFORCE_MAPPINGS } from '../../mappings/salesforce/index.ts';
import type { EntityMapping } from '../../mappings/types.ts';
import { expectedAccount, expectedContact, expectedEntitlement, expectedOpportunity, expectedReferral } from '../support/expected-crm.ts';
import { MARKETPLACE_FIXTURES } from '../fixtures/commerce/marketplaces.ts';
import { EXPECTED_SALESFORCE_RECORDS } from '../fixtures/salesforce/expected-records.ts';

type Marketplace = keyof typeof MARKETPLACE_FIXTURES;
type ObjectName = keyof (typeof EXPECTED_SALESFORCE_RECORDS)['A'];

const MARKETPLACES = Object.keys(MARKETPLACE_FIXTURES) as Marketplace[];

/** Per object: the production mapping with its input, and the witness, for one marketplace's fixture. */
const CASES: Record<ObjectName, { mapping: EntityMapping<any, any>; input(m: Marketplace): [unknown, unknown]; witness(m: Marketplace): unknown }> = {
  Account: { mapping: SALESFORCE_MAPPINGS.buyer, input: (m) => [MARKETPLACE_FIXTURES[m].buyer, undefined], witness: (m) => expectedAccount(MARKETPLACE_FIXTURES[m].buyer) },
  Contact: { mapping: SALESFORCE_MAPPINGS.contact, input: (m) => [MARKETPLACE_FIXTURES[m].contact, undefined], witness: (m) => expectedContact(MARKETPLACE_FIXTURES[m].contact) },
  Opportunity: { mapping: SALESFORCE_MAPPINGS.offer, input: (m) => [MARKETPLACE_FIXTURES[m].offer, undefined], witness: (m) => expectedOpportunity(MARKETPLACE_FIXTURES[m].offer) },
  Marketplace_Entitlement__c: {
    mapping: SALESFORCE_MAPPINGS.entitlement,
    input: (m) => [MARKETPLACE_FIXTURES[m].entitlement, { terms: MARKETPLACE_FIXTURES[m].terms }],
    witness: (m) => expectedEntitlement(MARKETPLACE_FIXTURES[m].entitlement, MARKETPLACE_FIXTURES[m].terms),
  },
  Cosell_Referral__c: { mapping: SALESFORCE_MAPPINGS.referral, input: (m) => [MARKETPLACE_FIXTURES[m].referral, undefined], witness: (m) => expectedReferral(MARKETPLACE_FIXTURES[m].referral) },
};

const mapped = (name: ObjectName, m: Marketplace) => {
  const [source, related] = CASES[name].input(m);
  const result = applyMapping(CASES[name].mapping, undefined, source, related);
  if (!result.ok) throw new Error(result.reason);
  return result.record;
};

describe('Salesforce default mappings: whole records, marketplace by marketplace', () => {
  for (const m of MARKETPLACES) {
    for (const name of Object.keys(CASES) as ObjectName[]) {
      it(`${m}: ${name} is exactly the expected record`, () => {
        expect(mapped(name, m)).toEqual(EXPECTED_SALESFORCE_RECORDS[m][name]);
      });
    }
  }

  it('every mapping documents exactly the fields the table expects it to write', () => {
    for (const name of Object.keys(CASES) as ObjectName[]) {
      const written = new Set(MARKETPLACES.flatMap((m) => Object.keys(EXPECTED_SALESFORCE_RECORDS[m][name].fields)));
      expect(new Set(Object.keys(CASES[name].mapping.describe)), name).toEqual(written);
    }
  });

  it('refuses an unparseable date with a reason that names the record and the field', () => {
    const result = applyMapping(SALESFORCE_MAPPINGS.offer, undefined, { ...MARKETPLACE_FIXTURES.B.offer, expireTime: 'next Tuesday' }, undefined);
    expect(result).toEqual({ ok: false, reason: 'offer offer-cloudB: expireTime "next Tuesday" is not a date-time' });
  });

  it('an offer status no stage is mapped for is written raw to Offer_Status__c; the stage is left as it is (§9.5)', () => {
    const result = applyMapping(SALESFORCE_MAPPINGS.offer, undefined, { ...MARKETPLACE_FIXTURES.B.offer, status: 'ON_HOLD' }, undefined);
    expect(result.ok && result.record.fields.Offer_Status__c).toBe('ON_HOLD');
    expect(result.ok && 'StageName' in result.record.fields).toBe(false);
    expect(result.ok && result.unknown).toEqual([{ field: 'StageName', value: 'ON_HOLD', onCreate: 'Prospecting' }]);
  });
});

/** The table's record as a single-currency org gets it: without CurrencyIsoCode (mappings/fit-to-schema.ts). */
const singleCurrency = (expected: { fields: Record<string, unknown> }) => ({ ...expected, fields: Object.fromEntries(Object.entries(expected.fields).filter(([name]) => name !== 'CurrencyIsoCode')) });

describe('the end-to-end witness agrees with the hand-worked table', () => {
  // The end-to-end orgs are single-currency (the multi-currency one has its own test).
  for (const m of MARKETPLACES) {
    it(`${m}: every object`, () => {
      for (const name of Object.keys(CASES) as ObjectName[]) expect(CASES[name].witness(m), `${m} ${name}`).toEqual(singleCurrency(EXPECTED_SALESFORCE_RECORDS[m][name]));
    });
  }
});
