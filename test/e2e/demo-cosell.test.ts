// Co-sell in the demo, as a user watching `npm start` sees it, with nothing done by hand: the sellers (the
// Salesforce sandbox's change driver) share Opportunities and ask for private-offer drafts, and the demo
// connection's co-sell schedule turns them into referrals and draft offers whose ids come back onto the
// Opportunities; the partner sends referrals of its own, which reach the org; submitted referrals get the
// partner's decision on their Opportunity, and the sellers' decisions on inbound referrals reach the marketplace.
// A private offer is built from products (issue #28 acceptance): the sellers add catalogue products to an
// Opportunity that asks for an offer, the demo connection's approval rule holds the draft until the deal desk
// approves it, and then it is published to the buyer with the products' dimensions as its terms.
//
// Shortened waits that prove nothing about the sync (both through the sandboxes' controls, right after
// they start): the partner reviews a submitted referral 10 s instead of the demo's 60 s (a review still
// runs: the decision comes later, as its own change), and the sellers make a change a second instead of one
// every five (the same kinds of moves, sooner; the partner moves while they work, every 15 s as in the demo);
// and, once the worker runs, the demo connection's co-sell schedule runs every 5 s instead of 30 s (its
// Temporal schedule's interval: each pass does what a 30 s one does, and every step of a referral's or an
// offer's way waited for the next pass).
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { cosellScheduleId } from '../../temporal/sync-schedules.ts';
import { jobTemporal, scheduleEvery } from '../support/demo-job.ts';
import { commerceDump } from '../support/expected-crm.ts';
import { salesforceDump } from '../support/salesforce-state.ts';
import { embeddedJobEnv, startJob, waitFor, type StartedJob } from '../support/start-process.ts';

type Description = { commerce: { apiUrl: string; controlUrl: string; clientId: string }; salesforce: { instanceUrl: string; controlUrl: string } };

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crm-sync-demo-cosell-'));
chmodSync(dataDir, 0o755);
let job: StartedJob | undefined;
let temporal: Awaited<ReturnType<typeof jobTemporal>> | undefined;
afterAll(async () => {
  await temporal?.close().catch(() => {});
  if (job && process.env.DEBUG_DEMO_TEST) console.log(job.logs.slice(-15).map((entry) => JSON.stringify(entry).slice(0, 400)).join('\n'));
  try {
    if (job) process.kill(-job.child.pid!, 'SIGKILL');
  } catch {
    // the group is gone already
  }
  rmSync(dataDir, { recursive: true, force: true });
});

