// A private offer's draft update across a crash (issue #28 section 2), on every CRM at once: on Salesforce,
// HubSpot and Dynamics a record's held draft, its line's quantity changed, and the one worker process
// SIGKILLed while all three draft updates are in flight (each commerce sandbox answers them slowly); a new
// worker takes the runs over once the updates have landed. Each offer is updated exactly once (one draft
// update call, one change event), and each record still has exactly one offer: an update never creates,
// and the step is read-then-act. One PostgreSQL database, one Temporal task queue and one kill serve the
// three CRMs, so the file stays well under a minute.
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection as TemporalConnection, type WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { OPPORTUNITY_ID_FIELD } from '../../commerce/crm-ids.ts';
import { createConnectionStore } from '../../store/connections.ts';
import type { ConnectionSettings } from '../../sync/connection-settings.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { createCrmConnection, CRMS_UNDER_TEST, startSandboxesFor, type CrmUnderTestKind } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { OFFER_APPROVAL_RULES, offerSeller, type OfferSeller } from '../support/offer-sellers.ts';
import { commerceDump, TEST_SECRET_BOX } from '../support/sync-harness.ts';
import { startWorkerProcess, waitForExit } from '../support/worker-process.ts';

const DRAFT_OPERATION = 'POST /org/{orgId}/draftOffer';
/** Quotes, a backslash and non-Latin text in the record's and the product's names. */
const DEAL = `Crash-proof "deal" \\ 東京`;
const SEATS = `Seats "annual" \\ 日本`;

/** One CRM's side of the story: its sandboxes, connection, seller, record and the draft made before the crash. */
type Stage = {
  sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  connectionId: string;
  seller: OfferSeller;
  commitKey: string;
  crmProduct: string;
  recordId: string;
  draftId: string;
  /** Draft update calls before the change (the create is one). */
  draftCalls: number;
};

const draftCallsOf = async (stage: Stage) =>
  ((await (await fetch(`${stage.sandboxes.commerce.apiUrl}/_sandbox/calls`)).json()) as { operations: Record<string, number> }).operations[DRAFT_OPERATION] ?? 0;

