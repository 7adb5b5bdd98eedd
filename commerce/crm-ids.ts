// Where the commerce side keeps the id of a record's CRM opportunity (deal), per CRM kind (§2.6):
// the co-sell flows find and mark their records by it.
import type { CrmKind } from '../crm/connector.ts';

export type OpportunityIdField = 'crmAOpportunityId' | 'crmBDealId' | 'crmCOpportunityId';

export const OPPORTUNITY_ID_FIELD: Record<CrmKind, OpportunityIdField> = {
  salesforce: 'crmAOpportunityId',
  hubspot: 'crmBDealId',
  dynamics: 'crmCOpportunityId',
};

export const OPPORTUNITY_ID_FIELDS: readonly OpportunityIdField[] = Object.values(OPPORTUNITY_ID_FIELD);
