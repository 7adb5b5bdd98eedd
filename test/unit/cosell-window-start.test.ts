// Where a connection's co-sell window (and the stage sync's CRM side) starts, and what a flow's
// narrowing declares. A connection with no stored position used to start at 1970: a first read of every
// Opportunity the org ever changed, which Salesforce answers with QUERY_TIMEOUT in a large org.
import { describe, expect, it } from 'vitest';
import { windowStart } from '../../activities/crm-window.ts';
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

describe('narrowing declared by the co-sell flows (Salesforce only)', () => {
  it('referrals: the share rule as a filter (checkbox true, picklist or stage values)', () => {
    const narrow = opportunityReferralFlow.crm.salesforce!.narrow!;
    expect(narrow(settings())).toEqual({ field: 'Cosell_Share__c', equals: true });
    expect(narrow(settings({ share: { by: 'picklist', field: 'Cosell_Motion__c', values: ['Share', "Partner's"] } }))).toEqual({ field: 'Cosell_Motion__c', oneOf: ['Share', "Partner's"] });
    expect(narrow(settings({ share: { by: 'stage', stages: ['Qualification'] } }))).toEqual({ field: 'StageName', oneOf: ['Qualification'] });
  });

  it('drafts: only Opportunities asking for a private offer; HubSpot and Dynamics declare none', () => {
    expect(opportunityDraftOfferFlow.crm.salesforce!.narrow!(settings())).toEqual({ field: 'Private_Offer_Requested__c', equals: true });
    expect(opportunityReferralFlow.crm.hubspot!.narrow).toBeUndefined();
    expect(opportunityReferralFlow.crm.dynamics!.narrow).toBeUndefined();
    expect(opportunityDraftOfferFlow.crm.hubspot!.narrow).toBeUndefined();
  });
});