describe('a private offer draft update across a worker crash, on every CRM', () => {
  let database: TestDatabase;
  let temporal: TemporalConnection;
  const workers: ChildProcess[] = [];
  const stages = new Map<CrmUnderTestKind, Stage>();
  const taskQueue = `offer-kill-${Date.now()}`;
  let env: Record<string, string>;
  const client = () => new Client({ connection: temporal });
  const start = (type: string, connectionId: string, args: Record<string, unknown> = {}) =>
    client().workflow.start(type, { taskQueue, workflowId: `offer-kill-${type}-${connectionId}-${Date.now()}`, args: [{ connectionId, ...args }] });
  const offersOf = async (kind: CrmUnderTestKind) => {
    const stage = stages.get(kind)!;
    return (await commerceDump(stage.sandboxes.commerce, 'offers')).filter((offer) => offer.metaInfo?.[OPPORTUNITY_ID_FIELD[kind]] === stage.recordId);
  };

  /** A CRM synced once, with a catalogue product of a COMMIT dimension priced in US dollars, and a record of 10 at 38 with its held draft. */
  async function stage(kind: CrmUnderTestKind): Promise<Stage> {
    const sandboxes = await startSandboxesFor(kind, { entitlements: 8, seed: 71 }, kind === 'dynamics' ? { sandbox: { keyActivationMs: 50 } } : {});
    const made = await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { entities: ['buyer'] });
    // Held until approved, so the draft stays a draft that takes updates.
    const settings = made.settings as ConnectionSettings;
    await createConnectionStore(database.pool, TEST_SECRET_BOX).update(made.id, { settings: { ...settings, cosell: { ...settings.cosell, offerApproval: OFFER_APPROVAL_RULES[kind] } } });
    await (await start(WORKFLOW_TYPES.incrementalSync, made.id)).result();
    const [product] = (await commerceDump(sandboxes.commerce, 'products')).filter((row) => row.status === 'PUBLIC' && row.info?.dimensions?.some((d: any) => d.type === 'COMMIT' && d.prices.some((p: any) => p.currency === 'USD')));
    const commitKey = product.info.dimensions.find((d: any) => d.type === 'COMMIT').key;
    const account = (await sandboxes.crm.accounts())[0]!;
    const seller = await offerSeller(sandboxes.crm, account.id);
    const crmProduct = await seller.product(SEATS, { productId: product.id, dimensionKey: commitKey });
    const recordId = await seller.opportunity(DEAL, [[crmProduct, 10, 38]]);
    await (await start(WORKFLOW_TYPES.cosell, made.id)).result();
    const partial = { sandboxes, connectionId: made.id, seller, commitKey, crmProduct, recordId, draftId: '', draftCalls: 0 };
    stages.set(kind, partial);
    const [draft, ...others] = await offersOf(kind);
    expect(others).toEqual([]);
    expect(draft).toMatchObject({ subStatus: 'DRAFT', info: { commits: [{ key: commitKey, quantity: 10, price: 38 }] } });
    return Object.assign(partial, { draftId: draft.id, draftCalls: await draftCallsOf(partial) });
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    temporal = await TemporalConnection.connect({ address: inject('temporalAddress') });
    env = { TEMPORAL_ADDRESS: inject('temporalAddress'), DATABASE_URL: database.url, TASK_QUEUE: taskQueue, SECRET_KEY_FILL: '5' };
    workers.push(await startWorkerProcess('w0', env));
    await Promise.all(CRMS_UNDER_TEST.map((kind) => stage(kind)));
  }, 120_000);
  afterAll(async () => {
    for (const worker of workers) worker.kill('SIGKILL');
    await temporal?.close();
    await Promise.all([...stages.values()].map((stage) => stage.sandboxes.stop()));
    await database?.drop();
  });

  it('SIGKILL while every draft update is in flight: each draft is updated once, and each record has one offer', async () => {
    const handles = new Map<CrmUnderTestKind, WorkflowHandle>();
    for (const [kind, stage] of stages) {
      // The update answers after three seconds: the kill lands while it is in flight.
      const fault = await fetch(`${stage.sandboxes.commerce.apiUrl}/_sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ operation: DRAFT_OPERATION, latencyMs: 3000 }) });
      expect(fault.ok).toBe(true);
      await stage.seller.changeQuantity(stage.recordId, stage.crmProduct, 60, 60 * 38);
      handles.set(kind, await start(WORKFLOW_TYPES.cosell, stage.connectionId, { activityTimeouts: { heartbeat: '3 seconds' } }));
    }
    for (let tries = 0; ; tries += 1) {
      const sent = await Promise.all([...stages.values()].map(async (stage) => (await draftCallsOf(stage)) > stage.draftCalls));
      if (sent.every(Boolean)) break;
      expect(tries).toBeLessThan(400);
      await sleep(50);
    }
    const victim = workers.at(-1)!;
    victim.kill('SIGKILL');
    await waitForExit(victim);
    // The updates the dead worker sent land on the commerce side after their latency; the new worker starts
    // once they have, so its retries read them done (a retry racing a write still in flight is not this test's).
    for (let tries = 0; ; tries += 1) {
      const landed = await Promise.all([...stages.keys()].map(async (kind) => (await offersOf(kind))[0]?.info?.commits?.[0]?.quantity === 60));
      if (landed.every(Boolean)) break;
      expect(tries).toBeLessThan(200);
      await sleep(50);
    }
    workers.push(await startWorkerProcess('w1', env));
    await Promise.all([...handles.values()].map((handle) => handle.result()));

    for (const [kind, stage] of stages) {
      const offers = await offersOf(kind);
      expect(offers.map((offer) => offer.id), kind).toEqual([stage.draftId]);
      expect(offers[0], kind).toMatchObject({ subStatus: 'DRAFT', info: { commits: [{ key: stage.commitKey, quantity: 60, price: 38 }] } });
      // Once: one draft update call and one change event for it, none from the new worker's retry.
      expect((await draftCallsOf(stage)) - stage.draftCalls, kind).toBe(1);
      const changes = (await commerceDump(stage.sandboxes.commerce, 'notificationEvents')).filter((event) => event.entityID === stage.draftId && event.info?.changed === 'draft');
      expect(changes, kind).toHaveLength(1);
      expect((await stage.seller.record(stage.recordId)).offerId, kind).toBe(stage.draftId);
    }
  }, 90_000);
});
