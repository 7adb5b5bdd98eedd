// Contact -> Contact, linked to its buyer's Account by the Account's external id.
import type { Contact } from '../../commerce/models.ts';
import { fail, ok, type EntityMapping } from '../types.ts';
import { defined } from '../values.ts';

export const contactToContact: EntityMapping<Contact> = {
  entity: 'contact',
  object: 'Contact',
  externalIdField: 'Commerce_Contact_Id__c',
  picklists: {},
  describe: {
    LastName: 'contact.lastName (Salesforce requires one: "[not provided]" when absent)',
    FirstName: 'contact.firstName',
    Email: 'contact.email',
    Phone: 'contact.phone',
    Title: 'contact.title',
    Account: "the buyer's Account, by Commerce_Buyer_Id__c = contact.buyerID",
  },
  map(contact) {
    if (!contact.id) return fail('the contact has no id');
    return ok({
      object: 'Contact',
      externalIdField: 'Commerce_Contact_Id__c',
      externalId: contact.id,
      fields: defined({
        LastName: contact.lastName || '[not provided]',
        FirstName: contact.firstName,
        Email: contact.email,
        Phone: contact.phone,
        Title: contact.title,
        Account: contact.buyerID ? { Commerce_Buyer_Id__c: contact.buyerID } : undefined,
      }),
    });
  },
};
