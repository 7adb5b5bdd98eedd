// An inbound referral's contacts, attached to the Opportunity made for it: each commerce contact is
// matched to a CRM Contact by email (never duplicated), made on the buyer's Account (keyed by its commerce
// id, so the contact sync later updates that same Contact) only when none has that email, and linked by an
// OpportunityContactRole unless one already links the two. Safe to run twice.
import pLimit from 'p-limit';
import type { Contact } from '../commerce/models.ts';
import type { AfterWriteContext } from './types.ts';

export async function attachReferralContacts(context: AfterWriteContext): Promise<{ sourceId: string; reason: string }[]> {
  const problems: { sourceId: string; reason: string }[] = [];
  const referrals = new Map(context.records.map((referral) => [referral.id as string, referral as { id: string; buyerID?: string; contactIds?: string[] }]));
  const wanted = context.linked.flatMap(({ sourceId, crmId }) => (referrals.get(sourceId)?.contactIds ?? []).map((contactId) => ({ referralId: sourceId, opportunityId: crmId, contactId })));
  if (wanted.length === 0) return problems;

  // The commerce contacts, for their emails and names.
  const limit = pLimit(8);
  const contacts = new Map<string, Contact>();
  await Promise.all(
    [...new Set(wanted.map((want) => want.contactId))].map((id) =>
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

  // Matched by email; a contact with no match is made on the buyer's Account.
  const emailOf = (contact: Contact | undefined) => (typeof contact?.email === 'string' ? contact.email.trim().toLowerCase() : '');
  const emails = [...new Set([...contacts.values()].map(emailOf).filter(Boolean))];
  const crmIdByEmail = new Map((emails.length ? await context.crm.findWhereIn('Contact', 'Email', emails, ['Email']) : []).map((row) => [String(row.Email).toLowerCase(), String(row.Id)]));
  const toMake = [...contacts.values()].filter((contact) => !crmIdByEmail.has(emailOf(contact)));
  const crmIdByContact = new Map<string, string>();
  for (const contact of contacts.values()) {
    const matched = crmIdByEmail.get(emailOf(contact));
    if (matched) crmIdByContact.set(contact.id, matched);
  }
  if (toMake.length > 0) {
    const buyerOf = new Map(wanted.map((want) => [want.contactId, referrals.get(want.referralId)?.buyerID]));
    const made = await context.crm.upsert(
      'Contact',
      toMake.map((contact) => ({
        sourceId: contact.id,
        externalIdField: 'Commerce_Contact_Id__c',
        externalId: contact.id,
        fields: {
          FirstName: contact.firstName ?? null,
          LastName: contact.lastName || contact.email || contact.id,
          Email: contact.email ?? null,
          ...(buyerOf.get(contact.id) && { Account: { Commerce_Buyer_Id__c: buyerOf.get(contact.id) } }),
        },
      })),
      { signal: context.signal },
    );
    for (const result of made) {
      if (result.ok) crmIdByContact.set(result.sourceId, result.crmId);
      else problems.push({ sourceId: wanted.find((want) => want.contactId === result.sourceId)!.referralId, reason: `contact ${result.sourceId} could not be made in the CRM: ${result.error.code}: ${result.error.message}` });
    }
  }

  // Roles that link the two already are not made again.
  const opportunityIds = [...new Set(wanted.map((want) => want.opportunityId))];
  const existing = new Set((await context.crm.findWhereIn('OpportunityContactRole', 'OpportunityId', opportunityIds, ['ContactId'])).map((role) => `${role.OpportunityId}:${role.ContactId}`));
  const roles = new Map<string, { referralId: string; fields: { OpportunityId: string; ContactId: string } }>();
  for (const want of wanted) {
    const contactId = crmIdByContact.get(want.contactId);
    const key = `${want.opportunityId}:${contactId}`;
    if (contactId && !existing.has(key)) roles.set(key, { referralId: want.referralId, fields: { OpportunityId: want.opportunityId, ContactId: contactId } });
  }
  const created = roles.size ? await context.crm.insert('OpportunityContactRole', [...roles.values()].map((role, index) => ({ sourceId: String(index), fields: role.fields })), { signal: context.signal }) : [];
  const list = [...roles.values()];
  created.forEach((result, index) => {
    if (!result.ok) problems.push({ sourceId: list[index]!.referralId, reason: `a contact could not be attached to its Opportunity: ${result.error.code}: ${result.error.message}` });
  });
  return problems;
}
