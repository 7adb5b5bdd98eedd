// Issue #14, for each CRM: two seller organizations, each wired to its own org of the same CRM kind,
// synced at the same time by one production worker process (real Temporal, real PostgreSQL). Nothing
// may cross between the two connections:
// - no record: each org holds exactly its own organization's data (the witness), none of the other's
//   (commerce ids are numbered per organization, so buyer-000001 exists on both sides: a crossed upsert
//   would overwrite a record, and the witness compares every field), and the ids written back on each
//   commerce side are ids of its own org;
// - no token: each sandbox's auth ledger saw token requests with its own client id only, and no bearer
//   token it never issued (a second round runs after every token expired, so each connection renews,
//   while both CRMs answer some calls with 500s, so failed calls and retried activities are logged too);
// - no cached schema: the two orgs' schemas differ where the other's describe or metadata would refuse or
//   misplace data (test/support/two-orgs.ts), and each org's records carry its own schema's values.
// The worker's log lines and the runs' Temporal histories are then scanned for every secret in play.
// The three CRM kinds run at the same time on the one worker (each pair its own sandboxes, connections
// and workflow ids): six connections at once, where each case used to wait on retries of its own.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { createDeadLetterStore } from '../../store/dead-letters.ts';
import { WORKFLOW_TYPES } from '../../workflows/names.ts';
import type { SyncProgress } from '../../workflows/sync.ts';
import { createCrmConnection, CRMS_UNDER_TEST, startCrmSandbox, type CrmUnderTest } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { commerceDump, ENTITIES, type Entity } from '../support/expected-crm.ts';
import { historiesText, secretsFound } from '../support/secret-scan.ts';
import { ORG_PAIRS, type Pair } from '../support/two-orgs.ts';
import { startWorkerProcess, waitForExit } from '../support/worker-process.ts';

/** Two seller organizations: different seeds and sizes, so their data differ and the second has ids the first lacks. */
const SELLERS = [
  { organizationId: 'org-1', seed: 41, entitlements: 40, clientId: 'seller-one', clientSecret: 'seller-one-secret-5b7e19' },
  { organizationId: 'org-2', seed: 42, entitlements: 56, clientId: 'seller-two', clientSecret: 'seller-two-secret-a3c90d' },
] as const;
const COMMERCE_KINDS: Record<Entity, string> = { buyer: 'buyers', contact: 'contacts', offer: 'offers', entitlement: 'entitlements', referral: 'referrals' };

const taskQueue = `two-orgs-${Date.now()}`;
let database: TestDatabase;
let worker: ChildProcess;
const workerOutput: string[] = [];
let temporal: Connection;

beforeAll(async () => {
  database = await createTestDatabase();
  const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), DATABASE_URL: database.url, TASK_QUEUE: taskQueue, SECRET_KEY_FILL: '5', WORKER_LOG_LEVEL: 'info' };
  [worker, temporal] = await Promise.all([startWorkerProcess('two-orgs', env, workerOutput), Connection.connect({ address: inject('temporalAddress') })]);
});
afterAll(async () => {
  mkdirSync('test-artifacts', { recursive: true });
  writeFileSync(path.join('test-artifacts', 'two-orgs-same-kind.log'), workerOutput.join('\n'));
  worker?.kill('SIGTERM');
  if (worker) await waitForExit(worker);
  await temporal?.close();
  await database?.drop();
});

/** Every CRM id the commerce records carry (metaInfo.crmAOpportunityId, crmBDealId, crmAEntitlementURL, ...), by where. */
async function crmIdsOnCommerce(commerce: CommerceSandbox): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const walk = (value: unknown, where: string) => {
    if (!value || typeof value !== 'object') return;
    for (const [key, inner] of Object.entries(value)) {
      if (/^crm[ABC]/.test(key) && typeof inner === 'string' && inner) found.set(`${where}.${key}`, inner);
      else walk(inner, `${where}.${key}`);
    }
  };
  for (const kind of Object.values(COMMERCE_KINDS)) for (const record of await commerceDump(commerce, kind)) walk(record, `${kind}/${record.id}`);
  return found;
}

