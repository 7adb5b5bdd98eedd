// An inbound referral's contacts, attached to the opportunity (deal) made for it. Salesforce and Dynamics:
// each commerce contact is matched to a CRM contact by email (never duplicated), made on the buyer's
// account (keyed by its commerce id, so the contact sync later updates that same contact) only when none
// has that email, and linked by a link row (Salesforce's OpportunityContactRole, the project's
// ccs_opportunitycontact in Dataverse) unless one already links the two. HubSpot associates them.
// Safe to run twice.
import pLimit from 'p-limit';
import type { Contact } from '../commerce/models.ts';
import { recordId, type CrmKind, type CrmRecord } from '../crm/connector.ts';
import type { AfterWriteContext } from './types.ts';

/** Where a CRM keeps contacts and the rows linking them to opportunities. */
export type ContactLinks = {
  contact: { object: string; emailField: string; keyField: string; fields(contact: Contact, buyerId: string | undefined): CrmRecord };
  link: { object: string; opportunityField: string; contactField: string; fields(opportunityId: string, contactId: string): CrmRecord };
};

export const CONTACT_LINKS: Partial<Record<CrmKind, ContactLinks>> = {
  salesforce: {
    contact: {
      object: 'Contact',
      emailField: 'Email',
      keyField: 'Commerce_Contact_Id__c',
      fields: (contact, buyerId) => ({
        FirstName: contact.firstName ?? null,
        LastName: contact.lastName || contact.email || contact.id,
        Email: contact.email ?? null,
        ...(buyerId && { Account: { Commerce_Buyer_Id__c: buyerId } }),
      }),
    },
    link: { object: 'OpportunityContactRole', opportunityField: 'OpportunityId', contactField: 'ContactId', fields: (OpportunityId, ContactId) => ({ OpportunityId, ContactId }) },
  },
  dynamics: {
    contact: {
      object: 'contact',
      emailField: 'emailaddress1',
      keyField: 'ccs_commercecontactid',
      fields: (contact, buyerId) => ({
        firstname: contact.firstName ?? null,
        lastname: contact.lastName || contact.email || contact.id,
        emailaddress1: contact.email ?? null,
        ...(buyerId && { parentcustomerid_account: { ccs_commercebuyerid: buyerId } }),
      }),
    },
    link: {
      object: 'ccs_opportunitycontact',
      opportunityField: '_ccs_opportunityid_value',
      contactField: '_ccs_contactid_value',
      fields: (opportunityId, contactId) => ({ ccs_name: 'Co-sell referral contact', ccs_role: 'Referral contact', ccs_opportunityid: opportunityId, ccs_contactid: contactId }),
    },
  },
};

export async function attachReferralContacts(context: AfterWriteContext): Promise<{ sourceId: string; reason: string }[]> {
  const links = CONTACT_LINKS[context.crm.kind];
  return links ? attachByLinks(context, links) : associateReferralContacts(context);
}

/**
 * HubSpot: the contacts are upserted by their commerce id on the buyer's company (HubSpot keeps one
 * contact per email, so a person already there is that contact), then associated to the referral's deal.
 */
async function associateReferralContacts(context: AfterWriteContext): Promise<{ sourceId: string; reason: string }[]> {
  const problems: { sourceId: string; reason: string }[] = [];
  const referrals = new Map(context.records.map((referral) => [referral.id as string, referral as { id: string; buyerID?: string; contactIds?: string[] }]));
  const wanted = context.linked.filter(({ sourceId }) => referrals.get(sourceId)?.contactIds?.length);
  if (wanted.length === 0) return problems;
  const contacts = await readContacts(context, [...new Set(wanted.flatMap(({ sourceId }) => referrals.get(sourceId)!.contactIds!))]);
  const buyerOf = new Map(wanted.flatMap(({ sourceId }) => referrals.get(sourceId)!.contactIds!.map((id) => [id, referrals.get(sourceId)!.buyerID] as const)));
  const made = await context.crm.upsert(
    'contacts',
    [...contacts.values()].map((contact) => ({
      sourceId: contact.id,
      externalIdField: 'commerce_contact_id',
      externalId: contact.id,
      fields: {
        ...(contact.email && { email: contact.email }),
        ...(contact.firstName && { firstname: contact.firstName }),
        ...(contact.lastName && { lastname: contact.lastName }),
        ...(buyerOf.get(contact.id) && { companies: { commerce_buyer_id: buyerOf.get(contact.id) } }),
      },
    })),
    { signal: context.signal },
  );
  const crmIdOf = new Map<string, string>();
  for (const result of made) {
    if (result.ok) crmIdOf.set(result.sourceId, result.crmId);
    else problems.push({ sourceId: wanted.find(({ sourceId }) => referrals.get(sourceId)!.contactIds!.includes(result.sourceId))!.sourceId, reason: `contact ${result.sourceId} could not be made in HubSpot: ${result.error.code}: ${result.error.message}` });
  }
  const deals = wanted.map(({ sourceId, crmId }) => {
    const ids = referrals.get(sourceId)!.contactIds!.filter((id) => crmIdOf.has(id));
    return { sourceId, crmId, fields: { contacts: ids.map((id) => ({ commerce_contact_id: id })) }, references: Object.fromEntries(ids.map((id) => [`commerce_contact_id=${id}`, crmIdOf.get(id)!])) };
  });
  if (!context.crm.associate) throw new Error(`the ${context.crm.kind} connector cannot associate records`);
  // The deals were just written: only the associations are added (no second write of each deal).
  for (const result of await context.crm.associate('deals', deals, { signal: context.signal })) {
    if (!result.ok) problems.push({ sourceId: result.sourceId, reason: `its contacts could not be associated to its deal: ${result.error.code}: ${result.error.message}` });
  }
  return problems;
}

