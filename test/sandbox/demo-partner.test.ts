// The demo's partner (cli/demo-partner.ts) against the real sandboxes over HTTP: it moves only while the
// sellers (the Salesforce change driver) work, and what it moves is the partner's side of co-sell alone:
// ACCEPTED referrals a stage on, or new INBOUND referrals; no offer, entitlement or other referral.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDemoPartner } from '../../cli/demo-partner.ts';
import { createLogger } from '../../config/logger.ts';
import { startAllSandboxes, type Sandboxes } from '../../sandbox/start-all.ts';
import { commerceDump } from '../support/expected-crm.ts';

let sandboxes: Sandboxes;
let stopPartner: () => void;
beforeAll(async () => {
  sandboxes = await startAllSandboxes({ entitlements: 40, seed: 7 });
  stopPartner = startDemoPartner({
    commerceControlUrl: sandboxes.description.commerce!.controlUrl!,
    salesforceControlUrl: sandboxes.description.salesforce!.controlUrl!,
    everySeconds: 0.1,
    logger: createLogger({ level: 'silent', format: 'json' }),
  });
});
afterAll(async () => {
  stopPartner?.();
  await sandboxes?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sellersAt = (changesPerSecond: number) =>
  fetch(`${sandboxes.description.salesforce!.controlUrl}/changes/rate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ changesPerSecond }) });
const commerce = () => ({ apiUrl: sandboxes.commerce.apiUrl });
const byId = (rows: any[]) => new Map(rows.map((row) => [row.id, JSON.stringify(row)]));

it('waits while the sellers are idle, moves only referrals the partner way while they work, and stops with them', async () => {
  const [referrals, offers, entitlements] = await Promise.all([commerceDump(commerce(), 'referrals'), commerceDump(commerce(), 'offers'), commerceDump(commerce(), 'entitlements')]);
  await sleep(1000); // ten ticks with the sellers off
  expect(byId(await commerceDump(commerce(), 'referrals'))).toEqual(byId(referrals));

  // A rate this low makes the driver run without a seller change during the test.
  expect((await sellersAt(0.001)).status).toBe(200);
  const before = new Map(referrals.map((referral) => [referral.id, referral]));
  const moved = await (async () => {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      await sleep(200);
      const now = await commerceDump(commerce(), 'referrals');
      const changed = now.filter((referral) => JSON.stringify(referral) !== JSON.stringify(before.get(referral.id)));
      if (changed.length >= 3) return changed;
    }
    throw new Error('the partner made fewer than 3 moves in 10 seconds while the sellers worked');
  })();
  for (const referral of moved) {
    const was = before.get(referral.id);
    if (was) expect(was.status, `referral ${referral.id} moved on by the partner was ACCEPTED`).toBe('ACCEPTED');
    else expect({ direction: referral.direction, status: referral.status, stage: referral.stage }, `new referral ${referral.id}`).toEqual({ direction: 'INBOUND', status: 'SUBMITTED', stage: 'Prospect' });
  }
  expect(byId(await commerceDump(commerce(), 'offers'))).toEqual(byId(offers));
  expect(byId(await commerceDump(commerce(), 'entitlements'))).toEqual(byId(entitlements));

  expect((await sellersAt(0)).status).toBe(200);
  await sleep(300); // a tick already under way finishes
  const stopped = await commerceDump(commerce(), 'referrals');
  await sleep(1000);
  expect(byId(await commerceDump(commerce(), 'referrals'))).toEqual(byId(stopped));
});
