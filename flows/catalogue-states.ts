// A Dynamics product's state (issue #28 section 1): Dataverse makes a product Draft ("The record becomes
// available to your sales agents only when you publish it, which changes the state of the record to
// Active"; a product outside a family is published by SetState, a PATCH of statecode 0 / statuscode 1),
// and retires it with statecode 1 / statuscode 2 (docs/crm-wire-behaviour.md, Dynamics "Products and line
// items"). A state is not a column an upsert sets (a create ignores it and starts Draft), so after the
// catalogue's write the state of each product written in this batch (or left with a dead letter by an
// earlier attempt: AfterWriteContext.unsettled) is read (one query per 100 or so) and only a product not
// in its state is changed: published while its commerce product is listed, retired once it is DELETED,
// never deleted. A quiet run (nothing written, no letter open) reads and changes nothing. A refusal
// waits as a dead letter, with Dataverse's words.
import type { CatalogueItem } from '../mappings/canonical/catalogue.ts';
import type { AfterWriteContext } from './types.ts';

/** Product states with their status reasons (Microsoft's product table): Active 0 (1), Retired 1 (2). */
const ACTIVE = { statecode: 0, statuscode: 1, doing: 'publish' } as const;
const RETIRED = { statecode: 1, statuscode: 2, doing: 'retire' } as const;

export async function settleDynamicsProductStates(context: AfterWriteContext): Promise<{ sourceId: string; reason: string }[]> {
  const { crm } = context;
  const linked = context.unsettled ? context.linked.filter((link) => context.unsettled!.has(link.sourceId)) : context.linked;
  if (crm.kind !== 'dynamics' || linked.length === 0) return [];
  const wanted = new Map((context.records as CatalogueItem[]).map((item) => [item.id, item.product.status === 'DELETED' ? RETIRED : ACTIVE]));
  const rows = await crm.findWhereIn('product', crm.idField, linked.map((link) => link.crmId), ['statecode']);
  const stateOf = new Map(rows.map((row) => [String(row[crm.idField]).toLowerCase(), row.statecode]));
  const changes = linked.flatMap((link) => {
    const target = wanted.get(link.sourceId);
    const now = stateOf.get(link.crmId.toLowerCase());
    return target && now !== undefined && now !== target.statecode ? [{ ...link, target }] : [];
  });
  if (changes.length === 0) return [];
  context.signal?.throwIfAborted();
  const results = await crm.update(
    'product',
    changes.map((change) => ({ sourceId: change.sourceId, crmId: change.crmId, fields: { statecode: change.target.statecode, statuscode: change.target.statuscode } })),
    { signal: context.signal },
  );
  const doing = new Map(changes.map((change) => [change.sourceId, change.target.doing]));
  return results.flatMap((result) =>
    result.ok ? [] : [{ sourceId: result.sourceId, reason: `Dataverse refused to ${doing.get(result.sourceId)} the product (${result.error.code}): ${result.error.message}` }],
  );
}
