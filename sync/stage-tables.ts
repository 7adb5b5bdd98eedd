// A connection's co-sell stage tables, checked when they are set (connect, edit): a table that names a
// stage the CRM lacks makes every write of it a refusal, and a table whose way back does not return the
// stage it started from makes the next run read the CRM's value as another stage and move the referral
// (issue #24 defect 5). Each problem is named, so revenue ops can fix the one entry at fault.
import type { CrmConnector, CrmKind } from '../crm/connector.ts';
import { CRM_NAMES } from '../crm/connector.ts';
import { referralStageFlow } from '../flows/referral-stage.ts';
import type { StageTables } from './stage-policy.ts';

export type StageTableProblemCode = 'STAGE_NOT_IN_CRM' | 'STAGE_NOT_COSELL' | 'STAGE_ROUND_TRIP';
export type StageTableProblem = { code: StageTableProblemCode; message: string };
export type StageOverrides = { toCommerce?: Record<string, string>; toCrm?: Record<string, string> };

/** The tables in effect: the CRM's defaults (flows/referral-stage.ts) with the connection's entries over them. */
export function effectiveStageTables(kind: CrmKind, overrides: StageOverrides): StageTables {
  const defaults = referralStageFlow.crm[kind]!.tables;
  return { toCommerce: { ...defaults.toCommerce, ...overrides.toCommerce }, toCrm: { ...defaults.toCrm, ...overrides.toCrm } };
}

/**
 * Problems of the tables in effect. `crmStages`: the values the CRM's stage field takes (its picklist, or
 * every pipeline's stage labels); undefined when the field is free text (Dynamics' stepname).
 */
export function stageTableProblems(kind: CrmKind, overrides: StageOverrides, crmStages?: readonly string[]): StageTableProblem[] {
  const tables = effectiveStageTables(kind, overrides);
  const cosellStages = new Set(Object.keys(referralStageFlow.crm[kind]!.tables.toCrm));
  const name = CRM_NAMES[kind];
  const problems: StageTableProblem[] = [];
  const known = crmStages ? new Set(crmStages) : undefined;
  for (const [crmStage, cosell] of Object.entries(tables.toCommerce)) {
    if (!cosellStages.has(cosell)) problems.push({ code: 'STAGE_NOT_COSELL', message: `toCommerce maps "${crmStage}" to "${cosell}", which is no co-sell stage (${[...cosellStages].join(', ')})` });
  }
  for (const [cosell, crmStage] of Object.entries(tables.toCrm)) {
    if (!cosellStages.has(cosell)) problems.push({ code: 'STAGE_NOT_COSELL', message: `toCrm maps "${cosell}", which is no co-sell stage (${[...cosellStages].join(', ')})` });
    if (known && !known.has(crmStage)) problems.push({ code: 'STAGE_NOT_IN_CRM', message: `toCrm maps "${cosell}" to "${crmStage}", a stage ${name} does not have (it has: ${[...known].join(', ')}): ${name} would refuse or drop every such write` });
    const back = tables.toCommerce[crmStage];
    if (back !== cosell) {
      problems.push({ code: 'STAGE_ROUND_TRIP', message: `toCrm maps "${cosell}" to "${crmStage}", which toCommerce maps ${back === undefined ? 'to nothing' : `back to "${back}"`}: the next run would read it as ${back === undefined ? 'a stage it cannot place' : `"${back}"`} and move the referral; add "${crmStage}": "${cosell}" to toCommerce or map "${cosell}" to a stage that comes back as it` });
    }
  }
  return problems;
}

/** The tables a connection sets, checked against its CRM's stage field; none set: nothing to check. */
export async function checkConnectionStageTables(crm: Pick<CrmConnector, 'kind' | 'describe'>, overrides: StageOverrides): Promise<StageTableProblem[]> {
  if (!Object.keys(overrides.toCommerce ?? {}).length && !Object.keys(overrides.toCrm ?? {}).length) return [];
  const side = referralStageFlow.crm[crm.kind];
  if (!side) return [];
  const field = (await crm.describe(side.object)).fields.get(side.stageField);
  const values = field?.picklistValues?.length ? field.picklistValues : undefined;
  return stageTableProblems(crm.kind, overrides, values);
}
