// The commerce organization's quotas per connection, as this worker's pacer last saw them (the server's
// `used` at its last snapshot read plus the calls this worker sent since; commerce/quota-pacer.ts): the
// commerce side's budget beside the CRM's. A connection whose organization this process has not called
// yet has no series. Connections sharing an organization show the same figures (they share its quota).
import type pg from 'pg';
import client from 'prom-client';
import { quotaView, type QuotaView } from '../commerce/index.ts';

type CommerceSettings = { baseUrl?: unknown; organizationId?: unknown };

export function registerCommerceQuotaGauges(registry: client.Registry, prefix: string, pool: pg.Pool, views: (baseUrl: string, orgId: string) => QuotaView | undefined = quotaView): void {
  /** Each connection's quotas, read once per scrape for both gauges. */
  let pending: Promise<{ connection: string; quota: string; used: number; limit: number }[]> | undefined;
  const read = () =>
    (pending ??= (async () => {
      try {
        const { rows } = await pool.query<{ id: string; commerce: CommerceSettings | null }>(`SELECT id, settings->'commerce' AS commerce FROM connections`);
        return rows.flatMap((row) => {
          const { baseUrl, organizationId } = row.commerce ?? {};
          if (typeof baseUrl !== 'string' || typeof organizationId !== 'string') return [];
          return (views(baseUrl, organizationId)?.quotas ?? []).map((quota) => ({ connection: row.id, quota: quota.name, used: quota.used, limit: quota.limit }));
        });
      } finally {
        setImmediate(() => (pending = undefined));
      }
    })());
  new client.Gauge({
    name: `${prefix}commerce_quota_used`,
    help: "Calls counted against each quota of the connection's commerce organization in its current window (the service's figure at the last snapshot read plus this worker's calls since)",
    labelNames: ['connection', 'quota'] as const,
    registers: [registry],
    async collect() {
      const quotas = await read();
      this.reset();
      for (const quota of quotas) this.set({ connection: quota.connection, quota: quota.quota }, quota.used);
    },
  });
  new client.Gauge({
    name: `${prefix}commerce_quota_limit`,
    help: "The limit of each quota of the connection's commerce organization per window (GET {O}/services-and-quotas)",
    labelNames: ['connection', 'quota'] as const,
    registers: [registry],
    async collect() {
      const quotas = await read();
      this.reset();
      for (const quota of quotas) this.set({ connection: quota.connection, quota: quota.quota }, quota.limit);
    },
  });
}
