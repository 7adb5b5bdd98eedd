// Alerts on a real Temporal server and real PostgreSQL: the near-real-time run reads the commerce
// sandbox's feed, syncs into an in-memory CRM, and sends each route's alerts to a local webhook
// receiver. A 429 with Retry-After delays an alert without a second copy; a service that keeps answering
// 500 leaves a dead letter with its answer; a storm of 50 events is one digest; a second pass over the
// same events sends nothing.
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAlertActivities, ALERT_FEED } from '../../activities/alerts.ts';
import { createSyncActivities } from '../../activities/sync.ts';
import { createAlertRouteStore } from '../../alerts/routes-store.ts';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { SecretBox } from '../../store/secret-box.ts';
import { WORKFLOWS_PATH } from '../../worker.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { commerceDump } from '../support/expected-crm.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { createMemoryCrm, memoryConnection } from '../support/memory-crm.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

const box = new SecretBox(Buffer.alloc(32, 9));
let database: TestDatabase;
let commerce: CommerceSandbox;
let receiver: WebhookReceiver;
let connection: NativeConnection;
let worker: Worker;
let running: Promise<void>;
let connectionId: string;
const taskQueue = `alerts-${Date.now()}`;
const routes = () => createAlertRouteStore(database.pool, box);

beforeAll(async () => {
  database = await createTestDatabase();
  commerce = await startCommerceSandbox({ entitlements: 10, seed: 27 });
  receiver = await startWebhookReceiver();
  const crm = createMemoryCrm();
  const made = await memoryConnection(database.pool, commerce, { name: 'alerts', crm: crm.connector });
  connectionId = made.connectionId;
  const runtimeFor = async () => made.runtime;
  connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  worker = await Worker.create({
    connection,
    taskQueue,
    workflowsPath: WORKFLOWS_PATH,
    activities: { ...createSyncActivities({ pool: database.pool, runtimeFor }), ...createAlertActivities({ pool: database.pool, secretBox: box, runtimeFor, consoleUrl: 'https://sync.example' }) },
  });
  running = worker.run();
});
afterAll(async () => {
  worker?.shutdown();
  await running;
  await connection?.close();
  await receiver?.stop();
  await commerce?.stop();
  await database?.drop();
});

let runs = 0;
async function realtimeRun(alertRetry?: { maximumAttempts: number; initialInterval: string }): Promise<any> {
  runs += 1;
  return new Client({ connection }).workflow.execute(WORKFLOW_TYPES.realtimeSync, { taskQueue, workflowId: `alerts-run-${runs}-${Date.now()}`, args: [{ connectionId, alertRetry }] });
}

