// A timeline task regarding a record of a table made without activities: Dataverse's task has no
// regardingobjectid_<table> navigation property for that table, so the write is refused before it is sent,
// with what to do (setup turns activities on for a timeline connection), not "run setup to create columns".
import { describe, expect, it } from 'vitest';
import { toBody } from '../../crm/dynamics/binds.ts';
import type { Metadata, TableInfo } from '../../crm/dynamics/metadata.ts';
import { timelineToDynamicsTask } from '../../mappings/dynamics/timeline.ts';

const task = {
  name: 'task',
  entitySetName: 'tasks',
  primaryId: 'activityid',
  fields: new Map([['subject', {}], ['description', {}]]),
  navigation: new Map([['regardingobjectid_account_task', 'account']]),
  keyColumns: new Set<string>(),
  keys: [],
  literalKind: () => undefined,
} as unknown as TableInfo;
/** An entitlement's event, placed on its CRM record as the timeline flow places it. */
const EVENT = {
  eventID: 'ev-1', id: 'ev-1', entityType: 'ENTITLEMENT', entityID: 'E-1', action: 'UPDATED', title: 'Offer accepted',
  timestamp: '2026-11-20T10:00:00.000Z', lastUpdateTime: '2026-11-20T10:00:00.000Z',
  timeline: { parentEntity: 'entitlement', parentId: 'E-1', parentCrmId: '6f1c2d3e-0000-4000-8000-000000000002', open: false },
};
const metadata = { table: async (name: string) => ({ entitySetName: `${name}s` }) } as unknown as Metadata;

describe('Dynamics bodies: an activity regarding a table without activities', () => {
  it('names the table that does not take activities and how to turn them on', async () => {
    // The field as the timeline's Dynamics mapping names it (regardingobjectid_<table>_task).
    const mapped = timelineToDynamicsTask.map(EVENT as never, undefined as never);
    const field = Object.keys(mapped.ok ? mapped.record.fields : {}).find((name) => name.startsWith('regardingobjectid_'));
    expect(field).toBe('regardingobjectid_ccs_marketplaceentitlement_task');
    const body = await toBody(metadata, task, { subject: 'Offer accepted', [field!]: '6f1c2d3e-0000-4000-8000-000000000002' });
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
    const body = await toBody(metadata, task, { subject: 'x', regardingobjectid_account_task: '6f1c2d3e-0000-4000-8000-000000000001' });
    expect(body).toEqual({ data: { subject: 'x', 'regardingobjectid_account_task@odata.bind': '/accounts(6f1c2d3e-0000-4000-8000-000000000001)' } });
  });
});
