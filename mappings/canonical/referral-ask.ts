// The referral a shared CRM opportunity (deal) asks for, CRM-neutral (issue #25 section 1, the CRM-to-commerce
// direction): each CRM side reads its record into these neutral values (which of its fields holds the name,
// the amount, the partner, its buyer through its own relations) and this makes the request, or the refusal
// a salesperson acts on, once for Salesforce, HubSpot and Dynamics (docs/commerce-api-assumptions.md A6, A13).
import type { OpportunityIdField } from '../../commerce/crm-ids.ts';
import type { Ask } from '../../flows/crm-to-commerce.ts';
import { crmText, currencyProblem, dateOnly, marketplacePartnerByName, nonNegativeAmount, opportunityCurrency } from '../cosell-values.ts';

/** What the referral create takes, with the CRM id under the asking CRM's field (crmAOpportunityId, crmBDealId, crmCOpportunityId). */
export type ReferralRequest<IdField extends OpportunityIdField> = {
  name: string;
  partner: string;
  buyerID: string;
  dealValue?: number;
  currency: string;
  expectedCloseDate?: string;
  description?: string;
  /** Present when the referral goes to the partner now (the connection's submit rule, A13). */
  status?: 'SUBMITTED';
} & { [K in IdField]: string };

/** The neutral values a CRM side reads off its record (values as the CRM sends them; this reads them). */
export type ReferralAskValues = {
  /** Whether the connection's share rule shares the record, and whether its submit rule sends it now. */
  shared: boolean;
  submitsNow: boolean;
  /** The record's id as the commerce side keeps it (Dynamics: the lowercase GUID). */
  crmId: string;
  name: unknown;
  /** The marketplace as the salesperson named it ("Marketplace A"). */
  partnerName: unknown;
  /** The marketplace buyer of the record's account (company), when it has one. */
  buyerId: unknown;
  amount: unknown;
  closeDate: unknown;
  description: unknown;
  /** The record's own currency (an ISO code), where the CRM has one (docs/crm-wire-behaviour.md). */
  currency: unknown;
  /** The org's default currency (the connector's defaultCurrency), for a record that names none of its own; USD when absent. */
  defaultCurrency?: string;
};

/** How a CRM tells its person to fix a refusal: where the partner is chosen, and what a missing buyer means there. */
export type ReferralAskWords = { partnerFix: string; noBuyer: string };

/** The refusal's words for a partner that is no marketplace (the fix is the CRM's: a picklist is chosen, a text entered). */
export function notAMarketplace(partnerName: string, fix: string): string {
  return `partner: "${partnerName || '(empty)'}" is not a marketplace; ${fix}`;
}

/** A shared record asks for a referral with its partner; one whose partner or buyer is unknown is refused. */
export function referralAsk<IdField extends OpportunityIdField>(idField: IdField, values: ReferralAskValues, words: ReferralAskWords): Ask<ReferralRequest<IdField>> {
  if (!values.shared) return { asks: false };
  const partnerName = crmText(values.partnerName);
  const partner = marketplacePartnerByName(partnerName);
  const buyerID = crmText(values.buyerId);
  const currency = currencyProblem(values.currency, values.defaultCurrency);
  const problems = [...(partner ? [] : [notAMarketplace(partnerName, words.partnerFix)]), ...(buyerID ? [] : [words.noBuyer]), ...(currency ? [currency] : [])];
  if (!partner || !buyerID || currency) return { asks: true, refused: problems.join('\n') };
  const dealValue = nonNegativeAmount(values.amount);
  const expectedCloseDate = dateOnly(values.closeDate);
  const request = {
    name: crmText(values.name) || values.crmId,
    partner,
    buyerID,
    ...(dealValue !== undefined && { dealValue }),
    currency: opportunityCurrency(values.currency, values.defaultCurrency),
    ...(expectedCloseDate && { expectedCloseDate }),
    ...(typeof values.description === 'string' && values.description && { description: values.description }),
    [idField]: values.crmId,
    ...(values.submitsNow && { status: 'SUBMITTED' as const }),
  };
  return { asks: true, request: request as ReferralRequest<IdField> };
}
