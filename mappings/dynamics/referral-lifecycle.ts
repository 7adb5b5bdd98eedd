// The opportunity's lifecycle columns (issue #24). A lost opportunity's reason is its status reason,
// set by LoseOpportunity: Canceled (4) or Out-Sold (5) out of the box (docs/crm-wire-behaviour.md).
import type { LifecycleFields } from '../lifecycle-fields.ts';
import { COSELL_DECISION_OPTION } from './schema.ts';

const LOST = 2;
const LOST_REASONS: Record<number, string> = { 4: 'Canceled', 5: 'Out-Sold' };

export const OPPORTUNITY_LIFECYCLE: LifecycleFields = {
  decision: 'ccs_coselldecision',
  decisionReason: 'ccs_coselldecisionreason',
  // A choice column: the Web API answers the option's value, a number.
  choice: (value) => (Number(value) === COSELL_DECISION_OPTION.accept ? 'accept' : Number(value) === COSELL_DECISION_OPTION.reject ? 'reject' : undefined),
  reviewEnds: 'ccs_cosellreviewends',
  errors: 'ccs_cosellerrors',
  errorsLimit: 100_000,
  lossReason: {
    fields: ['statecode', 'statuscode'],
    read: (opportunity) => (Number(opportunity.statecode) === LOST ? (LOST_REASONS[Number(opportunity.statuscode)] ?? `status reason ${String(opportunity.statuscode)}`) : undefined),
  },
};
