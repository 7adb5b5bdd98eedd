// Associations v4: after records are written, each reference a mapping gave (`companies:
// {commerce_buyer_id: 'b1'}`, `contacts: [{commerce_contact_id: 'c1'}, ...]`) becomes a default
// association to the record it names. Target ids come from the sync's record links first, else from one
// batch read by the id property per target object and 100 values. Associations are idempotent: made
// again on every write, they change nothing.
import type { UpsertResult } from '../connector.ts';
import type { HubSpotTransport } from './transport.ts';
import { BATCH_SIZE } from './writes.ts';

/** HubSpot takes this many associations in one batch call. */
export const ASSOCIATION_BATCH = 2000;

export type Reference = { target: string; idProperty: string; value: string };
export type Associating = { sourceId: string; crmId: string; references: Reference[]; known?: Record<string, string> };

export function createAssociations(transport: HubSpotTransport) {
  /** CRM ids of target records by their id property's value; values HubSpot does not hold are left out. */
  async function lookUp(target: string, idProperty: string, values: string[], signal?: AbortSignal): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (let start = 0; start < values.length; start += BATCH_SIZE) {
      const chunk = values.slice(start, start + BATCH_SIZE);
      const answer = (await transport.call(
        `reading ${chunk.length} ${target} by ${idProperty}`,
        (client) => client.crm.objects.batchApi.read(target, { idProperty, inputs: chunk.map((id) => ({ id })), properties: [idProperty], propertiesWithHistory: [] }),
        { signal },
      )) as { results: { id: string; properties: Record<string, string | null> }[] };
      for (const record of answer.results ?? []) {
        const value = record.properties?.[idProperty];
        if (value) found.set(idProperty === 'email' ? value.toLowerCase() : value, String(record.id));
      }
    }
    return found;
  }

  return {
    lookUp,
    /**
     * Associates each written record to what its references name. A reference to a record HubSpot does
     * not hold turns that record's result into an error naming it (the record itself stays written, and
     * its retry associates it once the target is there).
     */
    async associate(object: string, items: Associating[], results: Map<string, UpsertResult>, signal?: AbortSignal): Promise<void> {
      const resolved = new Map<string, string>(); // `${target}|${idProperty}=${value}` -> id
      const wanted = new Map<string, Set<string>>(); // `${target}|${idProperty}` -> values to look up
      for (const item of items) {
        for (const reference of item.references) {
          const known = item.known?.[`${reference.idProperty}=${reference.value}`];
          if (known) resolved.set(`${reference.target}|${reference.idProperty}=${reference.value}`, known);
          else (wanted.get(`${reference.target}|${reference.idProperty}`) ?? wanted.set(`${reference.target}|${reference.idProperty}`, new Set()).get(`${reference.target}|${reference.idProperty}`)!).add(reference.value);
        }
      }
      for (const [key, values] of wanted) {
        const [target, idProperty] = key.split('|') as [string, string];
        const missing = [...values].filter((value) => !resolved.has(`${target}|${idProperty}=${value}`));
        for (const [value, id] of await lookUp(target, idProperty, missing, signal)) resolved.set(`${target}|${idProperty}=${value}`, id);
      }

      const pairs = new Map<string, { from: string; to: string }[]>(); // target -> associations
      for (const item of items) {
        const absent: string[] = [];
        for (const reference of item.references) {
          const id = resolved.get(`${reference.target}|${reference.idProperty}=${reference.idProperty === 'email' ? reference.value.toLowerCase() : reference.value}`);
          if (id) (pairs.get(reference.target) ?? pairs.set(reference.target, []).get(reference.target)!).push({ from: item.crmId, to: id });
          else absent.push(`${reference.target} with ${reference.idProperty} ${reference.value}`);
        }
        if (absent.length) {
          results.set(item.sourceId, {
            sourceId: item.sourceId,
            ok: false,
            error: { code: 'ASSOCIATION_TARGET_MISSING', message: `Written to HubSpot as ${object} ${item.crmId}, but it could not be associated: HubSpot holds no ${absent.join(', no ')}. It is associated when the sync retries it after that record reaches HubSpot.` },
          });
        }
      }
      for (const [target, associations] of pairs) {
        const unique = [...new Map(associations.map((pair) => [`${pair.from}>${pair.to}`, pair])).values()];
        for (let start = 0; start < unique.length; start += ASSOCIATION_BATCH) {
          const chunk = unique.slice(start, start + ASSOCIATION_BATCH);
          await transport.call(
            `associating ${chunk.length} ${object} to ${target}`,
            (client) => client.crm.associations.v4.batchApi.createDefault(object, target, { inputs: chunk.map((pair) => ({ _from: { id: pair.from }, to: { id: pair.to } })) }),
            { signal },
          );
        }
      }
    },

    /** The ids of `toObject` records associated to each of `ids`. */
    async associated(object: string, ids: string[], toObject: string): Promise<Map<string, string[]>> {
      const found = new Map<string, string[]>(ids.map((id) => [id, []]));
      for (let start = 0; start < ids.length; start += 1000) {
        const chunk = ids.slice(start, start + 1000);
        const answer = (await transport.call(`reading the ${toObject} of ${chunk.length} ${object}`, (client) =>
          client.crm.associations.v4.batchApi.getPage(object, toObject, { inputs: chunk.map((id) => ({ id })) }),
        )) as { results: { _from: { id: string }; to: { toObjectId: string | number }[] }[] };
        for (const result of answer.results ?? []) found.set(String(result._from.id), [...new Set(result.to.map((to) => String(to.toObjectId)))]);
      }
      return found;
    },
  };
}
