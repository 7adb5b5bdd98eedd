// The org's default currency, read once per connector (issue #25 section 5): an opportunity (deal)
// without a currency of its own is in it. An org's default currency does not change while a worker runs
// (Salesforce and Dataverse fix it when the org is made; HubSpot's company currency is an admin's rare
// choice), so the first answer is kept for the connector's life, which ends when the connection is edited.
// A read that fails must never stop a page of co-sell asks: the currency is then USD, as before this
// was read, and a person is told once.
import { activityWarn } from '../activities/activity-context.ts';
import { FALLBACK_CURRENCY } from '../mappings/cosell-values.ts';

/**
 * `read` asks the CRM (undefined: it names none); the function returned asks it at most once and
 * answers its ISO code upper-cased, or USD with one warning (`warn`, by default the activity's log).
 */
export function defaultCurrencyOnce(crmName: string, read: () => Promise<string | undefined>, warn: (message: string) => void = activityWarn): () => Promise<string> {
  let known: Promise<string> | undefined;
  return () =>
    (known ??= read().then(
      (code) => {
        const iso = (code ?? '').trim().toUpperCase();
        if (iso) return iso;
        warn(`${crmName} names no default currency; co-sell asks from opportunities without a currency of their own go in ${FALLBACK_CURRENCY}`);
        return FALLBACK_CURRENCY;
      },
      (error: unknown) => {
        warn(`The ${crmName} default currency could not be read (${error instanceof Error ? error.message : String(error)}); co-sell asks from opportunities without a currency of their own go in ${FALLBACK_CURRENCY} until the worker restarts or the connection is edited`);
        return FALLBACK_CURRENCY;
      },
    ));
}
