// The before/after of an audit event as a person reads it: only what changed, by path (issue #26 section 2).
import { describe, expect, it } from 'vitest';
import { auditDiff, detailText } from '../../ops/audit-diff.ts';

describe('audit diff', () => {
  it('lists each changed, added and removed value by its path, and nothing that stayed', () => {
    const before = { schedule: { every: '5m', pageSize: 200 }, entities: ['buyer', 'offer'], crm: { kind: 'salesforce', clientSecret: '[redacted]' } };
    const after = { schedule: { every: '10m', pageSize: 200 }, entities: ['buyer'], crm: { kind: 'salesforce', clientSecret: '[redacted]' }, cosell: { enabled: true } };
    expect(auditDiff(before, after)).toEqual([
      { path: 'cosell.enabled', after: 'true' },
      { path: 'entities', before: '["buyer","offer"]', after: '["buyer"]' },
      { path: 'schedule.every', before: '"5m"', after: '"10m"' },
    ]);
  });

  it('shows mapping overrides added from nothing, and removed to nothing', () => {
    expect(auditDiff({}, { constants: { Offer_Type__c: 'Private' } })).toEqual([{ path: 'constants.Offer_Type__c', after: '"Private"' }]);
    expect(auditDiff({ disable: ['Description'] }, {})).toEqual([{ path: 'disable', before: '["Description"]' }]);
    expect(auditDiff(undefined, { fields: { X: 1 } })).toEqual([{ path: 'fields.X', after: '1' }]);
    expect(auditDiff('a', 'b')).toEqual([{ path: '(value)', before: '"a"', after: '"b"' }]);
    expect(auditDiff({ a: 1 }, { a: 1 })).toEqual([]);
  });

  it("reads what an action noted as key: value pairs, by key", () => {
    expect(detailText({ syncStarted: false, due: 2, workflowId: 'backfill-acme-1', entities: ['offer'] })).toBe('due: 2 · entities: ["offer"] · syncStarted: false · workflowId: backfill-acme-1');
    expect(detailText('plain')).toBe('"plain"');
  });
});
