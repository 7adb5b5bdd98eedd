// The co-sell lifecycle's CRM fields (issue #24 section 1): `crm-sync setup` creates them on a bare org of
// each CRM, with the types the contract names, and each sandbox then takes and gives back their values as
// the real CRM does: a checkbox true, the decision (Salesforce a restricted picklist value, HubSpot an
// enumeration option's internal value, Dataverse a choice's integer option value with its label as the
// formatted value), the decision's reason and the review's end as a datetime. Expected values are written
// out here, not read from the schema declarations under test.
import type { Connection } from 'jsforce';
import { Client as HubSpotClient } from '@hubspot/api-client';
import { afterEach, describe, expect, it } from 'vitest';
import { setUpDynamics } from '../../crm/dynamics/setup.ts';
import { setUpHubSpot } from '../../crm/hubspot/setup.ts';
import { setUpSalesforce } from '../../crm/salesforce/setup.ts';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { salesforceOrgPerTest } from '../support/salesforce-org-per-test.ts';

/** 2026-12-01T10:30:00Z as epoch milliseconds (worked out by hand: HubSpot takes either form). */
const REVIEW_ENDS_MS = 1_796_121_000_000;

describe('Salesforce: the lifecycle fields on Opportunity', () => {
  const { start } = salesforceOrgPerTest();
  type Described = { name: string; type: string; length: number; restrictedPicklist: boolean; picklistValues: { value: string; active: boolean }[] };
  const described = async (conn: Connection) => new Map(((await conn.sobject('Opportunity').describe()).fields as unknown as Described[]).map((f) => [f.name, f]));

  const expectLifecycleFields = (fields: Map<string, Described>) => {
    expect(fields.get('Cosell_Submit__c')).toMatchObject({ type: 'boolean' });
    expect(fields.get('Cosell_Decision__c')).toMatchObject({ type: 'picklist', restrictedPicklist: true });
    expect(fields.get('Cosell_Decision__c')!.picklistValues.map((v) => v.value)).toEqual(['Accept', 'Reject']);
    expect(fields.get('Cosell_Decision_Reason__c')).toMatchObject({ type: 'string', length: 255 });
    expect(fields.get('Cosell_Review_Ends__c')).toMatchObject({ type: 'datetime' });
  };

  it('setup creates the four fields on a bare org, with their types, and grants them', async () => {
    const { conn, userId } = await start('missing');
    expect((await described(conn)).has('Cosell_Decision__c')).toBe(false);
    const report = await setUpSalesforce(conn, userId);
    expect(report.problems).toEqual([]);
    expect(report.created).toEqual(
      expect.arrayContaining([
        'Opportunity.Cosell_Submit__c (Checkbox)',
        'Opportunity.Cosell_Decision__c (Picklist)',
        'Opportunity.Cosell_Decision_Reason__c (Text(255))',
        'Opportunity.Cosell_Review_Ends__c (DateTime)',
        'Commerce_CRM_Sync: Opportunity.Cosell_Decision__c (read, edit)',
        'Commerce_CRM_Sync: Opportunity.Cosell_Review_Ends__c (read, edit)',
      ]),
    );
    expectLifecycleFields(await described(conn));
    expect((await setUpSalesforce(conn, userId)).created).toEqual([]);
  });

  it('names a decision picklist an admin made without a value setup needs, and changes nothing', async () => {
    const { conn, userId } = await start('missing');
    await conn.tooling.create('CustomField', {
      FullName: 'Opportunity.Cosell_Decision__c',
      Metadata: { type: 'Picklist', label: 'Cosell Decision', valueSet: { restricted: true, valueSetDefinition: { sorted: false, value: [{ fullName: 'Accept', label: 'Accept', default: false }] } } },
    } as never);
    const report = await setUpSalesforce(conn, userId);
    expect(report.problems).toEqual([
      'Opportunity.Cosell_Decision__c lacks the picklist value "Reject": add it in Setup (Object Manager, Opportunity, Fields & Relationships, Cosell Decision)',
    ]);
    expect(report.present).toContain('Opportunity.Cosell_Decision__c');
    expect((await described(conn)).get('Cosell_Decision__c')!.picklistValues.map((v) => v.value)).toEqual(['Accept']);
  });

  it("the sandbox's default org has them, and takes and gives back a checkbox, a picklist value and a datetime", async () => {
    const { conn } = await start('deployed');
    expectLifecycleFields(await described(conn));
    const made = (await conn.sobject('Opportunity').create({
      Name: 'Inbound referral',
      StageName: 'Prospecting',
      CloseDate: '2026-12-31',
      Cosell_Submit__c: true,
      Cosell_Decision__c: 'Reject',
      Cosell_Decision_Reason__c: 'Not a fit for our product line',
      Cosell_Review_Ends__c: '2026-12-01T10:30:00Z',
    })) as unknown as { id: string; success: boolean };
    expect(made.success).toBe(true);
    const [row] = (await conn.query<Record<string, unknown>>(`SELECT Cosell_Submit__c, Cosell_Decision__c, Cosell_Decision_Reason__c, Cosell_Review_Ends__c FROM Opportunity WHERE Id = '${made.id}'`)).records;
    expect(row).toMatchObject({ Cosell_Submit__c: true, Cosell_Decision__c: 'Reject', Cosell_Decision_Reason__c: 'Not a fit for our product line' });
    // Salesforce answers a datetime in UTC with milliseconds and a +0000 offset.
    expect(row!.Cosell_Review_Ends__c).toBe('2026-12-01T10:30:00.000+0000');

    // A restricted picklist refuses a value it does not list.
    const refused = (await conn.sobject('Opportunity').update({ Id: made.id, Cosell_Decision__c: 'Maybe' }).catch((error: unknown) => error)) as { errorCode?: string; success?: boolean; errors?: { statusCode?: string }[] };
    const code = refused.errorCode ?? refused.errors?.[0]?.statusCode;
    expect(code).toBe('INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST');
    // And a new decision, cleared checkbox and the review's end cleared are kept.
    await conn.sobject('Opportunity').update({ Id: made.id, Cosell_Decision__c: 'Accept', Cosell_Submit__c: false, Cosell_Review_Ends__c: null } as never);
    const [after] = (await conn.query<Record<string, unknown>>(`SELECT Cosell_Submit__c, Cosell_Decision__c, Cosell_Review_Ends__c FROM Opportunity WHERE Id = '${made.id}'`)).records;
    expect(after).toMatchObject({ Cosell_Submit__c: false, Cosell_Decision__c: 'Accept', Cosell_Review_Ends__c: null });
  });
});

