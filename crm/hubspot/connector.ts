// The HubSpot connector (crmB): @hubspot/api-client 14, unmodified, against one account. Records go out
// as HubSpot properties (text on the wire), deal pipelines and stages by label (translated to HubSpot's
// ids here), and references in the mapped fields become associations v4 after the write. Reads return
// HubSpot's property text with hs_object_id and hs_lastmodifieddate, deal pipelines and stages as labels.
import { hasOneOf, searchAlternatives } from './record-filter.ts';
import { ENTITLEMENT_OBJECT } from '../../mappings/hubspot/schema.ts';
import type { CrmSettings } from '../../sync/connection-settings.ts';
import type { ConnectionSecrets } from '../../sync/connection-settings.ts';
import { CrmError, type CrmConnector, type CrmRecord, type FieldSchema, type ObjectSchema, type UpsertResult } from '../connector.ts';
import { defaultCurrencyOnce } from '../default-currency.ts';
import { companyCurrencyOf } from './account-info.ts';
import { createAssociations, type Associating, type Reference } from './associations.ts';
import { createOnce, type CreateOnceOptions } from './create-once.ts';
import type { HubSpotCredentials } from './auth.ts';
import { createObjectTypes } from './object-types.ts';
import { ownerEmailOf } from './owners.ts';
import { createPipelineLabels } from './pipelines.ts';
import { createSearch, ID, STAMP } from './search.ts';
import { createHubSpotTransport, HubSpotCallError, type TransportOptions } from './transport.ts';
import { isReference, toWire } from './values.ts';
import { BATCH_SIZE, createWriter, type WireWrite } from './writes.ts';

export type HubSpotSettings = Extract<CrmSettings, { kind: 'hubspot' }>;

/** The objects a record may be associated to (the pseudo-fields describe() lists for references). */
const ASSOCIABLE = ['companies', 'contacts', 'deals', 'marketplace_entitlement', 'line_items'];
/** HubSpot's activities (notes, tasks): no unique-value property can be made on them (docs/crm-wire-behaviour.md). */
/**
 * Objects that take no unique-value properties (activities; products, docs/crm-wire-behaviour.md "Products
 * and line items"): their own text properties key a write all the same, found by a search before it.
 */
const NO_UNIQUE_VALUES = new Set(['notes', 'tasks', 'products']);
/** Deal properties that are pipelines and stages: labels in the worker, ids in HubSpot. */
const PIPELINE = 'pipeline';
const STAGE = 'dealstage';
/** HubSpot's object type ids, for links into its app. */
const OBJECT_TYPE_IDS: Record<string, string> = { contacts: '0-1', companies: '0-2', deals: '0-3', line_items: '0-8', tasks: '0-27', notes: '0-46' };

export function hubspotCredentials(settings: Pick<HubSpotSettings, 'auth' | 'clientId'>, secrets: Partial<ConnectionSecrets>): HubSpotCredentials {
  if (settings.auth === 'oauth') {
    const missing = [!settings.clientId && "the app's client id (settings)", !secrets.crmClientSecret && 'the client secret', !secrets.crmRefreshToken && 'the refresh token'].filter(Boolean);
    if (missing.length) throw new Error(`This HubSpot OAuth connection lacks ${missing.join(', ')}: save it again with crm-sync connect or edit`);
    return { auth: 'oauth', clientId: settings.clientId!, clientSecret: secrets.crmClientSecret!, refreshToken: secrets.crmRefreshToken! };
  }
  if (!secrets.crmAccessToken) throw new Error("This HubSpot connection lacks its private app's access token: save it again with crm-sync connect (HUBSPOT_ACCESS_TOKEN)");
  return { auth: 'private-app', accessToken: secrets.crmAccessToken };
}

