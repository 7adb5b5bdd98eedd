// Contacts -> CRM contacts, on their buyer's account.
import { contactToDynamicsContact } from '../mappings/dynamics/contact.ts';
import { contactToHubSpotContact } from '../mappings/hubspot/contact.ts';
import { contactToContact } from '../mappings/salesforce/contact.ts';
import type { CommerceToCrmFlow } from './types.ts';

export const contactFlow = {
  name: 'contact',
  direction: 'commerce-to-crm',
  source: { window: (c, org, q) => c.contacts.query(org, q), byId: (c, org, id) => c.contacts.get(org, id) },
  events: ['CONTACT'],
  parents: ['buyer'],
  mappings: { salesforce: contactToContact, hubspot: contactToHubSpotContact, dynamics: contactToDynamicsContact },
  deletes: 'reflect-status',
} satisfies CommerceToCrmFlow<'buyer' | 'contact'>;
