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

/**
 * The co-sell step an opportunity is at: a closed opportunity's state (WinOpportunity / LoseOpportunity
 * leave stepname as it was) wins over its phase, so a seller's close reaches the referral.
 */
export function dynamicsStepOf(opportunity: { stepname?: unknown; statecode?: unknown }): string | null {
  const state = Number(opportunity.statecode);
  if (state === 1) return 'Won';
  if (state === 2) return 'Lost';
  return typeof opportunity.stepname === 'string' ? opportunity.stepname : null;
}

/** What puts a step onto an opportunity: the phase, and the state it means (closed through its action, re-opened by an update). */
export function dynamicsStepWrite(step: string): Record<string, unknown> {
  return { stepname: step, statecode: step === 'Won' ? 'Won' : step === 'Lost' ? 'Lost' : 'Open' };
}
