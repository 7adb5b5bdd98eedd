// Issue #27 gaps: `crm-sync setup` on Dynamics and tables an older setup made without activities. The
// timeline's tasks can be regarding a custom table's rows only when it has activities (HasActivities):
// for a connection that chooses the timeline setup turns them on (UpdateEntity, then PublishXml) and
// says so; for one that does not, it notes the table and what to do, and changes nothing (activities,
// once on, are never turned off again). Against the Dataverse sandbox.
import { afterEach, describe, expect, it } from 'vitest';
import { setUpDynamics } from '../../crm/dynamics/setup.ts';
import { DYNAMICS_TABLES } from '../../mappings/dynamics/schema.ts';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { control } from '../../sandbox/dynamics/testing.ts';
import { clientFor } from '../sandbox/dynamics-helpers.ts';

let dynamics: DynamicsSandbox | undefined;
afterEach(async () => {
  await dynamics?.stop();
  dynamics = undefined;
});

const TIMELINE_TABLES = ['ccs_marketplaceentitlement', 'ccs_cosellreferral'];
const TIMELINE_DECLARED = DYNAMICS_TABLES.filter((declared) => TIMELINE_TABLES.includes(declared.logicalName));
const activities = (table: string) => `table ${table} activities (HasActivities, for the timeline's tasks)`;

/** A sandbox where the timeline's two custom tables were made as an older setup made them: without activities. */
async function olderEnvironment() {
  const sandbox = (dynamics = await startDynamicsSandbox({ requestsPer300s: 1_000_000, keyActivationMs: 0 }));
  const api = clientFor(sandbox);
  for (const table of DYNAMICS_TABLES.filter((declared) => TIMELINE_TABLES.includes(declared.logicalName))) {
    await api.createEntity({
      data: {
        '@odata.type': 'Microsoft.Dynamics.CRM.EntityMetadata',
        SchemaName: table.logicalName,
        EntitySetName: table.entitySetName,
        DisplayName: { LocalizedLabels: [{ Label: table.label, LanguageCode: 1033 }] },
        OwnershipType: 'UserOwned',
        HasActivities: false,
        Attributes: [{ '@odata.type': 'Microsoft.Dynamics.CRM.StringAttributeMetadata', AttributeType: 'String', SchemaName: table.primaryName?.logicalName ?? 'ccs_name', IsPrimaryName: true, MaxLength: 200 }],
      },
    });
  }
  const credentials = { authority: sandbox.authority, tenantId: sandbox.tenantId, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, scope: `${new URL(sandbox.orgUrl).origin}/.default` };
  // All the project's tables, or (quicker) the timeline's two.
  const setUp = (timeline: boolean, tables = DYNAMICS_TABLES) => setUpDynamics({ orgUrl: sandbox.orgUrl, credentials }, tables, { keyWaitMs: 5_000, keyPollMs: 20, timeline });
  const hasActivities = async (table: string) => ((await api.retrieveEntity({ key: `LogicalName='${table}'`, select: ['HasActivities'] })) as { HasActivities?: boolean }).HasActivities;
  return { sandbox, api, setUp, hasActivities };
}

