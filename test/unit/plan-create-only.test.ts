// A create-only field (the stage of an Opportunity made for an inbound referral) is written when the CRM
// record is made and never on an update; changing it alone is no change to write.
import { describe, expect, it } from 'vitest';
import { ok, type EntityMapping } from '../../mappings/types.ts';
import type { RecordLink } from '../../store/record-links.ts';
import { planPage } from '../../sync/plan.ts';

type Source = { id: string; name: string; stage: string };
const mapping: EntityMapping<Source> = {
  entity: 'inbound-referral',
  object: 'Opportunity',
  externalIdField: 'Commerce_Referral_Id__c',
  picklists: {},
  createOnly: ['StageName'],
  describe: { Name: 'name', StageName: 'stage' },
  map: (source) => ok({ object: 'Opportunity', externalIdField: 'Commerce_Referral_Id__c', externalId: source.id, fields: { Name: source.name, StageName: source.stage } }),
};
const plan = (records: Source[], links: Map<string, RecordLink>) => planPage({ records, related: () => undefined, mapping, links });

describe('create-only fields', () => {
  it('go out when the record is made, and not once it is linked', () => {
    const first = plan([{ id: 'r1', name: 'Deal', stage: 'Prospecting' }], new Map());
    expect(first.writes[0]!.item.fields).toEqual({ Name: 'Deal', StageName: 'Prospecting' });
    const link: RecordLink = { sourceId: 'r1', crmObject: 'Opportunity', crmId: '006X', contentHash: first.writes[0]!.hash };
    // The stage moved on the commerce side: not this flow's to write any more, so nothing to do.
    expect(plan([{ id: 'r1', name: 'Deal', stage: 'Qualification' }], new Map([['r1', link]]))).toMatchObject({ writes: [], unchanged: ['r1'] });
    // Another field changed: written by Id, without the stage.
    const renamed = plan([{ id: 'r1', name: 'Bigger deal', stage: 'Qualification' }], new Map([['r1', link]]));
    expect(renamed.writes[0]!.item).toMatchObject({ crmId: '006X', fields: { Name: 'Bigger deal' } });
    expect(renamed.writes[0]!.item.fields).not.toHaveProperty('StageName');
  });
});
