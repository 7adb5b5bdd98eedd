// The admin server's token and what /metrics appends: a token generated once into the data directory
// (owner-only, reused on restart) unless the environment gives one; the Temporal SDK runtime's own
// metrics served with the sync's, and a scrape that still answers when they cannot be read.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startAdminServer } from '../../admin/server.ts';
import { resolveAdminToken, tokenMatches } from '../../admin/token.ts';
import { createSyncMetrics } from '../../metrics/sync-metrics.ts';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'admin-token-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the admin token', () => {
  it('is generated once into the data directory, readable by its owner only, and reused', () => {
    const first = resolveAdminToken({ dataDir });
    expect(first.source).toBe('file');
    expect(first.value.length).toBeGreaterThanOrEqual(32);
    expect(statSync(first.file!).mode & 0o777).toBe(0o600);
    expect(resolveAdminToken({ dataDir }).value).toBe(first.value);
  });

  it('comes from the environment when given there', () => {
    expect(resolveAdminToken({ dataDir, fromEnvironment: 'from-the-environment-0123456789abcdef' })).toEqual({ value: 'from-the-environment-0123456789abcdef', source: 'environment' });
  });

  it('matches only itself', () => {
    expect(tokenMatches('secret-token', 'secret-token')).toBe(true);
    expect(tokenMatches('secret-token', 'secret-tokeN')).toBe(false);
    expect(tokenMatches('secret-token', 'secret')).toBe(false);
    expect(tokenMatches('secret-token', undefined)).toBe(false);
  });
});

describe('/metrics with the Temporal SDK metrics', () => {
  it("appends the SDK runtime's metrics to the sync's, and still answers when they cannot be read", async () => {
    const sdk = http.createServer((_, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('temporal_worker_task_slots_available{worker_type="ActivityWorker"} 8\n'));
    await new Promise<void>((resolve) => sdk.listen(0, '127.0.0.1', () => resolve()));
    const sdkUrl = `http://127.0.0.1:${(sdk.address() as { port: number }).port}/metrics`;
    const metrics = createSyncMetrics();
    metrics.pageSynced({ connectionId: 'c1', entity: 'offer', read: 3, created: 2, updated: 1, unchanged: 0, failed: 0 });
    const withSdk = await startAdminServer({ host: '127.0.0.1', port: 0, token: 'token-token-token', metrics, temporalMetricsUrl: sdkUrl });
    const text = await (await fetch(`${withSdk.url}/metrics`, { headers: { authorization: 'Bearer token-token-token' } })).text();
    expect(text).toContain('crm_sync_records_total{connection="c1",entity="offer",outcome="created"} 2');
    expect(text).toContain('temporal_worker_task_slots_available{worker_type="ActivityWorker"} 8');
    await withSdk.stop();
    await new Promise<void>((resolve) => sdk.close(() => resolve()));

    const sdkGone = await startAdminServer({ host: '127.0.0.1', port: 0, token: 'token-token-token', metrics, temporalMetricsUrl: sdkUrl });
    const answer = await fetch(`${sdkGone.url}/metrics`, { headers: { authorization: 'Bearer token-token-token' } });
    expect(answer.status).toBe(200);
    const partial = await answer.text();
    expect(partial).toContain('crm_sync_records_total{connection="c1",entity="offer",outcome="read"} 3');
    expect(partial).toMatch(/# Temporal SDK metrics unavailable/);
    await sdkGone.stop();
  });
});
