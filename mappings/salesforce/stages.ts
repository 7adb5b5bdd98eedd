// The default stage tables between Salesforce's standard Opportunity stages and the co-sell stages of a
// referral (docs/commerce-api-assumptions.md A6), one table per direction; a connection may replace them.
export const SALESFORCE_TO_COSELL_STAGE: Record<string, string> = {
  Prospecting: 'Prospect',
  Qualification: 'Qualified',
  'Needs Analysis': 'Technical Validation',
  'Value Proposition': 'Technical Validation',
  'Id. Decision Makers': 'Business Validation',
  'Perception Analysis': 'Business Validation',
  'Proposal/Price Quote': 'Business Validation',
  'Negotiation/Review': 'Committed',
  'Closed Won': 'Launched',
  'Closed Lost': 'Closed Lost',
};

export const COSELL_TO_SALESFORCE_STAGE: Record<string, string> = {
  Prospect: 'Prospecting',
  Qualified: 'Qualification',
  'Technical Validation': 'Needs Analysis',
  'Business Validation': 'Proposal/Price Quote',
  Committed: 'Negotiation/Review',
  Launched: 'Closed Won',
  'Closed Lost': 'Closed Lost',
};
