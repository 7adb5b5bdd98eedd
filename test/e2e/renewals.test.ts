// Renewals end to end on each CRM (issue #25 section 3), real Temporal and PostgreSQL: one renewal
// opportunity (deal) per entitlement ending within the connection's lead time, made once although the
// worker is SIGKILLed while the CRM write is in flight, and never again on later runs; it carries the
// draft renewal offer and follows it when repriced, is closed Won and linked to the new entitlement when
// the renewal is accepted (the new entitlement pointing back at the one it renews), and closed Lost when an entitlement ends without one. Beside them, each
// buyer's account shows whether it has a live agreement, and stops showing it when that one ends.
// The three CRMs run at the same time (each its own sandboxes, database, worker process and task queue;
// the kill takes only its own CRM's worker); each CRM's two cases run in order.
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCommerceClient } from '../../commerce/index.ts';
import type { Entity } from '../../mappings/types.ts';
import { createConnectionStore } from '../../store/connections.ts';
import { connectionSettingsSchema } from '../../sync/connection-settings.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import type { SyncProgress } from '../../workflows/sync.ts';
import { CRMS_UNDER_TEST, startSandboxesFor } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { liveAgreementMarks, renewalOfEntitlement, renewalOpportunities, type RenewalView } from '../support/renewal-view.ts';
import { commerceDump, TEST_SECRET_BOX } from '../support/sync-harness.ts';
import { startWorkerProcess, waitForExit } from '../support/worker-process.ts';

const LEAD_DAYS = 200;
const DAY = 86_400_000;
const ALL: Entity[] = ['buyer', 'offer', 'entitlement', 'renewal', 'live-agreement'];

