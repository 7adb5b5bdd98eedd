// When a private offer's step published it (issue #28 section 2), as every CRM shows it on the record:
// the offer's own stamp of the publication, read off what the step made (its audit names the
// publication). Each CRM's offer side writes it into its Approved At field; nothing when no publication.
import type { Made } from '../../flows/crm-to-commerce.ts';
import { extrasOf } from '../../flows/made-extras.ts';

export function offerPublishedAt(made: Made): string | undefined {
  const { audit } = extrasOf(made);
  if (!audit?.some((entry) => entry.action === 'offer-published')) return undefined;
  const stamp = (made as { lastUpdateTime?: unknown }).lastUpdateTime;
  return typeof stamp === 'string' ? stamp : undefined;
}
