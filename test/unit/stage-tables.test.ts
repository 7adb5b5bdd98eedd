// The co-sell stage tables a connection sets, checked before it is saved (issue #24 defect 5): every
// value the CRM's stage field has, and toCrm then toCommerce returning the stage it started from.
import { describe, expect, it } from 'vitest';
import { stageTableProblems } from '../../sync/stage-tables.ts';

const SALESFORCE_PICKLIST = ['Prospecting', 'Qualification', 'Needs Analysis', 'Value Proposition', 'Id. Decision Makers', 'Perception Analysis', 'Proposal/Price Quote', 'Negotiation/Review', 'Closed Won', 'Closed Lost'];
const HUBSPOT_LABELS = ['Appointment Scheduled', 'Qualified To Buy', 'Presentation Scheduled', 'Decision Maker Bought-In', 'Contract Sent', 'Closed Won', 'Closed Lost'];

describe('stage tables', () => {
  it('the defaults of every CRM have no problem', () => {
    expect(stageTableProblems('salesforce', {}, SALESFORCE_PICKLIST)).toEqual([]);
    expect(stageTableProblems('hubspot', {}, HUBSPOT_LABELS)).toEqual([]);
    expect(stageTableProblems('dynamics', {})).toEqual([]);
  });

  it('a stage the CRM lacks is named', () => {
    const problems = stageTableProblems('hubspot', { toCrm: { Committed: 'Partner Committed' }, toCommerce: { 'Partner Committed': 'Committed' } }, HUBSPOT_LABELS);
    expect(problems.map((problem) => problem.code)).toEqual(['STAGE_NOT_IN_CRM']);
    expect(problems[0]!.message).toMatch(/toCrm maps "Committed" to "Partner Committed", a stage HubSpot does not have/);
  });

  it('a toCrm entry that does not come back as itself is named, with what it comes back as', () => {
    // Committed written as Closed Won would be read back as Launched: the partner's Committed would become Launched.
    const problems = stageTableProblems('salesforce', { toCrm: { Committed: 'Closed Won' } }, SALESFORCE_PICKLIST);
    expect(problems).toEqual([{ code: 'STAGE_ROUND_TRIP', message: expect.stringMatching(/^toCrm maps "Committed" to "Closed Won", which toCommerce maps back to "Launched"/) }]);
    expect(stageTableProblems('dynamics', { toCrm: { Prospect: '0-Lead' } }).map((problem) => problem.code)).toEqual(['STAGE_ROUND_TRIP']);
  });

  it('a value that is no co-sell stage is named', () => {
    expect(stageTableProblems('salesforce', { toCommerce: { Prospecting: 'Lead' } }, SALESFORCE_PICKLIST).map((problem) => problem.code)).toContain('STAGE_NOT_COSELL');
  });
});
