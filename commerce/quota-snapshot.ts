// The organization's services and quotas snapshot (GET {O}/services-and-quotas; shape assumed in A20),
// read leniently (§9.5): unknown fields are ignored, a quota without a name or a numeric limit is left
// out, and a body without quotas means there is nothing to pace by.

export const SERVICES_AND_QUOTAS = 'GET /org/{orgId}/services-and-quotas';

/** MINUTE, HOUR and DAY are the periods known today; a new one is kept as sent (§9.5) and paced by resetsAt alone. */
export type QuotaPeriod = 'MINUTE' | 'HOUR' | 'DAY' | (string & {});

export type Quota = { name: string; limit: number; used: number; period: QuotaPeriod; resetsAt?: Date };
export type ServicesAndQuotas = { services: { name: string; enabled: boolean }[]; quotas: Quota[] };

export const PERIOD_MS: Record<string, number> = { MINUTE: 60_000, HOUR: 3_600_000, DAY: 86_400_000 };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function parseServicesAndQuotas(body: unknown): ServicesAndQuotas {
  const fields = isObject(body) ? body : {};
  const services = (Array.isArray(fields.services) ? fields.services : [])
    .filter(isObject)
    .filter((service) => typeof service.name === 'string')
    .map((service) => ({ name: service.name as string, enabled: service.enabled !== false }));
  const quotas: Quota[] = [];
  for (const row of Array.isArray(fields.quotas) ? fields.quotas : []) {
    if (!isObject(row) || typeof row.name !== 'string' || typeof row.limit !== 'number' || !Number.isFinite(row.limit) || row.limit < 0) continue;
    const resetsAt = typeof row.resetsAt === 'string' ? new Date(row.resetsAt) : undefined;
    quotas.push({
      name: row.name,
      limit: row.limit,
      used: typeof row.used === 'number' && Number.isFinite(row.used) ? Math.max(0, row.used) : 0,
      period: typeof row.period === 'string' ? row.period.toUpperCase() : 'UNKNOWN',
      resetsAt: resetsAt && !Number.isNaN(resetsAt.getTime()) ? resetsAt : undefined,
    });
  }
  return { services, quotas };
}

/** The quota a 429 names (A20: `quota` in the body), or undefined for any other 429 (a plain rate limit). */
export function refusedQuota(body: unknown): string | undefined {
  return isObject(body) && body.code === 'RESOURCE_EXHAUSTED' && typeof body.quota === 'string' ? body.quota : undefined;
}
