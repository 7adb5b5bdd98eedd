// The renewal opportunities (deals) a CRM under test holds, read from its sandbox and normalized so a
// renewal test states its expectations once: the key, the stage by its label, whether it is closed and
// how, the amount, the renewal offer and the entitlements it links (as CRM ids).
import { control as dynamicsControl } from '../../sandbox/dynamics/testing.ts';
import { control as hubspotControl } from '../../sandbox/hubspot/testing.ts';
import type { CrmUnderTest } from './crm-sandbox.ts';
import { salesforceDump } from './salesforce-state.ts';

export type RenewalView = {
  id: string;
  key: string;
  name?: string;
  stage?: string;
  /** Won or Lost once closed, else Open (Salesforce and HubSpot by the stage, Dynamics by its statecode). */
  state: 'Open' | 'Won' | 'Lost';
  accountId?: string;
  amount?: number;
  offerId?: string;
  offerUrl?: string;
  /** The commerce id of the entitlement that renewed it (HubSpot keeps it as text; Salesforce and Dynamics by lookup, here as CRM ids). */
  renewedBy?: string;
  /** CRM id of the entitlement it renews (Salesforce, Dynamics). */
  renews?: string;
};

const SALESFORCE_STATE: Record<string, RenewalView['state']> = { 'Closed Won': 'Won', 'Closed Lost': 'Lost' };
const HUBSPOT_STATE: Record<string, RenewalView['state']> = { Renewed: 'Won', 'Not renewed': 'Lost' };
const DYNAMICS_STATE: Record<number, RenewalView['state']> = { 0: 'Open', 1: 'Won', 2: 'Lost' };

export async function renewalOpportunities(crm: CrmUnderTest): Promise<RenewalView[]> {
  if (crm.kind === 'salesforce') {
    return (await salesforceDump(crm.salesforce!, 'Opportunity'))
      .filter((row) => row.Commerce_Renewal_Key__c)
      .map((row) => ({
        id: row.Id,
        key: row.Commerce_Renewal_Key__c,
        name: row.Name,
        stage: row.StageName,
        state: SALESFORCE_STATE[row.StageName] ?? 'Open',
        accountId: row.AccountId ?? undefined,
        amount: row.Amount ?? undefined,
        offerId: row.Renewal_Offer_Id__c ?? undefined,
        offerUrl: row.Offer_URL__c ?? undefined,
        renews: row.Renewal_Of_Entitlement__c ?? undefined,
        renewedBy: row.Renewal_Entitlement__c ?? undefined,
      }));
  }
  if (crm.kind === 'hubspot') {
    const views = new Map((await crm.opportunities()).map((view) => [view.id, view]));
    const body = await hubspotControl(crm.hubspot!, 'GET', '/records/deals');
    const deals: any[] = Array.isArray(body) ? body : (body.records ?? body.results);
    return deals
      .map((deal) => ({ id: String(deal.id), p: (deal.properties ?? deal) as Record<string, string | undefined> }))
      .filter(({ p }) => p.commerce_renewal_key)
      .map(({ id, p }) => {
        const view = views.get(id);
        return {
          id,
          key: p.commerce_renewal_key!,
          name: p.dealname,
          stage: view?.stage,
          state: HUBSPOT_STATE[view?.stage ?? ''] ?? 'Open',
          accountId: view?.accountId,
          amount: p.amount ? Number(p.amount) : undefined,
          offerId: p.renewal_offer_id || undefined,
          offerUrl: p.offer_url || undefined,
          renewedBy: p.renewal_entitlement_id || undefined,
        };
      });
  }
  const body = await dynamicsControl(crm.dynamics!, 'GET', '/records/opportunities');
  const rows: any[] = Array.isArray(body) ? body : (body.records ?? body.value);
  return rows
    .filter((row) => row.ccs_commercerenewalkey)
    .map((row) => ({
      id: row.opportunityid,
      key: row.ccs_commercerenewalkey,
      name: row.name ?? undefined,
      stage: row.stepname ?? undefined,
      state: DYNAMICS_STATE[Number(row.statecode ?? 0)] ?? 'Open',
      accountId: row._parentaccountid_value ?? undefined,
      amount: row.estimatedvalue ?? undefined,
      offerId: row.ccs_renewalofferid || undefined,
      offerUrl: row.ccs_offerurl || undefined,
      renews: row._ccs_renewalofentitlementid_value ?? undefined,
      renewedBy: row._ccs_renewalentitlementid_value ?? undefined,
    }));
}

/** The live-agreement mark on each account (company) the sync made, by its commerce buyer id. */
export async function liveAgreementMarks(crm: CrmUnderTest): Promise<Map<string, boolean>> {
  if (crm.kind === 'salesforce') {
    return new Map((await salesforceDump(crm.salesforce!, 'Account')).filter((row) => row.Commerce_Buyer_Id__c).map((row) => [row.Commerce_Buyer_Id__c, row.Has_Live_Marketplace_Agreement__c === true]));
  }
  if (crm.kind === 'hubspot') {
    const body = await hubspotControl(crm.hubspot!, 'GET', '/records/companies');
    const companies: any[] = Array.isArray(body) ? body : (body.records ?? body.results);
    return new Map(companies.map((company) => (company.properties ?? company) as Record<string, string | undefined>).filter((p) => p.commerce_buyer_id).map((p) => [p.commerce_buyer_id!, p.has_live_marketplace_agreement === 'true']));
  }
  const body = await dynamicsControl(crm.dynamics!, 'GET', '/records/accounts');
  const rows: any[] = Array.isArray(body) ? body : (body.records ?? body.value);
  return new Map(rows.filter((row) => row.ccs_commercebuyerid).map((row) => [row.ccs_commercebuyerid, row.ccs_haslivemarketplaceagreement === true]));
}

/** The renewal opportunity (deal) an entitlement's CRM record points at (HubSpot: the renewal deal associated to it). */
export async function renewalOfEntitlement(crm: CrmUnderTest, entitlementCrmId: string): Promise<string | undefined> {
  if (crm.kind === 'salesforce') return (await salesforceDump(crm.salesforce!, 'Marketplace_Entitlement__c')).find((row) => row.Id === entitlementCrmId)?.Renewal_Opportunity__c ?? undefined;
  if (crm.kind === 'dynamics') {
    const body = await dynamicsControl(crm.dynamics!, 'GET', '/records/ccs_marketplaceentitlements');
    const rows: any[] = Array.isArray(body) ? body : (body.records ?? body.value);
    return rows.find((row) => row.ccs_marketplaceentitlementid === entitlementCrmId)?._ccs_renewalopportunityid_value ?? undefined;
  }
  const renewals = new Set((await renewalOpportunities(crm)).map((view) => view.id));
  const associations: { fromType: string; fromId: string; toType: string; toId: string }[] = await hubspotControl(crm.hubspot!, 'GET', '/associations');
  const dealsOf = associations.flatMap((a) => (String(a.toId) === entitlementCrmId && a.fromType === 'deals' ? [String(a.fromId)] : String(a.fromId) === entitlementCrmId && a.toType === 'deals' ? [String(a.toId)] : []));
  const found = [...new Set(dealsOf.filter((id) => renewals.has(id)))];
  return found.length === 1 ? found[0] : found.length ? `several: ${found.join(', ')}` : undefined;
}