describe('crm-sync setup on Dynamics: activities on tables made before the timeline', () => {
  it('notes each such table and changes nothing when the connection does not choose the timeline', async () => {
    const env = await olderEnvironment();
    const report = await env.setUp(false, TIMELINE_DECLARED);
    expect(report.notes).toEqual(
      TIMELINE_TABLES.map(
        (table) =>
          `${table} was made without activities, so the timeline cannot put tasks on its rows: add timeline to the connection's entities, then run crm-sync setup again, which turns them on (Dataverse never turns them off again)`,
      ),
    );
    expect(report.problems).toEqual([]);
    for (const table of TIMELINE_TABLES) expect(await env.hasActivities(table)).toBe(false);
    expect((await control(env.sandbox, 'GET', '/calls'))['PUT EntityDefinitions']).toBeUndefined();
  });

  it('turns them on, publishes the tables it changed and says so when the connection chooses the timeline; a second run finds them on', async () => {
    const env = await olderEnvironment();
    const report = await env.setUp(true);
    expect(report.created).toEqual(expect.arrayContaining(TIMELINE_TABLES.map(activities)));
    expect(report.notes).toEqual([]);
    for (const table of TIMELINE_TABLES) expect(await env.hasActivities(table)).toBe(true);
    const calls = await control(env.sandbox, 'GET', '/calls');
    expect(calls['PUT EntityDefinitions']).toBe(2);
    // One PublishXml naming both tables changed, which the sandbox answers as Dataverse does.
    expect(calls['POST PublishXml']).toBe(1);
    expect(report.problems).toEqual([]);

    // A task regarding a row of each table now lands (it was refused before: no such navigation property).
    const entitlement: Record<string, string> = await env.api.create({ collection: 'ccs_marketplaceentitlements', data: { ccs_name: "Entitlement \"O'Brien\" \\ ü" }, returnRepresentation: true });
    const task: Record<string, string> = await env.api.create({
      collection: 'tasks',
      data: { subject: 'Cancellation pending', 'regardingobjectid_ccs_marketplaceentitlement_task@odata.bind': `/ccs_marketplaceentitlements(${entitlement.ccs_marketplaceentitlementid})` },
      returnRepresentation: true,
    });
    expect(task._regardingobjectid_value).toBe(entitlement.ccs_marketplaceentitlementid);

    const again = await env.setUp(true, TIMELINE_DECLARED);
    expect(again.present).toEqual(expect.arrayContaining(TIMELINE_TABLES.map(activities)));
    expect(again.created.filter((item) => item.includes('HasActivities'))).toEqual([]);
    expect((await control(env.sandbox, 'GET', '/calls'))['PUT EntityDefinitions']).toBe(2);
  });

  it("names a refusal with Dataverse's words and the maker's way, leaves that table as it was (the other is turned on), and turns it on at the next run", async () => {
    const env = await olderEnvironment();
    // The first table's update fails every time the transport tries it (once and 4 retries); the second goes through.
    await control(env.sandbox, 'POST', '/faults', { endpoint: 'PUT EntityDefinitions', rate500: 1, times: 5 });
    const report = await env.setUp(true, TIMELINE_DECLARED);
    const refused = report.problems.filter((problem) => problem.startsWith(`${activities('ccs_marketplaceentitlement')} could not be turned on: `));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toContain('An unexpected error occurred. (injected by the sandbox');
    expect(refused[0]).toContain('Turn on "Enable activities" for ccs_marketplaceentitlement in Power Apps');
    expect(await env.hasActivities('ccs_marketplaceentitlement')).toBe(false);
    expect(await env.hasActivities('ccs_cosellreferral')).toBe(true);
    expect(report.created).toContain(activities('ccs_cosellreferral'));
    expect(report.created).not.toContain(activities('ccs_marketplaceentitlement'));
    // The next run turns the first on too.
    const again = await env.setUp(true, TIMELINE_DECLARED);
    expect(again.created).toContain(activities('ccs_marketplaceentitlement'));
    expect(await env.hasActivities('ccs_marketplaceentitlement')).toBe(true);
  });

  it('makes new tables with activities, so a fresh environment needs nothing turned on', async () => {
    const sandbox = (dynamics = await startDynamicsSandbox({ requestsPer300s: 1_000_000, keyActivationMs: 0 }));
    const credentials = { authority: sandbox.authority, tenantId: sandbox.tenantId, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, scope: `${new URL(sandbox.orgUrl).origin}/.default` };
    const report = await setUpDynamics({ orgUrl: sandbox.orgUrl, credentials }, TIMELINE_DECLARED, { keyWaitMs: 5_000, keyPollMs: 20, timeline: true });
    expect(report.present).toEqual(expect.arrayContaining(TIMELINE_TABLES.map(activities)));
    expect(report.notes).toEqual([]);
    expect((await control(sandbox, 'GET', '/calls'))['PUT EntityDefinitions']).toBeUndefined();
  });
});