async function readContacts(context: AfterWriteContext, ids: string[]): Promise<Map<string, Contact>> {
  const limit = pLimit(8);
  const contacts = new Map<string, Contact>();
  await Promise.all(
    ids.map((id) =>
      limit(async () => {
        context.signal?.throwIfAborted();
        try {
          contacts.set(id, await context.commerce.contacts.get(context.orgId, id));
        } catch (error) {
          if ((error as { status?: number }).status !== 404) throw error;
        }
      }),
    ),
  );
  return contacts;
}

/** Contacts matched by email or made, and linked by link rows. */
async function attachByLinks(context: AfterWriteContext, links: ContactLinks): Promise<{ sourceId: string; reason: string }[]> {
  const problems: { sourceId: string; reason: string }[] = [];
  const referrals = new Map(context.records.map((referral) => [referral.id as string, referral as { id: string; buyerID?: string; contactIds?: string[] }]));
  const wanted = context.linked.flatMap(({ sourceId, crmId }) => (referrals.get(sourceId)?.contactIds ?? []).map((contactId) => ({ referralId: sourceId, opportunityId: crmId, contactId })));
  if (wanted.length === 0) return problems;

  // The commerce contacts, for their emails and names.
  const contacts = await readContacts(context, [...new Set(wanted.map((want) => want.contactId))]);

  // Matched by email; a contact with no match is made on the buyer's Account.
  const emailOf = (contact: Contact | undefined) => (typeof contact?.email === 'string' ? contact.email.trim().toLowerCase() : '');
  const emails = [...new Set([...contacts.values()].map(emailOf).filter(Boolean))];
  const { contact: contactSide, link } = links;
  const crmIdByEmail = new Map(
    (emails.length ? await context.crm.findWhereIn(contactSide.object, contactSide.emailField, emails, [contactSide.emailField]) : []).map((row) => [String(row[contactSide.emailField]).toLowerCase(), recordId(context.crm, row)]),
  );
  const toMake = [...contacts.values()].filter((contact) => !crmIdByEmail.has(emailOf(contact)));
  const crmIdByContact = new Map<string, string>();
  for (const contact of contacts.values()) {
    const matched = crmIdByEmail.get(emailOf(contact));
    if (matched) crmIdByContact.set(contact.id, matched);
  }
  if (toMake.length > 0) {
    const buyerOf = new Map(wanted.map((want) => [want.contactId, referrals.get(want.referralId)?.buyerID]));
    const made = await context.crm.upsert(
      contactSide.object,
      toMake.map((contact) => ({ sourceId: contact.id, externalIdField: contactSide.keyField, externalId: contact.id, fields: contactSide.fields(contact, buyerOf.get(contact.id)) })),
      { signal: context.signal },
    );
    for (const result of made) {
      if (result.ok) crmIdByContact.set(result.sourceId, result.crmId);
      else problems.push({ sourceId: wanted.find((want) => want.contactId === result.sourceId)!.referralId, reason: `contact ${result.sourceId} could not be made in the CRM: ${result.error.code}: ${result.error.message}` });
    }
  }

  // Roles that link the two already are not made again.
  const opportunityIds = [...new Set(wanted.map((want) => want.opportunityId))];
  const existing = new Set((await context.crm.findWhereIn(link.object, link.opportunityField, opportunityIds, [link.contactField])).map((row) => `${row[link.opportunityField]}:${row[link.contactField]}`));
  const roles = new Map<string, { referralId: string; fields: CrmRecord }>();
  for (const want of wanted) {
    const contactId = crmIdByContact.get(want.contactId);
    const key = `${want.opportunityId}:${contactId}`;
    if (contactId && !existing.has(key)) roles.set(key, { referralId: want.referralId, fields: link.fields(want.opportunityId, contactId) });
  }
  const created = roles.size ? await context.crm.insert(link.object, [...roles.values()].map((role, index) => ({ sourceId: String(index), fields: role.fields })), { signal: context.signal }) : [];
  const list = [...roles.values()];
  created.forEach((result, index) => {
    if (!result.ok) problems.push({ sourceId: list[index]!.referralId, reason: `a contact could not be attached to its Opportunity: ${result.error.code}: ${result.error.message}` });
  });
  return problems;
}
