// HubSpot keeps one contact per email, and a contact batch that would give an email to a second contact
// is refused whole: one 409 "Contact already exists. Existing ID: N" naming only the first holder it
// met, nothing written (HubSpot/hubspot-api-python#51; airbytehq/airbyte#76340 for batch upsert). So
// a batch never carries one email twice, and after such a refusal one read of the batch's emails says
// which inputs meet a contact HubSpot already holds: those become updates of that contact (the same
// person), the others are sent again.
import type { HubSpotTransport } from './transport.ts';

/** HubSpot reads at most 100 records by id property in one batch. */
const READ_BATCH = 100;

type Write = { properties: Record<string, string>; crmId?: string; idProperty?: string; idValue?: string };

export const EXISTING_CONTACT = /Contact already exists\. Existing ID: (\d+)/;

/** HubSpot compares emails without case. */
export const emailOf = (write: Write): string | undefined => write.properties.email?.trim().toLowerCase() || undefined;

/**
 * The first write of each email leads; a later write of the same email follows it (it becomes an update
 * of the contact its leader writes), so no batch gives one email to two contacts.
 */
export function splitSharedEmails<W extends Write>(writes: W[]): { leaders: W[]; followers: Map<W, W> } {
  const first = new Map<string, W>();
  const leaders: W[] = [];
  const followers = new Map<W, W>();
  for (const write of writes) {
    const email = emailOf(write);
    const leader = email === undefined ? undefined : first.get(email);
    if (leader) followers.set(write, leader);
    else {
      if (email !== undefined) first.set(email, write);
      leaders.push(write);
    }
  }
  return { leaders, followers };
}

export function createEmailHolders(transport: HubSpotTransport) {
  /** The contacts HubSpot holds for these emails (lower case), with their value of `idProperty`. */
  async function holders(emails: string[], idProperty: string | undefined, signal?: AbortSignal): Promise<Map<string, { id: string; idValue?: string }>> {
    const found = new Map<string, { id: string; idValue?: string }>();
    const properties = ['email', ...(idProperty && idProperty !== 'email' ? [idProperty] : [])];
    for (let start = 0; start < emails.length; start += READ_BATCH) {
      const chunk = emails.slice(start, start + READ_BATCH);
      const answer = (await transport.call(
        `reading ${chunk.length} contacts by email`,
        (client) => client.crm.objects.batchApi.read('contacts', { idProperty: 'email', inputs: chunk.map((id) => ({ id })), properties, propertiesWithHistory: [] }),
        { signal },
      )) as { results: { id: string; properties: Record<string, string | null> }[] };
      for (const record of answer.results ?? []) {
        const email = record.properties?.email?.toLowerCase();
        if (email) found.set(email, { id: String(record.id), idValue: idProperty ? (record.properties[idProperty] ?? undefined) : undefined });
      }
    }
    return found;
  }

  return {
    /**
     * The writes of a refused batch whose email another contact holds, each with that contact's id. A
     * write's own contact holding its email is no conflict: the contact it updates, or for an upsert the
     * contact holding its id property's value.
     */
    async held<W extends Write>(writes: W[], signal?: AbortSignal): Promise<Map<W, string>> {
      const emails = [...new Set(writes.flatMap((write) => emailOf(write) ?? []))];
      const found = await holders(emails, writes.find((write) => write.idProperty)?.idProperty, signal);
      const held = new Map<W, string>();
      for (const write of writes) {
        const email = emailOf(write);
        const holder = email === undefined ? undefined : found.get(email);
        if (!holder) continue;
        const own = write.crmId !== undefined ? holder.id === write.crmId : write.idProperty !== undefined && holder.idValue === write.idValue;
        if (!own) held.set(write, holder.id);
      }
      return held;
    },
  };
}
