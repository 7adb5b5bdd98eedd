import { describe, expect, it } from 'vitest';
import { dynamicsGuid, writeBackPatch } from '../../sync/write-back.ts';

const url = async (id: string) => `https://acme.my.salesforce.com/${id}`;

describe('writeBackPatch: the CRM ids a commerce record carries, per CRM (contract §2.6)', () => {
  it('Salesforce: the Opportunity on offers, the record URL on entitlements, the Account on both', async () => {
    expect(await writeBackPatch('salesforce', 'offer', { crmId: '006A', accountId: '001B' }, url)).toEqual({ crmAOpportunityId: '006A', crmAAccountId: '001B' });
    expect(await writeBackPatch('salesforce', 'entitlement', { crmId: 'a0E1', accountId: '001B' }, url)).toEqual({ crmAEntitlementURL: 'https://acme.my.salesforce.com/a0E1', crmAAccountId: '001B' });
    expect(await writeBackPatch('salesforce', 'offer', { crmId: '006A' }, url)).toEqual({ crmAOpportunityId: '006A' });
    expect(await writeBackPatch('salesforce', 'buyer', { crmId: '001B' }, url)).toBeUndefined();
  });

  it('HubSpot: the deal id on offers', async () => {
    expect(await writeBackPatch('hubspot', 'offer', { crmId: '9876543210' }, url)).toEqual({ crmBDealId: '9876543210' });
    expect(await writeBackPatch('hubspot', 'entitlement', { crmId: '1' }, url)).toBeUndefined();
  });

  it('Dynamics: the opportunity GUID on offers, lowercased and without braces', async () => {
    expect(await writeBackPatch('dynamics', 'offer', { crmId: '{3F2504E0-4F89-11D3-9A0C-0305E82C3301}' }, url)).toEqual({ crmCOpportunityId: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' });
    expect(dynamicsGuid(' 3F2504E0-4F89-11D3-9A0C-0305E82C3301 ')).toBe('3f2504e0-4f89-11d3-9a0c-0305e82c3301');
  });
});
