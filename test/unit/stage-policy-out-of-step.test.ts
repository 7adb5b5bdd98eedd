// The stage policy when neither side changed since the last agreement yet the two are out of step (issue
// #24 defect 5): a write that did not take, or stage tables changed since. Expectations written by hand.
import { describe, expect, it } from 'vitest';
import { decideStage, type Agreement } from '../../sync/stage-policy.ts';
import { COSELL_TO_HUBSPOT_STAGE, HUBSPOT_TO_COSELL_STAGE } from '../../mappings/hubspot/stages.ts';

const tables = { toCommerce: HUBSPOT_TO_COSELL_STAGE, toCrm: COSELL_TO_HUBSPOT_STAGE };
const at = (seconds: number) => new Date(Date.UTC(2026, 10, 1, 12, 0, seconds));

describe('neither side changed, yet out of step', () => {
  // What we agreed on last: the partner's Committed, and the deal's stage as it stood (the write to Contract Sent did not take).
  const agreed: Agreement = { commerceStage: 'Committed', crmStage: 'Appointment Scheduled', commerceStamp: at(0), crmStamp: at(0) };

  it('the commerce side wins, even when the CRM record was saved later (its stamp moved with our own writes)', () => {
    expect(decideStage({ owner: 'latest', tables, origin: 'crm', agreed, commerce: { stage: 'Committed', stamp: at(0) }, crm: { stage: 'Appointment Scheduled', stamp: at(30) } })).toMatchObject({ action: 'write-crm', stage: 'Contract Sent' });
    expect(decideStage({ owner: 'latest', tables, origin: 'commerce', agreed, commerce: { stage: 'Committed', stamp: at(0) }, crm: { stage: 'Appointment Scheduled', stamp: at(0) } })).toMatchObject({ action: 'write-crm', stage: 'Contract Sent' });
  });

  it('says why, in its own words, not as a tie-break of two changes', () => {
    const decision = decideStage({ owner: 'latest', tables, origin: 'crm', agreed, commerce: { stage: 'Committed', stamp: at(0) }, crm: { stage: 'Appointment Scheduled', stamp: at(30) } });
    expect(decision).toMatchObject({ reason: expect.stringMatching(/^neither side changed the stage since the last sync/) });
  });

  it('a declared owner still decides', () => {
    expect(decideStage({ owner: 'crm', tables, origin: 'commerce', agreed, commerce: { stage: 'Committed', stamp: at(0) }, crm: { stage: 'Appointment Scheduled', stamp: at(0) } })).toMatchObject({ action: 'write-commerce', stage: 'Prospect' });
  });

  it('a CRM stage the table writes for the commerce one is in step, even where the table does not map it back', () => {
    // Committed is written as Closed Won, which toCommerce reads as Launched: left alone, not written again at every run, never flipped.
    const skewed = { toCommerce: tables.toCommerce, toCrm: { ...tables.toCrm, Committed: 'Closed Won' } };
    expect(decideStage({ owner: 'latest', tables: skewed, origin: 'crm', agreed, commerce: { stage: 'Committed', stamp: at(0) }, crm: { stage: 'Closed Won', stamp: at(30) } })).toEqual({ action: 'none', agreed: { commerceStage: 'Committed', crmStage: 'Closed Won' } });
  });
});
