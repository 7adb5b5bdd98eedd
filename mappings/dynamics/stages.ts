// The default stage tables between the opportunity's stepname (Pipeline Phase: the Sales Process stage
// names Dynamics shows, then Won / Lost once closed) and the co-sell stages of a referral
// (docs/commerce-api-assumptions.md A6, as in ../salesforce/stages.ts), one per direction; a connection
// may replace entries. Seven co-sell stages meet six steps: Prospect and Qualified both start at
// 1-Qualify, which comes back as Qualified (so a referral still at Prospect whose opportunity's stage is
// kept by the CRM is moved on to Qualified by the stage sync).
export const DYNAMICS_STEPS = ['1-Qualify', '2-Develop', '3-Propose', '4-Close', 'Won', 'Lost'] as const;

export const DYNAMICS_TO_COSELL_STAGE: Record<string, string> = {
  '1-Qualify': 'Qualified',
  '2-Develop': 'Technical Validation',
  '3-Propose': 'Business Validation',
  '4-Close': 'Committed',
  Won: 'Launched',
  Lost: 'Closed Lost',
};

export const COSELL_TO_DYNAMICS_STAGE: Record<string, string> = {
  Prospect: '1-Qualify',
  Qualified: '1-Qualify',
  'Technical Validation': '2-Develop',
  'Business Validation': '3-Propose',
  Committed: '4-Close',
  Launched: 'Won',
  'Closed Lost': 'Lost',
};
