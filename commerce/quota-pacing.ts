// Where the transport meets the quota pacer (commerce/http.ts calls `paced` for every attempt). One pacer
// per organization of one API host, shared by every client of that organization in this process (all
// connections on the same commerce organization draw on one quota). The snapshot read itself is not
// paced (A20: it is never counted). A 429 naming a quota is not a failure of the call: the pacer holds the
// organization for its Retry-After and the call is sent again, so no record is failed for it.
import { CommerceApiError } from './errors.ts';
import { OrgQuotaPacer, type QuotaPacerOptions, type QuotaView } from './quota-pacer.ts';
import { parseServicesAndQuotas, refusedQuota, SERVICES_AND_QUOTAS, type ServicesAndQuotas } from './quota-snapshot.ts';

export type QuotaPacing = false | Omit<QuotaPacerOptions, 'clock'>;

/** A refused call is sent again at most this many times in one attempt (each after its Retry-After). */
const MAX_REFUSALS_PER_CALL = 20;

const pacers = new Map<string, OrgQuotaPacer>();
const keyOf = (baseUrl: string, orgId: string) => `${baseUrl.replace(/\/+$/, '')} ${orgId}`;

/** This process's pacer of one organization (made on first use). */
export function quotaPacerFor(baseUrl: string, orgId: string, options: QuotaPacerOptions = {}): OrgQuotaPacer {
  const key = keyOf(baseUrl, orgId);
  return pacers.get(key) ?? pacers.set(key, new OrgQuotaPacer(orgId, options)).get(key)!;
}

/** What this process knows of an organization's quotas, or undefined when it has not called it. */
export function quotaView(baseUrl: string, orgId: string): QuotaView | undefined {
  return pacers.get(keyOf(baseUrl, orgId))?.view();
}

type Spec = { operation: string; method: string; path: string; query?: Record<string, string | number | boolean | undefined> };

const ORG_PATH = /^\/?org\/([^/]+)\//;

/**
 * Wraps one attempt of a request: waits for room in the organization's quotas, sends, and waits out a
 * quota refusal. `request` (with its retries) reads the snapshot.
 */
export function createQuotaPacing<S extends Spec>(options: { baseUrl: string; pacing?: QuotaPacing }, attempt: (spec: S) => Promise<unknown>, request: (spec: Spec & { policy: { kind: 'idempotent' } }) => Promise<unknown>) {
  const pacing = options.pacing;
  return async function paced(spec: S): Promise<unknown> {
    const orgId = ORG_PATH.exec(spec.path)?.[1];
    if (pacing === false || orgId === undefined || spec.operation === SERVICES_AND_QUOTAS) return attempt(spec);
    const pacer = quotaPacerFor(options.baseUrl, decodeURIComponent(orgId), pacing);
    const read = async (): Promise<ServicesAndQuotas> =>
      parseServicesAndQuotas(await request({ operation: SERVICES_AND_QUOTAS, method: 'GET', path: `/org/${orgId}/services-and-quotas`, policy: { kind: 'idempotent' } }));
    for (let refusals = 0; ; refusals++) {
      const done = await pacer.admit(read, spec.operation);
      try {
        return await attempt(spec);
      } catch (error) {
        const quota = error instanceof CommerceApiError && error.status === 429 ? refusedQuota(error.body) : undefined;
        if (quota === undefined || refusals >= MAX_REFUSALS_PER_CALL) throw error;
        pacer.refused(quota, (error as CommerceApiError).retryAfterMs);
      } finally {
        done();
      }
    }
  };
}
