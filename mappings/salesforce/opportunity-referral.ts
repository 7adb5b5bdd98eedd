// Opportunity -> co-sell referral (CRM to commerce). Pure: whether an Opportunity is shared (the
// connection's share rule), the referral it asks for, and what goes back onto the Opportunity.
import type { Referral } from '../../commerce/models.ts';
import type { CrmRecord } from '../../crm/connector.ts';
import { referralShown } from '../../sync/referral-lifecycle.ts';
import type { CrmSide } from '../../flows/crm-to-commerce.ts';
import type { ShareRule } from '../../sync/connection-settings.ts';
import { dateOnly, fieldsReadByShareRule, fieldsReadBySubmitRule, isSharedUnder, marketplacePartnerByName, nonNegativeAmount, submitsNow } from '../cosell-values.ts';

/** Fields the flow reads from each Opportunity (beside those the share rule names). */
export const OPPORTUNITY_FIELDS = ['Name', 'AccountId', 'Account.Commerce_Buyer_Id__c', 'Amount', 'CloseDate', 'Description', 'StageName', 'Cosell_Partner__c', 'Commerce_Referral_Id__c', 'Cosell_Status__c', 'Cosell_Stage__c', 'Cosell_Errors__c'];

/** What the referral create takes (docs/commerce-api-assumptions.md A6). */
export type ReferralRequest = {
  name: string;
  partner: string;
  buyerID: string;
  dealValue?: number;
  currency: string;
  expectedCloseDate?: string;
  description?: string;
  crmAOpportunityId: string;
  /** Present when the referral goes to the partner now (the connection's submit rule, A13). */
  status?: 'SUBMITTED';
};

export type ShareDecision = { shared: false } | { shared: true; request: ReferralRequest } | { shared: true; refused: string };

/** Whether the connection's share rule shares this Opportunity (a stage rule reads StageName). */
export function isShared(opportunity: CrmRecord, rule: ShareRule): boolean {
  return isSharedUnder(opportunity, rule, 'StageName');
}

/** The fields a share rule reads. */
export function shareRuleFields(rule: ShareRule): string[] {
  return fieldsReadByShareRule(rule, 'StageName');
}

/**
 * A shared Opportunity asks for a referral with its partner; one whose partner or buyer is unknown is
 * refused with words a salesperson can act on (they are written onto the Opportunity).
 */
export function opportunityToReferral(opportunity: CrmRecord, rule: ShareRule, currency = 'USD', submitRule?: ShareRule): ShareDecision {
  if (!isShared(opportunity, rule)) return { shared: false };
  const problems: string[] = [];
  const partnerName = String(opportunity.Cosell_Partner__c ?? '').trim();
  const partner = marketplacePartnerByName(partnerName);
  if (!partner) problems.push(`partner: "${partnerName || '(empty)'}" is not a marketplace; choose Marketplace A to Marketplace F in Co-sell Partner`);
  const buyerID = String((opportunity.Account as CrmRecord | null | undefined)?.Commerce_Buyer_Id__c ?? '').trim();
  if (!buyerID) problems.push('buyerID: the account is not linked to a marketplace buyer; choose an account synced from the marketplace (it has a Commerce Buyer Id), then save the opportunity again');
  if (problems.length > 0) return { shared: true, refused: problems.join('\n') };
  const dealValue = nonNegativeAmount(opportunity.Amount);
  const expectedCloseDate = dateOnly(opportunity.CloseDate);
  return {
    shared: true,
    request: {
      name: String(opportunity.Name ?? opportunity.Id),
      partner: partner!,
      buyerID,
      ...(dealValue !== undefined && { dealValue }),
      currency: String(opportunity.CurrencyIsoCode || currency),
      ...(expectedCloseDate && { expectedCloseDate }),
      ...(typeof opportunity.Description === 'string' && opportunity.Description && { description: opportunity.Description }),
      crmAOpportunityId: String(opportunity.Id),
      ...(submitsNow(opportunity, submitRule, 'StageName') && { status: 'SUBMITTED' as const }),
    },
  };
}

/** What goes back onto the Opportunity once its referral exists. */
export function sharedFields(referral: { id: string; status?: string; stage?: string }): CrmRecord {
  // A referral the partner rejected shows why (sync/referral-lifecycle.ts), whichever pass writes it.
  return { Commerce_Referral_Id__c: referral.id, Cosell_Status__c: referral.status ?? null, Cosell_Stage__c: referral.stage ?? null, Cosell_Errors__c: referralShown(referral as Referral).rejection?.slice(0, 32_000) ?? null };
}

/** What goes back onto an Opportunity whose referral was refused: the reasons, in the partner's words. */
export function refusedFields(message: string): CrmRecord {
  return { Cosell_Status__c: 'Not shared', Cosell_Errors__c: message.slice(0, 32_000) };
}

/** The Salesforce side of the opportunity-referral flow. */
export const opportunityReferralSide: CrmSide<ReferralRequest> = {
  object: 'Opportunity',
  fields: (settings) => [...new Set([...OPPORTUNITY_FIELDS, ...shareRuleFields(settings.cosell.share), ...fieldsReadBySubmitRule(settings.cosell.submit, 'StageName')])],
  optionalFields: ['CurrencyIsoCode'],
  ask(record, settings) {
    const decision = opportunityToReferral(record, settings.cosell.share, undefined, settings.cosell.submit);
    if (!decision.shared) return { asks: false };
    return 'refused' in decision ? { asks: true, refused: decision.refused } : { asks: true, request: decision.request };
  },
  madeField: 'Commerce_Referral_Id__c',
  made: (referral) => sharedFields(referral),
  refused: (message) => refusedFields(message),
  refusedAfterMade: (message) => ({ Cosell_Errors__c: message.slice(0, 32_000) }),
};