async function postEvents(events: Record<string, unknown>[]) {
  const response = await fetch(`${commerce.apiUrl}/_sandbox/records/notificationEvents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ records: events }) });
  expect(response.ok).toBe(true);
}

describe('alert delivery (real Temporal, real PostgreSQL, commerce sandbox, local webhook receiver)', () => {
  it('a 429 with Retry-After delays the alert, which arrives once; a second run sends nothing', async () => {
    const route = await routes().add({ connectionId, eventTypes: ['OFFER.ACCEPTED'], destination: { kind: 'slack', url: `${receiver.url}/slack-accepted/T0SECRETPATH` } });
    await realtimeRun(); // the first run with a route starts at the feed's end
    const [offer] = await commerceDump(commerce, 'offers');
    receiver.script('/slack-accepted/T0SECRETPATH', [{ status: 429, body: 'rate_limited', retryAfter: '1' }]);
    await postEvents([{ eventID: 'evt-accepted-1', entityType: 'OFFER', entityID: offer!.id, entityName: offer!.name, action: 'ACCEPTED', title: 'Offer accepted', message: 'The buyer accepted.', channels: ['SLACK'], partner: 'cloudA' }]);
    const result = await realtimeRun();
    expect(result.alerts).toEqual({ queued: 1, sent: 1, failed: 0 });
    const calls = receiver.to('/slack-accepted/T0SECRETPATH');
    expect(calls.map((call) => call.status)).toEqual([429, 200]);
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(900); // Retry-After: 1 was honoured
    expect(calls[1]!.body.text).toBe(`Offer accepted: ${offer!.name}`);
    expect(JSON.stringify(calls[1]!.body)).toContain(`https://sync.example/connections/${connectionId}`);

    expect((await realtimeRun()).alerts).toEqual({ queued: 0, sent: 0, failed: 0 });
    expect(receiver.to('/slack-accepted/T0SECRETPATH')).toHaveLength(2);
    const { rows } = await database.pool.query('SELECT status FROM alert_deliveries WHERE route_id = $1', [route.id]);
    expect(rows).toEqual([{ status: 'sent' }]);
  });

  it('a service that answers 500 three times leaves a dead letter with its answer', async () => {
    const route = await routes().add({ connectionId, eventTypes: ['ENTITLEMENT.PENDING_CANCEL'], destination: { kind: 'teams', url: `${receiver.url}/teams-broken/sig-SECRET` } });
    receiver.always('/teams-broken/sig-SECRET', { status: 500, body: 'upstream broke (teams)' });
    await realtimeRun();
    await postEvents([{ eventID: 'evt-cancel-1', entityType: 'ENTITLEMENT', entityID: 'ent-none', entityName: 'Yearly plan', action: 'PENDING_CANCEL', title: 'Entitlement pending cancellation', channels: ['EMAIL'] }]);
    const result = await realtimeRun({ maximumAttempts: 3, initialInterval: '100 milliseconds' });
    expect(result.alerts).toEqual({ queued: 1, sent: 0, failed: 1 });
    expect(receiver.to('/teams-broken/sig-SECRET').map((call) => call.status)).toEqual([500, 500, 500]);
    const [letter] = await createDeadLetterStore(database.pool).listOpen(connectionId, 'alert');
    expect(letter).toMatchObject({ sourceId: `${route.id}:evt-cancel-1`, crmError: { service: 'Teams', status: 500, answer: 'upstream broke (teams)' } });
    expect(letter!.reason).toContain('Teams answered 500: upstream broke (teams)');
    expect(JSON.stringify(letter)).not.toContain('sig-SECRET');
    expect((await realtimeRun()).alerts).toMatchObject({ sent: 0, failed: 0 });
    expect(receiver.to('/teams-broken/sig-SECRET')).toHaveLength(3);
  });

  it('a storm of 50 events is one digest, and reading the same events again sends nothing', async () => {
    const route = await routes().add({ connectionId, eventTypes: ['REFERRAL.*'], destination: { kind: 'slack', url: `${receiver.url}/slack-storm/XSECRET` } });
    await realtimeRun();
    const before = (await database.pool.query('SELECT last_id FROM sync_cursors WHERE connection_id = $1 AND entity = $2', [connectionId, ALERT_FEED])).rows[0].last_id;
    await postEvents(Array.from({ length: 50 }, (_, i) => ({ eventID: `evt-storm-${i}`, entityType: 'REFERRAL', entityID: `ref-none-${i}`, entityName: `Referral ${i}`, action: 'REJECTED', title: 'Referral rejected', channels: ['SLACK'] })));
    expect((await realtimeRun()).alerts).toEqual({ queued: 50, sent: 50, failed: 0 });
    const calls = receiver.to('/slack-storm/XSECRET');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.body.text).toBe('50 marketplace events at once (a digest instead of one message each)');

    // The alerts' position back before the storm: the same 50 events are read again and nothing is sent.
    await database.pool.query('UPDATE sync_cursors SET last_id = $3 WHERE connection_id = $1 AND entity = $2', [connectionId, ALERT_FEED, before]);
    expect((await realtimeRun()).alerts).toEqual({ queued: 0, sent: 0, failed: 0 });
    expect(receiver.to('/slack-storm/XSECRET')).toHaveLength(1);
    await routes().remove(connectionId, route.id);
  });
});