/** The CRM ids of every record the sync keeps in the org. */
async function crmRecordIds(crm: CrmUnderTest): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const entity of ENTITIES) for (const record of (await crm.keyed(entity)).values()) ids.add(String(record.id).toLowerCase());
  return ids;
}

describe.each(CRMS_UNDER_TEST)('two %s orgs synced at once by one worker', { concurrent: true }, (kind) => {
  const pair = ORG_PAIRS[kind];
  let commerce: Pair<CommerceSandbox>;
  let crms: Pair<CrmUnderTest>;
  let connections: Pair<string>;
  const workflowIds: string[] = [];

  beforeAll(async () => {
    commerce = (await Promise.all(SELLERS.map((seller) => startCommerceSandbox(seller)))) as Pair<CommerceSandbox>;
    crms = (await Promise.all(pair.orgs.map((options) => startCrmSandbox(kind, options)))) as Pair<CrmUnderTest>;
    connections = [
      (await createCrmConnection(database, commerce[0], crms[0], { name: `${kind}-one`, pageSize: 40, overrides: pair.overrides[0] })).id,
      (await createCrmConnection(database, commerce[1], crms[1], { name: `${kind}-two`, pageSize: 40, overrides: pair.overrides[1] })).id,
    ];
  });
  afterAll(async () => {
    for (const sandbox of [...(crms ?? []), ...(commerce ?? [])]) await sandbox?.stop();
  });

  /** The CRM ids each sync wrote onto its commerce side (the generated data carries ids of other orgs already). */
  const writtenBack: Pair<string[]> = [[], []];

  /** Both connections' incremental passes, started together on the one worker. */
  const syncBoth = async (round: string) => {
    const before = await Promise.all(commerce.map(crmIdsOnCommerce));
    const client = new Client({ connection: temporal });
    const handles = await Promise.all(
      connections.map((connectionId, which) => {
        const workflowId = `two-orgs-${kind}-${round}-${which + 1}-${Date.now()}`;
        workflowIds.push(workflowId);
        return client.workflow.start(WORKFLOW_TYPES.incrementalSync, { taskQueue, workflowId, args: [{ connectionId }] });
      }),
    );
    const results: SyncProgress[] = await Promise.all(handles.map((handle) => handle.result()));
    for (const result of results) expect(result.finished).toBe(true);
    // They ran side by side: each started before the other ended.
    const [one, two] = await Promise.all(handles.map((handle) => handle.describe()));
    expect(one!.startTime.getTime()).toBeLessThan(two!.closeTime!.getTime());
    expect(two!.startTime.getTime()).toBeLessThan(one!.closeTime!.getTime());
    for (const [which, side] of commerce.entries()) {
      for (const [where, value] of await crmIdsOnCommerce(side)) if (before[which]!.get(where) !== value) writtenBack[which]!.push(value);
    }
  };

  it('keeps records, tokens and schemas apart, and no secret reaches a history or a log line', { timeout: 240_000 }, async () => {
    await syncBoth('initial');
    // Every token either side holds stops working, and both organizations change: the second round
    // renews each connection's token while both run.
    for (const [which, side] of commerce.entries()) {
      await crms[which]!.expireCredentials();
      const answer = await fetch(`${side.apiUrl}/_sandbox/changes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 6, kinds: ['offerStatus', 'newOffer', 'entitlementStatus'] }) });
      expect(answer.status).toBe(200);
    }
    // Some trouble on both CRMs (answers of 500), so failed calls and retried activities are logged too.
    for (const crm of crms) await crm.faults({ rate500: 0.3, seed: 13 });
    await syncBoth('after-expiry');
    for (const crm of crms) await crm.clearFaults();

    for (const which of [0, 1] as const) {
      const own = { commerce: commerce[which]!, crm: crms[which]!, connectionId: connections[which]! };
      const other = { commerce: commerce[1 - which]!, crm: crms[1 - which]! };
      const label = `org ${which + 1}`;

      // No record crosses: exactly its own organization's records (every field), the refused ones as dead letters.
      const rejected = await pair.matches(own.crm, own.commerce, which);
      const letters = await createDeadLetterStore(database.pool).listOpen(own.connectionId);
      expect(letters.map((letter) => `${letter.entity}:${letter.sourceId}`).sort(), label).toEqual(rejected);
      // ... and none of the ids only the other organization has; ids both have name other records there
      // (the witness above compared every field, so a record of the other organization would show).
      for (const entity of ENTITIES) {
        const ownRecords = new Map((await commerceDump(own.commerce, COMMERCE_KINDS[entity])).map((record) => [record.id, record]));
        const foreign = await commerceDump(other.commerce, COMMERCE_KINDS[entity]);
        const foreignOnly = foreign.map((record) => record.id).filter((id) => !ownRecords.has(id));
        const held = await own.crm.keyed(entity);
        expect(foreignOnly.filter((id) => held.has(id)), `${label}: ${entity}s of the other organization`).toEqual([]);
        if (which === 1) continue;
        expect(foreignOnly.length, `the other organization has ${entity}s the first lacks`).toBeGreaterThan(0);
        if (entity === 'buyer' || entity === 'offer') {
          const renamed = foreign.filter((record) => ownRecords.has(record.id) && ownRecords.get(record.id).name !== record.name);
          expect(renamed.length, `${entity} ids both organizations have, on records of other names`).toBeGreaterThan(0);
        }
      }

      // The ids written back are its own org's, never the other's.
      await own.crm.expectWriteBack(own.commerce);
      const [ownIds, otherIds] = await Promise.all([crmRecordIds(own.crm), crmRecordIds(other.crm)]);
      const written = writtenBack[which]!;
      expect(written.length).toBeGreaterThan(0);
      // An id as it is, or in a record URL (crmAEntitlementURL).
      const idIn = (ids: Set<string>) => (value: string) => [...ids].some((id) => value.toLowerCase() === id || value.toLowerCase().includes(`/${id}`));
      expect(written.filter((value) => !idIn(ownIds)(value)), `${label}: written-back ids that are not its own org's`).toEqual([]);
      expect(written.filter(idIn(otherIds)), `${label}: written-back ids of the other org`).toEqual([]);

      // No token crosses: token requests named its own client id only, and no bearer token it never issued arrived.
      const ledger = await own.crm.authLedger();
      const clientId = String(own.crm.settings().clientId);
      expect(Object.keys(ledger.tokenRequests), `${label}: client ids at its token endpoint`).toEqual([clientId]);
      expect(ledger.tokenRequests[clientId]!.refused).toBe(0);
      expect(ledger.refusedBearer, `${label}: bearer tokens refused`).toMatchObject({ missing: 0, unknown: 0 });
      // The expired tokens of the second round were its own, and were renewed.
      expect(ledger.refusedBearer.expired).toBeGreaterThan(0);
    }

    // No cached schema crosses: the schemas differ, and each org's records carry its own.
    await pair.expectOwnSchema(crms);

    // No secret in the runs' histories or the worker's log lines.
    const secrets: Record<string, string | undefined> = { postgresPassword: decodeURIComponent(new URL(database.url).password) };
    for (const [which, side] of commerce.entries()) {
      secrets[`commerce ${which + 1} client secret`] = side.clientSecret;
      for (const [name, value] of Object.entries(crms[which]!.secrets())) secrets[`CRM ${which + 1} ${name}`] = value;
      if (crms[which]!.hubspot) secrets[`HubSpot ${which + 1} private-app token`] = crms[which]!.hubspot!.accessToken;
    }
    const texts = { 'Temporal history': await historiesText(new Client({ connection: temporal }), workflowIds), 'worker log': workerOutput.join('\n') };
    for (const connectionId of connections) expect(texts['Temporal history']).toContain(connectionId);
    expect(secretsFound(texts, secrets)).toEqual([]);
  });
});
