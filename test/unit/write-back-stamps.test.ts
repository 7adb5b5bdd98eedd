// Which write-back answers are of our own write alone (issue #29), and which records read later are the
// ones the CRM is in step with. The race: another party's change landing between our read and our
// write-back's answer shows in the answer, and must not be taken for ours.
import { describe, expect, it } from 'vitest';
import { isAsLastKnown, ownWriteBackStamp, readStamp } from '../../sync/write-back-stamps.ts';

const read = {
  id: 'ent-1',
  status: 'ACTIVE',
  name: 'Gold plan',
  lastUpdateTime: '2026-01-05T10:00:00.000Z',
  info: { grossAmount: 1200 },
  metaInfo: { customMetaInfo: { region: 'emea' } },
};
const patch = { crmAEntitlementURL: 'https://acme.my.salesforce.com/a0E1', crmAAccountId: '001B' };
/** What the service answers for our PATCH alone: the patch merged into metaInfo, a new stamp. */
const answerOfOurs = { ...read, lastUpdateTime: '2026-01-05T10:00:07.250Z', metaInfo: { ...read.metaInfo, ...patch } };

describe('ownWriteBackStamp: the answer of our write-back, when it is of our write alone', () => {
  it('gives the answered stamp and a hash of the record as answered', () => {
    const stamp = ownWriteBackStamp(read, patch, answerOfOurs);
    expect(stamp?.version.toISOString()).toBe('2026-01-05T10:00:07.250Z');
    // The hash is of the record as answered: a later read equal to the answer is known, one that differs
    // in any field (same stamp) is not.
    const link = { crmId: 'a0E1', knownVersion: stamp!.version, knownHash: stamp!.hash };
    expect(isAsLastKnown(structuredClone(answerOfOurs), link)).toBe(true);
    expect(isAsLastKnown({ ...answerOfOurs, name: 'Gold plan (renamed)' }, link)).toBe(false);
    expect(isAsLastKnown({ ...answerOfOurs, metaInfo: { ...answerOfOurs.metaInfo, crmAAccountId: '001C' } }, link)).toBe(false);
  });

  it("the service's note of the last writer (metaInfo.lastModifiedBy, lastUpdatedBy) is not a change by someone else", () => {
    const answered = { ...answerOfOurs, lastUpdatedBy: 'sync-client', metaInfo: { ...answerOfOurs.metaInfo, lastModifiedBy: { email: 'api@acme.example' } } };
    expect(ownWriteBackStamp(read, patch, answered)?.version.toISOString()).toBe('2026-01-05T10:00:07.250Z');
  });

  it('an id of ours replacing another one (a relink) is still our write', () => {
    const before = { ...read, metaInfo: { ...read.metaInfo, crmAAccountId: '001OLD' } };
    expect(ownWriteBackStamp(before, patch, answerOfOurs)).toBeDefined();
  });

  it("the race: another party's change in the answer (status, amounts, their own metaInfo) gives no stamp", () => {
    expect(ownWriteBackStamp(read, patch, { ...answerOfOurs, status: 'SUSPENDED' })).toBeUndefined();
    expect(ownWriteBackStamp(read, patch, { ...answerOfOurs, info: { grossAmount: 1500 } })).toBeUndefined();
    expect(ownWriteBackStamp(read, patch, { ...answerOfOurs, metaInfo: { ...answerOfOurs.metaInfo, customMetaInfo: { region: 'apac' } } })).toBeUndefined();
  });

  it('an answer that does not carry our ids, names another record, has no readable stamp or an older one gives no stamp', () => {
    expect(ownWriteBackStamp(read, patch, { ...answerOfOurs, metaInfo: { ...read.metaInfo, crmAAccountId: '001B' } })).toBeUndefined();
    expect(ownWriteBackStamp(read, patch, { ...answerOfOurs, id: 'ent-2' })).toBeUndefined();
    expect(ownWriteBackStamp(read, patch, { ...answerOfOurs, lastUpdateTime: 'soon' })).toBeUndefined();
    expect(ownWriteBackStamp(read, patch, { ...answerOfOurs, lastUpdateTime: '2026-01-05T09:59:59.000Z' })).toBeUndefined();
    expect(ownWriteBackStamp(read, patch, undefined)).toBeUndefined();
    expect(ownWriteBackStamp(read, patch, 'ok')).toBeUndefined();
  });

  it('a flow that keeps the ids on the record itself (a referral) is read where it keeps them', () => {
    const referral = { id: 'ref-1', stage: 'Qualified', lastUpdateTime: '2026-01-05T10:00:00.000Z' };
    const answered = { ...referral, crmBDealId: '987', lastUpdateTime: '2026-01-05T10:00:01.000Z' };
    expect(ownWriteBackStamp(referral, { crmBDealId: '987' }, answered, (record) => record)?.version.toISOString()).toBe('2026-01-05T10:00:01.000Z');
    expect(ownWriteBackStamp(referral, { crmBDealId: '987' }, { ...answered, stage: 'Committed' }, (record) => record)).toBeUndefined();
  });
});

describe('isAsLastKnown: a record read later, against the stamp and hash its link keeps', () => {
  const stamp = ownWriteBackStamp(read, patch, answerOfOurs)!;
  const link = { crmId: 'a0E1', knownVersion: stamp.version, knownHash: stamp.hash };

  it('the record as our write-back left it is known', () => {
    expect(isAsLastKnown(structuredClone(answerOfOurs), link)).toBe(true);
  });

  it('a later change by anyone (a later stamp), or the same stamp with other content, is not', () => {
    expect(isAsLastKnown({ ...answerOfOurs, lastUpdateTime: '2026-01-05T10:03:00.000Z' }, link)).toBe(false);
    expect(isAsLastKnown({ ...answerOfOurs, status: 'SUSPENDED' }, link)).toBe(false);
  });

  it('a link without a stamp, without a CRM record, or no link at all knows nothing', () => {
    expect(isAsLastKnown(answerOfOurs, { crmId: 'a0E1' })).toBe(false);
    expect(isAsLastKnown(answerOfOurs, { ...link, crmId: null })).toBe(false);
    expect(isAsLastKnown(answerOfOurs, undefined)).toBe(false);
  });

  it('a record as read (written or found unchanged) is known by its own stamp', () => {
    const own = readStamp(read)!;
    expect(own.version.toISOString()).toBe('2026-01-05T10:00:00.000Z');
    expect(isAsLastKnown({ ...read }, { crmId: 'a0E1', knownVersion: own.version, knownHash: own.hash })).toBe(true);
    expect(readStamp({ ...read, lastUpdateTime: undefined })).toBeUndefined();
  });
});
