// The timeline and alerts in the demo (issue #27 acceptance), as a user watching `npm start` sees them
// with nothing done by hand: marketplace events become Tasks on the Salesforce records of the offers
// and entitlements they concern, and the demo connection's alert routes deliver to the local
// Slack/Teams-style receiver the demo starts, which prints each alert as one line on the demo's output.
// A demo data directory from before the timeline (its connection saved without it) gets the timeline on
// the next start, and the demo's routes follow the receiver to its new port instead of piling up.
//
// Once each start's worker runs, the demo connection's near-real-time schedule (which reads the feed and
// sends the alerts) runs every 5 s instead of 15 s (its Temporal schedule's interval; each pass does what a
// 15 s one does): the alerts waited for the next pass.
import type pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { realtimeScheduleId } from '../../temporal/sync-schedules.ts';
import { ALERT_LINE, demoJobs, jobTemporal, scheduleEvery } from '../support/demo-job.ts';
import { salesforceDump } from '../support/salesforce-state.ts';
import { waitFor, type StartedJob } from '../support/start-process.ts';

type Description = { commerce: { apiUrl: string; controlUrl: string }; salesforce: { instanceUrl: string; controlUrl: string } };

const demo = demoJobs('crm-sync-demo-timeline-');
let job: StartedJob | undefined;
let pool: pg.Pool | undefined;
afterAll(async () => {
  await pool?.end();
});

/** Once the job's worker runs: the demo connection's near-real-time schedule every 5 s. */
async function realtimeEvery5s(env: NodeJS.ProcessEnv, started: StartedJob): Promise<void> {
  const temporal = await jobTemporal(env, started);
  try {
    expect(await scheduleEvery(temporal.client, realtimeScheduleId(''), '5s')).toBe(1);
  } finally {
    await temporal.close();
  }
}

it('puts marketplace events on the Salesforce records as Tasks and prints the alerts its local receiver gets', async () => {
  const env = await demo.env();
  job = demo.start(env);
  const { salesforce } = JSON.parse(await waitFor('the sandboxes line', () => job!.stdout[0])) as Description;
  await realtimeEvery5s(env, job);
  const within = 300_000;

  // A Task made by the timeline (it carries the event's id) on an Opportunity made from a commerce offer,
  // or on an entitlement record.
  const task = await waitFor(
    'a Task from a marketplace event on an offer or entitlement record',
    async () => {
      const tasks = (await salesforceDump(salesforce, 'Task')).filter((t) => t.Commerce_Event_Id__c && t.WhatId);
      if (tasks.length === 0) return undefined;
      const [opportunities, entitlements] = await Promise.all([salesforceDump(salesforce, 'Opportunity'), salesforceDump(salesforce, 'Marketplace_Entitlement__c')]);
      const linked = new Map([...opportunities.filter((o) => o.Commerce_Offer_Id__c), ...entitlements.filter((e) => e.Commerce_Entitlement_Id__c)].map((record) => [record.Id, record]));
      const found = tasks.find((t) => linked.has(t.WhatId));
      return found && { task: found, record: linked.get(found.WhatId) };
    },
    within,
    3000,
  );
  expect(task.task.Subject).toBeTruthy();
  expect(task.task.OwnerId).toBe(task.record.OwnerId);

  // The route's alerts reach the receiver, which prints them on stdout (after the sandboxes line).
  const alert = await waitFor('an alert line from the demo receiver', () => job!.stdout.slice(1).find((line) => ALERT_LINE.test(line)), within, 1000);
  expect(alert).not.toMatch(/[{}]|undefined|\[object/);

  // The routes are stored like any other: sealed, a listing's hint never the webhook path.
  pool = demo.openPool(env);
  const routes = async () => (await pool!.query("SELECT r.destination_kind, r.event_types, r.hint, r.secret_ciphertext FROM alert_routes r JOIN connections c ON c.id = r.connection_id WHERE c.name = 'demo' ORDER BY r.destination_kind")).rows;
  const before = await routes();
  expect(before.map((r) => [r.destination_kind, r.event_types])).toEqual([
    ['slack', ['OFFER.*', 'REFERRAL.*']],
    ['teams', ['ENTITLEMENT.*', 'BUYER.*']],
  ]);
  for (const route of before) {
    expect(route.hint).not.toContain('demo-alerts');
    expect(route.secret_ciphertext.toString('latin1')).not.toContain('127.0.0.1');
  }

  // As a demo saved before the timeline: its connection has the default entities only.
  await pool.query("UPDATE connections SET settings = settings - 'entities' WHERE name = 'demo'");
  await pool.end();
  pool = undefined;
  process.kill(-job.child.pid!, 'SIGINT');
  expect(await job.exited).toBe(0);

  job = demo.start(env);
  await waitFor('the sandboxes line again', () => job!.stdout[0]);
  await realtimeEvery5s(env, job);
  pool = demo.openPool(env);
  const entities = await waitFor(
    'the demo connection to sync the timeline again',
    async () => {
      const row = (await pool!.query("SELECT settings->'entities' AS entities FROM connections WHERE name = 'demo'").catch(() => ({ rows: [] }))).rows[0];
      return row?.entities?.includes('timeline') && row.entities;
    },
    within,
    1000,
  );
  // The demo's entities (the timeline and the catalogue among them), with Salesforce's two price flows that come with the catalogue.
  expect(entities).toEqual(['buyer', 'contact', 'offer', 'entitlement', 'referral', 'timeline', 'catalogue', 'catalogue-standard-price', 'catalogue-price']);
  await waitFor('an alert line after the restart', () => job!.stdout.slice(1).find((line) => ALERT_LINE.test(line)), within, 1000);
  expect((await routes()).map((r) => r.destination_kind)).toEqual(['slack', 'teams']);
  await pool.end();
  pool = undefined;

  process.kill(-job.child.pid!, 'SIGINT');
  expect(await job.exited).toBe(0);
}, 600_000); // two demo starts, the first with its first sync of 1,000 entitlements, on a shared machine
