// The commerce organization's quotas as the service reports them now (GET {O}/services-and-quotas, A20),
// for `crm-sync connections` and the console: one read per organization however many connections share
// it, no retries and a short timeout (a page or a command must not hang on it), never counted against the
// quota. Unreachable or refused: null, and the rest of the health still answers.
import { z } from 'zod';
import { createCommerceClient } from '../commerce/index.ts';
import type { Connection, ConnectionStore } from '../store/connections.ts';
import { connectionSecretsSchema } from '../sync/connection-settings.ts';

/** One quota of the organization: `share` is used / limit (1 when the limit is 0). */
export type CommerceQuotaFigure = { name: string; used: number; limit: number; share: number; period: string; resetsAt: Date | null };

/** What the read needs of a connection's commerce settings (the full settings schema checks them when saved). */
const commerceSettings = z.object({ baseUrl: z.string().min(1), authUrl: z.string().min(1), clientId: z.string().min(1), organizationId: z.string().min(1) });

export type CommerceQuotaReader = (connection: Connection) => Promise<CommerceQuotaFigure[] | null>;

export function liveCommerceQuotas(connections: Pick<ConnectionStore, 'getWithSecrets'>, options: { timeoutMs?: number } = {}): CommerceQuotaReader {
  const byOrganization = new Map<string, Promise<CommerceQuotaFigure[] | null>>();
  return (connection) => {
    const parsed = commerceSettings.safeParse((connection.settings as { commerce?: unknown }).commerce);
    if (!parsed.success) return Promise.resolve(null);
    const commerce = parsed.data;
    const key = `${commerce.baseUrl} ${commerce.organizationId}`;
    const known = byOrganization.get(key);
    if (known) return known;
    const reading = (async () => {
      try {
        const stored = await connections.getWithSecrets(connection.id);
        const secrets = connectionSecretsSchema.parse(stored?.secrets);
        const client = createCommerceClient({
          baseUrl: commerce.baseUrl,
          authUrl: commerce.authUrl,
          clientId: commerce.clientId,
          clientSecret: secrets.commerceClientSecret,
          retries: 0,
          timeoutMs: options.timeoutMs ?? 5_000,
          quotaPacing: false,
        });
        return (await client.servicesAndQuotas(commerce.organizationId)).quotas.map(figure);
      } catch {
        return null;
      }
    })();
    byOrganization.set(key, reading);
    return reading;
  };
}

export function figure(quota: { name: string; used: number; limit: number; period: string; resetsAt?: Date }): CommerceQuotaFigure {
  return { name: quota.name, used: quota.used, limit: quota.limit, share: quota.limit > 0 ? quota.used / quota.limit : 1, period: quota.period, resetsAt: quota.resetsAt ?? null };
}

/** "12% of 600/minute" for the quota nearest its limit, as the CRM's budget reads "12% of 100000"; '-' when unknown. */
export function commerceQuotaText(quotas: readonly CommerceQuotaFigure[] | null | undefined): string {
  if (!quotas || quotas.length === 0) return '-';
  const tightest = quotas.reduce((a, b) => (b.share > a.share ? b : a));
  return `${Math.round(tightest.share * 100)}% of ${tightest.limit}/${tightest.period.toLowerCase()}`;
}
