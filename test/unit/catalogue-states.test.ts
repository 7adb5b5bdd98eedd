// The Dynamics products' states after the catalogue's write (flows/catalogue-states.ts): only products
// written in this batch, or left with a dead letter by an earlier attempt (AfterWriteContext.unsettled),
// have their state read; a quiet batch reads nothing. A fake Dataverse records what it was asked.
import { describe, expect, it } from 'vitest';
import { settleDynamicsProductStates } from '../../flows/catalogue-states.ts';
import type { AfterWriteContext } from '../../flows/types.ts';

const item = (id: string, status: string) => ({ id, product: { id: id.split('|')[0], status }, dimension: { key: id.split('|')[1] } });
const GUIDS = { a: '11111111-1111-4111-8111-111111111111', b: '22222222-2222-4222-8222-222222222222', c: '33333333-3333-4333-8333-333333333333' };

function fakeDataverse(states: Record<string, number>) {
  const asked: string[][] = [];
  const updated: { crmId: string; fields: Record<string, unknown> }[] = [];
  const crm = {
    kind: 'dynamics',
    idField: 'productid',
    async findWhereIn(_object: string, _field: string, ids: string[]) {
      asked.push(ids);
      return ids.map((id) => ({ productid: id, statecode: states[id] }));
    },
    async update(_object: string, items: { sourceId: string; crmId: string; fields: Record<string, unknown> }[]) {
      updated.push(...items.map(({ crmId, fields }) => ({ crmId, fields })));
      return items.map((entry) => ({ sourceId: entry.sourceId, ok: true, crmId: entry.crmId, created: false }));
    },
  };
  return { crm, asked, updated };
}

const contextOf = (crm: unknown, unsettled?: string[]): AfterWriteContext =>
  ({
    commerce: {} as never,
    crm: crm as never,
    orgId: 'org-1',
    records: [item('p1|seats', 'PUBLIC'), item('p2|seats', 'DELETED'), item('p3|seats', 'PUBLIC')],
    linked: [
      { sourceId: 'p1|seats', crmId: GUIDS.a },
      { sourceId: 'p2|seats', crmId: GUIDS.b },
      { sourceId: 'p3|seats', crmId: GUIDS.c },
    ],
    ...(unsettled && { unsettled: new Set(unsettled) }),
  }) as AfterWriteContext;

describe("the Dynamics products' states after the catalogue's write", () => {
  it('a quiet batch (nothing written, no letter open) reads no state', async () => {
    const dataverse = fakeDataverse({ [GUIDS.a]: 2, [GUIDS.b]: 0, [GUIDS.c]: 2 });
    expect(await settleDynamicsProductStates(contextOf(dataverse.crm, []))).toEqual([]);
    expect(dataverse.asked).toEqual([]);
    expect(dataverse.updated).toEqual([]);
  });

  it('reads and settles only the unsettled products: a Draft one published, a DELETED one retired', async () => {
    // p1 written now (Draft), p2 unchanged with a letter (still Active though DELETED), p3 settled before (left alone even if Draft).
    const dataverse = fakeDataverse({ [GUIDS.a]: 2, [GUIDS.b]: 0, [GUIDS.c]: 2 });
    expect(await settleDynamicsProductStates(contextOf(dataverse.crm, ['p1|seats', 'p2|seats']))).toEqual([]);
    expect(dataverse.asked).toEqual([[GUIDS.a, GUIDS.b]]);
    expect(dataverse.updated).toEqual([
      { crmId: GUIDS.a, fields: { statecode: 0, statuscode: 1 } },
      { crmId: GUIDS.b, fields: { statecode: 1, statuscode: 2 } },
    ]);
  });
});
