// Contact -> HubSpot contact, keyed by commerce_contact_id and associated to its buyer's company.
// HubSpot keeps one contact per email: a person on two buyers is one contact on both companies (the
// connector merges a second commerce contact into the contact holding its email). The values are the
// canonical contact's (mappings/canonical/contact.ts).
import type { Contact } from '../../commerce/models.ts';
import { CONTACT } from '../canonical/contact.ts';
import { canonicalMapping, lookup } from '../canonical/record.ts';
import type { EntityMapping } from '../types.ts';

export const contactToHubSpotContact: EntityMapping<Contact> = canonicalMapping(CONTACT, {
  object: 'contacts',
  externalIdField: 'commerce_contact_id',
  fields: {
    email: 'email',
    firstname: 'firstName',
    lastname: 'lastName',
    phone: 'phone',
    jobtitle: 'title',
    companies: lookup('buyerId', 'commerce_buyer_id', "associated to the buyer's company (commerce_buyer_id = contact.buyerID)"),
  },
});
