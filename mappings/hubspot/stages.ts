// The default stage tables between HubSpot deal stages and the co-sell stages of a referral
// (docs/commerce-api-assumptions.md A6), one per direction; a connection may replace entries. A deal made
// for a referral sits in the "Co-sell referrals" pipeline, whose stages are the co-sell stages; a seller's
// own deal shared for co-sell sits in the account's pipeline (HubSpot's default stages).
export const HUBSPOT_TO_COSELL_STAGE: Record<string, string> = {
  Prospect: 'Prospect',
  Qualified: 'Qualified',
  'Technical Validation': 'Technical Validation',
  'Business Validation': 'Business Validation',
  Committed: 'Committed',
  Launched: 'Launched',
  'Closed Lost': 'Closed Lost',
  'Appointment Scheduled': 'Prospect',
  'Qualified To Buy': 'Qualified',
  'Presentation Scheduled': 'Technical Validation',
  'Decision Maker Bought-In': 'Business Validation',
  'Contract Sent': 'Committed',
  'Closed Won': 'Launched',
};

export const COSELL_TO_HUBSPOT_STAGE: Record<string, string> = {
  Prospect: 'Prospect',
  Qualified: 'Qualified',
  'Technical Validation': 'Technical Validation',
  'Business Validation': 'Business Validation',
  Committed: 'Committed',
  Launched: 'Launched',
  'Closed Lost': 'Closed Lost',
};
