// Buyers -> CRM accounts. No parents: every other record hangs off a buyer.
import { buyerToAccount as buyerToDynamicsAccount } from '../mappings/dynamics/account.ts';
import { buyerToCompany } from '../mappings/hubspot/company.ts';
import { buyerToAccount } from '../mappings/salesforce/account.ts';
import type { CommerceToCrmFlow } from './types.ts';

export const buyerFlow = {
  name: 'buyer',
  direction: 'commerce-to-crm',
  source: { window: (c, org, q) => c.buyers.query(org, q), byId: (c, org, id) => c.buyers.get(org, id) },
  events: ['BUYER'],
  parents: [],
  mappings: { salesforce: buyerToAccount, hubspot: buyerToCompany, dynamics: buyerToDynamicsAccount },
  deletes: 'reflect-status',
} satisfies CommerceToCrmFlow<'buyer'>;