it('shows co-sell moving both ways on its own: shared deals become referrals, requests become drafts, the partner answers', async () => {
  const startedAt = new Date().toISOString();
  const env = await embeddedJobEnv(dataDir, { CRM_SYNC_DEMO: 'on' });
  job = startJob(env);
  const { commerce, salesforce } = JSON.parse(await waitFor('the sandboxes line', () => job!.stdout[0])) as Description;
  const control = async (url: string, body: unknown) => expect((await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status).toBe(200);
  await control(`${commerce.controlUrl}/cosell/review`, { seconds: 10 });
  await control(`${salesforce.controlUrl}/changes/rate`, { changesPerSecond: 1 });
  temporal = await jobTemporal(env, job);
  expect(await scheduleEvery(temporal.client, cosellScheduleId(''), '5s')).toBe(1);
  const within = 300_000;

  // Seller -> partner: an Opportunity the sellers shared (a new deal, or one the sync made from an offer;
  // the sync itself never sets Cosell_Share__c) carries the id of the referral made from it, and that
  // referral on the marketplace names the Opportunity back.
  const shared = await waitFor(
    'a shared Opportunity to become a referral',
    async () => {
      const referrals = new Map((await commerceDump(commerce, 'referrals')).map((referral) => [referral.id, referral]));
      const opportunity = (await salesforceDump(salesforce, 'Opportunity')).find((o) => o.Cosell_Share__c === true && o.Commerce_Referral_Id__c && referrals.get(o.Commerce_Referral_Id__c)?.crmAOpportunityId === o.Id);
      return opportunity && { opportunity, referral: referrals.get(opportunity.Commerce_Referral_Id__c) };
    },
    within,
    3000,
  );
  expect(shared.opportunity.Cosell_Status__c).toBeTruthy();
  expect(shared.referral.direction ?? 'OUTBOUND').not.toBe('INBOUND');

  // Seller asks for a private offer: one draft offer naming the Opportunity, its id back on the Opportunity.
  const drafted = await waitFor(
    'a requested private offer to become a draft',
    async () => {
      // A draft the demo connection's API client made since the start (not an offer of the generated data or the commerce
      // driver's, whose Opportunities also carry their offer's id), of the product the seller asked for.
      const offers = (await commerceDump(commerce, 'offers')).filter((offer) => offer.createdBy === commerce.clientId && offer.creationTime >= startedAt);
      const opportunity = (await salesforceDump(salesforce, 'Opportunity')).find(
        (o) => o.Private_Offer_Requested__c === true && offers.some((offer) => offer.id === o.Commerce_Offer_Id__c && offer.metaInfo?.crmAOpportunityId === o.Id && offer.productID === o.Commerce_Product_Id__c),
      );
      return opportunity && { opportunity, offers: offers.filter((offer) => offer.metaInfo?.crmAOpportunityId === opportunity.Id) };
    },
    within,
    3000,
  );
  expect(drafted.offers.map((offer: { id: string }) => offer.id)).toEqual([drafted.opportunity.Commerce_Offer_Id__c]);

  // Partner -> seller: a referral the partner sent since the demo started reaches the org under its id
  // (which moves the partner makes, and when, is demo-partner.test.ts).
  await waitFor(
    "a partner's inbound referral to reach the org",
    async () => {
      const sent = (await commerceDump(commerce, 'referrals')).filter((referral) => referral.direction === 'INBOUND' && referral.creationTime >= startedAt);
      const inbound = new Set(sent.map((referral) => referral.id));
      if (inbound.size === 0) return undefined;
      const [referrals, opportunities] = await Promise.all([salesforceDump(salesforce, 'Cosell_Referral__c'), salesforceDump(salesforce, 'Opportunity')]);
      return [...referrals, ...opportunities].some((record) => inbound.has(record.Commerce_Referral_Id__c)) || undefined;
    },
    within,
    3000,
  );

  // The lifecycle (issue #24): a seller's shared Opportunity is submitted in the run that makes its referral,
  // and the partner's decision after its review (60 s in the demo, 10 s here) reaches the Opportunity.
  const decided = await waitFor(
    "the partner's decision on a submitted referral to reach its Opportunity",
    async () => {
      const referrals = new Map((await commerceDump(commerce, 'referrals')).map((referral) => [referral.id, referral]));
      return (await salesforceDump(salesforce, 'Opportunity')).find((o) => {
        const referral = referrals.get(o.Commerce_Referral_Id__c);
        return o.Cosell_Share__c === true && referral?.crmAOpportunityId === o.Id && referral.creationTime >= startedAt && ['ACCEPTED', 'REJECTED'].includes(o.Cosell_Status__c) && o.Cosell_Status__c === referral.status;
      });
    },
    within,
    3000,
  );
  if (decided.Cosell_Status__c === 'REJECTED') expect(decided.Cosell_Errors__c).toMatch(/rejected the referral/);
  else expect(decided.Cosell_Review_Ends__c ?? null).toBe(null);

  // A partner's referral the sellers decided on their Opportunity (Cosell_Decision__c) is ACCEPTED or REJECTED on the marketplace.
  await waitFor(
    "a seller's decision on an inbound referral to reach the marketplace",
    async () => {
      const opportunities = new Map((await salesforceDump(salesforce, 'Opportunity')).map((o) => [o.Id, o]));
      return (await commerceDump(commerce, 'referrals')).some((referral) => {
        const decision = opportunities.get(referral.crmAOpportunityId)?.Cosell_Decision__c;
        return referral.direction === 'INBOUND' && referral.creationTime >= startedAt && ((decision === 'Accept' && referral.status === 'ACCEPTED') || (decision === 'Reject' && referral.status === 'REJECTED'));
      }) || undefined;
    },
    within,
    3000,
  );

  const built = await waitFor(
    'a published offer built from Opportunity products, approved by the deal desk',
    async () => {
      const offers = new Map((await commerceDump(commerce, 'offers')).filter((offer) => offer.createdBy === commerce.clientId && offer.creationTime >= startedAt).map((offer) => [offer.id, offer]));
      const [lines, entries, products, opportunities] = (await Promise.all(['OpportunityLineItem', 'PricebookEntry', 'Product2', 'Opportunity'].map((object) => salesforceDump(salesforce, object)))) as [any[], any[], any[], any[]];
      const dimensionOf = (line: any) => products.find((product) => product.Id === entries.find((entry) => entry.Id === line.PricebookEntryId)?.Product2Id)?.Commerce_Dimension_Key__c;
      for (const o of opportunities) {
        const offer = offers.get(o.Commerce_Offer_Id__c);
        const own = lines.filter((line) => line.OpportunityId === o.Id);
        if (!offer || own.length === 0 || o.Offer_Approval_Status__c !== 'Approved' || offer.subStatus === 'DRAFT') continue;
        const terms = [...(offer.info?.commits ?? []), ...(offer.info?.dimensions ?? [])].map((term: { key: string }) => term.key).sort();
        if (terms.length > 0 && JSON.stringify(terms) === JSON.stringify(own.map(dimensionOf).sort())) return { opportunity: o, offer };
      }
      return undefined;
    },
    within,
    3000,
  );
  expect(built.offer.metaInfo.crmAOpportunityId).toBe(built.opportunity.Id);
  expect(built.offer.status).not.toBe('DRAFT');
  expect(built.opportunity.Private_Offer_Requested__c).toBe(true);
  expect(built.opportunity.Offer_Approved_By__c).toBeTruthy(); // the deal desk's approver, by name
  expect(built.opportunity.Offer_Approved_At__c).toBeTruthy(); // written by the sync when it published

  process.kill(-job.child.pid!, 'SIGINT');
  expect(await job.exited).toBe(0);
}, 600_000); // a demo start with its first sync of 1,000 entitlements, on a shared machine
