// Contact -> HubSpot contact, keyed by commerce_contact_id and associated to its buyer's company.
// HubSpot keeps one contact per email: a person on two buyers is one contact on both companies (the
// connector merges a second commerce contact into the contact holding its email).
import type { Contact } from '../../commerce/models.ts';
import { fail, ok, type EntityMapping } from '../types.ts';
import { defined } from '../values.ts';

export const contactToHubSpotContact: EntityMapping<Contact> = {
  entity: 'contact',
  object: 'contacts',
  externalIdField: 'commerce_contact_id',
  picklists: {},
  describe: {
    email: 'contact.email',
    firstname: 'contact.firstName',
    lastname: 'contact.lastName',
    phone: 'contact.phone',
    jobtitle: 'contact.title',
    companies: "associated to the buyer's company (commerce_buyer_id = contact.buyerID)",
  },
  map(contact) {
    if (!contact.id) return fail('the contact has no id');
    return ok({
      object: 'contacts',
      externalIdField: 'commerce_contact_id',
      externalId: contact.id,
      fields: defined({
        email: contact.email,
        firstname: contact.firstName,
        lastname: contact.lastName,
        phone: contact.phone,
        jobtitle: contact.title,
        companies: contact.buyerID ? { commerce_buyer_id: contact.buyerID } : undefined,
      }),
    });
  },
};