export function createHubSpotConnector(
  settings: Omit<HubSpotSettings, 'kind'>,
  secrets: Partial<ConnectionSecrets>,
  tuning: { lookbackSeconds?: number } = {},
  overrides: Pick<TransportOptions, 'clock' | 'wait'> & { createOnce?: CreateOnceOptions } = {},
): CrmConnector & { figures(): ReturnType<ReturnType<typeof createHubSpotTransport>['figures']>; ownerEmail(ownerId: string): Promise<string | undefined> } {
  const { createOnce: createOnceOptions, ...transportOverrides } = overrides;
  const transport = createHubSpotTransport({
    baseUrl: settings.baseUrl,
    credentials: hubspotCredentials(settings, secrets),
    reservedShare: settings.reservedShare,
    searchPerSecond: settings.searchPerSecond,
    ...transportOverrides,
  });
  const pipelines = createPipelineLabels(transport);
  const writer = createWriter(transport);
  const associations = createAssociations(transport);
  const search = createSearch(transport);
  // Tasks keyed by a plain property, made once although search trails writes (create-once.ts: why).
  const once = createOnce(transport, createOnceOptions);
  // Object names become API names here only (a custom object by its objectTypeId, never its bare name).
  const types = createObjectTypes(transport, { [ENTITLEMENT_OBJECT]: settings.entitlementObjectTypeId });
  const api = (object: string, signal?: AbortSignal) => types.apiName(object, signal);
  /** The references' targets as API names. */
  const apiTargets = async (items: Associating[], signal?: AbortSignal): Promise<Associating[]> => {
    const targets = new Map<string, string>();
    for (const item of items) for (const reference of item.references) if (!targets.has(reference.target)) targets.set(reference.target, await api(reference.target, signal));
    return items.map((item) => ({ ...item, references: item.references.map((reference) => ({ ...reference, target: targets.get(reference.target)! })) }));
  };
  const schemas = new Map<string, Promise<ObjectSchema>>();
  const lookbackMs = (tuning.lookbackSeconds ?? 0) * 1000;

  async function describe(object: string): Promise<ObjectSchema> {
    let schema = schemas.get(object);
    if (!schema) {
      schema = readSchema(object);
      schemas.set(object, schema);
      schema.catch(() => schemas.delete(object));
    }
    return schema;
  }

  async function readSchema(object: string): Promise<ObjectSchema> {
    const apiName = await api(object);
    const answer = await transport.call(`reading the properties of ${object}`, (client) => client.crm.properties.coreApi.getAll(apiName));
    const fields = new Map<string, FieldSchema>();
    for (const property of answer.results) {
      const readOnly = Boolean(property.modificationMetadata?.readOnlyValue);
      fields.set(property.name, {
        name: property.name,
        type: property.type,
        required: false,
        createable: !readOnly,
        updateable: !readOnly,
        // Activities and products have no unique-value properties: their own text properties key a write
        // all the same, found by a search before it (heldByPlainKey), and say they are not unique.
        externalId: Boolean(property.hasUniqueValue) || (NO_UNIQUE_VALUES.has(object) && property.type === 'string' && !property.hubspotDefined),
        unique: Boolean(property.hasUniqueValue),
        ...(property.options?.length ? { picklistValues: property.options.map((option) => option.value), restrictedPicklist: property.type === 'enumeration' } : {}),
      });
    }
    if (object === 'deals') {
      // Pipelines and stages are written and read by label.
      for (const [name, values] of [[PIPELINE, await pipelines.pipelineLabels()], [STAGE, await pipelines.allStageLabels()]] as const) {
        const field = fields.get(name);
        if (field) fields.set(name, { ...field, picklistValues: values, restrictedPicklist: true });
      }
    }
    for (const target of ASSOCIABLE.filter((name) => name !== object)) {
      fields.set(target, { name: target, type: 'reference', required: false, createable: true, updateable: true, externalId: false, referenceTo: [target], relationshipName: target });
    }
    return { name: object, fields };
  }

  /** A mapped record as HubSpot properties and references, or why it cannot be written. */
  async function toWireRecord(object: string, fields: CrmRecord, currentPipeline?: string): Promise<{ properties: Record<string, string>; references: Reference[] } | { problem: string }> {
    const schema = await describe(object);
    const properties: Record<string, string> = {};
    const references: Reference[] = [];
    const missing: string[] = [];
    for (const [name, value] of Object.entries(fields)) {
      if (isReference(value)) {
        for (const reference of Array.isArray(value) ? value : [value]) {
          const [[idProperty, id]] = Object.entries(reference) as [[string, string]];
          if (id) references.push({ target: name, idProperty, value: String(id) });
        }
        continue;
      }
      if (!schema.fields.has(name)) missing.push(name);
      properties[name] = toWire(value);
    }
    if (missing.length) return { problem: `HubSpot's ${object} have no propert${missing.length > 1 ? 'ies' : 'y'} ${missing.join(', ')}: run crm-sync setup <connection> to create the project's properties` };
    if (object === 'deals' && properties[STAGE] && !properties[PIPELINE] && currentPipeline) {
      // A stage for a deal already in a pipeline: that pipeline's stage of that label. A label its
      // pipeline does not have is left out (a seller's deal keeps its own pipeline's stage).
      const ids = await pipelines.ids(currentPipeline, properties[STAGE]);
      if (ids.stageId) properties[STAGE] = ids.stageId;
      else delete properties[STAGE];
    } else if (object === 'deals' && (properties[PIPELINE] !== undefined || properties[STAGE] !== undefined)) {
      const ids = await pipelines.ids(properties[PIPELINE] || undefined, properties[STAGE] || undefined);
      if (ids.missing) return { problem: `HubSpot has no ${ids.missing}: run crm-sync setup <connection> to create the project's deal pipelines, or fix the connection's stage map` };
      if (ids.pipelineId) properties[PIPELINE] = ids.pipelineId;
      if (ids.stageId) properties[STAGE] = ids.stageId;
    }
    return { properties, references };
  }

  /** Writes (upsert, update or create), then associations; one result per item, in order. */
  async function writeAll(
    object: string,
    items: { sourceId: string; fields: CrmRecord; crmId?: string; idProperty?: string; idValue?: string; known?: Record<string, string> }[],
    signal?: AbortSignal,
    send: (apiName: string, writes: WireWrite[], signal?: AbortSignal) => Promise<UpsertResult[]> = writer.write,
  ): Promise<UpsertResult[]> {
    const results = new Map<string, UpsertResult>();
    const writes: WireWrite[] = [];
    const referencesOf = new Map<string, { references: Reference[]; known?: Record<string, string> }>();
    // Deals moved to a stage by id: the pipeline each is in, so the stage is that pipeline's.
    const staged = object === 'deals' ? items.filter((item) => item.crmId && item.fields[STAGE] !== undefined && item.fields[PIPELINE] === undefined).map((item) => item.crmId!) : [];
    const pipelineOf = new Map(staged.length ? (await readByIds('deals', staged, [PIPELINE])).map((deal) => [String(deal[ID]), deal[PIPELINE] as string | undefined]) : []);
    // That read also shows which of those ids name no deal in this portal (deleted, or carried from
    // another portal): they are answered as HubSpot would answer their update, without the call.
    const missing = new Set(staged.filter((id) => !pipelineOf.has(id)));
    for (const item of items) {
      if (item.crmId && missing.has(item.crmId)) {
        results.set(item.sourceId, { sourceId: item.sourceId, ok: false, error: { code: 'OBJECT_NOT_FOUND', message: `HubSpot has no deal with id ${item.crmId}` } });
        continue;
      }
      const wire = await toWireRecord(object, item.fields, item.crmId ? pipelineOf.get(item.crmId) : undefined);
      if ('problem' in wire) {
        results.set(item.sourceId, { sourceId: item.sourceId, ok: false, error: { code: 'SCHEMA_MISSING', message: wire.problem } });
        continue;
      }
      writes.push({ sourceId: item.sourceId, properties: wire.properties, crmId: item.crmId, idProperty: item.idProperty, idValue: item.idValue });
      referencesOf.set(item.sourceId, { references: wire.references, known: item.known });
    }
    const written = await send(await api(object, signal), writes, signal);
    written.forEach((result) => results.set(result.sourceId, result));
    const associating: Associating[] = written.flatMap((result) => {
      const refs = referencesOf.get(result.sourceId);
      return result.ok && refs?.references.length ? [{ sourceId: result.sourceId, crmId: result.crmId, references: refs.references, known: refs.known }] : [];
    });
    if (associating.length) await associations.associate(await api(object, signal), await apiTargets(associating, signal), results, signal);
    return items.map((item) => results.get(item.sourceId)!);
  }

  /** HubSpot's property text as the worker reads it: pipelines and stages as labels. */
  async function fromWire(object: string, records: { id: string; properties: Record<string, string | null> }[]): Promise<CrmRecord[]> {
    const labels = object === 'deals' ? await pipelines.labels() : undefined;
    return records.map((record) => {
      const properties: CrmRecord = { ...record.properties, [ID]: String(record.properties[ID] ?? record.id) };
      if (labels && typeof properties[PIPELINE] === 'string') properties[PIPELINE] = labels.pipeline(properties[PIPELINE] as string);
      if (labels && typeof properties[STAGE] === 'string') properties[STAGE] = labels.stage(properties[STAGE] as string);
      return properties;
    });
  }

  async function readByIds(object: string, ids: string[], fields: string[], idProperty?: string): Promise<CrmRecord[]> {
    const found: CrmRecord[] = [];
    const apiName = await api(object);
    for (let start = 0; start < ids.length; start += BATCH_SIZE) {
      const chunk = [...new Set(ids.slice(start, start + BATCH_SIZE))];
      const answer = (await transport.call(`reading ${chunk.length} ${object}`, (client) =>
        client.crm.objects.batchApi.read(apiName, { ...(idProperty && { idProperty }), inputs: chunk.map((id) => ({ id })), properties: [...new Set([...fields, ID, STAMP, ...(idProperty ? [idProperty] : [])])], propertiesWithHistory: [] }),
      )) as { results: { id: string; properties: Record<string, string | null> }[] };
      found.push(...(await fromWire(object, answer.results ?? [])));
    }
    return found;
  }

  /**
   * Where the records without a CRM id are keyed by a property that is not a unique-value one (a task's
   * commerce_event_id: HubSpot has no unique-value properties on activities), the ids of the records
   * already holding their key values, by value (the oldest where several do): the ones this connector
   * made moments ago (search may not show them yet), then a search of the property, believed once the
   * index has caught up with any create of those keys whose answer was lost or an earlier attempt made
   * (create-once.ts). Undefined where the key is a unique-value property and HubSpot upserts by it.
   */
  async function heldByPlainKey(object: string, items: { crmId?: string; externalIdField: string; externalId: string }[], signal?: AbortSignal, onProgress?: (detail: Record<string, unknown>) => void): Promise<{ field: string; type: string; held: Map<string, string> } | undefined> {
    const keyed = items.filter((item) => !item.crmId);
    const field = keyed[0]?.externalIdField;
    if (!field) return undefined;
    const definition = (await describe(object)).fields.get(field);
    if (!definition || definition.unique) return undefined;
    signal?.throwIfAborted();
    const apiName = await api(object);
    const keys = [...new Set(keyed.map((item) => item.externalId))];
    const { made, searchTrustedFrom } = once.recall(apiName, keys);
    const held = new Map(made);
    const unknown = keys.filter((key) => !held.has(key));
    for (const [key, id] of await searchKeys(apiName, field, unknown, definition.type, signal)) held.set(key, id);
    const missing = unknown.filter((key) => !held.has(key));
    // A create of these keys may have landed moments ago: looked for again once search shows it.
    if (missing.length && (await once.waitUntil(searchTrustedFrom, signal, onProgress))) {
      for (const [key, id] of await searchKeys(apiName, field, missing, definition.type, signal)) held.set(key, id);
    }
    return { field, type: definition.type, held };
  }

  /**
   * The oldest record holding each key, by a search of the property, keyed by the key as asked. HubSpot
   * finds a string property's values without case (IN takes them lowercased), so a record whose stored
   * value differs from a key only in case is found too: a key takes the record holding it exactly, else
   * one holding it in another case that no other key holds exactly (keys differing only in case are
   * never both written: docs/catalogue.md).
   */
  async function searchKeys(apiName: string, field: string, keys: string[], type: string, signal?: AbortSignal): Promise<Map<string, string>> {
    const held = new Map<string, string>();
    if (keys.length === 0) return held;
    const records = await search.whereIn(apiName, field, keys, [field, STAMP], signal, type);
    const asked = new Set(keys);
    const exact = new Map<string, string>();
    const folded = new Map<string, string>();
    for (const record of [...records].sort((a, b) => Number(a.id) - Number(b.id))) {
      const value = record.properties?.[field];
      if (typeof value !== 'string' || !value) continue;
      if (!exact.has(value)) exact.set(value, String(record.id));
      if (!asked.has(value) && !folded.has(value.toLowerCase())) folded.set(value.toLowerCase(), String(record.id));
    }
    for (const key of keys) {
      const id = exact.get(key) ?? (type === 'string' ? folded.get(key.toLowerCase()) : undefined);
      if (id) held.set(key, id);
    }
    return held;
  }

  return {
    kind: 'hubspot',
    idField: ID,
    stampField: STAMP,
    // Fifty batch calls of 100 per gather. A gather's records split into updates by id, upserts by key
    // and the retries of stale ids, each ending in a part-filled batch: with 500 a gather, a backfill
    // spent 1.24 times the fewest batch calls its volume allows (issue #14's target is 1.05).
    preferredBatch: 50 * BATCH_SIZE,
    figures: () => transport.figures(),
    /** An owner's email (alerts to the record's owner): HubSpot's owners are not objects, so not getById. */
    ownerEmail: (ownerId) => ownerEmailOf(transport, ownerId),

    async verify() {
      await pipelines.pipelineLabels();
      return { organizationId: settings.portalId, instanceUrl: settings.baseUrl };
    },
    describe,

    async upsert(object, items, options = {}) {
      const plain = await heldByPlainKey(object, items, options.signal, options.onProgress);
      if (plain) {
        // A key HubSpot cannot upsert by (activities have no unique-value properties): the records
        // already holding it (a write whose link was lost, say to a killed worker) are updated, the
        // others made with it, each create sent once (create-once.ts).
        const { field, type, held } = plain;
        return writeAll(
          object,
          items.map((item) => {
            const crmId = item.crmId ?? held.get(item.externalId);
            return { sourceId: item.sourceId, fields: crmId ? item.fields : { ...item.fields, [item.externalIdField]: item.externalId }, crmId, known: item.references };
          }),
          options.signal,
          async (apiName, writes, signal) => {
            const results = new Map<WireWrite, UpsertResult>();
            const updates = writes.filter((write) => write.crmId);
            const creates = writes.filter((write) => !write.crmId);
            (await writer.write(apiName, updates, signal)).forEach((result, index) => results.set(updates[index]!, result));
            (await once.create(apiName, field, creates, (keys) => searchKeys(apiName, field, keys, type, signal), signal, options.onProgress)).forEach((result, index) => results.set(creates[index]!, result));
            return writes.map((write) => results.get(write)!);
          },
        );
      }
      return writeAll(
        object,
        items.map((item) => ({ sourceId: item.sourceId, fields: item.fields, crmId: item.crmId, idProperty: item.crmId ? undefined : item.externalIdField, idValue: item.crmId ? undefined : item.externalId, known: item.references })),
        options.signal,
      );
    },
    update(object, items, options = {}) {
      return writeAll(object, items.map((item) => ({ sourceId: item.sourceId, fields: item.fields, crmId: item.crmId })), options.signal);
    },
    async associate(object, items, options = {}) {
      const results = new Map<string, UpsertResult>(items.map((item) => [item.sourceId, { sourceId: item.sourceId, ok: true, crmId: item.crmId, created: false }]));
      const associating: Associating[] = [];
      for (const item of items) {
        const wire = await toWireRecord(object, item.fields);
        if ('problem' in wire) results.set(item.sourceId, { sourceId: item.sourceId, ok: false, error: { code: 'SCHEMA_MISSING', message: wire.problem } });
        else if (Object.keys(wire.properties).length) throw new Error(`associate takes only references, not ${Object.keys(wire.properties).join(', ')}: write properties with upsert`);
        else if (wire.references.length) associating.push({ sourceId: item.sourceId, crmId: item.crmId, references: wire.references, known: item.references });
      }
      if (associating.length) await associations.associate(await api(object, options.signal), await apiTargets(associating, options.signal), results, options.signal);
      return items.map((item) => results.get(item.sourceId)!);
    },
    insert(object, items, options = {}) {
      return writeAll(object, items.map((item) => ({ sourceId: item.sourceId, fields: item.fields })), options.signal);
    },

    async *changedSince(object, options) {
      const start = options.afterId === undefined ? { time: new Date(options.since.getTime() - lookbackMs) } : { time: options.since, afterId: options.afterId };
      // IN values are lowercased for a string property only: the properties' types are read when a narrowing has one.
      const schema = options.narrow && hasOneOf(options.narrow) ? await describe(object) : undefined;
      const narrow = options.narrow && searchAlternatives(options.narrow, (field) => schema?.fields.get(field)?.type);
      for await (const page of search.changed(await api(object), start, options.until, options.fields, options.pageSize ?? 200, undefined, narrow)) yield await fromWire(object, page);
    },

    async getById(object, id, fields = []) {
      try {
        const apiName = await api(object);
        const record = await transport.call(`reading ${object} ${id}`, (client) => client.crm.objects.basicApi.getById(apiName, id, [...new Set([...fields, ID, STAMP])]));
        return (await fromWire(object, [record as never]))[0];
      } catch (error) {
        if (error instanceof HubSpotCallError && error.info.status === 404) return undefined;
        throw error;
      }
    },

    async findByExternalIds(object, externalIdField, values, fields = []) {
      const found = new Map<string, CrmRecord>();
      for (const record of await readByIds(object, values, fields, externalIdField)) found.set(String(record[externalIdField]), record);
      return found;
    },

    async findWhereIn(object, field, values, fields = []) {
      if (values.length === 0) return [];
      if (field === ID) return readByIds(object, values, fields);
      const wanted = new Set(values.map((value) => value.toLowerCase()));
      const type = (await describe(object)).fields.get(field)?.type;
      const records = await search.whereIn(await api(object), field, values, [...fields, STAMP], undefined, type);
      // HubSpot compares text without case: keep what holds one of the values.
      return (await fromWire(object, records)).filter((record) => wanted.has(String(record[field] ?? '').toLowerCase()));
    },

    associated: async (object, ids, toObject) => associations.associated(await api(object), ids, await api(toObject)),
    budget: () => transport.budget(),
    // A deal without deal_currency_code is in the account's company currency (docs/crm-wire-behaviour.md).
    defaultCurrency: defaultCurrencyOnce('HubSpot account', async () => companyCurrencyOf(await transport.accountDetails())),

    async recordUrl(crmId, object = 'deals') {
      // HubSpot ids are per object: the address names the object's type id (0-3 for deals, 2-... for a custom object).
      if (!settings.portalId) throw new CrmError('Links into HubSpot need the account id: save the connection with --hubspot-portal-id', { code: 'PORTAL_ID_MISSING', retryable: false });
      const apiName = await api(object);
      return `https://app.hubspot.com/contacts/${settings.portalId}/record/${OBJECT_TYPE_IDS[apiName] ?? apiName}/${crmId}`;
    },
  };
}
