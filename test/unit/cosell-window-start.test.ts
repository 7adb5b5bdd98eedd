// Where a connection's co-sell window (and the stage sync's CRM side) starts, and what a flow's
// narrowing declares. A connection with no stored position used to start at 1970: a first read of every
// Opportunity the org ever changed, which Salesforce answers with QUERY_TIMEOUT in a large org.
import { filterSoql } from '../../crm/salesforce/window-read.ts';
import { pairedFilter, PRIVATE_OFFER_REQUESTED, unionFilter } from '../../flows/narrowing.ts';
import { describe, expect, it } from 'vitest';
import { readWindowPage, windowStart } from '../../activities/crm-window.ts';
import type { ChangedSinceOptions, CrmConnector, CrmRecord } from '../../crm/connector.ts';
import { opportunityDraftOfferFlow } from '../../flows/opportunity-draft-offer.ts';
import { opportunityReferralFlow } from '../../flows/opportunity-referral.ts';
import { connectionSettingsSchema } from '../../sync/connection-settings.ts';

const now = new Date('2026-03-01T12:00:00.000Z');
const settings = (cosell: Record<string, unknown> = {}, crm: Record<string, unknown> = { loginUrl: 'https://example.my.salesforce.com', clientId: 'c' }) =>
  connectionSettingsSchema.parse({ commerce: { baseUrl: 'https://commerce.example', authUrl: 'https://auth.example', clientId: 'c', organizationId: 'o' }, crm, cosell });

describe('the co-sell start horizon', () => {
  it('a connection without a stored position starts 90 days back by default, not at 1970', () => {
    expect(windowStart(undefined, now)).toEqual({ time: '2025-12-01T12:00:00.000Z' });
  });

  it('cosell.startHorizonDays moves it; a stored position always wins', () => {
    const horizon = settings({ startHorizonDays: 365 }).cosell.startHorizonDays;
    expect(windowStart(undefined, now, horizon)).toEqual({ time: '2025-03-01T12:00:00.000Z' });
    expect(windowStart(new Date('2020-05-05T00:00:00.000Z'), now, horizon)).toEqual({ time: '2020-05-05T00:00:00.000Z' });
  });

  it('the setting is a whole number of days from 1 to 36,500', () => {
    expect(settings().cosell.startHorizonDays).toBeUndefined();
    expect(() => settings({ startHorizonDays: 0 })).toThrow(/startHorizonDays/);
    expect(() => settings({ startHorizonDays: 1.5 })).toThrow(/startHorizonDays/);
  });
});

describe('narrowing declared by the co-sell flows', () => {
  it('referrals: the share rule as a filter (checkbox true, picklist or stage values)', () => {
    const narrow = opportunityReferralFlow.crm.salesforce!.narrow!;
    expect(narrow(settings())).toEqual({ field: 'Cosell_Share__c', equals: true });
    expect(narrow(settings({ share: { by: 'picklist', field: 'Cosell_Motion__c', values: ['Share', "Partner's"] } }))).toEqual({ field: 'Cosell_Motion__c', oneOf: ['Share', "Partner's"] });
    expect(narrow(settings({ share: { by: 'stage', stages: ['Qualification'] } }))).toEqual({ field: 'StageName', oneOf: ['Qualification'] });
  });

  it('drafts: only Opportunities asking for a private offer, on every CRM', () => {
    expect(opportunityDraftOfferFlow.crm.salesforce!.narrow!(settings())).toEqual({ field: 'Private_Offer_Requested__c', equals: true });
    expect(opportunityDraftOfferFlow.crm.hubspot!.narrow!(settings())).toEqual({ field: 'private_offer_requested', equals: true });
    expect(opportunityDraftOfferFlow.crm.dynamics!.narrow!(settings())).toEqual({ field: 'ccs_privateofferrequested', equals: true });
  });

  // Issue #24 item 9: HubSpot and Dynamics 365 narrow by a checkbox rule; their picklist and stage values
  // are read as labels but filtered by internal values, so those rules read the whole window.
  it('HubSpot and Dynamics: the checkbox share rule only', () => {
    expect(opportunityReferralFlow.crm.hubspot!.narrow!(settings({ share: { by: 'checkbox', field: 'cosell_share' } }))).toEqual({ field: 'cosell_share', equals: true });
    expect(opportunityReferralFlow.crm.dynamics!.narrow!(settings({ share: { by: 'checkbox', field: 'ccs_cosellshare' } }))).toEqual({ field: 'ccs_cosellshare', equals: true });
    expect(opportunityReferralFlow.crm.hubspot!.narrow!(settings({ share: { by: 'stage', stages: ['Qualified To Buy'] } }))).toBeUndefined();
    expect(opportunityReferralFlow.crm.dynamics!.narrow!(settings({ share: { by: 'picklist', field: 'ccs_motion', values: ['Share'] } }))).toBeUndefined();
  });

  it('one read for every pass: the union of their filters, none when a pass reads everything', () => {
    const share = { field: 'Cosell_Share__c', equals: true } as const;
    expect(unionFilter([share, PRIVATE_OFFER_REQUESTED, pairedFilter('Commerce_Referral_Id__c')])).toEqual({ anyOf: [share, PRIVATE_OFFER_REQUESTED, { field: 'Commerce_Referral_Id__c', present: true }] });
    expect(unionFilter([share])).toEqual(share);
    expect(unionFilter([share, undefined])).toBeUndefined();
    expect(filterSoql({ anyOf: [share, PRIVATE_OFFER_REQUESTED, pairedFilter('Commerce_Referral_Id__c')] })).toBe('(Cosell_Share__c = true OR Private_Offer_Requested__c = true OR Commerce_Referral_Id__c != null)');
  });
});

