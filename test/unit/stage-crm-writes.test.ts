// The stage pass's CRM writes of one page (issue #24 defects 1 and 5): a record the CRM refuses, and one
// whose save the CRM took without keeping the stage, are refusals of that record only, in the CRM's words;
// the others are written. A fake connector stands for the CRM: what it keeps is written out by hand.
import { describe, expect, it } from 'vitest';
import type { CrmConnector, CrmRecord, UpsertResult } from '../../crm/connector.ts';
import { writeCrmStages } from '../../activities/stage-crm-writes.ts';
import { referralStageFlow } from '../../flows/referral-stage.ts';
import { createBeat } from '../../activities/activity-context.ts';

const side = referralStageFlow.crm.hubspot!;

/** A HubSpot-like CRM: deal 2 refuses any save, deal 3 takes the save but leaves out a stage its pipeline lacks. */
function fakeCrm() {
  const stages = new Map<string, string>([['1', 'Appointment Scheduled'], ['2', 'Appointment Scheduled'], ['3', 'Appointment Scheduled']]);
  const crm = {
    kind: 'hubspot',
    idField: 'hs_object_id',
    async update(_object: string, items: { sourceId: string; crmId: string; fields: CrmRecord }[]): Promise<UpsertResult[]> {
      return items.map((item) => {
        if (item.crmId === '2') return { sourceId: item.sourceId, ok: false, error: { code: 'VALIDATION_ERROR', message: 'Property values were not valid' } } as UpsertResult;
        const stage = item.fields.dealstage as string | undefined;
        if (stage && !(item.crmId === '3' && stage === 'Partner Committed')) stages.set(item.crmId, stage);
        return { sourceId: item.sourceId, ok: true, crmId: item.crmId, created: false };
      });
    },
    async findWhereIn(_object: string, _field: string, values: string[]): Promise<CrmRecord[]> {
      return values.map((id) => ({ hs_object_id: id, dealstage: stages.get(id) ?? null }));
    },
  };
  return { crm: crm as unknown as CrmConnector, stages };
}

describe('CRM stage writes of a page', () => {
  it('keeps refusals to their record: refused, and taken but not kept, each in words; the rest written', async () => {
    const { crm, stages } = fakeCrm();
    const outcome = await writeCrmStages(
      crm,
      side,
      [
        { crmId: '1', fields: { dealstage: 'Qualified To Buy' }, stage: 'Qualified To Buy' },
        { crmId: '2', fields: { dealstage: 'Contract Sent' }, stage: 'Contract Sent' },
        { crmId: '3', fields: { dealstage: 'Partner Committed', cosell_stage: 'Committed' }, stage: 'Partner Committed' },
      ],
      { beat: createBeat() },
    );
    expect([...outcome.written]).toEqual(['1']);
    expect(stages.get('1')).toBe('Qualified To Buy');
    expect(outcome.refused.get('2')).toBe('HubSpot refused the save of deals 2: VALIDATION_ERROR: Property values were not valid');
    expect(outcome.refused.get('3')).toMatch(/^HubSpot took the save of deals 3 but its dealstage is still "Appointment Scheduled", not "Partner Committed"/);
  });

  it('a write of the referral fields alone is not read back', async () => {
    const { crm } = fakeCrm();
    let reads = 0;
    const counting = { ...crm, kind: crm.kind, idField: crm.idField, update: crm.update, findWhereIn: async (...args: Parameters<CrmConnector['findWhereIn']>) => ((reads += 1), crm.findWhereIn(...args)) } as unknown as CrmConnector;
    const outcome = await writeCrmStages(counting, side, [{ crmId: '1', fields: { cosell_stage: 'Committed' } }], { beat: createBeat() });
    expect([...outcome.written]).toEqual(['1']);
    expect(reads).toBe(0);
  });
});
