// The pure parts of what the CLI and the console show: a connection's health verdict, and a running
// sync's progress (rate and ETA) from the workflow's query.
import { describe, expect, it } from 'vitest';
import { formatSeconds, intervalSeconds, judgeHealth } from '../../ops/connection-health.ts';
import { progressView } from '../../ops/backfill-progress.ts';
import type { SyncProgress } from '../../workflows/sync.ts';

const run = (status: string, error: string | null = null) => ({ id: 'r1', kind: 'incremental', status, startedAt: new Date('2026-11-25T10:00:00Z'), finishedAt: new Date('2026-11-25T10:01:00Z'), error });
const facts = { name: 'acme', lastRun: run('completed'), lagSeconds: 30, openDeadLetters: 0, paused: false, needsReauthorisation: null };

describe('judgeHealth', () => {
  it('says the most urgent thing first, with what to do', () => {
    const all = { ...facts, lastRun: run('failed', 'Salesforce is down'), lagSeconds: 99_999, openDeadLetters: 3, paused: true, needsReauthorisation: { reason: 'Salesforce refused the refresh token', since: new Date() } };
    expect(judgeHealth(all, 900)).toEqual({ status: 'needs re-authorisation', summary: 'Salesforce refused the refresh token. Save working secrets: crm-sync edit acme' });
    expect(judgeHealth({ ...all, needsReauthorisation: null }, 900)).toEqual({ status: 'paused', summary: 'Its schedules are paused: crm-sync resume acme' });
    expect(judgeHealth({ ...all, needsReauthorisation: null, paused: false }, 900)).toEqual({ status: 'failing', summary: 'The last incremental run failed: Salesforce is down' });
    expect(judgeHealth({ ...facts, lagSeconds: 3600, openDeadLetters: 3 }, 900)).toEqual({ status: 'behind', summary: 'The CRM trails the commerce side by 60 min: see crm-sync runs acme' });
    expect(judgeHealth({ ...facts, openDeadLetters: 1 }, 900)).toEqual({ status: 'dead letters', summary: '1 record waiting as dead letters: crm-sync errors acme' });
    expect(judgeHealth({ ...facts, lastRun: null, lagSeconds: null }, 900).status).toBe('never run');
    expect(judgeHealth(facts, 900)).toEqual({ status: 'healthy', summary: 'Syncing' });
    expect(judgeHealth({ ...facts, paused: null }, 900).status).toBe('healthy'); // Temporal not asked: not a verdict
  });

  it('reads intervals and writes durations as people do', () => {
    expect([intervalSeconds('30s'), intervalSeconds('5m'), intervalSeconds('24h'), intervalSeconds('soon')]).toEqual([30, 300, 86_400, 0]);
    expect([formatSeconds(42), formatSeconds(600), formatSeconds(3 * 3600), formatSeconds(3 * 86_400)]).toEqual(['42 s', '10 min', '3.0 h', '3.0 days']);
  });
});

describe('progressView', () => {
  const zero = { records: 0, created: 0, updated: 0, unchanged: 0, failed: 0, writeBacks: 0, pages: 0 };
  const progress = (offerRecords: number, expected?: number): SyncProgress => ({
    kind: 'backfill',
    connectionId: 'c1',
    entity: 'offer',
    planned: ['buyer', 'contact', 'offer', 'entitlement', 'referral'],
    entities: { buyer: { ...zero, records: 100, created: 100, done: true }, offer: { ...zero, records: offerRecords, created: offerRecords, done: false, ...(expected !== undefined && { expected }) } },
    totals: { ...zero, records: 100 + offerRecords, created: 100 + offerRecords, failed: 2 },
    finished: false,
  } as SyncProgress);

  it('counts the entity against the service’s count, and the rate and ETA since the watch began', () => {
    const first = { at: 0, records: 200 }; // 100 buyers + 100 offers when the watch began
    const view = progressView(progress(500, 2500), 10_000, first);
    expect(view).toMatchObject({ entity: 'offer', index: 3, of: 5, entityRecords: 500, entityExpected: 2500, records: 600, written: 600, failed: 2 });
    expect(view.perSecond).toBe(40); // 400 records in 10 s
    expect(view.etaSeconds).toBe(50); // 2,000 left at 40 a second
  });

  it('has no rate before a second has passed or a record has moved, and no ETA without a count', () => {
    expect(progressView(progress(100, 2500), 500, { at: 0, records: 200 }).perSecond).toBeNull();
    expect(progressView(progress(100, 2500), 5_000, { at: 0, records: 200 }).perSecond).toBeNull();
    const uncounted = progressView(progress(300), 10_000, { at: 0, records: 200 });
    expect(uncounted.entityExpected).toBeNull();
    expect(uncounted.perSecond).toBe(20);
    expect(uncounted.etaSeconds).toBeNull();
  });
});
