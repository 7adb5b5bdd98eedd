// Stages both ways between a referral and its CRM opportunity: a two-way flow. Per CRM kind it declares
// the object, the stage field, the fields that show the referral's own status and stage to a salesperson,
// and the default stage tables (a connection may replace entries); activities/stage-sync.ts runs it
// under the connection's declared owner (sync/stage-policy.ts).
import type { CrmKind, CrmRecord } from '../crm/connector.ts';
import type { LifecycleFields } from '../mappings/lifecycle-fields.ts';
import { OPPORTUNITY_LIFECYCLE as DYNAMICS_LIFECYCLE } from '../mappings/dynamics/referral-lifecycle.ts';
import { DEAL_LIFECYCLE } from '../mappings/hubspot/referral-lifecycle.ts';
import { OPPORTUNITY_LIFECYCLE as SALESFORCE_LIFECYCLE } from '../mappings/salesforce/referral-lifecycle.ts';
import { COSELL_TO_DYNAMICS_STAGE, DYNAMICS_TO_COSELL_STAGE, dynamicsStepOf, dynamicsStepWrite } from '../mappings/dynamics/stages.ts';
import { COSELL_TO_HUBSPOT_STAGE, HUBSPOT_TO_COSELL_STAGE } from '../mappings/hubspot/stages.ts';
import { COSELL_TO_SALESFORCE_STAGE, SALESFORCE_TO_COSELL_STAGE } from '../mappings/salesforce/stages.ts';
import type { StageTables } from '../sync/stage-policy.ts';

export type StageSide = {
  object: string;
  stageField: string;
  /** Fields showing the referral's own status and stage on the CRM record (commerce-owned, informational). */
  mirror: { status: string; stage: string };
  tables: StageTables;
  /** The lifecycle's fields on the record: the seller's decision, the review window, the reasons, the loss reason (issue #24). */
  lifecycle: LifecycleFields;
  /**
   * Where the record's stage is not just its stage field: the fields read, the stage they make, and the
   * fields a stage is written as (Dynamics: a closed opportunity's state is its stage).
   */
  stage?: { fields: string[]; of(record: CrmRecord): string | null; write(stage: string): CrmRecord };
};

/** The record's stage as the pass compares it. */
export function stageOf(side: StageSide, record: CrmRecord): string | null {
  return side.stage ? side.stage.of(record) : ((record[side.stageField] as string | null | undefined) ?? null);
}

/** The fields that put a stage onto the record. */
export function stageWrite(side: StageSide, stage: string): CrmRecord {
  return side.stage ? side.stage.write(stage) : { [side.stageField]: stage };
}

/** The fields a stage reads (the stage field and those its stage is made of). */
export function stageFields(side: StageSide): string[] {
  return [...new Set([side.stageField, ...(side.stage?.fields ?? [])])];
}

export const referralStageFlow: { name: 'referral-stage'; direction: 'both-ways'; crm: Partial<Record<CrmKind, StageSide>> } = {
  name: 'referral-stage',
  direction: 'both-ways',
  crm: {
    salesforce: {
      object: 'Opportunity',
      stageField: 'StageName',
      mirror: { status: 'Cosell_Status__c', stage: 'Cosell_Stage__c' },
      tables: { toCommerce: SALESFORCE_TO_COSELL_STAGE, toCrm: COSELL_TO_SALESFORCE_STAGE },
      lifecycle: SALESFORCE_LIFECYCLE,
    },
    hubspot: {
      object: 'deals',
      stageField: 'dealstage',
      mirror: { status: 'cosell_status', stage: 'cosell_stage' },
      tables: { toCommerce: HUBSPOT_TO_COSELL_STAGE, toCrm: COSELL_TO_HUBSPOT_STAGE },
      lifecycle: DEAL_LIFECYCLE,
    },
    dynamics: {
      object: 'opportunity',
      stageField: 'stepname',
      mirror: { status: 'ccs_cosellstatus', stage: 'ccs_cosellstage' },
      tables: { toCommerce: DYNAMICS_TO_COSELL_STAGE, toCrm: COSELL_TO_DYNAMICS_STAGE },
      lifecycle: DYNAMICS_LIFECYCLE,
      stage: { fields: ['statecode'], of: dynamicsStepOf, write: dynamicsStepWrite },
    },
  },
};
