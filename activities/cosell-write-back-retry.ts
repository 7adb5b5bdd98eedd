// Write-backs of the co-sell flows that the CRM refused (issue #24 item 7): the outcome of a create or a
// refusal could not be written onto the Opportunity (a validation rule, a locked record), so it became a
// dead letter under the flow's name. When its retry time comes (or `crm-sync dead-letters --retry` made
// it due now), the intent row says what the outcome was: made (the commerce record is read again, so the
// record shows its status and stage as they are now) or refused (its words). The outcome is written
// again; a letter written resolves, one refused again counts an attempt and backs off.
import { fitWriteBack } from '../flows/fit-write-back.ts';
import type { ConnectionRuntime } from '../sync/runtime.ts';
import type { CrmToCommerceFlow, Made } from '../flows/crm-to-commerce.ts';
import type { CrmRecord } from '../crm/connector.ts';
import type { DeadLetterStore } from '../store/dead-letters.ts';
import type { OutboundIntentStore } from '../store/outbound-intents.ts';
import { guard } from './failures.ts';

export type WriteBackRetryCounts = { due: number; writeBacks: number; failed: number };

export async function retryFlowWriteBacks(input: {
  rt: ConnectionRuntime;
  connectionId: string;
  flow: CrmToCommerceFlow<any>;
  deadLetters: DeadLetterStore;
  intents: OutboundIntentStore;
  maxAttempts: number;
  now: Date;
  signal?: AbortSignal;
}): Promise<WriteBackRetryCounts> {
  const { rt, flow, connectionId } = input;
  const side = flow.crm[rt.crm.kind];
  const counts: WriteBackRetryCounts = { due: 0, writeBacks: 0, failed: 0 };
  if (!side) return counts;
  const due = await input.deadLetters.due(connectionId, flow.name, { maxAttempts: input.maxAttempts, limit: 200, now: input.now });
  counts.due = due.length;
  if (due.length === 0) return counts;
  const known = await input.intents.get(connectionId, flow.name, due.map((letter) => letter.sourceId));
  const made = [...known.values()].filter((intent) => intent.state === 'created' && intent.commerceId);
  // The commerce record as it is now (its status and stage may have moved since it was made).
  const fresh = made.length ? await guard(() => flow.target.findByCrmIds(rt.commerce, rt.settings.commerce.organizationId, made.map((intent) => intent.crmId), rt.crm.kind)) : new Map<string, Made>();
  const items: { sourceId: string; crmId: string; fields: CrmRecord }[] = [];
  for (const letter of due) {
    const intent = known.get(letter.sourceId);
    // A create still pending has no outcome to write yet: the flow writes it once the create is settled.
    if (intent?.state === 'created' && intent.commerceId) {
      const current = fresh.get(intent.crmId);
      const fields = side.made(current?.id === intent.commerceId ? current : { id: intent.commerceId });
      // A later step the commerce side refused (a submission again) keeps its reasons on the record.
      items.push({ sourceId: intent.crmId, crmId: intent.crmId, fields: intent.message && side.refusedAfterMade ? { ...fields, ...side.refusedAfterMade(intent.message) } : fields });
    } else if (intent?.state === 'refused' && intent.message) items.push({ sourceId: intent.crmId, crmId: intent.crmId, fields: side.refused(intent.message) });
  }
  if (items.length === 0) return counts;
  // As this org takes them: an optional field it lacks is left out (flows/fit-write-back.ts), as the flow's own write-back does.
  const schema = await guard(() => rt.crm.describe(side.object));
  for (const item of items) item.fields = fitWriteBack(side, schema, item.fields);
  const results = await guard(() => rt.crm.update(side.object, items, { signal: input.signal }));
  const written = results.filter((result) => result.ok).map((result) => result.sourceId);
  const failed = results.flatMap((result) => (result.ok ? [] : [{ sourceId: result.sourceId, reason: `the outcome could not be written onto ${side.object} ${result.sourceId}: ${result.error.code}: ${result.error.message}`, crmError: result.error }]));
  await input.deadLetters.resolve(connectionId, flow.name, written);
  await input.deadLetters.record(connectionId, flow.name, failed);
  counts.writeBacks = written.length;
  counts.failed = failed.length;
  return counts;
}
