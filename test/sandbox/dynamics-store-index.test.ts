// The Dataverse sandbox files rows by column value so that key lookups stay cheap at 100,000 rows.
// An index is only worth having if it never answers differently from a scan: these cases change,
// delete, undo and replay rows and expect a lookup to see exactly what a scan would.
import { describe, expect, it } from 'vitest';
import { createStore } from '../../sandbox/dynamics/store.ts';

const ids = (rows: Record<string, unknown>[]) => rows.map((r) => r.accountid).sort();

describe('Dataverse sandbox value index', () => {
  it('follows puts, updates that change the value, and removals', () => {
    const store = createStore();
    store.put('account', 'a1', { accountid: 'a1', accountnumber: 'K-1' });
    expect(ids(store.candidates('account', 'accountnumber', 'k-1'))).toEqual(['a1']); // built on first use
    store.put('account', 'a2', { accountid: 'a2', accountnumber: 'K-1' });
    store.put('account', 'a1', { accountid: 'a1', accountnumber: 'K-2' });
    expect(ids(store.candidates('account', 'accountnumber', 'K-1'))).toEqual(['a2']);
    expect(ids(store.candidates('account', 'accountnumber', 'K-2'))).toEqual(['a1']);
    store.remove('account', 'a2');
    expect(store.candidates('account', 'accountnumber', 'K-1')).toEqual([]);
    expect(store.candidates('account', 'accountnumber', null)).toEqual([]);
  });

  it('files lookups by their id', () => {
    const store = createStore();
    store.put('contact', 'c1', { contactid: 'c1', parentcustomerid: { id: 'ABC', table: 'account' } });
    expect(store.candidates('contact', 'parentcustomerid', 'abc').map((r) => r.contactid)).toEqual(['c1']);
  });

  it('is put back when a transaction fails, and emptied by clear', () => {
    const store = createStore();
    store.put('account', 'a1', { accountid: 'a1', accountnumber: 'K-1' });
    store.candidates('account', 'accountnumber', 'K-1');
    expect(() =>
      store.transaction(() => {
        store.put('account', 'a1', { accountid: 'a1', accountnumber: 'K-9' });
        store.put('account', 'a3', { accountid: 'a3', accountnumber: 'K-1' });
        store.remove('account', 'a1');
        throw new Error('change set failed');
      }),
    ).toThrow('change set failed');
    expect(ids(store.candidates('account', 'accountnumber', 'K-1'))).toEqual(['a1']);
    expect(store.candidates('account', 'accountnumber', 'K-9')).toEqual([]);
    store.clear();
    expect(store.candidates('account', 'accountnumber', 'K-1')).toEqual([]);
  });

  it('follows a replayed journal', () => {
    const store = createStore();
    store.candidates('account', 'accountnumber', 'K-1');
    store.apply({ op: 'row', table: 'account', row: { accountid: 'a1', accountnumber: 'K-1' } });
    expect(ids(store.candidates('account', 'accountnumber', 'K-1'))).toEqual(['a1']);
    store.apply({ op: 'delete', table: 'account', id: 'a1' });
    expect(store.candidates('account', 'accountnumber', 'K-1')).toEqual([]);
  });
});
