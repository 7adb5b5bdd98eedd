// What the renewal and live-agreement flows read on each run (flows/renewal.ts dueRenewals,
// flows/live-agreement.ts buyersToMark), against a commerce client that records its queries.
import { describe, expect, it } from 'vitest';
import type { CommerceClient } from '../../commerce/index.ts';
import { buyersToMark } from '../../flows/live-agreement.ts';
import { dueRenewals } from '../../flows/renewal.ts';
import type { ConnectionSettings } from '../../sync/connection-settings.ts';

const NOW = new Date('2026-12-01T00:00:00.000Z');

/** A client whose entitlement query answers each call with the next list of rows, keeping the q it was asked. */
function commerceAnswering(...answers: Record<string, unknown>[][]) {
  const asked: (string | undefined)[] = [];
  const client = {
    entitlements: {
      async *query(_org: string, query: { q?: string }) {
        asked.push(query.q);
        yield { records: answers.shift() ?? [], rejected: [], position: 1 };
      },
    },
  } as unknown as CommerceClient;
  return { client, asked };
}

describe('the renewals due on a run', () => {
  it('asks for entitlements ending within the lead time or ended in the last 90 days; keeps an ended one only when its renewal is in the CRM', async () => {
    const { client, asked } = commerceAnswering([
      { id: 'ent-running', status: 'ACTIVE', endTime: '2026-12-20T00:00:00Z' },
      { id: 'ent-ended-linked', status: 'EXPIRED', endTime: '2026-12-05T00:00:00Z' },
      { id: 'ent-ended-never-renewed', status: 'ACTIVE', endTime: '2026-11-30T00:00:00Z' },
    ]);
    const askedLinked: string[][] = [];
    const read = await dueRenewals(client, 'org-1', {
      now: NOW,
      settings: { renewals: { leadDays: 30 } } as ConnectionSettings,
      linked: async (ids) => (askedLinked.push(ids), new Set(ids.filter((id) => id === 'ent-ended-linked'))),
      pageSize: 100,
    });
    expect(read.records.map((row) => row.id)).toEqual(['ent-running', 'ent-ended-linked']);
    expect(askedLinked).toEqual([['ent-ended-linked', 'ent-ended-never-renewed']]);
    expect(asked).toEqual(['(and (le endTime "2026-12-31T00:00:00.000Z") (ge endTime "2026-09-02T00:00:00.000Z"))']);
  });

  it('takes 90 days of lead time when the connection sets none', async () => {
    const { client, asked } = commerceAnswering([]);
    await dueRenewals(client, 'org-1', { now: NOW, settings: {} as ConnectionSettings, linked: async () => new Set(), pageSize: 100 });
    expect(asked[0]).toContain('(le endTime "2027-03-01T00:00:00.000Z")');
  });
});

describe('the buyers whose live-agreement mark is read on a run', () => {
  it('first run: every entitlement, one record per buyer with the newest change as its version', async () => {
    const { client, asked } = commerceAnswering([
      { id: 'ent-1', buyerID: 'buyer-1', status: 'ACTIVE', endTime: null, lastUpdateTime: '2026-10-01T00:00:00Z' },
      { id: 'ent-2', buyerID: 'buyer-1', status: 'EXPIRED', endTime: '2026-01-01T00:00:00Z', lastUpdateTime: '2026-11-01T00:00:00Z' },
      { id: 'ent-3', buyerID: 'buyer-2', status: 'CANCELLED', endTime: null, lastUpdateTime: '2026-09-01T00:00:00Z' },
    ]);
    const read = await buyersToMark(client, 'org-1', { now: NOW, pageSize: 100 });
    expect(asked).toEqual([undefined]);
    expect(read.records.map((buyer) => [buyer.id, buyer.lastUpdateTime, buyer.entitlements.map((e: { id: string }) => e.id), buyer.asOf])).toEqual([
      ['buyer-1', '2026-11-01T00:00:00.000Z', ['ent-1', 'ent-2'], '2026-12-01T00:00:00.000Z'],
      ['buyer-2', '2026-09-01T00:00:00.000Z', ['ent-3'], '2026-12-01T00:00:00.000Z'],
    ]);
  });

  it('later runs: the buyers of entitlements changed or ended since, each with all its entitlements', async () => {
    const { client, asked } = commerceAnswering(
      [{ id: 'ent-2', buyerID: 'buyer-1', status: 'EXPIRED', endTime: '2026-11-30T12:00:00Z', lastUpdateTime: '2026-01-01T00:00:00Z' }],
      [
        { id: 'ent-1', buyerID: 'buyer-1', status: 'ACTIVE', endTime: null, lastUpdateTime: '2026-10-01T00:00:00Z' },
        { id: 'ent-2', buyerID: 'buyer-1', status: 'EXPIRED', endTime: '2026-11-30T12:00:00Z', lastUpdateTime: '2026-01-01T00:00:00Z' },
      ],
    );
    const read = await buyersToMark(client, 'org-1', { now: NOW, since: new Date('2026-11-30T00:00:00Z'), pageSize: 100 });
    expect(asked).toEqual([
      '(or (ge lastUpdateTime "2026-11-30T00:00:00.000Z") (and (ge endTime "2026-11-30T00:00:00.000Z") (le endTime "2026-12-01T00:00:00.000Z")))',
      '(in buyerID "buyer-1")',
    ]);
    expect(read.records.map((buyer) => [buyer.id, buyer.entitlements.length])).toEqual([['buyer-1', 2]]);
  });
});
