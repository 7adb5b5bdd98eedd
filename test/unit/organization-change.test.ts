import { describe, expect, it } from 'vitest';
import { connectionSettingsSchema } from '../../sync/connection-settings.ts';
import { organizationChanges, OrganizationChangedError } from '../../sync/verify-connection.ts';

const settings = (commerce: { baseUrl?: string; organizationId?: string } = {}, crmOrganizationId?: string) =>
  connectionSettingsSchema.parse({
    commerce: { baseUrl: 'https://api.commerce.example/v1', authUrl: 'https://auth.commerce.example', clientId: 'c', organizationId: 'org-1', ...commerce },
    crm: { loginUrl: 'https://acme.my.salesforce.com', clientId: 's', ...(crmOrganizationId && { organizationId: crmOrganizationId }) },
  });

describe('organizationChanges: does a saved connection now reach another organization?', () => {
  it('the same organizations: no change (15- and 18-character Salesforce ids of one org alike)', () => {
    expect(organizationChanges(settings({}, '00DSb0000000001MAA'), settings(), '00DSb0000000001MAA')).toEqual([]);
    expect(organizationChanges(settings({}, '00DSb0000000001'), settings(), '00DSb0000000001MAA')).toEqual([]);
    expect(organizationChanges(settings({ baseUrl: 'https://API.commerce.example/v1/' }, '00DSb0000000001MAA'), settings(), '00DSb0000000001MAA')).toEqual([]);
  });

  it('another Salesforce org', () => {
    expect(organizationChanges(settings({}, '00DSb0000000001MAA'), settings(), '00D5e000000Prod2AAA')).toEqual([{ side: 'crm', saved: '00DSb0000000001MAA', now: '00D5e000000Prod2AAA' }]);
  });

  it('another commerce organization or base URL', () => {
    expect(organizationChanges(settings(), settings({ organizationId: 'org-2' }), undefined)).toEqual([
      { side: 'commerce', saved: 'org-1 at https://api.commerce.example/v1', now: 'org-2 at https://api.commerce.example/v1' },
    ]);
    expect(organizationChanges(settings(), settings({ baseUrl: 'https://eu.commerce.example/v1' }), undefined)).toHaveLength(1);
  });

  it('a connection saved before org ids were kept adopts the verified one; a new connection has nothing to compare', () => {
    expect(organizationChanges(settings(), settings(), '00D5e000000Prod2AAA')).toEqual([]);
    expect(organizationChanges(undefined, settings(), '00D5e000000Prod2AAA')).toEqual([]);
  });

  it('the refusal names both org ids and what to do', () => {
    const message = new OrganizationChangedError('acme', [{ side: 'crm', saved: '00DA', now: '00DB' }], 'connect').message;
    expect(message).toMatch(/acme was not changed/);
    expect(message).toMatch(/saved with org 00DA; these credentials reach org 00DB/);
    expect(message).toMatch(/--start-afresh/);
    expect(message).toMatch(/another --name/);
  });
});
