// How planned writes reach the CRM: writes by CRM id first; those whose id names nothing in this org
// join the upserts by external id in the same call, carrying the fields a new record needs; every
// other refusal is a dead letter. A small connector here records each call it is handed.
import { describe, expect, it } from 'vitest';
import { createBeat } from '../../activities/activity-context.ts';
import { writeToCrm } from '../../activities/crm-write.ts';
import type { CrmConnector, UpsertItem, UpsertResult } from '../../crm/connector.ts';
import type { PlannedWrite } from '../../sync/plan.ts';

function recordingCrm(known: Set<string>, mixedWrites = false) {
  const calls: UpsertItem[][] = [];
  const crm = {
    mixedWrites,
    async upsert(_object: string, items: UpsertItem[]): Promise<UpsertResult[]> {
      calls.push(items);
      return items.map((item) => {
        if (item.crmId && !known.has(item.crmId)) return { sourceId: item.sourceId, ok: false, error: { code: 'OBJECT_NOT_FOUND', message: `no deal ${item.crmId}` } };
        if (item.fields.Name === 'refused') return { sourceId: item.sourceId, ok: false, error: { code: 'VALIDATION_ERROR', message: 'Name is refused' } };
        return { sourceId: item.sourceId, ok: true, crmId: item.crmId ?? `new-${item.sourceId}`, created: !item.crmId };
      });
    },
  } as unknown as CrmConnector;
  return { crm, calls };
}

const write = (sourceId: string, crmId?: string, name = sourceId): PlannedWrite => ({
  // An update by id leaves out create-only fields (the pipeline); the full record has them.
  item: { sourceId, externalIdField: 'offer_id', externalId: sourceId, crmId, fields: crmId ? { Name: name } : { Name: name, Pipeline: 'p1' } },
  record: { object: 'deals', externalIdField: 'offer_id', externalId: sourceId, carriedCrmId: crmId, fields: { Name: name, Pipeline: 'p1' } },
  hash: `h-${sourceId}`,
  linked: Boolean(crmId),
});

