// Associations v4: after records are written, each reference a mapping gave (`companies:
// {commerce_buyer_id: 'b1'}`, `contacts: [{commerce_contact_id: 'c1'}, ...]`) becomes a default
// association to the record it names. Target ids come from the sync's record links first, else from one
// batch read by the id property per target object and 100 values. Associations are idempotent: made
// again on every write, they change nothing. HubSpot answers a batch of them 200 and lists in `errors`
// the inputs it refused (a record deleted or merged away, an association limit reached): each refused
// record's result says so in HubSpot's words, the record itself stays written. A target id from a record
// link that HubSpot says is not valid is read again once by its id property (the buyer may have been
// written again under a new id) and that pair sent again with the id found.
import type { UpsertResult } from '../connector.ts';
import { HubSpotCallError, type HubSpotTransport } from './transport.ts';
import { errorBody } from './errors.ts';
import { BATCH_SIZE } from './writes.ts';

/** HubSpot takes this many associations in one batch call. */
export const ASSOCIATION_BATCH = 2000;

export type Reference = { target: string; idProperty: string; value: string };
type Pair = { from: string; to: string };
/** A per-input error of a batch answer (the spec's StandardError). */
type InputError = { category?: string; message?: string; context?: Record<string, string[] | undefined> };
type DefaultAnswer = { results?: { _from?: { id?: unknown }; from?: { id?: unknown }; to?: { id?: unknown } }[]; errors?: InputError[] };
export type Associating = { sourceId: string; crmId: string; references: Reference[]; known?: Record<string, string> };

