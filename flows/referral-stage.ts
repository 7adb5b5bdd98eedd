// Stages both ways between a referral and its CRM opportunity: a two-way flow. Per CRM kind it declares
// the object, the stage field, the fields that show the referral's own status and stage to a salesperson,
// and the default stage tables (a connection may replace entries); activities/stage-sync.ts runs it
// under the connection's declared owner (sync/stage-policy.ts).
import type { CrmKind } from '../crm/connector.ts';
import { COSELL_TO_DYNAMICS_STAGE, DYNAMICS_TO_COSELL_STAGE } from '../mappings/dynamics/stages.ts';
import { COSELL_TO_HUBSPOT_STAGE, HUBSPOT_TO_COSELL_STAGE } from '../mappings/hubspot/stages.ts';
import { COSELL_TO_SALESFORCE_STAGE, SALESFORCE_TO_COSELL_STAGE } from '../mappings/salesforce/stages.ts';
import type { StageTables } from '../sync/stage-policy.ts';

export type StageSide = {
  object: string;
  stageField: string;
  /** Fields showing the referral's own status and stage on the CRM record (commerce-owned, informational). */
  mirror: { status: string; stage: string };
  tables: StageTables;
};

export const referralStageFlow: { name: 'referral-stage'; direction: 'both-ways'; crm: Partial<Record<CrmKind, StageSide>> } = {
  name: 'referral-stage',
  direction: 'both-ways',
  crm: {
    salesforce: {
      object: 'Opportunity',
      stageField: 'StageName',
      mirror: { status: 'Cosell_Status__c', stage: 'Cosell_Stage__c' },
      tables: { toCommerce: SALESFORCE_TO_COSELL_STAGE, toCrm: COSELL_TO_SALESFORCE_STAGE },
    },
    hubspot: {
      object: 'deals',
      stageField: 'dealstage',
      mirror: { status: 'cosell_status', stage: 'cosell_stage' },
      tables: { toCommerce: HUBSPOT_TO_COSELL_STAGE, toCrm: COSELL_TO_HUBSPOT_STAGE },
    },
    dynamics: {
      object: 'opportunity',
      stageField: 'stepname',
      mirror: { status: 'ccs_cosellstatus', stage: 'ccs_cosellstage' },
      tables: { toCommerce: DYNAMICS_TO_COSELL_STAGE, toCrm: COSELL_TO_DYNAMICS_STAGE },
    },
  },
};
