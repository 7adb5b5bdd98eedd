// Opportunity -> co-sell referral (CRM to commerce). Pure: whether an Opportunity is shared (the
// connection's share rule), the referral it asks for (mappings/canonical/referral-ask.ts), and what goes
// back onto the Opportunity (mappings/canonical/referral-write-back.ts).
import type { CrmConnector, CrmRecord } from '../../crm/connector.ts';
import type { Ask, CrmSide } from '../../flows/crm-to-commerce.ts';
import type { ShareRule } from '../../sync/connection-settings.ts';
import { referralAsk, type ReferralAskWords, type ReferralRequest as CanonicalReferralRequest } from '../canonical/referral-ask.ts';
import { referralWriteBack } from '../canonical/referral-write-back.ts';
import { fieldsReadByShareRule, fieldsReadBySubmitRule, isSharedUnder, orgDefaultCurrency, shareSignals } from '../cosell-values.ts';

/** Fields the flow reads from each Opportunity (beside those the share rule names). */
export const OPPORTUNITY_FIELDS = ['Name', 'AccountId', 'Account.Commerce_Buyer_Id__c', 'Amount', 'CloseDate', 'Description', 'StageName', 'Cosell_Partner__c', 'Commerce_Referral_Id__c', 'Cosell_Status__c', 'Cosell_Stage__c', 'Cosell_Errors__c'];

/** What the referral create takes (docs/commerce-api-assumptions.md A6), naming the Opportunity by crmAOpportunityId. */
export type ReferralRequest = CanonicalReferralRequest<'crmAOpportunityId'>;

export type ShareDecision = { shared: false } | { shared: true; request: ReferralRequest } | { shared: true; refused: string };

/** An Opportunity whose Account has no marketplace buyer, in words for the person who fixes it (the draft's too). */
export const NOT_LINKED = 'buyerID: the account is not linked to a marketplace buyer; choose an account synced from the marketplace (it has a Commerce Buyer Id), then save the opportunity again';
const WORDS: ReferralAskWords = { partnerFix: 'choose Marketplace A to Marketplace F in Co-sell Partner', noBuyer: NOT_LINKED };

/** Whether the connection's share rule shares this Opportunity (a stage rule reads StageName). */
export function isShared(opportunity: CrmRecord, rule: ShareRule): boolean {
  return isSharedUnder(opportunity, rule, 'StageName');
}

/** The fields a share rule reads. */
export function shareRuleFields(rule: ShareRule): string[] {
  return fieldsReadByShareRule(rule, 'StageName');
}

/**
 * A shared Opportunity asks for a referral with its partner (mappings/canonical/referral-ask.ts): its
 * fields as the neutral values. Its amount is in its CurrencyIsoCode where the org is multi-currency,
 * else in the org's default currency (`defaultCurrency`; USD when not given).
 */
function askOf(opportunity: CrmRecord, cosell: { share: ShareRule; submit?: ShareRule }, defaultCurrency?: string): Ask<ReferralRequest> {
  return referralAsk('crmAOpportunityId', {
    ...shareSignals(opportunity, cosell, 'StageName'),
    crmId: String(opportunity.Id),
    name: opportunity.Name,
    partnerName: opportunity.Cosell_Partner__c,
    buyerId: (opportunity.Account as CrmRecord | null | undefined)?.Commerce_Buyer_Id__c,
    amount: opportunity.Amount,
    closeDate: opportunity.CloseDate,
    description: opportunity.Description,
    currency: opportunity.CurrencyIsoCode,
    defaultCurrency,
  }, WORDS);
}

/** The ask as a share decision: not shared, the request, or the refusal written onto the Opportunity. */
export function opportunityToReferral(opportunity: CrmRecord, rule: ShareRule, submitRule?: ShareRule, defaultCurrency?: string): ShareDecision {
  const ask = askOf(opportunity, { share: rule, submit: submitRule }, defaultCurrency);
  if (!ask.asks) return { shared: false };
  return 'refused' in ask ? { shared: true, refused: ask.refused } : { shared: true, request: ask.request };
}

/** The org's default currency for each Opportunity of a page (none read when every one has a CurrencyIsoCode). */
export async function defaultCurrencyByRecord(crm: CrmConnector, records: CrmRecord[]): Promise<Map<string, string | undefined>> {
  const currency = await orgDefaultCurrency(crm, records, (record) => record.CurrencyIsoCode);
  return new Map(records.map((record) => [String(record.Id), currency]));
}

/** The Salesforce side of the opportunity-referral flow. */
export const opportunityReferralSide: CrmSide<ReferralRequest> = {
  object: 'Opportunity',
  fields: (settings) => [...new Set([...OPPORTUNITY_FIELDS, ...shareRuleFields(settings.cosell.share), ...fieldsReadBySubmitRule(settings.cosell.submit, 'StageName')])],
  optionalFields: ['CurrencyIsoCode', 'Cosell_Review_Ends__c'],
  // The org's default currency reaches `ask` through `related`, the hook the flow already calls once a
  // page with the connector: the connector reads it once for its life (a single-currency org keeps every
  // amount in it), so no caller of `ask` changes. Records of a multi-currency org all carry their own.
  related: (crm, records) => defaultCurrencyByRecord(crm, records),
  ask: (record, settings, defaultCurrency) => askOf(record, settings.cosell, defaultCurrency as string | undefined),
  madeField: 'Commerce_Referral_Id__c',
  // The referral, or the reasons (Cosell_Errors__c, a Long Text Area of 32,000 characters).
  ...referralWriteBack({ id: 'Commerce_Referral_Id__c', status: 'Cosell_Status__c', stage: 'Cosell_Stage__c', errors: 'Cosell_Errors__c', reviewEnds: 'Cosell_Review_Ends__c' }, 32_000),
};