describe('one page of a window, as the activities read it', () => {
  const records = (count: number): CrmRecord[] => Array.from({ length: count }, (_, i) => ({ Id: `006${String(i).padStart(15, '0')}`, SystemModstamp: '2026-03-01T09:00:00.000+0000' }));
  const crm = (page: CrmRecord[], locator?: string | null) => {
    const seen: ChangedSinceOptions[] = [];
    const connector = {
      idField: 'Id',
      stampField: 'SystemModstamp',
      async *changedSince(_object: string, options: ChangedSinceOptions) {
        seen.push(options);
        if (locator !== null) options.onLocator?.(locator);
        yield page;
      },
    } as unknown as CrmConnector;
    return { connector, seen };
  };
  const input = { cursor: { time: '2026-02-01T00:00:00.000Z', afterId: '006000000000000001', locator: '01gAAA-200' }, until: '2026-03-02T00:00:00.000Z', pageSize: 200, fields: ['Name'] };

  it("hands the cursor's locator to the connector and returns the next one with the position", async () => {
    const { connector, seen } = crm(records(200), '01gAAA-400');
    const read = await readWindowPage(connector, 'Opportunity', input);
    expect(seen[0]).toMatchObject({ since: new Date('2026-02-01T00:00:00.000Z'), afterId: '006000000000000001', locator: '01gAAA-200', pageSize: 200 });
    expect(read.nextCursor).toEqual({ time: '2026-03-01T09:00:00.000Z', afterId: '006000000000000199', locator: '01gAAA-400' });
    expect(read.done).toBe(false);
  });

  it("a CRM that hands out locators decides when the window ends, whatever the page's length", async () => {
    // Salesforce may answer fewer records than the batch size with more to come.
    expect((await readWindowPage(crm(records(150), '01gAAA-350').connector, 'Opportunity', input)).done).toBe(false);
    expect((await readWindowPage(crm(records(200), undefined).connector, 'Opportunity', input)).done).toBe(true);
  });

  it('a CRM without locators ends the window on a short page, and the cursor carries none', async () => {
    const short = await readWindowPage(crm(records(150), null).connector, 'Opportunity', input);
    expect(short.done).toBe(true);
    expect(short.nextCursor.locator).toBeUndefined();
    expect((await readWindowPage(crm(records(200), null).connector, 'Opportunity', input)).done).toBe(false);
  });

  // If queryMore answers fields as they are now, a record edited during the read comes back stamped
  // after the window's end, out of its place in the order.
  const stamped = (id: string, stamp: string): CrmRecord => ({ Id: id, SystemModstamp: stamp });

  it('leaves a record stamped after the window end to the next window: not handed on, never the cursor', async () => {
    const page = [stamped('006A', '2026-03-01T09:00:00.000+0000'), stamped('006B', '2026-03-05T10:00:00.000+0000'), stamped('006C', '2026-03-01T09:00:05.000+0000')];
    const read = await readWindowPage(crm(page, '01gAAA-400').connector, 'Opportunity', input);
    expect(read.page.map((record) => record.Id)).toEqual(['006A', '006C']);
    expect(read.nextCursor).toEqual({ time: '2026-03-01T09:00:05.000Z', afterId: '006C', locator: '01gAAA-400' });
    const lateLast = await readWindowPage(crm(page.slice(0, 2), '01gAAA-400').connector, 'Opportunity', input);
    expect(lateLast.nextCursor).toEqual({ time: '2026-03-01T09:00:00.000Z', afterId: '006A', locator: '01gAAA-400' });
  });

  it('a locator page whose stamps go backwards ends the locator: a fresh query starts at the stamp found out of order', async () => {
    const page = [stamped('006A', '2026-03-01T09:00:00.000+0000'), stamped('006B', '2026-03-01T11:00:00.000+0000'), stamped('006C', '2026-03-01T09:30:00.000+0000'), stamped('006D', '2026-03-01T09:40:00.000+0000')];
    const read = await readWindowPage(crm(page, '01gAAA-400').connector, 'Opportunity', input);
    expect(read.page.map((record) => record.Id)).toEqual(['006A', '006B']);
    expect(read.nextCursor).toEqual({ time: '2026-03-01T09:30:00.000Z' });
    expect(read.done).toBe(false);
    // Behind the cursor it came with counts too: the previous page's last record moved forward.
    const behind = await readWindowPage(crm([stamped('006E', '2026-01-31T23:59:59.000+0000')], '01gAAA-400').connector, 'Opportunity', input);
    expect(behind).toEqual({ page: [], nextCursor: { time: '2026-01-31T23:59:59.000Z' }, done: false });
  });

  it("a fresh query's page (no locator given) is the CRM's own order and is not checked", async () => {
    const page = [stamped('006B', '2026-03-01T11:00:00.000+0000'), stamped('006C', '2026-03-01T09:30:00.000+0000')];
    const read = await readWindowPage(crm(page, null).connector, 'Opportunity', { ...input, cursor: { time: input.cursor.time, afterId: input.cursor.afterId } });
    expect(read.page.map((record) => record.Id)).toEqual(['006B', '006C']);
    expect(read.nextCursor).toEqual({ time: '2026-03-01T09:30:00.000Z', afterId: '006C' });
  });
});