describe('HubSpot: the lifecycle properties of deals', () => {
  let hubspot: HubSpotSandbox | undefined;
  afterEach(async () => {
    await hubspot?.stop();
    hubspot = undefined;
  });

  it('setup creates the four properties with their types and options; closed_lost_reason is HubSpot\'s own', async () => {
    hubspot = await startHubSpotSandbox();
    const client = new HubSpotClient({ accessToken: hubspot.accessToken, basePath: hubspot.baseUrl });
    const report = await setUpHubSpot({ baseUrl: hubspot.baseUrl, accessToken: hubspot.accessToken });
    expect(report.problems).toEqual([]);
    expect(report.created).toEqual(expect.arrayContaining(['deals.cosell_submit', 'deals.cosell_decision', 'deals.cosell_decision_reason', 'deals.cosell_review_ends']));
    expect(report.created).not.toContain('deals.closed_lost_reason');

    const property = (name: string) => client.crm.properties.coreApi.getByName('deals', name);
    expect(await property('cosell_submit')).toMatchObject({ type: 'bool', fieldType: 'booleancheckbox', groupName: 'commerce' });
    const decision = await property('cosell_decision');
    expect(decision).toMatchObject({ type: 'enumeration', fieldType: 'select' });
    expect(decision.options.map((o) => ({ label: o.label, value: o.value }))).toEqual([
      { label: 'Accept', value: 'accept' },
      { label: 'Reject', value: 'reject' },
    ]);
    expect(await property('cosell_decision_reason')).toMatchObject({ type: 'string', fieldType: 'textarea' });
    expect(await property('cosell_review_ends')).toMatchObject({ type: 'datetime', fieldType: 'date' });
    expect(await property('closed_lost_reason')).toMatchObject({ type: 'string', hubspotDefined: true });
  });

  it('names a decision property an admin made without an option setup needs, and changes nothing', async () => {
    hubspot = await startHubSpotSandbox();
    const client = new HubSpotClient({ accessToken: hubspot.accessToken, basePath: hubspot.baseUrl });
    await client.crm.properties.coreApi.create('deals', {
      name: 'cosell_decision',
      label: 'Co-sell Decision',
      type: 'enumeration' as never,
      fieldType: 'select' as never,
      groupName: 'dealinformation',
      options: [{ label: 'Accept', value: 'accept', displayOrder: 0, hidden: false }],
    });
    const report = await setUpHubSpot({ baseUrl: hubspot.baseUrl, accessToken: hubspot.accessToken });
    expect(report.problems).toEqual([
      'deals.cosell_decision exists without the option "Reject" (internal value reject): add it to the property in HubSpot (Settings, Properties), with exactly that internal value',
    ]);
    expect((await client.crm.properties.coreApi.getByName('deals', 'cosell_decision')).options.map((o) => o.value)).toEqual(['accept']);
  });

  it('a deal takes and gives back a checkbox, an option and a datetime given as epoch ms or ISO 8601', async () => {
    hubspot = await startHubSpotSandbox();
    const client = new HubSpotClient({ accessToken: hubspot.accessToken, basePath: hubspot.baseUrl });
    expect((await setUpHubSpot({ baseUrl: hubspot.baseUrl, accessToken: hubspot.accessToken })).problems).toEqual([]);
    const names = ['cosell_submit', 'cosell_decision', 'cosell_decision_reason', 'cosell_review_ends', 'closed_lost_reason'];

    const byMillis = await client.crm.deals.basicApi.create({
      properties: { dealname: 'Inbound referral', cosell_submit: 'true', cosell_decision: 'reject', cosell_decision_reason: 'Not a fit', cosell_review_ends: String(REVIEW_ENDS_MS), closed_lost_reason: 'Budget moved to next year' },
      associations: [],
    });
    const read = await client.crm.deals.basicApi.getById(byMillis.id, names);
    // HubSpot answers a datetime as ISO 8601 in UTC, with milliseconds.
    expect(read.properties).toMatchObject({ cosell_submit: 'true', cosell_decision: 'reject', cosell_decision_reason: 'Not a fit', cosell_review_ends: '2026-12-01T10:30:00.000Z', closed_lost_reason: 'Budget moved to next year' });

    const byIso = await client.crm.deals.basicApi.create({ properties: { dealname: 'Second', cosell_decision: 'accept', cosell_review_ends: '2026-12-01T10:30:00Z' }, associations: [] });
    expect((await client.crm.deals.basicApi.getById(byIso.id, names)).properties).toMatchObject({ cosell_decision: 'accept', cosell_review_ends: '2026-12-01T10:30:00.000Z' });

    // An option the property does not have is refused (the label, too: the API takes internal values).
    for (const value of ['maybe', 'Accept']) {
      const refused = await client.crm.deals.basicApi.update(byIso.id, { properties: { cosell_decision: value } }).catch((error: { code?: number }) => error);
      expect((refused as { code?: number }).code, value).toBe(400);
    }
  });
});

