// A timeline task regarding a record of a table made without activities: Dataverse's task has no
// regardingobjectid_<table> navigation property for that table, so the write is refused before it is sent,
// with what to do (setup turns activities on for a timeline connection), not "run setup to create columns".
import { describe, expect, it } from 'vitest';
import { toBody } from '../../crm/dynamics/binds.ts';
import type { Metadata, TableInfo } from '../../crm/dynamics/metadata.ts';

const task = {
  name: 'task',
  entitySetName: 'tasks',
  primaryId: 'activityid',
  fields: new Map([['subject', {}], ['description', {}]]),
  navigation: new Map([['regardingobjectid_account', 'account']]),
  keyColumns: new Set<string>(),
  keys: [],
  literalKind: () => undefined,
} as unknown as TableInfo;
const metadata = { table: async (name: string) => ({ entitySetName: `${name}s` }) } as unknown as Metadata;

describe('Dynamics bodies: an activity regarding a table without activities', () => {
  it('names the table that does not take activities and how to turn them on', async () => {
    const body = await toBody(metadata, task, { subject: 'Offer accepted', regardingobjectid_ccs_marketplaceentitlement: { ccs_entitlementid: 'E-1' } });
    expect(body).toEqual({
      problem: {
        code: 'SCHEMA_MISSING',
        message:
          'Dataverse\'s ccs_marketplaceentitlement table does not take activities, so this task cannot be regarding its records: run crm-sync setup <connection> (it turns activities on for a connection that chooses the timeline), or have a maker turn on "Enable activities" for it',
      },
    });
  });

  it('still names plain missing columns as columns to create', async () => {
    const body = await toBody(metadata, task, { subject: 'x', ccs_eventid: 'ev-1' });
    expect(body).toEqual({ problem: { code: 'SCHEMA_MISSING', message: "Dataverse's task table has no column ccs_eventid: run crm-sync setup <connection> to create the project's columns" } });
  });

  it('binds a table that takes activities', async () => {
    const body = await toBody(metadata, task, { subject: 'x', regardingobjectid_account: '6f1c2d3e-0000-4000-8000-000000000001' });
    expect(body).toEqual({ data: { subject: 'x', 'regardingobjectid_account@odata.bind': '/accounts(6f1c2d3e-0000-4000-8000-000000000001)' } });
  });
});
