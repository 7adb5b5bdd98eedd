// Contact -> Contact, linked to its buyer's Account by the Account's external id. The values are the
// canonical contact's (mappings/canonical/contact.ts).
import type { Contact } from '../../commerce/models.ts';
import { CONTACT } from '../canonical/contact.ts';
import { canonicalMapping, lookup } from '../canonical/record.ts';
import type { EntityMapping } from '../types.ts';

export const contactToContact: EntityMapping<Contact> = canonicalMapping(CONTACT, {
  object: 'Contact',
  externalIdField: 'Commerce_Contact_Id__c',
  fields: {
    LastName: { describe: 'contact.lastName (Salesforce requires one: "[not provided]" when absent)', value: (record) => record.lastName || '[not provided]' },
    FirstName: 'firstName',
    Email: 'email',
    Phone: 'phone',
    Title: 'title',
    Account: lookup('buyerId', 'Commerce_Buyer_Id__c', "the buyer's Account, by Commerce_Buyer_Id__c = contact.buyerID"),
  },
});