describe('writeToCrm', () => {
  it('updates by id first, then upserts the unlinked and the stale together, with the full fields', async () => {
    const { crm, calls } = recordingCrm(new Set(['d1', 'd3']));
    const outcome = await writeToCrm(crm, 'deals', 'offer', [write('o1', 'd1'), write('o2'), write('o3', 'd3', 'refused'), write('o4', 'gone'), write('o5')], { beat: createBeat() });

    expect(calls.map((call) => call.map((item) => item.sourceId))).toEqual([
      ['o1', 'o3', 'o4'],
      ['o2', 'o5', 'o4'],
    ]);
    expect(calls[1]![2]).toEqual({ sourceId: 'o4', externalIdField: 'offer_id', externalId: 'o4', crmId: undefined, fields: { Name: 'o4', Pipeline: 'p1' } });
    expect(outcome.calls).toBe(2);
    expect(outcome.written.map((link) => [link.sourceId, link.crmId]).sort()).toEqual([
      ['o1', 'd1'],
      ['o2', 'new-o2'],
      ['o4', 'new-o4'],
      ['o5', 'new-o5'],
    ]);
    expect(outcome.letters).toMatchObject([{ sourceId: 'o3', reason: 'VALIDATION_ERROR: Name is refused' }]);
    expect({ created: outcome.created, updated: outcome.updated }).toEqual({ created: 3, updated: 1 });
  });

  it('makes no upsert call when nothing is unlinked or stale', async () => {
    const { crm, calls } = recordingCrm(new Set(['d1']));
    const outcome = await writeToCrm(crm, 'deals', 'offer', [write('o1', 'd1')], { beat: createBeat() });
    expect(calls).toHaveLength(1);
    expect(outcome.written).toHaveLength(1);
  });

  it('hands a connector that mixes both kinds in one call everything at once; the stale ones are a second call', async () => {
    const { crm, calls } = recordingCrm(new Set(['d1']), true);
    const outcome = await writeToCrm(crm, 'deals', 'offer', [write('o1', 'd1'), write('o2'), write('o4', 'gone')], { beat: createBeat() });
    expect(calls.map((call) => call.map((item) => [item.sourceId, item.crmId ?? null]))).toEqual([
      [['o1', 'd1'], ['o2', null], ['o4', 'gone']],
      [['o4', null]],
    ]);
    expect(calls[1]![0]!.fields).toEqual({ Name: 'o4', Pipeline: 'p1' });
    expect(outcome.written.map((link) => link.sourceId).sort()).toEqual(['o1', 'o2', 'o4']);
    expect(outcome.calls).toBe(2);
  });

  it('a mixed call with no stale id is the only call', async () => {
    const { crm, calls } = recordingCrm(new Set(['d1']), true);
    await writeToCrm(crm, 'deals', 'offer', [write('o1', 'd1'), write('o2')], { beat: createBeat() });
    expect(calls).toHaveLength(1);
  });

  describe('ids the commerce records carry, where the connector can check thousands at once', () => {
    function checkingCrm(known: Set<string>) {
      const { crm, calls } = recordingCrm(known, true);
      const checked: string[][] = [];
      (crm as { existingIds?: CrmConnector['existingIds'] }).existingIds = async (_object, ids) => {
        checked.push(ids);
        return new Set(ids.filter((id) => known.has(id)));
      };
      return { crm, calls, checked };
    }
    const carried = (sourceId: string, crmId: string): PlannedWrite => ({ ...write(sourceId, crmId), carriedUnconfirmed: true });

    it('writes those naming nothing here as upserts in the one call, and checks only carried ids never written', async () => {
      const { crm, calls, checked } = checkingCrm(new Set(['d1', 'd2']));
      // o1: linked by an earlier write (not checked); o2: carried, exists; o3: carried, names nothing here.
      const outcome = await writeToCrm(crm, 'deals', 'offer', [write('o1', 'd1'), carried('o2', 'd2'), carried('o3', 'gone'), write('o4')], { beat: createBeat() });
      expect(checked).toEqual([['d2', 'gone']]);
      expect(calls.map((call) => call.map((item) => [item.sourceId, item.crmId ?? null]))).toEqual([
        [['o1', 'd1'], ['o2', 'd2'], ['o3', null], ['o4', null]],
      ]);
      expect(calls[0]![2]!.fields).toEqual({ Name: 'o3', Pipeline: 'p1' });
      expect(outcome.written.map((link) => [link.sourceId, link.crmId]).sort()).toEqual([
        ['o1', 'd1'],
        ['o2', 'd2'],
        ['o3', 'new-o3'],
        ['o4', 'new-o4'],
      ]);
      expect(outcome.letters).toEqual([]);
    });

    it('asks nothing when no write carries an unconfirmed id', async () => {
      const { crm, calls, checked } = checkingCrm(new Set(['d1']));
      await writeToCrm(crm, 'deals', 'offer', [write('o1', 'd1'), write('o2')], { beat: createBeat() });
      expect(checked).toEqual([]);
      expect(calls).toHaveLength(1);
    });

    it('still retries by key an id that vanished between the check and the write', async () => {
      const known = new Set(['d2']);
      const { crm, calls } = checkingCrm(known);
      const check = crm.existingIds!.bind(crm);
      (crm as { existingIds?: CrmConnector['existingIds'] }).existingIds = async (object, ids) => {
        const found = await check(object, ids);
        known.delete('d2');
        return found;
      };
      const outcome = await writeToCrm(crm, 'deals', 'offer', [carried('o2', 'd2')], { beat: createBeat() });
      expect(calls.map((call) => call.map((item) => item.crmId ?? null))).toEqual([['d2'], [null]]);
      expect(outcome.written.map((link) => link.crmId)).toEqual(['new-o2']);
    });
  });
});
