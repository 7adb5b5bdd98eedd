// The default stage tables between the opportunity's stepname (Pipeline Phase) and the co-sell stages of
// a referral (docs/commerce-api-assumptions.md A6), one per direction; a connection may replace entries.
// Dynamics' own Sales Process phases (1-Qualify, 2-Develop, 3-Propose, 4-Close, then Won / Lost once
// closed) with one phase before them, 0-Prospect, for a referral not yet qualified: seven steps for the
// seven co-sell stages, so every stage goes round the two sides unchanged and no change comes back as
// another (an out-of-the-box opportunity's phase still reads as the co-sell stage it means).
export const DYNAMICS_STEPS = ['0-Prospect', '1-Qualify', '2-Develop', '3-Propose', '4-Close', 'Won', 'Lost'] as const;

export const DYNAMICS_TO_COSELL_STAGE: Record<string, string> = {
  '0-Prospect': 'Prospect',
  '1-Qualify': 'Qualified',
  '2-Develop': 'Technical Validation',
  '3-Propose': 'Business Validation',
  '4-Close': 'Committed',
  Won: 'Launched',
  Lost: 'Closed Lost',
};

export const COSELL_TO_DYNAMICS_STAGE: Record<string, string> = {
  Prospect: '0-Prospect',
  Qualified: '1-Qualify',
  'Technical Validation': '2-Develop',
  'Business Validation': '3-Propose',
  Committed: '4-Close',
  Launched: 'Won',
  'Closed Lost': 'Lost',
};

/** Co-sell stage -> the opportunity's state: Launched is the won stage (contract §3, A6), Closed Lost lost. */
export const COSELL_STAGE_TO_STATE: Record<string, 'Open' | 'Won' | 'Lost'> = { Launched: 'Won', 'Closed Lost': 'Lost' };
