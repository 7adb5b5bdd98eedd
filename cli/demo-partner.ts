// The cloud partner's side of co-sell in the demo: every few seconds one partner move on the commerce
// sandbox (an ACCEPTED referral moves a stage on, or the partner sends an inbound referral). The commerce
// sandbox makes these moves only when asked for them by name (its timer's mix leaves them out, and tests
// pin that mix), so the demo asks through its control, POST /_sandbox/changes {kinds}.
// The partner works while the seller does: a tick moves only while the Salesforce sandbox's change driver
// runs, so `POST <salesforce controlUrl>/changes/rate {"changesPerSecond": 0}` quiets both sides of co-sell.
import type { Logger } from '../config/logger.ts';

export const PARTNER_KINDS = ['partnerStageMove', 'inboundReferral'] as const;

export type DemoPartnerOptions = {
  commerceControlUrl: string;
  salesforceControlUrl: string;
  everySeconds: number;
  logger: Logger;
};

/** Starts the partner's moves; the returned function stops them. */
export function startDemoPartner(options: DemoPartnerOptions): () => void {
  let busy = false;
  let lastProblem: string | undefined;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      const seller = (await getJson(`${options.salesforceControlUrl}/changes/rate`)) as { running?: boolean };
      if (!seller.running) return;
      const { changes } = (await postJson(`${options.commerceControlUrl}/changes`, { count: 1, kinds: PARTNER_KINDS })) as { changes: { entityType: string; id: string; summary: string }[] };
      for (const change of changes) options.logger.debug({ referral: change.id, summary: change.summary }, 'Demo partner moved');
      lastProblem = undefined;
    } catch (error) {
      // Said once per new problem (a sandbox stopping at shutdown is not worth a line a tick).
      const problem = (error as Error).message;
      if (problem !== lastProblem) options.logger.warn({ problem }, 'Demo partner could not move');
      lastProblem = problem;
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), options.everySeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${await response.text()}`);
  return response.json();
}

async function postJson(url: string, body: unknown): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`POST ${url} answered ${response.status}: ${await response.text()}`);
  return response.json();
}
