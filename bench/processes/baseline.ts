// Benchmark child: the plain baseline a backfill is measured against (issue #14). It pages the same
// commerce data with the same client, maps it with the same mapping modules and writes it with the same
// CRM connector and batch sizes (Salesforce's Bulk API 2.0 jobs, HubSpot's batches of 100, Dataverse's
// $batch of 1,000), entity after entity, parents first, for the same entities as the sync (usage and its
// summaries included when the bench syncs them: the baseline does the same work, or the ratio would
// compare different jobs). A flow read whole when due (usage summaries) is read the same way here. No
// Temporal, no PostgreSQL: no links, no hashes, no cursor, no dead letters, no ids written back; the CRM
// ids of parents are kept in a Map.
// Environment: BENCH_BASELINE = JSON { sandboxes, kind, settings } (settings: the bench connection's extra settings). Its result is its ready message; the driver
// then asks for its memory and stops it.
import { createCommerceClient } from '../../commerce/index.ts';
import { createConnector, mappingsFor } from '../../crm/registry.ts';
import { FLOW_ORDER, FLOWS } from '../../flows/index.ts';
import { referencedRecords } from '../../sync/parents.ts';
import { planPage } from '../../sync/plan.ts';
import { readWindowBatch, type Position } from '../../sync/sources.ts';
import type { CrmKind } from '../crm-calls.ts';
import { failToDriver, serveDriver } from './ipc.ts';
import { fittedMapping } from '../../mappings/fit-to-schema.ts';
import { benchConnection, type SandboxesDescription } from './stack.ts';

export type BaselineResult = { seconds: number; recordsWritten: Record<string, number>; failed: number };

try {
  const { sandboxes, kind, settings: extra } = JSON.parse(process.env.BENCH_BASELINE ?? '') as { sandboxes: SandboxesDescription; kind: CrmKind; settings?: Record<string, unknown> };
  const { settings, secrets } = benchConnection(sandboxes, kind, extra);
  const commerce = createCommerceClient({ baseUrl: settings.commerce.baseUrl, authUrl: settings.commerce.authUrl, clientId: settings.commerce.clientId, clientSecret: secrets.commerceClientSecret });
  const crm = createConnector(settings, secrets, { lookbackSeconds: 0 });
  const mappings = mappingsFor(kind, settings.crm);
  const keyFields = Object.fromEntries(Object.entries(mappings).map(([entity, mapping]) => [entity, mapping!.externalIdField]));
  const orgId = settings.commerce.organizationId;
  const crmIds = new Map<string, string>();
  const result: BaselineResult = { seconds: 0, recordsWritten: {}, failed: 0 };

  const started = performance.now();
  const until = new Date();
  for (const entity of FLOW_ORDER.filter((name) => settings.entities.includes(name))) {
    if (!mappings[entity]) continue;
    // As the org takes it (a single-currency org gets no CurrencyIsoCode), like the sync's own writes.
    const mapping = await fittedMapping(crm, mappings[entity]);
    let cursor: Position = { time: new Date(0) };
    const readDue = FLOWS[entity].due;
    for (;;) {
      const batch = readDue
        ? { ...(await readDue(commerce, orgId, { now: until, settings, pageSize: settings.schedule.pageSize, linked: async (ids) => new Set(ids.filter((id) => crmIds.has(`${entity}:${id}`))) })), next: cursor, done: true }
        : await readWindowBatch(commerce, orgId, entity, { cursor, until }, settings.schedule.pageSize, crm.preferredBatch);
      const readRelated = FLOWS[entity].related;
      const related = readRelated && batch.records.length ? await readRelated(commerce, orgId, batch.records, {}) : undefined;
      const plan = planPage({ records: batch.records, related: (record: { id: string }) => related?.byRecord.get(record.id), mapping, links: new Map(), followCarriedIds: false });
      const items = plan.writes.map(({ item }) => {
        const references = Object.fromEntries(referencedRecords(item.fields, keyFields).flatMap((reference) => {
          const crmId = crmIds.get(`${reference.entity}:${reference.sourceId}`);
          return crmId ? [[reference.key, crmId]] : [];
        }));
        return Object.keys(references).length ? { ...item, references } : item;
      });
      const results = items.length ? await crm.upsert(mapping.object, items) : [];
      for (const outcome of results) {
        if (outcome.ok) crmIds.set(`${entity}:${outcome.sourceId}`, outcome.crmId);
        else result.failed += 1;
      }
      result.recordsWritten[entity] = (result.recordsWritten[entity] ?? 0) + results.filter((outcome) => outcome.ok).length;
      result.failed += plan.rejected.length + batch.rejected.length;
      cursor = batch.next;
      if (batch.done) break;
    }
  }
  result.seconds = (performance.now() - started) / 1000;
  serveDriver(result, async () => {});
} catch (error) {
  await failToDriver(error);
}