describe.each(CRMS_UNDER_TEST)('renewals on %s', { concurrent: true }, (kind) => {
  let database: TestDatabase;
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  let connection: Connection;
  let client: Client;
  let connectionId: string;
  let env: Record<string, string>;
  const workers: ChildProcess[] = [];
  let run = 0;

  const sync = async (entities: Entity[]): Promise<SyncProgress> =>
    client.workflow.execute(WORKFLOW_TYPES.incrementalSync, { taskQueue: env.TASK_QUEUE!, workflowId: `renewals-${kind}-${Date.now()}-${run++}`, args: [{ connectionId, entities }] });
  const renewal = (progress: SyncProgress) => progress.entities.renewal!;
  const byKey = async () => new Map((await renewalOpportunities(sandboxes.crm)).map((view) => [view.key, view] as const));
  const control = async (body: unknown): Promise<{ entitlementId: string; action: string; offerId?: string; renewalEntitlementId?: string }> => {
    const answer = await fetch(`${sandboxes.commerce.apiUrl}/_sandbox/renewals`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(answer.status).toBe(200);
    return (await answer.json()) as { entitlementId: string; action: string; offerId?: string; renewalEntitlementId?: string };
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    sandboxes = await startSandboxesFor(kind, { entitlements: 40, seed: 77 });
    connection = await Connection.connect({ address: inject('temporalAddress') });
    client = new Client({ connection });
    const { commerce, crm } = sandboxes;
    const settings = connectionSettingsSchema.parse({
      commerce: { baseUrl: commerce.apiUrl, authUrl: commerce.authUrl, clientId: commerce.clientId, organizationId: commerce.organizationId },
      crm: crm.settings(),
      entities: ALL,
      renewals: { leadDays: LEAD_DAYS },
      schedule: { every: '5m', pageSize: 1000 },
    });
    ({ id: connectionId } = await createConnectionStore(database.pool, TEST_SECRET_BOX).create({ name: `renewals-${kind}`, crmKind: crm.kind, settings, secrets: { commerceClientSecret: commerce.clientSecret, ...crm.secrets() } }));
    env = { TEMPORAL_ADDRESS: inject('temporalAddress'), DATABASE_URL: database.url, TASK_QUEUE: `renewals-${kind}-${Date.now()}`, SECRET_KEY_FILL: '5' };
    workers.push(await startWorkerProcess('w0', env));
  });
  afterAll(async () => {
    for (const worker of workers) worker.kill('SIGKILL');
    await connection?.close();
    await sandboxes?.stop();
    await database?.drop();
  });

  /** The entitlements a renewal is due for, by the rule stated independently: still running, ending within the lead time. */
  async function dueEntitlements(): Promise<any[]> {
    const now = Date.now();
    return (await commerceDump(sandboxes.commerce, 'entitlements')).filter((e) => {
      const end = e.endTime ? Date.parse(e.endTime) : NaN;
      return !['EXPIRED', 'CANCELLED'].includes(e.status) && end > now && end <= now + LEAD_DAYS * DAY;
    });
  }

  /** Buyers with a live agreement, by the rule stated independently: an ACTIVE entitlement not past its end whose agreement (if any) still runs. */
  async function expectedMarks(): Promise<Map<string, boolean>> {
    const now = Date.now();
    const marks = new Map<string, boolean>();
    for (const e of await commerceDump(sandboxes.commerce, 'entitlements')) {
      const agreement = e.info?.cloudAAgreement?.status;
      const live = e.status === 'ACTIVE' && (!e.endTime || Date.parse(e.endTime) > now) && !['EXPIRED', 'CANCELLED', 'TERMINATED'].includes(agreement);
      marks.set(e.buyerID, (marks.get(e.buyerID) ?? false) || live);
    }
    return marks;
  }

  /** Every account shows the mark its buyer's entitlements call for (false where none is live, or the buyer has none). */
  async function expectMarks(marks: Map<string, boolean>) {
    const shown = await liveAgreementMarks(sandboxes.crm);
    expect(Object.fromEntries(shown)).toEqual(Object.fromEntries([...shown.keys()].map((buyerId) => [buyerId, marks.get(buyerId) ?? false])));
    for (const [buyerId, live] of marks) if (live) expect(shown.get(buyerId), buyerId).toBe(true);
  }

  describe('in order', { concurrent: false }, () => {
    it('makes one renewal opportunity per entitlement due, on its buyer\'s account, once across a SIGKILL and later runs', async () => {
      const { crm } = sandboxes;
      await sync(['buyer', 'offer', 'entitlement']);
      const due = await dueEntitlements();
      // Seed 77's 40 entitlements: five end within 200 days and still run, three of them marketplace A's.
      expect(due.map((e) => e.id).sort()).toEqual(['ent-000001', 'ent-000021', 'ent-000024', 'ent-000033', 'ent-000034']);

      // The CRM answers every call 1.5 s late; the worker dies once a renewal write is in flight.
      const writesBefore = crm.writeCalls(await crm.calls());
      await crm.faults({ latencyMs: 1500 });
      const handle = await client.workflow.start(WORKFLOW_TYPES.incrementalSync, {
        taskQueue: env.TASK_QUEUE!,
        workflowId: `renewals-kill-${kind}-${Date.now()}`,
        args: [{ connectionId, entities: ['renewal'], activityTimeouts: { heartbeat: '3 seconds' } }],
      });
      for (let tries = 0; crm.writeCalls(await crm.calls()) <= writesBefore; tries += 1) {
        expect(tries, 'a renewal write reached the CRM').toBeLessThan(600);
        await sleep(50);
      }
      const victim = workers.at(-1)!;
      victim.kill('SIGKILL');
      await waitForExit(victim);
      await crm.clearFaults();
      workers.push(await startWorkerProcess('w1', env));
      const killed = await handle.result();
      expect(renewal(killed).failed).toBe(0);

      const accounts = new Map((await crm.accounts()).map((account) => [account.buyerId, account.id]));
      const opportunities = await renewalOpportunities(crm);
      expect(opportunities.map((view) => view.key).sort()).toEqual(due.map((e) => `renewal-${e.id}`).sort());
      const entitlementIds = await crm.keyed('entitlement');
      for (const entitlement of due) {
        const view = opportunities.find((row) => row.key === `renewal-${entitlement.id}`)!;
        expect(view.state, entitlement.id).toBe('Open');
        expect(view.stage).toBe({ salesforce: 'Prospecting', hubspot: 'Renewal due', dynamics: '1-Qualify' }[kind]);
        expect(view.accountId).toBe(accounts.get(entitlement.buyerID));
        if (kind !== 'hubspot') expect(view.renews).toBe(entitlementIds.get(entitlement.id)!.id);
        // The entitlement points at its renewal too (HubSpot: the deal's association, on both records).
        expect(await renewalOfEntitlement(sandboxes.crm, entitlementIds.get(entitlement.id)!.id), entitlement.id).toBe(view.id);
        expect(view.offerId).toBeUndefined();
      }

      // Later runs find every renewal in place: nothing made, nothing written. The accounts get their live-agreement marks.
      const quiet = await sync(ALL);
      expect(renewal(quiet)).toMatchObject({ created: 0, updated: 0, failed: 0, unchanged: 5 });
      expect((await renewalOpportunities(crm)).length).toBe(5);
      const marks = await expectedMarks();
      expect([...marks.values()].filter(Boolean).length, 'buyers with a live agreement').toBeGreaterThan(0);
      await expectMarks(marks);
      expect(quiet.entities['live-agreement']!.failed).toBe(0);
      // Its next run reads only what changed since: nothing.
      expect((await sync(ALL)).entities['live-agreement']).toMatchObject({ created: 0, updated: 0, failed: 0 });
    }, 180_000);

    it('carries the draft renewal offer, follows its new price, closes Won on the renewal and Lost on an end without one', async () => {
      const { commerce } = sandboxes;
      const api = createCommerceClient({ baseUrl: commerce.apiUrl, authUrl: commerce.authUrl, clientId: commerce.clientId, clientSecret: commerce.clientSecret });
      const draftOf = async (id: string) => (await api.call('GET /org/{orgId}/entitlement/{entitlementId}/renewal/draftOffer', { orgId: commerce.organizationId, entitlementId: id })) as { id: string; info: { commitAmount: number; privateOfferUrl: string } };

      const drafted = await control({ entitlementId: 'ent-000001', action: 'draft' });
      let draft = await draftOf('ent-000001');
      expect(draft.id).toBe(drafted.offerId);
      await sync(ALL);
      let view = (await byKey()).get('renewal-ent-000001')!;
      expect(view).toMatchObject({ state: 'Open', stage: { salesforce: 'Proposal/Price Quote', hubspot: 'Renewal offer drafted', dynamics: '3-Propose' }[kind], offerId: draft.id, offerUrl: draft.info.privateOfferUrl, amount: draft.info.commitAmount });

      // The draft is repriced: the opportunity follows, the others are left alone.
      await control({ entitlementId: 'ent-000001', action: 'draft' });
      const repriced = await draftOf('ent-000001');
      expect(repriced.info.commitAmount).not.toBe(draft.info.commitAmount);
      draft = repriced;
      const followed = await sync(ALL);
      expect(renewal(followed)).toMatchObject({ created: 0, updated: 1 });
      expect((await byKey()).get('renewal-ent-000001')!.amount).toBe(draft.info.commitAmount);

      // The buyer accepts: the new entitlement arrives on the renewal offer, and the renewal is won, linked to it.
      const accepted = await control({ entitlementId: 'ent-000001', action: 'accept' });
      expect(accepted.offerId).toBe(draft.id);
      // ent-000021 ends without a renewal; so does ent-000010 (no renewal due yet: it ended early), its buyer's last live one.
      expect((await expectedMarks()).get('buyer-000002')).toBe(true);
      await control({ entitlementId: 'ent-000021', action: 'lapse' });
      await control({ entitlementId: 'ent-000010', action: 'lapse' });
      const closing = await sync(ALL);
      expect(renewal(closing)).toMatchObject({ created: 0, updated: 2, failed: 0 });
      const views = await byKey();
      view = views.get('renewal-ent-000001')!;
      const entitlementsNow = await sandboxes.crm.keyed('entitlement');
      const renewedEntitlement = entitlementsNow.get(accepted.renewalEntitlementId!);
      expect(renewedEntitlement, 'the renewing entitlement reached the CRM').toBeDefined();
      // The new entitlement points back at the one it renews (Salesforce and Dynamics by lookup, as the old one's
      // CRM id; HubSpot as its commerce id, text); no other entitlement points at a previous one.
      const previousField = { salesforce: 'Previous_Entitlement__c', hubspot: 'previous_entitlement_id', dynamics: '_ccs_previousentitlementid_value' }[kind];
      expect(renewedEntitlement!.fields[previousField]).toBe(kind === 'hubspot' ? 'ent-000001' : entitlementsNow.get('ent-000001')!.id);
      expect([...entitlementsNow].filter(([, row]) => row.fields[previousField]).map(([id]) => id)).toEqual([accepted.renewalEntitlementId]);
      expect(view).toMatchObject({ state: 'Won', stage: { salesforce: 'Closed Won', hubspot: 'Renewed', dynamics: 'Won' }[kind], offerId: draft.id });
      expect(view.renewedBy).toBe(kind === 'hubspot' ? accepted.renewalEntitlementId : renewedEntitlement!.id);
      // The entitlement that ended without a renewal: closed Lost.
      expect(views.get('renewal-ent-000021')).toMatchObject({ state: 'Lost', stage: { salesforce: 'Closed Lost', hubspot: 'Not renewed', dynamics: 'Lost' }[kind] } satisfies Partial<RenewalView>);
      // The new entitlement ends a year after the old one: no renewal of its own yet.
      expect(views.has(`renewal-${accepted.renewalEntitlementId}`)).toBe(false);
      expect([...views.values()].filter((row) => row.state === 'Open').length).toBe(3);

      // The buyer whose entitlements all ended loses its mark; the others keep theirs.
      const after = await expectedMarks();
      expect(after.get('buyer-000002')).toBe(false);
      await expectMarks(after);

      // A quiet run after all that writes nothing: no record, no entitlement link, no mark.
      await sync(ALL);
      const writes = sandboxes.crm.writeCalls(await sandboxes.crm.calls());
      const quiet = await sync(ALL);
      expect(renewal(quiet)).toMatchObject({ created: 0, updated: 0, failed: 0 });
      expect(quiet.entities['live-agreement']).toMatchObject({ created: 0, updated: 0, failed: 0 });
      expect(sandboxes.crm.writeCalls(await sandboxes.crm.calls())).toBe(writes);
    }, 120_000);
  });
});
