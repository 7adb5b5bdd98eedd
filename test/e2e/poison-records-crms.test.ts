// Poison on the commerce side, for each CRM (issue #14): malformed records of every kind (missing
// fields, wrong types, bad dates, oversized strings, plain-string error bodies; an unknown enum value is
// no poison since contract §9.5 is followed: test/support/commerce-poison.ts)
// among the records the sync reads, and notification events of an unknown version. The production
// worker (`crm-sync worker`) syncs them on the real Temporal server and PostgreSQL: each malformed
// record becomes a dead letter whose reason names the field and the problem, everything else reaches
// the CRM exactly as its witness says, events of an unknown version are kept, and no run stops. Once the
// commerce side repairs them, `crm-sync retry` (ops/retry-dead-letters.ts) brings them to the CRM and
// closes their letters. The worker's log lines and the runs' Temporal histories hold no secret.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CrmKind } from '../../crm/connector.ts';
import { retryDeadLetters } from '../../ops/retry-dead-letters.ts';
import { createConnectionStore } from '../../store/connections.ts';
import { createDeadLetterStore, type DeadLetter } from '../../store/dead-letters.ts';
import { ensureSyncSchedule, syncScheduleId } from '../../temporal/sync-schedules.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import { COMMERCE_KIND, isUnnamed, PAGE_POISON, type PoisonRow } from '../support/commerce-poison.ts';
import { CRMS_UNDER_TEST, createCrmConnection, startSandboxesFor } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { commerceDump, type Entity } from '../support/expected-crm.ts';
import { freePort } from '../support/free-port.ts';
import { historiesText, secretsFound } from '../support/secret-scan.ts';
import { waitFor } from '../support/start-process.ts';
import { TEST_SECRET_BOX } from '../support/sync-harness.ts';
import { startCliWorker } from '../support/worker-process.ts';

const taskQueue = `poison-crms-${Date.now()}`;
/** A run of this small data set takes seconds: one still going after this is stuck, and the test says why. */
const RUN_LIMIT_MS = 45_000;
/** The CRM field holding an offer's and an entitlement's name (README "Default objects and fields", the mapping READMEs). */
const NAME_FIELD: Record<CrmKind, Partial<Record<Entity, string>>> = {
  salesforce: { offer: 'Name', entitlement: 'Name' },
  hubspot: { offer: 'dealname', entitlement: 'entitlement_name' },
  dynamics: { offer: 'name', entitlement: 'ccs_name' },
};
/** What a CRM takes that others refuse: a 1,000-character name is within HubSpot's 65,536-character text. */
const TAKEN_BY: Partial<Record<CrmKind, (poison: PoisonRow) => boolean>> = { hubspot: (poison) => poison.kind === 'oversized string' };

let database: TestDatabase;
let worker: ChildProcess;
let temporal: Connection;
let client: Client;
const workerLog: string[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  worker = await startCliWorker({ databaseUrl: database.url, temporalAddress: inject('temporalAddress'), taskQueue, freePort, onLine: (line) => workerLog.push(line) });
  temporal = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection: temporal });
});

afterAll(async () => {
  // The worker's log lines, for whoever reads a failure (test-artifacts/ is not committed).
  mkdirSync('test-artifacts', { recursive: true });
  writeFileSync(path.join('test-artifacts', 'poison-records-crms.log'), workerLog.join('\n'));
  worker?.kill('SIGTERM');
  await new Promise((resolve) => (!worker || worker.exitCode !== null ? resolve(undefined) : worker.once('exit', resolve)));
  await temporal?.close();
  await database?.drop();
});

