// `crm-sync edit` changes the co-sell settings: merged into the saved ones and validated, a bad value named.
import { describe, expect, it } from 'vitest';
import { editedSettings } from '../../cli/edit-commands.ts';

const saved = {
  commerce: { baseUrl: 'https://api.example.com', authUrl: 'https://auth.example.com', clientId: 'c', organizationId: 'org-1' },
  crm: { loginUrl: 'https://acme.my.salesforce.com', clientId: 'k' },
};

describe('edit --cosell, --stage-owner, --cosell-every', () => {
  it('merges what is given and keeps the rest', () => {
    const edited = editedSettings(saved, { stageOwner: 'crm', cosellEvery: '2m', cosell: '{"share":{"by":"stage","stages":["Negotiation/Review"]}}' });
    expect(edited.cosell).toEqual({ enabled: true, share: { by: 'stage', stages: ['Negotiation/Review'] }, owners: { stage: 'crm' }, stages: {} });
    expect(edited.schedule.cosellEvery).toBe('2m');
  });

  it('refuses an owner it does not know, and JSON that is not JSON, naming them', () => {
    expect(() => editedSettings(saved, { stageOwner: 'whoever' })).toThrow(/stage/);
    expect(() => editedSettings(saved, { cosell: '{share:' })).toThrow(/--cosell is not JSON/);
  });
});
