// The commerce client bounds its sockets: 50 concurrent calls against the commerce sandbox never hold
// more than 16 connections open at once. Connections are counted on the server side, as the sandbox's
// API server accepts them (Node's built-in 'net.server.socket' diagnostics channel).
import diagnosticsChannel from 'node:diagnostics_channel';
import net, { type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommerceNetworkError, createCommerceClient } from '../../commerce/index.ts';
import { createHttp } from '../../commerce/http.ts';
import { TokenProvider } from '../../commerce/auth.ts';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';

/** Counts the connections the server on `port` accepts: in all, and the most open at one moment. */
function countConnections(port: number) {
  const counts = { accepted: 0, open: 0, peakOpen: 0 };
  const onSocket = (message: unknown) => {
    const socket = (message as { socket: Socket }).socket;
    if (socket.localPort !== port) return;
    counts.accepted += 1;
    counts.open += 1;
    counts.peakOpen = Math.max(counts.peakOpen, counts.open);
    socket.once('close', () => (counts.open -= 1));
  };
  diagnosticsChannel.subscribe('net.server.socket', onSocket);
  return { counts, stop: () => diagnosticsChannel.unsubscribe('net.server.socket', onSocket) };
}

describe('commerce client sockets (against the commerce sandbox)', () => {
  let sandbox: CommerceSandbox;
  let apiPort: number;

  beforeAll(async () => {
    sandbox = await startCommerceSandbox({ entitlements: 60 });
    apiPort = Number(new URL(sandbox.apiUrl).port);
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  const credentials = () => ({ baseUrl: sandbox.apiUrl, authUrl: sandbox.authUrl, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret });

  /** 50 reads at once (entitlements one by one), answered correctly; what the server saw. */
  async function fiftyConcurrentReads(client: ReturnType<typeof createCommerceClient>) {
    const ids: string[] = [];
    for await (const page of client.entitlements.list(sandbox.organizationId, { limit: 50 })) {
      ids.push(...page.records.map((record) => record.id));
      if (ids.length >= 50) break;
    }
    expect(ids).toHaveLength(50);
    await client.tokens.token(); // the token first, so only the reads count
    const counter = countConnections(apiPort);
    try {
      const records = await Promise.all(ids.slice(0, 50).map((id) => client.entitlements.get(sandbox.organizationId, id)));
      expect(records.map((record) => record.id)).toEqual(ids.slice(0, 50));
      return { ...counter.counts };
    } finally {
      counter.stop();
    }
  }

  it('the measure can fail: with the global fetch, 50 concurrent calls open far more than 16 sockets', async () => {
    const seen = await fiftyConcurrentReads(createCommerceClient({ ...credentials(), fetch: globalThis.fetch }));
    expect(seen.peakOpen).toBeGreaterThan(16);
  });

  it('by default a client opens at most 16 sockets to the API, and reuses them', async () => {
    const seen = await fiftyConcurrentReads(createCommerceClient(credentials()));
    expect(seen.peakOpen).toBeGreaterThan(1);
    expect(seen.peakOpen).toBeLessThanOrEqual(16);
    expect(seen.accepted).toBeLessThanOrEqual(16);
  });

  it('maxConnectionsPerOrigin sets the bound (4 here), and the per-request timeout still applies', async () => {
    const tokens = new TokenProvider(credentials());
    const http = createHttp({ baseUrl: sandbox.apiUrl, tokens, maxConnectionsPerOrigin: 4 });
    await tokens.token();
    const counter = countConnections(apiPort);
    try {
      const get = () => http.request({ operation: 'GET /org', method: 'GET', path: '/org', policy: { kind: 'idempotent' } });
      const answers = await Promise.all(Array.from({ length: 50 }, get));
      expect(answers.every((answer) => Array.isArray(answer) && answer.length > 0)).toBe(true);
      expect(counter.counts.peakOpen).toBeLessThanOrEqual(4);
      expect(counter.counts.accepted).toBeLessThanOrEqual(4);
    } finally {
      counter.stop();
    }
    // A call whose answer never comes is cut off by its timeout, as before.
    const held: Socket[] = [];
    const silent = net.createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const slow = createHttp({ baseUrl: `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`, tokens, timeoutMs: 300, retries: 0, maxConnectionsPerOrigin: 1 });
      const startedAt = Date.now();
      await expect(slow.request({ operation: 'GET /org', method: 'GET', path: '/org', policy: { kind: 'idempotent' } })).rejects.toBeInstanceOf(CommerceNetworkError);
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(290);
      expect(Date.now() - startedAt).toBeLessThan(5_000);
    } finally {
      for (const socket of held) socket.destroy();
      silent.close();
    }
  });
});
