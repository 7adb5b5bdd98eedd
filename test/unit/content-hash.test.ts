// Stored record links carry a content hash per record; a change in how the canonical form is written
// would make every record look changed after an upgrade and rewrite whole CRMs. The expected text is
// written out by hand (keys sorted by code unit at every depth, undefined left out), and the hash is the
// one the previous implementation gave for this record.
import { describe, expect, it } from 'vitest';
import { canonicalJson, contentHash } from '../../sync/hash.ts';

const record = {
  object: 'Opportunity',
  externalIdField: 'Commerce_Offer_Id__c',
  externalId: 'offer-1',
  fields: { Name: 'Deal "x", big\n', Amount: 1200.5, CloseDate: '2026-12-01', IsPrivate: false, Nested: { b: 1, a: [1, null, 'z', { y: undefined, x: 2 }] }, Missing: undefined, Zed: null, É: 1, ä: 2, A: 3, a: 4, _: 5 },
};

describe('content hash', () => {
  it('writes the canonical form: sorted keys at every depth, undefined left out, arrays in order', () => {
    expect(canonicalJson(record)).toBe(
      '{"externalId":"offer-1","externalIdField":"Commerce_Offer_Id__c","fields":{"A":3,"Amount":1200.5,"CloseDate":"2026-12-01","IsPrivate":false,"Name":"Deal \\"x\\", big\\n","Nested":{"a":[1,null,"z",{"x":2}],"b":1},"Zed":null,"_":5,"a":4,"É":1,"ä":2},"object":"Opportunity"}',
    );
  });

  it('hashes a record exactly as the links stored by earlier versions say', () => {
    expect(contentHash(record as never)).toBe('AMNMQkQVupm7s1JRfElMO_MEjq3RxYx4N7RYzN6ICeQ');
  });
});
