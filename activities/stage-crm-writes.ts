// The stage pass's CRM writes for one page, record by record in outcome: one call for the page, then one
// read of the stages just written. A record the CRM refuses (a validation rule on any save, a restricted
// picklist, a plug-in) or a stage it took the save of but did not keep (HubSpot leaves out a stage label the
// deal's pipeline lacks; a trigger or workflow that puts the stage back) is a refusal of that record only,
// in the CRM's own words: the caller keeps it waiting and the rest of the page goes on. A failure of the
// whole call (the CRM unreachable, its budget spent) still fails the activity, to be retried.
import type { CrmRecord } from '../crm/connector.ts';
import { CRM_NAMES, recordId, type CrmConnector } from '../crm/connector.ts';
import { stageFields, stageOf, type StageSide } from '../flows/referral-stage.ts';
import { whileBeating, type Beat } from './activity-context.ts';
import { guard } from './failures.ts';

/** One CRM record's write: the stage it is moved to (if any) and the fields showing the referral. */
export type CrmStageWrite = { crmId: string; fields: CrmRecord; stage?: string };

export type CrmStageOutcome = { written: Set<string>; refused: Map<string, string> };

export async function writeCrmStages(crm: CrmConnector, side: StageSide, writes: CrmStageWrite[], options: { signal?: AbortSignal; beat: Beat }): Promise<CrmStageOutcome> {
  const outcome: CrmStageOutcome = { written: new Set(), refused: new Map() };
  if (writes.length === 0) return outcome;
  const name = CRM_NAMES[crm.kind];
  const results = await whileBeating(options.beat, { phase: 'write-crm', records: writes.length }, () =>
    guard(() => crm.update(side.object, writes.map((write) => ({ sourceId: write.crmId, crmId: write.crmId, fields: write.fields })), { signal: options.signal })),
  );
  for (const result of results) {
    if (result.ok) outcome.written.add(result.sourceId);
    else outcome.refused.set(result.sourceId, `${name} refused the save of ${side.object} ${result.sourceId}: ${result.error.code}: ${result.error.message}`);
  }

  // Read back what the stage writes left: a save the CRM answered with success is not proof the stage took.
  const staged = writes.filter((write) => write.stage !== undefined && outcome.written.has(write.crmId));
  if (staged.length) {
    options.beat({ phase: 'read-back', records: staged.length });
    // By id in lower case: Dataverse GUIDs are compared so, and Salesforce and HubSpot ids read back as written.
    const now = new Map((await guard(() => crm.findWhereIn(side.object, crm.idField, staged.map((write) => write.crmId), stageFields(side)))).map((record) => [recordId(crm, record).toLowerCase(), record]));
    for (const write of staged) {
      const record = now.get(write.crmId.toLowerCase());
      const kept = record ? stageOf(side, record) : null;
      if (kept === write.stage) continue;
      outcome.written.delete(write.crmId);
      outcome.refused.set(
        write.crmId,
        `${name} took the save of ${side.object} ${write.crmId} but its ${side.stageField} is ${kept === null ? 'empty' : `still "${String(kept)}"`}, not "${write.stage}": the record cannot take that stage (its pipeline or picklist lacks it, or an automation put it back); check the connection's stage table (crm-sync edit --cosell)`,
      );
    }
  }
  return outcome;
}
