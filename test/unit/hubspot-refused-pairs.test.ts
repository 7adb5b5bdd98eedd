// Which inputs of a batch of associations HubSpot refused, from its answer's `errors` (issue #22 item 5).
import { describe, expect, it } from 'vitest';
import { refusedPairs } from '../../crm/hubspot/associations.ts';

const pair = (from: string, to: string) => ({ from, to });
const invalid = (type: string, id: string) => ({ category: 'VALIDATION_ERROR', message: 'One or more associations are invalid', context: { INVALID_OBJECT_IDS: [`${type}=${id} is not valid`], objectId: [id], objectType: [type] } });
const refused = (chunk: ReturnType<typeof pair>[], answer: Parameters<typeof refusedPairs>[1]) => [...refusedPairs(chunk, answer)].map(([p, error]) => [`${p.from}>${p.to}`, error.message]);

describe('refusedPairs', () => {
  const chunk = [pair('1', '10'), pair('2', '11'), pair('3', '10'), pair('3', '12')];

  it('no errors: nothing refused, whatever results lists', () => {
    expect(refused(chunk, { results: [] })).toEqual([]);
    expect(refused(chunk, { results: [], errors: [] })).toEqual([]);
  });

  it('a target that no longer exists: every pair to it', () => {
    expect(refused(chunk, { results: [], errors: [invalid('COMPANY', '10')] })).toEqual([
      ['1>10', 'One or more associations are invalid'],
      ['3>10', 'One or more associations are invalid'],
    ]);
  });

  it('a source that no longer exists: every pair from it', () => {
    expect(refused(chunk, { errors: [invalid('CONTACT', '3')] }).map(([key]) => key)).toEqual(['3>10', '3>12']);
  });

  it('an error naming both records of a pair: that pair only', () => {
    const limit = { category: 'VALIDATION_ERROR', message: 'limit reached', context: { fromObjectId: ['3'], toObjectId: ['12'] } };
    expect(refused(chunk, { errors: [limit] })).toEqual([['3>12', 'limit reached']]);
  });

  it('an error naming no pair: the pairs the answer does not list as made', () => {
    const results = [{ _from: { id: '1' }, to: { id: '10' } }, { from: { id: '3' }, to: { id: '10' } }];
    expect(refused(chunk, { results, errors: [{ category: 'VALIDATION_ERROR', message: 'something' }] })).toEqual([
      ['2>11', 'something'],
      ['3>12', 'something'],
    ]);
  });
});
