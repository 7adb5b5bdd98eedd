// Writes of HubSpot CRM objects in batches of 100: upsert by a unique-value id property, update by
// HubSpot id, create. Results per record from 200 and 207 answers; a 400 or 409 that refuses a whole
// batch for one input is split in halves until that record stands alone, so the others still go.
// Contacts are one per email: a second commerce contact with an email HubSpot already holds becomes an
// update of that contact (the same person), reported with its id. HubSpot refuses a contact batch whole
// for one such email (contact-emails.ts): one read of the batch's emails finds every held one, and the
// rest is sent again.
import type { CrmRecordError, UpsertResult } from '../connector.ts';
import { createEmailHolders, EXISTING_CONTACT, splitSharedEmails } from './contact-emails.ts';
import { HubSpotCallError, type HubSpotTransport } from './transport.ts';

export const BATCH_SIZE = 100;

/** One record ready for the wire: HubSpot property values as text. */
export type WireWrite = { sourceId: string; properties: Record<string, string>; crmId?: string; idProperty?: string; idValue?: string };

type BatchAnswer = { results: { id: string; properties: Record<string, string | null>; _new?: boolean; new?: boolean }[]; errors?: { message: string; category: string; context?: Record<string, string[]> }[] };
type Mode = 'upsert' | 'update' | 'create';