describe('Dynamics: the lifecycle columns of opportunity', () => {
  let dynamics: DynamicsSandbox | undefined;
  afterEach(async () => {
    await dynamics?.stop();
    dynamics = undefined;
  });
  const credentials = (d: DynamicsSandbox) => ({ authority: d.authority, tenantId: d.tenantId, clientId: d.clientId, clientSecret: d.clientSecret, scope: `${new URL(d.orgUrl).origin}/.default` });
  /** The Web API as any client calls it: a client-credentials token, then plain requests. */
  const webApi = async (d: DynamicsSandbox) => {
    const token = (await (
      await fetch(d.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: d.clientId, client_secret: d.clientSecret, scope: credentials(d).scope }),
      })
    ).json()) as { access_token: string };
    return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const answer = await fetch(`${d.orgUrl}api/data/v9.2/${path}`, {
        method,
        headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json', accept: 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await answer.text();
      return { status: answer.status, headers: answer.headers, body: (text ? JSON.parse(text) : undefined) as any };
    };
  };

  it('setup creates the four columns (the decision a Choice with options 100000000 Accept, 100000001 Reject); a second run creates none', async () => {
    dynamics = await startDynamicsSandbox({ operationMs: 0 });
    const first = await setUpDynamics({ orgUrl: dynamics.orgUrl, credentials: credentials(dynamics) });
    expect(first.problems).toEqual([]);
    expect(first.created).toEqual(expect.arrayContaining(['opportunity.ccs_cosellsubmit', 'opportunity.ccs_coselldecision', 'opportunity.ccs_coselldecisionreason', 'opportunity.ccs_cosellreviewends']));

    const call = await webApi(dynamics);
    const attributes = (await call('GET', "EntityDefinitions(LogicalName='opportunity')/Attributes")).body.value as Record<string, any>[];
    const attribute = (name: string) => attributes.find((a) => a.LogicalName === name);
    expect(attribute('ccs_cosellsubmit')).toMatchObject({ AttributeType: 'Boolean' });
    expect(attribute('ccs_coselldecision')).toMatchObject({ AttributeType: 'Picklist', '@odata.type': '#Microsoft.Dynamics.CRM.PicklistAttributeMetadata' });
    expect(attribute('ccs_coselldecisionreason')).toMatchObject({ AttributeType: 'String', MaxLength: 1000 });
    expect(attribute('ccs_cosellreviewends')).toMatchObject({ AttributeType: 'DateTime', Format: 'DateAndTime' });

    const second = await setUpDynamics({ orgUrl: dynamics.orgUrl, credentials: credentials(dynamics) });
    expect(second).toMatchObject({ created: [], problems: [] });
    expect(second.present).toContain('opportunity.ccs_coselldecision');
  });

  it('an opportunity takes the option value (an integer) and gives it back, with its label as the formatted value', async () => {
    dynamics = await startDynamicsSandbox({ operationMs: 0 });
    expect((await setUpDynamics({ orgUrl: dynamics.orgUrl, credentials: credentials(dynamics) })).problems).toEqual([]);
    const call = await webApi(dynamics);
    const made = await call('POST', 'opportunities', {
      name: 'Inbound referral',
      ccs_cosellsubmit: true,
      ccs_coselldecision: 100000001,
      ccs_coselldecisionreason: 'Not a fit for our product line',
      ccs_cosellreviewends: '2026-12-01T10:30:00Z',
    });
    expect(made.status).toBe(204);
    const id = /\(([0-9a-f-]{36})\)/.exec(made.headers.get('odata-entityid') ?? '')![1];
    const select = '$select=ccs_cosellsubmit,ccs_coselldecision,ccs_coselldecisionreason,ccs_cosellreviewends';
    const read = await call('GET', `opportunities(${id})?${select}`, undefined, { prefer: 'odata.include-annotations="OData.Community.Display.V1.FormattedValue"' });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      ccs_cosellsubmit: true,
      ccs_coselldecision: 100000001,
      'ccs_coselldecision@OData.Community.Display.V1.FormattedValue': 'Reject',
      ccs_coselldecisionreason: 'Not a fit for our product line',
      ccs_cosellreviewends: '2026-12-01T10:30:00Z',
    });

    // An integer that is not one of the choice's options, and the label instead of the value, are refused.
    expect((await call('PATCH', `opportunities(${id})`, { ccs_coselldecision: 100000002 })).status).toBe(400);
    expect((await call('PATCH', `opportunities(${id})`, { ccs_coselldecision: 'Accept' })).status).toBe(400);
    expect((await call('PATCH', `opportunities(${id})`, { ccs_coselldecision: 100000000, ccs_cosellreviewends: null })).status).toBe(204);
    const after = await call('GET', `opportunities(${id})?${select}`, undefined, { prefer: 'odata.include-annotations="*"' });
    expect(after.body).toMatchObject({ ccs_coselldecision: 100000000, 'ccs_coselldecision@OData.Community.Display.V1.FormattedValue': 'Accept', ccs_cosellreviewends: null });
  });
});
