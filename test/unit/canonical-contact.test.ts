// The canonical contact for marketplaces A to F (mappings/canonical/contact.ts), expected values written by
// hand from the fixtures (test/fixtures/commerce/marketplaces.ts), and each CRM's table taking them.
import { describe, expect, it } from 'vitest';
import { CONTACT } from '../../mappings/canonical/contact.ts';
import { contactToDynamicsContact } from '../../mappings/dynamics/contact.ts';
import { contactToHubSpotContact } from '../../mappings/hubspot/contact.ts';
import { contactToContact } from '../../mappings/salesforce/contact.ts';
import type { EntityMapping } from '../../mappings/types.ts';
import { MARKETPLACE_FIXTURES } from '../fixtures/commerce/marketplaces.ts';

const ada = { firstName: 'Ada', lastName: 'Lovelace', phone: '+49-30-555-0100', title: 'Head of Procurement' };

const EXPECTED = {
  A: { id: 'contact-cloudA', ...ada, email: 'ada@cloudA.buyer.example', buyerId: 'buyer-cloudA' },
  // No last name and no title: none in the canonical contact (Salesforce's table fills its required LastName).
  B: { id: 'contact-cloudB', firstName: 'Ada', email: 'ada@cloudB.buyer.example', phone: '+49-30-555-0100', buyerId: 'buyer-cloudB' },
  // On no buyer, without a phone.
  C: { id: 'contact-cloudC', firstName: 'Ada', lastName: 'Lovelace', title: 'Head of Procurement', email: 'ada@cloudC.buyer.example' },
  D: { id: 'contact-cloudD', ...ada, email: 'ada@cloudD.buyer.example', buyerId: 'buyer-cloudD' },
  // No first name and no email.
  E: { id: 'contact-cloudE', lastName: 'Lovelace', phone: '+49-30-555-0100', title: 'Head of Procurement', buyerId: 'buyer-cloudE' },
  F: { id: 'contact-cloudF', ...ada, email: 'ada@cloudF.buyer.example', buyerId: 'buyer-cloudF' },
};

describe('the canonical contact, marketplaces A to F', () => {
  for (const [marketplace, expected] of Object.entries(EXPECTED)) {
    it(`marketplace ${marketplace}`, () => {
      const computed = CONTACT.compute(MARKETPLACE_FIXTURES[marketplace as keyof typeof MARKETPLACE_FIXTURES].contact, undefined);
      // The contact's tags are not a CRM value.
      expect(computed.ok && Object.fromEntries(Object.entries(computed.value).filter(([, value]) => value !== undefined))).toStrictEqual(expected);
    });
  }

  it('a contact without an id is refused', () => {
    expect(CONTACT.compute({ ...MARKETPLACE_FIXTURES.A.contact, id: '' }, undefined)).toEqual({ ok: false, reason: 'the contact has no id' });
  });
});

describe('each CRM takes the canonical contact under its own names', () => {
  const fields = (mapping: EntityMapping<any, any>, source: unknown) => {
    const result = mapping.map(source, undefined);
    if (!result.ok) throw new Error(result.reason);
    return result.record.fields;
  };

  it('a contact without a last name: Salesforce, which requires one, says so; HubSpot and Dynamics write none', () => {
    const contact = MARKETPLACE_FIXTURES.B.contact;
    expect(fields(contactToContact, contact).LastName).toBe('[not provided]');
    expect(fields(contactToHubSpotContact, contact)).not.toHaveProperty('lastname');
    expect(fields(contactToDynamicsContact, contact)).not.toHaveProperty('lastname');
  });

  it("all three link the buyer's record by its key, and none when the contact names no buyer", () => {
    const contact = MARKETPLACE_FIXTURES.A.contact;
    expect(fields(contactToContact, contact).Account).toEqual({ Commerce_Buyer_Id__c: 'buyer-cloudA' });
    expect(fields(contactToHubSpotContact, contact).companies).toEqual({ commerce_buyer_id: 'buyer-cloudA' });
    expect(fields(contactToDynamicsContact, contact).parentcustomerid_account).toEqual({ ccs_commercebuyerid: 'buyer-cloudA' });
    for (const [mapping, link] of [[contactToContact, 'Account'], [contactToHubSpotContact, 'companies'], [contactToDynamicsContact, 'parentcustomerid_account']] as const) {
      expect(fields(mapping, MARKETPLACE_FIXTURES.C.contact)).not.toHaveProperty(link);
    }
  });
});
