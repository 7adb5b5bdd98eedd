// The deal's lifecycle properties (issue #24); why a deal was lost is HubSpot's own closed_lost_reason.
import type { LifecycleFields } from '../lifecycle-fields.ts';
import { COSELL_DECISION } from './schema.ts';

export const DEAL_LIFECYCLE: LifecycleFields = {
  decision: 'cosell_decision',
  decisionReason: 'cosell_decision_reason',
  // An enumeration: reads answer the option's internal value.
  choice: (value) => (value === COSELL_DECISION.accept ? 'accept' : value === COSELL_DECISION.reject ? 'reject' : undefined),
  reviewEnds: 'cosell_review_ends',
  errors: 'cosell_errors',
  errorsLimit: 65_536,
  lossReason: {
    fields: ['closed_lost_reason'],
    read: (deal) => (typeof deal.closed_lost_reason === 'string' && deal.closed_lost_reason.trim() ? deal.closed_lost_reason.trim() : undefined),
  },
};