export function createWriter(transport: HubSpotTransport) {
  const emailHolders = createEmailHolders(transport);
  async function send(object: string, mode: Mode, writes: WireWrite[], signal?: AbortSignal): Promise<BatchAnswer> {
    const what = `a batch ${mode} of ${writes.length} ${object}`;
    return transport.call(
      what,
      async (client) => {
        const api = client.crm.objects.batchApi;
        if (mode === 'upsert') return (await api.upsert(object, { inputs: writes.map((write) => ({ idProperty: write.idProperty!, id: write.idValue!, properties: { ...write.properties, [write.idProperty!]: write.idValue! } })) })) as unknown as BatchAnswer;
        if (mode === 'update') return (await api.update(object, { inputs: writes.map((write) => ({ id: write.crmId!, properties: write.properties })) })) as unknown as BatchAnswer;
        return (await api.create(object, { inputs: writes.map((write) => ({ properties: write.properties, associations: [] })) })) as unknown as BatchAnswer;
      },
      { signal },
    );
  }

  /**
   * One batch; a whole-batch refusal (400, or 409 for a unique value) is split until it names the one
   * record it is about. A contact batch refused for an email another contact holds is first answered by
   * one read of its emails (`emailsRead`: done once, so a second refusal splits and nothing loops).
   */
  async function batch(object: string, mode: Mode, writes: WireWrite[], signal?: AbortSignal, emailsRead = false): Promise<UpsertResult[]> {
    try {
      return matchResults(object, mode, writes, await send(object, mode, writes, signal));
    } catch (error) {
      if (!(error instanceof HubSpotCallError) || (error.info.status !== 400 && error.info.status !== 409)) throw error;
      if (error.info.status === 409 && object === 'contacts' && !emailsRead && EXISTING_CONTACT.test(error.info.message)) {
        const answered = await heldEmails(mode, writes, error, signal);
        if (answered) return answered;
      }
      if (writes.length === 1) return [{ sourceId: writes[0]!.sourceId, ok: false, error: recordError(error.info.category ?? (error.info.status === 409 ? 'CONFLICT' : 'VALIDATION_ERROR'), error.info.message) }];
      // Halves of a 400 may still read their emails once; halves of a 409 no longer do.
      const read = emailsRead || error.info.status === 409;
      const half = Math.ceil(writes.length / 2);
      return [...(await batch(object, mode, writes.slice(0, half), signal, read)), ...(await batch(object, mode, writes.slice(half), signal, read))];
    }
  }

  /**
   * A contact batch refused for an email another contact holds: the writes meeting a held email are
   * answered with HubSpot's CONFLICT naming their contact (mergeContactsByEmail makes each an update of
   * it), the others are sent again. Undefined when the read finds none to set apart (the batch is split).
   */
  async function heldEmails(mode: Mode, writes: WireWrite[], refusal: HubSpotCallError, signal?: AbortSignal): Promise<UpsertResult[] | undefined> {
    const held = await emailHolders.held(writes, signal);
    if (held.size === 0) return undefined;
    const rest = writes.filter((write) => !held.has(write));
    const again = new Map<WireWrite, UpsertResult>();
    if (rest.length) (await batch('contacts', mode, rest, signal, true)).forEach((result, index) => again.set(rest[index]!, result));
    return writes.map((write) => {
      const holder = held.get(write);
      return holder === undefined ? again.get(write)! : { sourceId: write.sourceId, ok: false, error: recordError(refusal.info.category ?? 'CONFLICT', `Contact already exists. Existing ID: ${holder}`) };
    });
  }

  /** Results in input order: successes by id (or id property), errors by what their context names. */
  function matchResults(object: string, mode: Mode, writes: WireWrite[], answer: BatchAnswer): UpsertResult[] {
    const results: (UpsertResult | undefined)[] = writes.map(() => undefined);
    const byKey = new Map<string, number>();
    writes.forEach((write, index) => byKey.set(mode === 'update' ? write.crmId! : mode === 'upsert' ? write.idValue! : `#${index}`, index));
    const unmatched: BatchAnswer['results'] = [];
    for (const result of answer.results ?? []) {
      const key = mode === 'update' ? result.id : mode === 'upsert' ? (writes[0]?.idProperty === 'hs_object_id' ? result.id : String(result.properties?.[writes[0]!.idProperty!] ?? '')) : undefined;
      const index = key === undefined ? undefined : byKey.get(key);
      if (index === undefined || results[index]) unmatched.push(result);
      else results[index] = { sourceId: writes[index]!.sourceId, ok: true, crmId: String(result.id), created: mode === 'create' ? true : Boolean(result._new ?? result.new) };
    }
    // Creates carry no key: HubSpot answers them in input order when all succeed.
    if (mode === 'create' && unmatched.length === writes.length && !answer.errors?.length) {
      return writes.map((write, index) => ({ sourceId: write.sourceId, ok: true, crmId: String(unmatched[index]!.id), created: true }));
    }
    for (const error of answer.errors ?? []) {
      const index = writes.findIndex((write, i) => !results[i] && names(error.context, write));
      const at = index >= 0 ? index : results.findIndex((result) => !result);
      if (at >= 0) results[at] = { sourceId: writes[at]!.sourceId, ok: false, error: recordError(error.category, error.message) };
    }
    return results.map(
      (result, index) =>
        result ?? { sourceId: writes[index]!.sourceId, ok: false, error: recordError('NO_RESULT', `HubSpot's answer to the batch ${mode} of ${object} did not mention this record`) },
    );
  }

  /** Upserts, updates and creates apart, in batches of 100; one result per write. */
  async function writeGroups(object: string, writes: WireWrite[], results: Map<WireWrite, UpsertResult>, signal?: AbortSignal): Promise<void> {
    const groups: [Mode, WireWrite[]][] = [
      ['update', writes.filter((write) => write.crmId)],
      ['upsert', writes.filter((write) => !write.crmId && write.idProperty)],
      ['create', writes.filter((write) => !write.crmId && !write.idProperty)],
    ];
    for (const [mode, group] of groups) {
      for (let start = 0; start < group.length; start += BATCH_SIZE) {
        const chunk = group.slice(start, start + BATCH_SIZE);
        const answers = await batch(object, mode, chunk, signal);
        chunk.forEach((write, index) => results.set(write, answers[index]!));
      }
    }
  }

  /**
   * Contacts: one email per batch (the first write of each leads), then each follower becomes an update
   * of the contact its leader wrote; a follower whose leader failed is written in a later round.
   */
  async function writeContacts(writes: WireWrite[], results: Map<WireWrite, UpsertResult>, signal?: AbortSignal): Promise<void> {
    const { leaders, followers } = splitSharedEmails(writes);
    await writeGroups('contacts', leaders, results, signal);
    const later = new Set<WireWrite>();
    for (const [follower, leader] of followers) {
      const led = results.get(leader)!;
      // The leader's contact: the one it wrote, or the one holding its email that it merges into.
      const contact = led.ok ? led.crmId : EXISTING_CONTACT.exec(led.error.message)?.[1];
      if (contact) results.set(follower, { sourceId: follower.sourceId, ok: false, error: recordError('CONFLICT', `Contact already exists. Existing ID: ${contact}`) });
      else later.add(follower);
    }
    await mergeContactsByEmail(writes.filter((write) => !later.has(write)), results, signal);
    if (later.size) await writeContacts([...later], results, signal);
  }

  return {
    batch,
    /** Writes in batches of 100, upserts, updates and creates apart; one result per write, in order. */
    async write(object: string, writes: WireWrite[], signal?: AbortSignal): Promise<UpsertResult[]> {
      const results = new Map<WireWrite, UpsertResult>();
      if (object === 'contacts') await writeContacts(writes, results, signal);
      else await writeGroups(object, writes, results, signal);
      return writes.map((write) => results.get(write)!);
    },
  };

  /**
   * A contact refused because its email is held (HubSpot's CONFLICT naming the contact, per record or
   * found after a whole-batch refusal): that contact is the same person; it is updated instead.
   */
  async function mergeContactsByEmail(writes: WireWrite[], results: Map<WireWrite, UpsertResult>, signal?: AbortSignal): Promise<void> {
    const merges = writes.flatMap((write) => {
      const result = results.get(write)!;
      const existing = !result.ok ? EXISTING_CONTACT.exec(result.error.message)?.[1] : undefined;
      if (!existing) return [];
      const properties = Object.fromEntries(Object.entries(write.properties).filter(([name]) => name !== write.idProperty));
      return [{ write, update: { sourceId: write.sourceId, crmId: existing, properties } }];
    });
    for (let start = 0; start < merges.length; start += BATCH_SIZE) {
      const chunk = merges.slice(start, start + BATCH_SIZE);
      // Two commerce contacts merging into one HubSpot contact in one batch: one update for it is enough.
      const unique = [...new Map(chunk.map((merge) => [merge.update.crmId, merge.update])).values()];
      const answers = new Map((await batch('contacts', 'update', unique, signal)).map((result, index) => [unique[index]!.crmId, result]));
      for (const merge of chunk) {
        const answer = answers.get(merge.update.crmId)!;
        results.set(merge.write, answer.ok ? { sourceId: merge.write.sourceId, ok: true, crmId: answer.crmId, created: false } : { ...answer, sourceId: merge.write.sourceId });
      }
    }
  }
}

/** Whether a 207 error's context names this write (its id, its id property's value, or a value it sends). */
function names(context: Record<string, string[]> | undefined, write: WireWrite): boolean {
  if (!context) return false;
  return Object.entries(context).some(([key, values]) =>
    (values ?? []).some((value) => {
      if (key === 'ids' || key === 'id') return value === write.crmId || value === write.idValue;
      const sent = key === write.idProperty ? write.idValue : write.properties[key];
      return sent !== undefined && sent.toLowerCase() === String(value).toLowerCase();
    }),
  );
}

function recordError(code: string, message: string): CrmRecordError {
  return { code, message };
}
