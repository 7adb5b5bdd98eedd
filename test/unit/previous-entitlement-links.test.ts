// The renewing entitlement points back at the one it renews (flows/previous-entitlement-links.ts): on a
// CRM kept in memory here, what is read and written for each case, the expected writes stated by hand.
import { describe, expect, it } from 'vitest';
import type { CrmConnector, CrmKind, CrmRecord } from '../../crm/connector.ts';
import { linkRenewingEntitlementsToPrevious } from '../../flows/previous-entitlement-links.ts';
import type { AfterWriteContext } from '../../flows/types.ts';

type Update = { sourceId: string; crmId: string; fields: CrmRecord };

/** A CRM holding entitlements by commerce id; `fields` is what its entitlement object has. */
function fakeCrm(kind: CrmKind, options: { fields: string[]; records: Record<string, CrmRecord>; refuse?: string }) {
  const idField = { salesforce: 'Id', hubspot: 'id', dynamics: 'ccs_marketplaceentitlementid' }[kind];
  const calls = { describe: 0, find: [] as string[][], updates: [] as Update[] };
  const crm = {
    kind,
    idField,
    async describe(object: string) {
      calls.describe += 1;
      return { name: object, fields: new Map(options.fields.map((name) => [name, { name }])) };
    },
    async findByExternalIds(_object: string, _key: string, values: string[]) {
      calls.find.push([...values].sort());
      return new Map(values.flatMap((value) => (options.records[value] ? [[value, options.records[value]!] as const] : [])));
    },
    async update(_object: string, items: Update[]) {
      calls.updates.push(...items);
      return items.map((item) => (item.crmId === options.refuse ? { sourceId: item.sourceId, ok: false, error: { code: 'ENTITY_IS_LOCKED', message: 'the record is locked' } } : { sourceId: item.sourceId, ok: true, crmId: item.crmId }));
    },
  };
  return { crm: crm as unknown as CrmConnector, calls };
}

/** The renewal flow's after-write context: ent-1's renewal linked, and what its related reader found. */
function context(crm: CrmConnector, successor?: string): AfterWriteContext {
  return {
    commerce: {} as AfterWriteContext['commerce'],
    crm,
    orgId: 'org-1',
    records: [{ id: 'ent-1' }],
    linked: [{ sourceId: 'ent-1', crmId: 'OPP-RENEWAL' }],
    related: (sourceId) => (sourceId === 'ent-1' ? { asOf: '2026-11-26T00:00:00Z', ...(successor && { successor: { id: successor } }) } : undefined),
  };
}

describe('the renewing entitlement points back at the one it renews', () => {
  it('Salesforce: Previous_Entitlement__c of the renewing entitlement gets the renewed one\'s record id', async () => {
    const { crm, calls } = fakeCrm('salesforce', { fields: ['Previous_Entitlement__c'], records: { 'ent-1': { Id: 'a0E000000000001' }, 'ent-9': { Id: 'a0E000000000009', Previous_Entitlement__c: null } } });
    expect(await linkRenewingEntitlementsToPrevious(context(crm, 'ent-9'))).toEqual([]);
    expect(calls.find).toEqual([['ent-1', 'ent-9']]);
    expect(calls.updates).toEqual([{ sourceId: 'ent-1', crmId: 'a0E000000000009', fields: { Previous_Entitlement__c: 'a0E000000000001' } }]);
  });

  it('Dynamics: ccs_previousentitlementid gets the renewed row\'s GUID', async () => {
    const { crm, calls } = fakeCrm('dynamics', {
      fields: ['ccs_previousentitlementid', '_ccs_previousentitlementid_value'],
      records: { 'ent-1': { ccs_marketplaceentitlementid: '11111111-1111-1111-1111-111111111111' }, 'ent-9': { ccs_marketplaceentitlementid: '99999999-9999-9999-9999-999999999999' } },
    });
    await linkRenewingEntitlementsToPrevious(context(crm, 'ent-9'));
    expect(calls.updates).toEqual([{ sourceId: 'ent-1', crmId: '99999999-9999-9999-9999-999999999999', fields: { ccs_previousentitlementid: '11111111-1111-1111-1111-111111111111' } }]);
  });

  it('HubSpot: previous_entitlement_id gets the renewed entitlement\'s commerce id as text', async () => {
    const { crm, calls } = fakeCrm('hubspot', { fields: ['previous_entitlement_id'], records: { 'ent-9': { id: '5001' } } });
    await linkRenewingEntitlementsToPrevious(context(crm, 'ent-9'));
    expect(calls.find).toEqual([['ent-9']]);
    expect(calls.updates).toEqual([{ sourceId: 'ent-1', crmId: '5001', fields: { previous_entitlement_id: 'ent-1' } }]);
  });

  it('writes once: a link already there (the sync\'s, or one a seller set) is left as it is', async () => {
    const { crm, calls } = fakeCrm('salesforce', { fields: ['Previous_Entitlement__c'], records: { 'ent-1': { Id: 'a0E000000000001' }, 'ent-9': { Id: 'a0E000000000009', Previous_Entitlement__c: 'a0E000000000777' } } });
    expect(await linkRenewingEntitlementsToPrevious(context(crm, 'ent-9'))).toEqual([]);
    expect(calls.updates).toEqual([]);
  });

  it('reads nothing while no renewing entitlement has arrived', async () => {
    const { crm, calls } = fakeCrm('salesforce', { fields: ['Previous_Entitlement__c'], records: {} });
    expect(await linkRenewingEntitlementsToPrevious(context(crm))).toEqual([]);
    expect(calls).toEqual({ describe: 0, find: [], updates: [] });
  });

  it('waits while the renewing entitlement is not in the CRM yet', async () => {
    const { crm, calls } = fakeCrm('salesforce', { fields: ['Previous_Entitlement__c'], records: { 'ent-1': { Id: 'a0E000000000001' } } });
    expect(await linkRenewingEntitlementsToPrevious(context(crm, 'ent-9'))).toEqual([]);
    expect(calls.updates).toEqual([]);
  });

  it('an org set up before the field: nothing read or written, nothing failed', async () => {
    const { crm, calls } = fakeCrm('dynamics', { fields: ['ccs_renewalopportunityid'], records: { 'ent-1': { ccs_marketplaceentitlementid: 'x' }, 'ent-9': { ccs_marketplaceentitlementid: 'y' } } });
    expect(await linkRenewingEntitlementsToPrevious(context(crm, 'ent-9'))).toEqual([]);
    expect(calls.find).toEqual([]);
    expect(calls.updates).toEqual([]);
  });

  it('a refused write is the renewed entitlement\'s problem, in words naming both', async () => {
    const { crm } = fakeCrm('salesforce', { fields: ['Previous_Entitlement__c'], records: { 'ent-1': { Id: 'a0E000000000001' }, 'ent-9': { Id: 'a0E000000000009' } }, refuse: 'a0E000000000009' });
    expect(await linkRenewingEntitlementsToPrevious(context(crm, 'ent-9'))).toEqual([
      { sourceId: 'ent-1', reason: 'the entitlement that renewed ent-1 is in the CRM, but it could not be pointed back at ent-1 (Previous_Entitlement__c): the record is locked' },
    ]);
  });
});