export function createAssociations(transport: HubSpotTransport) {
  /** CRM ids of target records by their id property's value; values HubSpot does not hold are left out. */
  async function lookUp(target: string, idProperty: string, values: string[], signal?: AbortSignal): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    // A reference by the record's own id (a timeline task to its deal, issue #27 section 1) names it already.
    if (idProperty === 'hs_object_id') {
      for (const value of values) found.set(value, value);
      return found;
    }
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
      const linked = new Map<string, Reference[]>(); // `${target}|${id}` -> the references a stored link resolved to that id
      for (const item of items) {
        for (const reference of item.references) {
          const known = item.known?.[`${reference.idProperty}=${reference.value}`];
          if (known) {
            resolved.set(`${reference.target}|${reference.idProperty}=${reference.value}`, known);
            (linked.get(`${reference.target}|${known}`) ?? linked.set(`${reference.target}|${known}`, []).get(`${reference.target}|${known}`)!).push(reference);
          }
          else (wanted.get(`${reference.target}|${reference.idProperty}`) ?? wanted.set(`${reference.target}|${reference.idProperty}`, new Set()).get(`${reference.target}|${reference.idProperty}`)!).add(reference.value);
        }
      }
      for (const [key, values] of wanted) {
        const [target, idProperty] = key.split('|') as [string, string];
        const missing = [...values].filter((value) => !resolved.has(`${target}|${idProperty}=${value}`));
        for (const [value, id] of await lookUp(target, idProperty, missing, signal)) resolved.set(`${target}|${idProperty}=${value}`, id);
      }

      const pairs = new Map<string, Pair[]>(); // target -> associations
      const owners = new Map<string, Set<string>>(); // `${target}|${from}>${to}` -> the records asking for it
      for (const item of items) {
        const absent: string[] = [];
        for (const reference of item.references) {
          const id = resolved.get(`${reference.target}|${reference.idProperty}=${reference.idProperty === 'email' ? reference.value.toLowerCase() : reference.value}`);
          if (id) {
            (pairs.get(reference.target) ?? pairs.set(reference.target, []).get(reference.target)!).push({ from: item.crmId, to: id });
            const key = `${reference.target}|${item.crmId}>${id}`;
            (owners.get(key) ?? owners.set(key, new Set()).get(key)!).add(item.sourceId);
          } else absent.push(`${reference.target} with ${reference.idProperty} ${reference.value}`);
        }
        if (absent.length) {
          results.set(item.sourceId, {
            sourceId: item.sourceId,
            ok: false,
            error: { code: 'ASSOCIATION_TARGET_MISSING', message: `Written to HubSpot as ${object} ${item.crmId}, but it could not be associated: HubSpot holds no ${absent.join(', no ')}. It is associated when the sync retries it after that record reaches HubSpot.` },
          });
        }
      }
      /** Sends one target's associations; answers the pairs HubSpot refused, each with its error. */
      async function send(target: string, associations: Pair[]): Promise<Map<Pair, InputError>> {
        const refused = new Map<Pair, InputError>();
        const unique = [...new Map(associations.map((pair) => [`${pair.from}>${pair.to}`, pair])).values()];
        for (let start = 0; start < unique.length; start += ASSOCIATION_BATCH) {
          const chunk = unique.slice(start, start + ASSOCIATION_BATCH);
          const answer = (await transport
            .call(
              `associating ${chunk.length} ${object} to ${target}`,
              (client) => client.crm.associations.v4.batchApi.createDefault(object, target, { inputs: chunk.map((pair) => ({ _from: { id: pair.from }, to: { id: pair.to } })) }),
              { signal },
            )
            .catch((error: unknown) => multiStatus(error) ?? Promise.reject(error))) as DefaultAnswer;
          for (const [pair, error] of refusedPairs(chunk, answer)) refused.set(pair, error);
        }
        return refused;
      }

      const refusals = new Map<string, string[]>(); // sourceId -> what HubSpot refused, in its words
      for (const [target, associations] of pairs) {
        const refused = await send(target, associations);
        // A stored link naming a record HubSpot no longer holds (deleted, or merged away): the buyer may be
        // there again under a new id (the sync wrote it again), so it is read once more by its id property
        // and the pair sent again with the id found; otherwise every retry would be refused the same way.
        const stale = [...refused].filter(([pair, error]) => linked.has(`${target}|${pair.to}`) && namesInvalid(error, pair.to));
        if (stale.length > 0) {
          const byProperty = new Map<string, Set<string>>();
          for (const [pair] of stale) for (const reference of linked.get(`${target}|${pair.to}`)!) (byProperty.get(reference.idProperty) ?? byProperty.set(reference.idProperty, new Set()).get(reference.idProperty)!).add(reference.value);
          const found = new Map<string, string>(); // `${idProperty}=${value}` -> id HubSpot holds now
          for (const [idProperty, values] of byProperty) {
            for (const [value, id] of await lookUp(target, idProperty, [...values], signal)) found.set(`${idProperty}=${value}`, id);
          }
          const renewed = new Map<Pair, Pair>(); // stale pair -> the pair with the id found
          for (const [pair] of stale) {
            const id = linked
              .get(`${target}|${pair.to}`)!
              .map((reference) => found.get(`${reference.idProperty}=${reference.idProperty === 'email' ? reference.value.toLowerCase() : reference.value}`))
              .find((candidate) => candidate !== undefined && candidate !== pair.to);
            if (!id) continue;
            const fresh = { from: pair.from, to: id };
            renewed.set(pair, fresh);
            const key = `${target}|${fresh.from}>${fresh.to}`;
            for (const sourceId of owners.get(`${target}|${pair.from}>${pair.to}`) ?? []) (owners.get(key) ?? owners.set(key, new Set()).get(key)!).add(sourceId);
          }
          if (renewed.size > 0) {
            const refusedAgain = await send(target, [...renewed.values()]);
            const again = new Map([...refusedAgain].map(([pair, error]) => [`${pair.from}>${pair.to}`, { pair, error }]));
            for (const [stalePair, fresh] of renewed) {
              refused.delete(stalePair);
              const answer = again.get(`${fresh.from}>${fresh.to}`);
              if (answer) refused.set(answer.pair, answer.error);
            }
          }
        }
        for (const [pair, error] of refused) {
          for (const sourceId of owners.get(`${target}|${pair.from}>${pair.to}`) ?? []) {
            (refusals.get(sourceId) ?? refusals.set(sourceId, []).get(sourceId)!).push(`${target} ${pair.to}: ${inWords(error)}`);
          }
        }
      }
      for (const [sourceId, refused] of refusals) {
        const item = items.find((candidate) => candidate.sourceId === sourceId)!;
        const sentence = `HubSpot refused its association${refused.length > 1 ? 's' : ''} to ${refused.join('; to ')}. It is associated again when the sync retries it.`;
        const before = results.get(sourceId);
        results.set(
          sourceId,
          before && !before.ok
            ? { ...before, error: { ...before.error, message: `${before.error.message} ${sentence}` } }
            : { sourceId, ok: false, error: { code: 'ASSOCIATION_REFUSED', message: `Written to HubSpot as ${object} ${item.crmId}, but ${sentence}` } },
        );
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

/**
 * The inputs of one batch HubSpot refused, each with its error. An error names its input in its context:
 * the record that no longer exists (objectId, INVALID_OBJECT_IDS "COMPANY=123 is not valid") or both
 * records of the pair; the pair it names exactly wins, else every pair holding the id it names. An error
 * naming no pair stands for the inputs the answer does not list as made.
 */
export function refusedPairs(chunk: Pair[], answer: DefaultAnswer): Map<Pair, InputError> {
  const refused = new Map<Pair, InputError>();
  const errors = answer.errors ?? [];
  if (errors.length === 0) return refused;
  const unnamed: InputError[] = [];
  for (const error of errors) {
    const named = new Set(
      Object.values(error.context ?? {})
        .flatMap((values) => values ?? [])
        .flatMap((value) => [String(value), ...(/=(\S+) is not valid/.exec(String(value))?.slice(1) ?? [])]),
    );
    const exact = chunk.filter((pair) => named.has(pair.from) && named.has(pair.to));
    const hit = exact.length > 0 ? exact : chunk.filter((pair) => named.has(pair.from) || named.has(pair.to));
    if (hit.length === 0) unnamed.push(error);
    for (const pair of hit) if (!refused.has(pair)) refused.set(pair, error);
  }
  if (unnamed.length > 0) {
    const made = new Set((answer.results ?? []).map((result) => `${String((result._from ?? result.from)?.id)}>${String(result.to?.id)}`));
    for (const pair of chunk) if (!made.has(`${pair.from}>${pair.to}`) && !refused.has(pair)) refused.set(pair, unnamed[0]!);
  }
  return refused;
}

/** Whether HubSpot refused an input because `id` names no record it holds (INVALID_OBJECT_IDS "COMPANY=123 is not valid"). */
function namesInvalid(error: InputError, id: string): boolean {
  return (error.context?.INVALID_OBJECT_IDS ?? []).some((value) => value === id || /=(\S+) is not valid/.exec(String(value))?.[1] === id);
}

/** HubSpot's message for a refused input, with the ids it says are not valid and what that means. */
function inWords(error: InputError): string {
  const invalid = error.context?.INVALID_OBJECT_IDS ?? [];
  const message = error.message || `HubSpot refused it (${error.category ?? 'no reason given'})`;
  return invalid.length > 0 ? `${message} (${invalid.join(', ')}: HubSpot no longer holds ${invalid.length > 1 ? 'these records' : 'that record'}, deleted or merged into another)` : message;
}

/**
 * A 207 to batch associate default: the client accepts only 200 there and throws the answer at us as an
 * error whose body it read as an Error, which keeps each refused input's message and context under
 * `errors` and drops `results` (so an error naming no input stands for the whole batch; made again,
 * associations change nothing). Anything else: undefined.
 */
export function multiStatus(error: unknown): DefaultAnswer | undefined {
  if (!(error instanceof HubSpotCallError) || error.info.status < 200 || error.info.status > 299) return undefined;
  const body = errorBody(error.cause);
  const { errors, results } = (body ?? {}) as { errors?: unknown; results?: unknown };
  return {
    results: Array.isArray(results) ? (results as DefaultAnswer['results']) : [],
    errors: Array.isArray(errors) && errors.length > 0 ? (errors as InputError[]) : [{ category: `HTTP_${error.info.status}`, message: error.info.message }],
  };
}