/** Waits for a run; one that does not end in time is stuck: it is terminated and its failing activities named. */
async function toEnd<T>(workflowId: string): Promise<T> {
  const handle = client.workflow.getHandle(workflowId);
  const timer = new Promise<'stuck'>((resolve) => setTimeout(() => resolve('stuck'), RUN_LIMIT_MS).unref());
  const outcome = await Promise.race([handle.result() as Promise<T>, timer]);
  if (outcome !== 'stuck') return outcome;
  const pending = (await handle.describe()).raw.pendingActivities ?? [];
  await handle.terminate('stuck in the poison test').catch(() => {});
  throw new Error(`${workflowId} did not finish in ${RUN_LIMIT_MS / 1000} s; its activities keep failing: ${pending.map((activity) => `${activity.activityType?.name}: ${activity.lastFailure?.message}`).join('; ')}`);
}

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const key = (letter: Pick<DeadLetter, 'entity' | 'sourceId'>) => `${letter.entity}:${letter.sourceId}`;
const sorted = (list: string[]) => [...list].sort();
const unnamedKeys = (rows: PoisonRow[]) => new Set(rows.filter(isUnnamed).map((poison) => `${poison.entity}:${String(poison.row.id)}`));

describe.each(CRMS_UNDER_TEST)('poison commerce records into %s', (kind) => {
  let sandboxes: Awaited<ReturnType<typeof startSandboxesFor>>;
  let connectionId: string;
  const workflowIds: string[] = [];
  /** The page poison this CRM refuses: all of it but what it takes (TAKEN_BY). */
  const refused = PAGE_POISON.filter((poison) => !TAKEN_BY[kind]?.(poison));
  const open = () => createDeadLetterStore(database.pool).listOpen(connectionId);
  const commerce = () => sandboxes.commerce.apiUrl;
  const injectRows = async (commerceKind: string, records: unknown[]) => expect((await post(`${commerce()}/_sandbox/records/${commerceKind}`, { records })).status).toBe(200);
  const run = async <T,>(workflowType: string, name: string): Promise<T> => {
    const workflowId = `poison-${kind}-${name}-${Date.now()}`;
    workflowIds.push(workflowId);
    await client.workflow.start(workflowType, { taskQueue, workflowId, args: [{ connectionId }] });
    return toEnd<T>(workflowId);
  };
  const nameInCrm = async (entity: Entity, id: string) => (await sandboxes.crm.keyed(entity)).get(id)?.fields[NAME_FIELD[kind][entity]!];
  /** Open letters of named records, as `entity:id` (rows without an id and set-aside events apart). */
  const namedLetters = async () => sorted((await open()).filter((letter) => letter.entity !== 'notification' && !letter.sourceId.startsWith('unreadable:')).map(key));
  /** The witness's expected refusals (the CRM checked against it first), without the rows it can only call "undefined". */
  const witnessRefusals = async () => (await sandboxes.crm.expectMatchesCommerce(sandboxes.commerce)).filter((refusal) => !unnamedKeys(PAGE_POISON).has(refusal));

  beforeAll(async () => {
    sandboxes = await startSandboxesFor(kind, { entitlements: 40, seed: 21 });
    await sandboxes.crm.calls(); // HubSpot and Dynamics: `crm-sync setup` has run before any sync
    ({ id: connectionId } = await createCrmConnection(database, sandboxes.commerce, sandboxes.crm, { pageSize: 50 }));
    for (const [commerceKind, rows] of Object.entries(Object.groupBy(PAGE_POISON, (poison) => COMMERCE_KIND[poison.entity]))) await injectRows(commerceKind, rows!.map((poison) => poison.row));
    // A gateway's hiccup on one page: 502 in plain text, twice, where the contact query's JSON belongs.
    await post(`${commerce()}/_sandbox/faults`, { operation: 'GET /org/{orgId}/contact/query', gateway: { status: 502, times: 2 } });
  });
  afterAll(async () => {
    if (connectionId) await client.schedule.getHandle(syncScheduleId(connectionId)).delete().catch(() => {});
    await sandboxes?.stop();
  });

  it('dead-letters each malformed record of its pages with the field and the problem; the rest reaches the CRM as the witness says', async () => {
    const result: any = await run(WORKFLOW_TYPES.incrementalSync, 'first');
    expect(result.finished).toBe(true);
    // The gateway's two plain-text 502s were met on the contact page, and got past.
    const rules = (await (await fetch(`${commerce()}/_sandbox/faults`)).json()) as Record<string, { gateway?: { times?: number } }>;
    expect(rules['GET /org/{orgId}/contact/query']?.gateway?.times).toBe(0);

    const letters = await open();
    for (const poison of refused) {
      const mine = isUnnamed(poison)
        ? letters.filter((letter) => letter.entity === poison.entity && letter.sourceId.startsWith('unreadable:') && isDeepStrictEqual(letter.payload, poison.row))
        : letters.filter((letter) => key(letter) === `${poison.entity}:${poison.row.id}`);
      expect(mine, `${poison.entity} ${poison.kind}: one dead letter`).toHaveLength(1);
      expect(mine[0]!.reason, `${poison.entity} ${poison.kind}: the field`).toMatch(poison.field);
      expect(mine[0]!.reason, `${poison.entity} ${poison.kind}: the problem`).toMatch(poison.problem);
    }
    expect(letters.filter((letter) => letter.sourceId.startsWith('unreadable:'))).toHaveLength(refused.filter(isUnnamed).length);
    // The CRM holds exactly what the witness says; the witness refuses the same records, no more and no fewer.
    const witness = await witnessRefusals();
    for (const poison of refused.filter((row) => !isUnnamed(row))) expect(witness).toContain(`${poison.entity}:${poison.row.id}`);
    for (const poison of PAGE_POISON.filter((row) => TAKEN_BY[kind]?.(row))) expect((await sandboxes.crm.keyed(poison.entity)).has(String(poison.row.id))).toBe(true);
    expect(await namedLetters()).toEqual(sorted(witness));
  });

  it('keeps notification events of an unknown version, dead-letters what the feed names but cannot be read, and the feed goes on', async () => {
    expect((await run<any>(WORKFLOW_TYPES.realtimeSync, 'feed-start')).events).toBe(0); // a new connection starts at the feed's end
    const offers = new Map((await commerceDump(sandboxes.commerce, 'offers')).map((offer) => [offer.id, offer]));
    const entitlements = new Map((await commerceDump(sandboxes.commerce, 'entitlements')).map((entitlement) => [entitlement.id, entitlement]));
    const now = new Date().toISOString();
    await injectRows('offers', [
      // A bad date where the sync stands: lastUpdateTime.
      { ...offers.get('offer-000016'), lastUpdateTime: 'not-a-date' },
      // Served by the query, but a firewall in front of the service blocks its path: plain text, 403.
      { ...offers.get('offer-000020'), name: 'Renamed behind a blocked path', lastUpdateTime: now },
      { ...offers.get('offer-000026'), name: 'Renamed on the commerce side', lastUpdateTime: now },
    ]);
    await post(`${commerce()}/_sandbox/faults`, { operation: '*', gateway: { status: 403, ids: ['offer-000020'], body: 'Request blocked by the web application firewall' } });
    // A term without a readable lastUpdateTime; the terms of another entitlement refused with a plain JSON string (§7.1).
    await injectRows('entitlements', [
      { ...entitlements.get('ent-000002'), name: 'Renamed beside a bad term', lastUpdateTime: now },
      { ...entitlements.get('ent-000005'), name: 'Renamed, terms refused', lastUpdateTime: now },
    ]);
    await injectRows('entitlementTerms', [{ id: 'term-poison-1', entitlementID: 'ent-000002', lastUpdateTime: 'yesterday', commitAmount: 5000 }]);
    await post(`${commerce()}/_sandbox/faults`, { operation: 'GET /org/{orgId}/entitlement/{entitlementId}/entitlementTerm', status: 409, ids: ['ent-000005'], body: 'the terms of ent-000005 are being recalculated' });
    const event = (eventID: string | undefined, entityType: string, entityID: string, version = 1) => ({
      ...(eventID && { eventID }), organizationID: 'org-1', entityType, entityID, action: 'UPDATED', version, channels: ['EMAIL'], timestamp: now, lastUpdateTime: now,
    });
    const unknownVersions = [event('evt-poison-5', 'REFERRAL', 'ref-000003', 2), event('evt-poison-6', 'BUYER', 'buyer-000001', 7)];
    await injectRows('notificationEvents', [
      event('evt-poison-1', 'OFFER', 'offer-000016'),
      event('evt-poison-2', 'OFFER', 'offer-000020'),
      event('evt-poison-3', 'ENTITLEMENT', 'ent-000002'),
      event('evt-poison-4', 'ENTITLEMENT', 'ent-000005'),
      event('evt-poison-7', 'OFFER', 'offer-000026'),
      ...unknownVersions,
      event(undefined, 'OFFER', 'offer-000027'), // a missing field: no eventID
    ]);

    const feed: any = await run(WORKFLOW_TYPES.realtimeSync, 'feed');
    expect(feed).toMatchObject({ events: 8, setAside: 3 });
    const letters = new Map((await open()).map((letter) => [key(letter), letter]));
    // Events of an unknown version are kept, whole, with the reason (§6.3: left for redelivery).
    for (const kept of unknownVersions) {
      const letter = letters.get(`notification:${kept.eventID}`);
      expect(letter?.reason).toMatch(new RegExp(`envelope version ${kept.version}\\b.*does not understand`));
      expect(letter?.payload).toEqual(kept);
    }
    const nameless = [...letters.values()].filter((letter) => letter.entity === 'notification' && letter.sourceId.startsWith('event-at-'));
    expect(nameless).toHaveLength(1);
    expect(nameless[0]!.reason).toMatch(/eventID must be a non-empty string/);
    expect(letters.get('offer:offer-000016')?.reason).toMatch(/lastUpdateTime must be an ISO 8601 date-time/);
    expect(letters.get('offer:offer-000020')?.reason).toMatch(/HTTP 403/);
    expect(letters.get('offer:offer-000020')?.reason).toMatch(/Request blocked by the web application firewall/);
    expect(letters.get('entitlement:ent-000002')?.reason).toMatch(/terms cannot be read.*term-poison-1.*lastUpdateTime/);
    expect(letters.get('entitlement:ent-000005')?.reason).toMatch(/terms cannot be read.*the terms of ent-000005 are being recalculated.*HTTP 409/);
    // The rest of the feed page reached the CRM; what could not be read kept its last good version there.
    expect(await nameInCrm('offer', 'offer-000026')).toBe('Renamed on the commerce side');
    expect(await nameInCrm('offer', 'offer-000020')).toBe(offers.get('offer-000020').name);
    expect(await nameInCrm('entitlement', 'ent-000002')).toBe(entitlements.get('ent-000002').name);

    // The feed moved past them; the event without an eventID, a valid version-1 notice, is acted on.
    expect(await run<any>(WORKFLOW_TYPES.realtimeSync, 'feed-again')).toMatchObject({ events: 0, setAside: 0 });
    expect(sorted((await open()).filter((letter) => letter.entity === 'notification').map(key))).toEqual(['notification:evt-poison-5', 'notification:evt-poison-6']);
  });

  it('later runs go on with the poison still there: the full pass brings what the feed could not read', async () => {
    const result: any = await run(WORKFLOW_TYPES.incrementalSync, 'second');
    expect(result.finished).toBe(true);
    // The blocked path is only the read by id: the full pass reads the offer by query.
    expect(await nameInCrm('offer', 'offer-000020')).toBe('Renamed behind a blocked path');
    const letters = new Map((await open()).map((letter) => [key(letter), letter]));
    expect(letters.has('offer:offer-000020')).toBe(false);
    expect(letters.get('entitlement:ent-000005')?.reason).toMatch(/terms cannot be read.*HTTP 409/);
    expect(letters.get('entitlement:ent-000002')?.reason).toMatch(/term-poison-1.*lastUpdateTime/);
  });

  it('once the commerce side repairs them, crm-sync retry brings them to the CRM and closes their letters; unrepairable rows keep theirs', async () => {
    const before = new Map((await open()).map((letter) => [key(letter), letter]));
    const offer16 = (await commerceDump(sandboxes.commerce, 'offers')).find((offer) => offer.id === 'offer-000016');
    // Repairs keep each record's lastUpdateTime: the window of later passes never sees them again.
    for (const [commerceKind, rows] of Object.entries(Object.groupBy(refused.filter((poison) => poison.repaired), (poison) => COMMERCE_KIND[poison.entity]))) await injectRows(commerceKind, rows!.map((poison) => poison.repaired));
    await injectRows('offers', [{ ...offer16, name: 'Repaired offer', lastUpdateTime: '2025-12-31T22:00:00.000Z' }]);
    await injectRows('entitlementTerms', [{ id: 'term-poison-1', entitlementID: 'ent-000002', lastUpdateTime: '2025-12-31T22:00:00.000Z', commitAmount: 5000 }]);
    await fetch(`${commerce()}/_sandbox/faults`, { method: 'DELETE' });

    // `crm-sync retry <connection>`: fresh attempts for every open letter, and the connection's sync now.
    await ensureSyncSchedule(client, { connectionId, every: '1h', taskQueue });
    const connection = (await createConnectionStore(database.pool, TEST_SECRET_BOX).get(connectionId))!;
    const retried = await retryDeadLetters(database.pool, async () => client, connection, {});
    expect(retried).toMatchObject({ due: before.size, syncStarted: true });
    const started = await waitFor('the retry run', async () => {
      const actions = (await client.schedule.getHandle(syncScheduleId(connectionId)).describe()).info.recentActions;
      return actions[0]?.action.workflow.workflowId;
    }, 30_000);
    workflowIds.push(started);
    expect((await toEnd<any>(started)).finished).toBe(true);

    const after = await open();
    const closed = [...before.keys()].filter((letterKey) => !after.some((letter) => key(letter) === letterKey));
    expect(sorted(closed)).toEqual(sorted([...refused.filter((poison) => poison.repaired).map((poison) => `${poison.entity}:${poison.row.id}`), 'offer:offer-000016', 'entitlement:ent-000002', 'entitlement:ent-000005']));
    expect(await nameInCrm('offer', 'offer-000016')).toBe('Repaired offer');
    expect(await nameInCrm('entitlement', 'ent-000005')).toBe('Renamed, terms refused');
    // Everything now matches the witness; the letters left are its refusals of generated data, the rows
    // without a usable id (nothing to repair in place: still named for what is wrong) and the events of
    // an unknown version, kept for a worker that understands them.
    expect(await namedLetters()).toEqual(sorted(await witnessRefusals()));
    for (const poison of refused.filter(isUnnamed)) {
      const letter = after.find((candidate) => candidate.entity === poison.entity && candidate.sourceId.startsWith('unreadable:') && isDeepStrictEqual(candidate.payload, poison.row));
      expect(letter?.reason, `${poison.entity} ${poison.kind}`).toMatch(poison.field);
      expect(letter?.reason, `${poison.entity} ${poison.kind}`).toMatch(poison.problem);
    }
    expect(sorted(after.filter((letter) => letter.entity === 'notification').map(key))).toEqual(['notification:evt-poison-5', 'notification:evt-poison-6']);
    await sandboxes.crm.expectWriteBack(sandboxes.commerce);

    // And the connection goes on: the next runs finish (the feed now holds the write-backs' own events),
    // and no run of it ever failed.
    expect(await run<any>(WORKFLOW_TYPES.realtimeSync, 'after-retry')).toMatchObject({ setAside: 0, failed: 0 });
    expect((await run<any>(WORKFLOW_TYPES.incrementalSync, 'after-retry')).finished).toBe(true);
    const { rows } = await database.pool.query('SELECT DISTINCT status FROM sync_runs WHERE connection_id = $1', [connectionId]);
    expect(rows.map((row) => row.status)).toEqual(['completed']);
  });

  it("leaves no secret in the worker's log lines or the runs' Temporal histories", async () => {
    const secrets = { commerceClientSecret: sandboxes.commerce.clientSecret, ...sandboxes.crm.secrets(), postgresPassword: decodeURIComponent(new URL(database.url).password) };
    const texts = { 'Temporal history': await historiesText(client, workflowIds), 'worker log': workerLog.join('\n') };
    expect(texts['Temporal history']).toContain(connectionId);
    expect(secretsFound(texts, secrets)).toEqual([]);
  });
});
