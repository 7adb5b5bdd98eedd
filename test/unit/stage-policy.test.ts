// The stage policy, case by case, with expectations written out by hand.
import { describe, expect, it } from 'vitest';
import { decideStage, nextTry, type Agreement } from '../../sync/stage-policy.ts';
import { COSELL_TO_SALESFORCE_STAGE, SALESFORCE_TO_COSELL_STAGE } from '../../mappings/salesforce/stages.ts';

const tables = { toCommerce: SALESFORCE_TO_COSELL_STAGE, toCrm: COSELL_TO_SALESFORCE_STAGE };
const at = (seconds: number) => new Date(Date.UTC(2026, 10, 1, 12, 0, seconds));
const agreed: Agreement = { commerceStage: 'Qualified', crmStage: 'Qualification', commerceStamp: at(0), crmStamp: at(0) };

describe('stages both ways', () => {
  it('in step through the tables: nothing to write, whichever Salesforce stage stands for the co-sell one', () => {
    expect(decideStage({ owner: 'latest', tables, origin: 'crm', agreed, commerce: { stage: 'Technical Validation', stamp: at(5) }, crm: { stage: 'Value Proposition', stamp: at(9) } })).toEqual({ action: 'none', agreed: { commerceStage: 'Technical Validation', crmStage: 'Value Proposition' } });
  });

  it('latest: only one side changed, it wins', () => {
    expect(decideStage({ owner: 'latest', tables, origin: 'crm', agreed, commerce: { stage: 'Committed', stamp: at(30) }, crm: { stage: 'Qualification', stamp: at(0) } })).toMatchObject({ action: 'write-crm', stage: 'Negotiation/Review' });
    expect(decideStage({ owner: 'latest', tables, origin: 'commerce', agreed, commerce: { stage: 'Qualified', stamp: at(0) }, crm: { stage: 'Proposal/Price Quote', stamp: at(7) } })).toMatchObject({ action: 'write-commerce', stage: 'Business Validation' });
  });

  it('latest: both changed, the later change by each side\'s own clock wins (clocks never compared with each other)', () => {
    // The commerce clock runs an hour ahead: its stamps are larger, but its change came 10 s after our sync, the CRM's 40 s after.
    const skewed: Agreement = { ...agreed, commerceStamp: new Date(at(0).getTime() + 3_600_000) };
    expect(decideStage({ owner: 'latest', tables, origin: 'commerce', agreed: skewed, commerce: { stage: 'Committed', stamp: new Date(at(10).getTime() + 3_600_000) }, crm: { stage: 'Closed Lost', stamp: at(40) } })).toMatchObject({ action: 'write-commerce', stage: 'Closed Lost' });
    expect(decideStage({ owner: 'latest', tables, origin: 'crm', agreed: skewed, commerce: { stage: 'Committed', stamp: new Date(at(50).getTime() + 3_600_000) }, crm: { stage: 'Closed Lost', stamp: at(40) } })).toMatchObject({ action: 'write-crm', stage: 'Negotiation/Review' });
  });

  it('commerce owns it: a CRM change is put back; crm owns it: a commerce change is put back', () => {
    expect(decideStage({ owner: 'commerce', tables, origin: 'crm', agreed, commerce: { stage: 'Qualified', stamp: at(0) }, crm: { stage: 'Closed Won', stamp: at(9) } })).toMatchObject({ action: 'write-crm', stage: 'Qualification' });
    expect(decideStage({ owner: 'crm', tables, origin: 'crm', agreed, commerce: { stage: 'Launched', stamp: at(9) }, crm: { stage: 'Qualification', stamp: at(0) } })).toMatchObject({ action: 'write-commerce', stage: 'Qualified' });
  });

  it('first sight of a pair: its origin leads; a stage the tables do not know is reported, not guessed', () => {
    expect(decideStage({ owner: 'latest', tables, origin: 'crm', commerce: { stage: 'Prospect', stamp: at(0) }, crm: { stage: 'Qualification', stamp: at(0) } })).toMatchObject({ action: 'write-commerce', stage: 'Qualified' });
    expect(decideStage({ owner: 'latest', tables, origin: 'commerce', commerce: { stage: 'Committed', stamp: at(0) }, crm: { stage: 'Prospecting', stamp: at(0) } })).toMatchObject({ action: 'write-crm', stage: 'Negotiation/Review' });
    expect(decideStage({ owner: 'latest', tables, origin: 'crm', agreed, commerce: { stage: 'Qualified', stamp: at(0) }, crm: { stage: 'Renegotiating', stamp: at(3) } })).toEqual({ action: 'unmapped', side: 'crm', stage: 'Renegotiating' });
  });

  it('a refused change is tried again after 1, 2, 4 ... minutes, at most an hour', () => {
    expect(nextTry(1, at(0))).toEqual(at(60));
    expect(nextTry(3, at(0))).toEqual(at(240));
    expect(nextTry(20, at(0))).toEqual(new Date(at(0).getTime() + 3_600_000));
  });
});
