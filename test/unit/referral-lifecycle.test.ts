// The CRM-neutral lifecycle values (sync/referral-lifecycle.ts) and the Dynamics state-as-stage reading.
import { describe, expect, it } from 'vitest';
import { decidedOtherwise, decisionOf, decisionPatch, referralShown, sameInstant } from '../../sync/referral-lifecycle.ts';
import { OPPORTUNITY_LIFECYCLE as SALESFORCE } from '../../mappings/salesforce/referral-lifecycle.ts';
import { dynamicsStepOf, dynamicsStepWrite } from '../../mappings/dynamics/stages.ts';
import { OPPORTUNITY_LIFECYCLE as DYNAMICS } from '../../mappings/dynamics/referral-lifecycle.ts';
import { DEAL_LIFECYCLE } from '../../mappings/hubspot/referral-lifecycle.ts';

const referral = (fields: Record<string, unknown>) => ({ id: 'ref-1', lastUpdateTime: '2026-11-26T10:00:00Z', partner: 'cloudA', direction: 'OUTBOUND', ...fields }) as never;

describe('what a record shows of its referral', () => {
  it('a submission under review shows when the review ends; nothing else', () => {
    expect(referralShown(referral({ status: 'SUBMITTED', stage: 'Prospect', partnerReviewEndTime: '2026-11-26T10:01:00.789Z' }))).toEqual({ status: 'SUBMITTED', stage: 'Prospect', reviewEnds: '2026-11-26T10:01:00Z', rejection: null });
  });
  it("a rejection shows the partner's reasons and what to do; an accepted referral shows no review window", () => {
    expect(referralShown(referral({ status: 'REJECTED', stage: 'Prospect', statusReason: 'Duplicate opportunity' })).rejection).toBe(
      "Marketplace A rejected the referral: Duplicate opportunity. To submit it again, change what the partner asks for in the opportunity's name, amount, close date, description or partner, and save it: it is submitted again once.",
    );
    expect(referralShown(referral({ status: 'REJECTED', stage: 'Prospect' })).rejection).toContain('no reason was given');
    expect(referralShown(referral({ status: 'ACCEPTED', stage: 'Qualified', partnerReviewEndTime: '2026-11-26T10:01:00Z' })).reviewEnds).toBe(null);
  });
  it("an inbound referral the seller rejected is no partner's rejection", () => {
    expect(referralShown(referral({ direction: 'INBOUND', status: 'REJECTED', statusReason: 'Not our segment' })).rejection).toBe(null);
  });
});

describe("a seller's decision on an inbound referral", () => {
  it('each CRM reads its own choice: a Salesforce picklist label, a HubSpot option value, a Dataverse option number', () => {
    expect([SALESFORCE.choice('Accept'), SALESFORCE.choice('Reject'), SALESFORCE.choice('accept'), SALESFORCE.choice(null)]).toEqual(['accept', 'reject', undefined, undefined]);
    expect([DEAL_LIFECYCLE.choice('accept'), DEAL_LIFECYCLE.choice('reject'), DEAL_LIFECYCLE.choice('Accept'), DEAL_LIFECYCLE.choice('')]).toEqual(['accept', 'reject', undefined, undefined]);
    expect([DYNAMICS.choice(100000000), DYNAMICS.choice(100000001), DYNAMICS.choice(1), DYNAMICS.choice(null)]).toEqual(['accept', 'reject', undefined, undefined]);
  });
  it('a choice and its reason make the decision (the reason only with a rejection)', () => {
    expect(decisionOf('accept', 'ignored')).toEqual({ status: 'ACCEPTED' });
    expect(decisionOf('reject', ' Out of territory ')).toEqual({ status: 'REJECTED', reason: 'Out of territory' });
    expect(decisionOf('reject', '')).toEqual({ status: 'REJECTED' });
    expect(decisionOf(undefined, 'x')).toBe(undefined);
  });
  it('a referral decided the other way elsewhere cannot take the choice; the same decision, or a closed referral, is no conflict', () => {
    expect(decidedOtherwise(referral({ direction: 'INBOUND', status: 'ACCEPTED' }), { status: 'REJECTED' })).toBe(true);
    expect(decidedOtherwise(referral({ direction: 'INBOUND', status: 'ACCEPTED' }), { status: 'ACCEPTED' })).toBe(false);
    expect(decidedOtherwise(referral({ direction: 'INBOUND', status: 'CLOSED' }), { status: 'REJECTED' })).toBe(false);
  });
  it('asks the commerce side once: only an inbound referral still SUBMITTED is decided', () => {
    const inbound = referral({ direction: 'INBOUND', status: 'SUBMITTED' });
    expect(decisionPatch(inbound, { status: 'REJECTED', reason: 'Out of territory' })).toEqual({ status: 'REJECTED', statusReason: 'Out of territory' });
    expect(decisionPatch(inbound, { status: 'ACCEPTED' })).toEqual({ status: 'ACCEPTED' });
    expect(decisionPatch(referral({ direction: 'INBOUND', status: 'ACCEPTED' }), { status: 'REJECTED' })).toBe(undefined);
    expect(decisionPatch(referral({ direction: 'OUTBOUND', status: 'SUBMITTED' }), { status: 'ACCEPTED' })).toBe(undefined);
    expect(decisionPatch(inbound, undefined)).toBe(undefined);
  });
});

describe('date-times as CRMs answer them', () => {
  it('the same instant in ISO text or epoch milliseconds is the same; none equals none only', () => {
    expect(sameInstant('2026-11-26T10:01:00Z', '2026-11-26T10:01:00.000+00:00')).toBe(true);
    expect(sameInstant('1795687260000', '2026-11-26T10:01:00Z')).toBe(true);
    expect(sameInstant(null, undefined)).toBe(true);
    expect(sameInstant(null, '2026-11-26T10:01:00Z')).toBe(false);
    expect(sameInstant('2026-11-26T10:01:01Z', '2026-11-26T10:01:00Z')).toBe(false);
    // Salesforce and Dataverse keep whole seconds: a value read back without its milliseconds is the same.
    expect(sameInstant('2026-11-26T10:01:00.000+0000', '2026-11-26T10:01:00.345Z')).toBe(true);
  });
});

describe('closing', () => {
  it("Dynamics: a closed opportunity's state is its step, whatever its phase says; writing a step names its state", () => {
    expect(dynamicsStepOf({ stepname: '3-Propose', statecode: 1 })).toBe('Won');
    expect(dynamicsStepOf({ stepname: '3-Propose', statecode: 2 })).toBe('Lost');
    expect(dynamicsStepOf({ stepname: '3-Propose', statecode: 0 })).toBe('3-Propose');
    expect(dynamicsStepWrite('Won')).toEqual({ stepname: 'Won', statecode: 'Won' });
    expect(dynamicsStepWrite('2-Develop')).toEqual({ stepname: '2-Develop', statecode: 'Open' });
  });
  it('the loss reason: Dynamics from the status reason of a lost opportunity, HubSpot from closed_lost_reason', () => {
    expect(DYNAMICS.lossReason!.read({ statecode: 2, statuscode: 5 })).toBe('Out-Sold');
    expect(DYNAMICS.lossReason!.read({ statecode: 2, statuscode: 4 })).toBe('Canceled');
    expect(DYNAMICS.lossReason!.read({ statecode: 1, statuscode: 3 })).toBe(undefined);
    expect(DEAL_LIFECYCLE.lossReason!.read({ closed_lost_reason: ' Chose a competitor ' })).toBe('Chose a competitor');
    expect(DEAL_LIFECYCLE.lossReason!.read({ closed_lost_reason: '' })).toBe(undefined);
  });
});
