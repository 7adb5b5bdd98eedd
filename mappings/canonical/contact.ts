// The buyer's contact as every CRM shows it: computed once (issue #25 section 1). What a CRM requires of
// a contact (Salesforce: a last name) is that CRM's table's business, not the canonical contact's.
import type { Contact } from '../../commerce/models.ts';
import type { CanonicalRecord } from './record.ts';

export type CanonicalContact = {
  id: string;
  firstName?: string;
  lastName?: string;
  email?: string;
  phone?: string;
  title?: string;
  buyerId?: string;
};

export const CONTACT: CanonicalRecord<Contact, unknown, CanonicalContact> = {
  entity: 'contact',
  id: (record) => record.id,
  describe: {
    id: 'contact.id',
    firstName: 'contact.firstName',
    lastName: 'contact.lastName',
    email: 'contact.email',
    phone: 'contact.phone',
    title: 'contact.title',
    buyerId: 'contact.buyerID',
  },
  compute(contact) {
    if (!contact.id) return { ok: false, reason: 'the contact has no id' };
    return {
      ok: true,
      value: { id: contact.id, firstName: contact.firstName, lastName: contact.lastName, email: contact.email, phone: contact.phone, title: contact.title, buyerId: contact.buyerID },
    };
  },
};
