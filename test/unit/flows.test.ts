// Flows are declarations: the order they run in, which flow an event names and which mappings a CRM
// kind has all follow from them; a connection's CRM settings are a union by kind.
import { describe, expect, it } from 'vitest';
import { createConnector, mappingsFor } from '../../crm/registry.ts';
import { FLOW_ORDER, FLOWS, flowForEvent, flowOrder } from '../../flows/index.ts';
import { connectionSettingsSchema } from '../../sync/connection-settings.ts';

const commerce = { baseUrl: 'https://api.example.com', authUrl: 'https://auth.example.com', clientId: 'c', organizationId: 'org-1' };

describe('flow declarations', () => {
  it('run parents first: every flow after the flows it names as parents', () => {
    expect(FLOW_ORDER).toEqual(['buyer', 'contact', 'offer', 'entitlement', 'referral', 'inbound-referral', 'usage', 'usage-summary', 'renewal', 'live-agreement', 'timeline', 'catalogue', 'catalogue-standard-price', 'catalogue-price']);
    for (const name of FLOW_ORDER) for (const parent of FLOWS[name].parents) expect(FLOW_ORDER.indexOf(parent), `${parent} before ${name}`).toBeLessThan(FLOW_ORDER.indexOf(name));
    expect(flowOrder(['referral', 'buyer', 'entitlement'])).toEqual(['buyer', 'entitlement', 'referral']);
  });

  it('name the flow a notification event is about, in any case', () => {
    expect(flowForEvent('ENTITLEMENT')).toBe('entitlement');
    expect(flowForEvent('offer')).toBe('offer');
    expect(flowForEvent('WALLET')).toBeUndefined();
    expect(flowForEvent(undefined)).toBeUndefined();
  });

  it('give each CRM kind the mappings it has', () => {
    expect(Object.keys(mappingsFor('salesforce')).sort()).toEqual(['buyer', 'catalogue', 'catalogue-price', 'catalogue-standard-price', 'contact', 'entitlement', 'inbound-referral', 'live-agreement', 'offer', 'referral', 'renewal', 'timeline', 'usage', 'usage-summary']);
    expect(mappingsFor('salesforce').offer?.object).toBe('Opportunity');
    expect(Object.keys(mappingsFor('hubspot')).sort()).toEqual(['buyer', 'catalogue', 'contact', 'entitlement', 'inbound-referral', 'live-agreement', 'offer', 'referral', 'renewal', 'timeline', 'usage', 'usage-summary']);
    expect(mappingsFor('hubspot').offer?.object).toBe('deals');
    expect(mappingsFor('hubspot').entitlement?.object).toBe('marketplace_entitlement');
    // An account without custom objects: entitlements as line items.
    expect(mappingsFor('hubspot', { kind: 'hubspot', baseUrl: 'https://api.hubapi.com', auth: 'private-app', entitlementObject: 'line_items' }).entitlement?.object).toBe('line_items');
    expect(Object.keys(mappingsFor('dynamics')).sort()).toEqual(['buyer', 'catalogue', 'catalogue-price', 'contact', 'entitlement', 'inbound-referral', 'live-agreement', 'offer', 'referral', 'renewal', 'timeline', 'usage', 'usage-summary']);
    expect(mappingsFor('dynamics').offer?.object).toBe('opportunity');
    expect(mappingsFor('dynamics').entitlement?.object).toBe('ccs_marketplaceentitlement');
    expect(mappingsFor('dynamics')['inbound-referral']?.object).toBe('opportunity');
    // Usage by day (issue #25 section 4): each CRM's usage object.
    expect([mappingsFor('salesforce').usage?.object, mappingsFor('hubspot').usage?.object, mappingsFor('dynamics').usage?.object]).toEqual(['Marketplace_Usage__c', 'marketplace_usage', 'ccs_marketplaceusage']);
    expect([mappingsFor('salesforce')['usage-summary']?.object, mappingsFor('hubspot')['usage-summary']?.object, mappingsFor('dynamics')['usage-summary']?.object]).toEqual(['Marketplace_Entitlement__c', 'marketplace_entitlement', 'ccs_marketplaceentitlement']);
  });
});

describe('CRM settings, a union by kind', () => {
  it('reads a connection saved before the union (no kind) as Salesforce', () => {
    const settings = connectionSettingsSchema.parse({ commerce, crm: { loginUrl: 'https://acme.my.salesforce.com', clientId: 'k' } });
    expect(settings.crm).toEqual({ kind: 'salesforce', loginUrl: 'https://acme.my.salesforce.com', clientId: 'k' });
  });

  it('refuses a kind it does not know, naming the field', () => {
    const parsed = connectionSettingsSchema.safeParse({ commerce, crm: { kind: 'pipedrive', loginUrl: 'https://x.example.com', clientId: 'k' } });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain('kind');
  });

  it('builds the connector of the settings kind', () => {
    const settings = connectionSettingsSchema.parse({ commerce, crm: { kind: 'salesforce', loginUrl: 'https://acme.my.salesforce.com', clientId: 'k' } });
    expect(createConnector(settings, { commerceClientSecret: 's', crmClientSecret: 't' }).kind).toBe('salesforce');
    const dynamics = connectionSettingsSchema.parse({ commerce, crm: { kind: 'dynamics', orgUrl: 'https://contoso.crm.dynamics.com/', tenantId: 't', clientId: 'c' } });
    expect(dynamics.crm).toMatchObject({ authority: 'https://login.microsoftonline.com', apiVersion: '9.2', concurrency: 8 });
    expect(dynamics.cosell.share).toEqual({ by: 'checkbox', field: 'ccs_cosellshare' });
    expect(createConnector(dynamics, { commerceClientSecret: 's', crmClientSecret: 't' }).kind).toBe('dynamics');
    // The app registration's secret is needed: its absence is named.
    expect(() => createConnector(dynamics, { commerceClientSecret: 's' })).toThrow(/client secret/);
  });
});
