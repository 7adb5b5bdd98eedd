import { describe, expect, it } from 'vitest';
import { commerceOrganizationKey, otherWriters, writesBack } from '../../sync/write-back-owner.ts';

const connection = (id: string, writeBack: boolean | undefined, commerce = { baseUrl: 'https://api.commerce.example/v1', organizationId: 'org-1' }, crmKind = 'salesforce') => ({
  id,
  name: id,
  crmKind,
  settings: { commerce, ...(writeBack !== undefined && { writeBack }) },
});

describe('writesBack: one connection per commerce organization and CRM kind writes CRM ids back', () => {
  it('an explicit flag decides', () => {
    const uat = connection('uat', false);
    const prod = connection('prod', true);
    expect(writesBack(uat, [uat, prod])).toBe(false);
    expect(writesBack(prod, [uat, prod])).toBe(true);
  });

  it('unset (saved before the rule) writes back, unless another connection of its commerce organization and kind is the declared writer', () => {
    const legacy = connection('legacy', undefined);
    expect(writesBack(legacy, [legacy])).toBe(true);
    expect(writesBack(legacy, [legacy, connection('uat', false)])).toBe(true);
    expect(writesBack(legacy, [legacy, connection('prod', true)])).toBe(false);
    // Another organization, another base URL or another CRM kind does not count.
    expect(writesBack(legacy, [legacy, connection('other-org', true, { baseUrl: 'https://api.commerce.example/v1', organizationId: 'org-2' })])).toBe(true);
    expect(writesBack(legacy, [legacy, connection('other-host', true, { baseUrl: 'https://eu.commerce.example/v1', organizationId: 'org-1' })])).toBe(true);
    expect(writesBack(legacy, [legacy, connection('hubspot', true, undefined, 'hubspot')])).toBe(true);
  });

  it('the same commerce organization however its base URL is spelt', () => {
    expect(commerceOrganizationKey({ commerce: { baseUrl: 'HTTPS://API.Commerce.example/v1/', organizationId: 'org-1' } })).toBe(
      commerceOrganizationKey({ commerce: { baseUrl: 'https://api.commerce.example/v1', organizationId: 'org-1' } }),
    );
    const legacy = connection('legacy', undefined);
    expect(writesBack(legacy, [legacy, connection('prod', true, { baseUrl: 'https://api.commerce.example/v1/', organizationId: 'org-1' })])).toBe(false);
    expect(commerceOrganizationKey({ portalId: 42 })).toBeUndefined();
    expect(writesBack({ id: 'x', crmKind: 'hubspot', settings: { portalId: 42 } }, [])).toBe(true);
  });

  it('otherWriters names who writes back instead', () => {
    const fresh = connection('fresh', undefined);
    const prod = connection('prod', true);
    const uat = connection('uat', false);
    expect(otherWriters(fresh, [fresh, prod, uat]).map((c) => c.id)).toEqual(['prod']);
    expect(otherWriters(prod, [fresh, prod, uat])).toEqual([]); // fresh defers to prod, uat gave it up
  });
});
