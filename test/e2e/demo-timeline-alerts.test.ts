// The timeline and alerts in the demo (issue #27 acceptance), as a user watching `npm start` sees them
// with nothing done by hand: marketplace events become Tasks on the Salesforce records of the offers
// and entitlements they concern, and the demo connection's alert routes deliver to the local
// Slack/Teams-style receiver the demo starts, which prints each alert as one line on the demo's output.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { salesforceDump } from '../support/salesforce-state.ts';
import { embeddedJobEnv, startJob, waitFor, type StartedJob } from '../support/start-process.ts';

type Description = { commerce: { apiUrl: string; controlUrl: string }; salesforce: { instanceUrl: string; controlUrl: string } };

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crm-sync-demo-timeline-'));
chmodSync(dataDir, 0o755);
let job: StartedJob | undefined;
afterAll(() => {
  if (job && process.env.DEBUG_DEMO_TEST) console.log([...job.stdout.slice(-10), ...job.logs.slice(-15).map((entry) => JSON.stringify(entry).slice(0, 400))].join('\n'));
  try {
    if (job) process.kill(-job.child.pid!, 'SIGKILL');
  } catch {
    // the group is gone already
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const ALERT_LINE = /^\[alert → (slack|teams)\] \S.*: \S/;

it('puts marketplace events on the Salesforce records as Tasks and prints the alerts its local receiver gets', async () => {
  job = startJob(await embeddedJobEnv(dataDir, { CRM_SYNC_DEMO: 'on' }));
  const { salesforce } = JSON.parse(await waitFor('the sandboxes line', () => job!.stdout[0])) as Description;
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

  process.kill(-job.child.pid!, 'SIGINT');
  expect(await job.exited).toBe(0);
}, 600_000); // a demo start with its first sync of 1,000 entitlements, on a shared machine
