// crm-sync edit --renewal-lead-days: the renewal lead time is saved, and a value zod refuses names the field.
import { describe, expect, it } from 'vitest';
import { editedSettings } from '../../cli/edit-commands.ts';

const saved = {
  commerce: { baseUrl: 'https://api.example.com', authUrl: 'https://auth.example.com', clientId: 'c', organizationId: 'org-1' },
  crm: { kind: 'salesforce', loginUrl: 'https://login.example.com', clientId: 'sf' },
  entities: ['buyer', 'offer', 'entitlement', 'renewal'],
};

describe('crm-sync edit --renewal-lead-days', () => {
  it('saves the lead time; without the flag a connection has none saved (the default, 90, applies)', () => {
    expect(editedSettings(saved, {}).renewals).toBeUndefined();
    expect(editedSettings(saved, { renewalLeadDays: '120' }).renewals).toEqual({ leadDays: 120 });
  });

  it('refuses a lead time that is not a whole number of days from 1', () => {
    expect(() => editedSettings(saved, { renewalLeadDays: '0' })).toThrow(/leadDays/);
    expect(() => editedSettings(saved, { renewalLeadDays: 'soon' })).toThrow(/leadDays/);
  });
});
