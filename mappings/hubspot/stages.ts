// The default stage tables between HubSpot deal stages and the co-sell stages of a referral
// (docs/commerce-api-assumptions.md A6), one per direction; a connection may replace entries. The
// "Co-sell referrals" pipeline uses HubSpot's default stage labels, so these tables serve a deal made for
// a referral and a seller's own deal in the account's default pipeline alike.
export const HUBSPOT_TO_COSELL_STAGE: Record<string, string> = {
  'Appointment Scheduled': 'Prospect',
  'Qualified To Buy': 'Qualified',
  'Presentation Scheduled': 'Technical Validation',
  'Decision Maker Bought-In': 'Business Validation',
  'Contract Sent': 'Committed',
  'Closed Won': 'Launched',
  'Closed Lost': 'Closed Lost',
};

export const COSELL_TO_HUBSPOT_STAGE: Record<string, string> = {
  Prospect: 'Appointment Scheduled',
  Qualified: 'Qualified To Buy',
  'Technical Validation': 'Presentation Scheduled',
  'Business Validation': 'Decision Maker Bought-In',
  Committed: 'Contract Sent',
  Launched: 'Closed Won',
  'Closed Lost': 'Closed Lost',
};
