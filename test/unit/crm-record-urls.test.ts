// A link into the CRM opens the record it is about (issue #27 alerts, "links to the CRM record"): HubSpot
// and Dynamics put the object in the address, so an alert about an entitlement must not open a deal or an
// opportunity of the same id. The addresses are written out by hand from HubSpot's record URL form
// (app.hubspot.com/contacts/<portal>/record/<objectTypeId>/<id>) and Dynamics' main.aspx?etn=<table>.
import { describe, expect, it } from 'vitest';
import { createDynamicsConnector } from '../../crm/dynamics/connector.ts';
import { createHubSpotConnector } from '../../crm/hubspot/connector.ts';

describe('record links name the record\'s object', () => {
  it('HubSpot: deals, companies, tasks and the entitlement custom object by its objectTypeId', async () => {
    const crm = createHubSpotConnector({ baseUrl: 'https://api.hubapi.invalid', auth: 'private-app', portalId: '9001', entitlementObject: 'marketplace_entitlement', entitlementObjectTypeId: '2-4711' }, { crmAccessToken: 'token' });
    expect(await crm.recordUrl('123')).toBe('https://app.hubspot.com/contacts/9001/record/0-3/123');
    expect(await crm.recordUrl('123', 'deals')).toBe('https://app.hubspot.com/contacts/9001/record/0-3/123');
    expect(await crm.recordUrl('55', 'companies')).toBe('https://app.hubspot.com/contacts/9001/record/0-2/55');
    expect(await crm.recordUrl('77', 'tasks')).toBe('https://app.hubspot.com/contacts/9001/record/0-27/77');
    expect(await crm.recordUrl('88', 'marketplace_entitlement')).toBe('https://app.hubspot.com/contacts/9001/record/2-4711/88');
  });

  it('Dynamics: the table in etn, opportunity when none is named', async () => {
    const crm = createDynamicsConnector({ orgUrl: 'https://acme.crm.dynamics.com/', authority: 'https://login.microsoftonline.com', tenantId: 't', clientId: 'c', apiVersion: '9.2', concurrency: 4 }, { crmClientSecret: 's' });
    const id = '7d3f2b9a-0c1e-4b5a-9f00-1234567890ab';
    expect(await crm.recordUrl(id)).toBe(`https://acme.crm.dynamics.com/main.aspx?pagetype=entityrecord&etn=opportunity&id=${id}`);
    expect(await crm.recordUrl(id, 'ccs_marketplaceentitlement')).toBe(`https://acme.crm.dynamics.com/main.aspx?pagetype=entityrecord&etn=ccs_marketplaceentitlement&id=${id}`);
    expect(await crm.recordUrl(id, 'account')).toBe(`https://acme.crm.dynamics.com/main.aspx?pagetype=entityrecord&etn=account&id=${id}`);
  });
});
