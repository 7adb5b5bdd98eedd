// The demo's sellers in HubSpot (demo-sellers.ts picks the moves): everything through the CRM v3/v4 API
// with the account's private-app token, as the HubSpot UI's edits would land. A deal is shared with
// cosell_share and cosell_partner ("Marketplace A".."F", mappings/hubspot/deal-cosell.ts); a partner's
// referral is decided with cosell_decision (accept / reject) and cosell_decision_reason; a deal closes by
// moving to its pipeline's Closed Won or Closed Lost stage, a loss with HubSpot's closed_lost_reason.
// A private offer's products (issue #28) are line items made from the catalogue's products (hs_product_id,
// in the deal's currency: deal_currency_code, else the account's company currency), associated to the
// deal, whose amount the seller then sets to the lines' total as HubSpot's line item editor does (an API
// write of line items moves no deal property: docs/crm-wire-behaviour.md); the deal desk approves with
// offer_approval_status Approved and offer_approved_by.
import { COSELL_DECISION, OFFER_PIPELINE } from '../mappings/hubspot/schema.ts';
import { currencyPriceProperty } from '../mappings/hubspot/catalogue.ts';
import type { CatalogueProduct, Decision, NewLine, NewSharedDeal, Outcome, SellerAccount, SellerBook, SellerCrm, SellerDeal } from './demo-sellers.ts';

type Stage = { id: string; label: string; displayOrder: number; metadata?: { isClosed?: string | boolean; probability?: string | number } };
type Pipeline = { id: string; label: string; stages: Stage[] };
type HubRecord = { id: string; properties: Record<string, string | null | undefined> };

/** The pipeline a seller's own new deal goes in: the account's default "Sales Pipeline". */
const SELLER_PIPELINE = 'default';
const DEAL_PROPERTIES = ['dealname', 'dealstage', 'pipeline', 'cosell_share', 'cosell_partner', 'commerce_referral_id', 'referral_direction', 'cosell_status', 'cosell_decision', 'private_offer_requested', 'commerce_offer_id', 'deal_currency_code', 'offer_approval_status'];
/** The catalogue's product properties (crm/hubspot/catalogue-setup.ts); the per-currency prices are added for the account's currencies. */
const PRODUCT_PROPERTIES = ['name', 'price', 'commerce_product_id', 'commerce_dimension_key'];
const COMPANY_PROPERTIES = ['name', 'commerce_buyer_id', 'marketplace', 'marketplace_status'];

const isClosed = (stage: Stage) => String(stage.metadata?.isClosed) === 'true';
const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

export function hubSpotSeller(options: { baseUrl: string; accessToken: string }): SellerCrm {
  const base = options.baseUrl.replace(/\/$/, '');
  const call = async (method: string, path: string, body?: unknown): Promise<any> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${options.accessToken}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const answer = await response.text();
    if (!response.ok) throw new Error(`HubSpot refused the seller's ${method} ${path} (HTTP ${response.status}): ${answer}`);
    return answer ? JSON.parse(answer) : undefined;
  };
  const listAll = async (type: string, properties: string[]): Promise<HubRecord[]> => {
    const all: HubRecord[] = [];
    let after: string | undefined;
    do {
      const page = await call('GET', `/crm/v3/objects/${type}?limit=100&properties=${properties.join(',')}${after ? `&after=${after}` : ''}`);
      all.push(...page.results);
      after = page.paging?.next?.after;
    } while (after);
    return all;
  };
  const pipelines = new Map<string, Pipeline>();
  const pipelineOf = (deal: SellerDeal & { pipeline?: string }) => pipelines.get(deal.pipeline ?? SELLER_PIPELINE);
  /** The closed stage of the deal's pipeline for a win (probability 1) or a loss (probability 0). */
  const closingStage = (deal: SellerDeal, won: boolean) => {
    const stage = pipelineOf(deal)?.stages.find((s) => isClosed(s) && (Number(s.metadata?.probability) >= 1) === won);
    if (!stage) throw new Error(`deal ${deal.id}: its pipeline has no ${won ? 'won' : 'lost'} stage to close it in`);
    return stage.id;
  };
  const patch = (id: string, properties: Record<string, string>) => call('PATCH', `/crm/v3/objects/deals/${id}`, { properties });
  /** The account's company currency and its other currencies (GET /account-info/v3/details). */
  const currencies = async (): Promise<{ company: string; others: string[] }> => {
    const details = await call('GET', '/account-info/v3/details');
    return { company: String(details.companyCurrency ?? 'USD'), others: Array.isArray(details.additionalCurrencies) ? details.additionalCurrencies.map(String) : [] };
  };

  return {
    crm: 'hubspot',
    async read(): Promise<SellerBook> {
      pipelines.clear();
      const { company } = await currencies();
      for (const pipeline of (await call('GET', '/crm/v3/pipelines/deals')).results as Pipeline[]) pipelines.set(pipeline.id, pipeline);
      const [deals, companies] = [await listAll('deals', DEAL_PROPERTIES), await listAll('companies', COMPANY_PROPERTIES)];
      const companiesOf = new Map<string, string[]>();
      for (let i = 0; i < deals.length; i += 1000) {
        const inputs = deals.slice(i, i + 1000).map((deal) => ({ id: deal.id }));
        const read = await call('POST', '/crm/v4/associations/deals/companies/batch/read', { inputs });
        for (const result of read.results as { from: { id: string }; to: { toObjectId: string | number }[] }[]) companiesOf.set(result.from.id, result.to.map((to) => String(to.toObjectId)));
      }
      const stagesOpen = (pipeline: Pipeline | undefined) => (pipeline?.stages ?? []).filter((s) => !isClosed(s)).sort((a, b) => a.displayOrder - b.displayOrder).map((s) => s.id);
      return {
        deals: deals.map((deal) => {
          const p = deal.properties;
          const pipeline = pipelines.get(p.pipeline ?? SELLER_PIPELINE);
          const stage = pipeline?.stages.find((s) => s.id === p.dealstage);
          const shared = p.cosell_share === 'true';
          return {
            id: deal.id,
            name: p.dealname ?? deal.id,
            stage: p.dealstage ?? '',
            openStages: stagesOpen(pipeline),
            open: !stage || !isClosed(stage),
            shared,
            partner: text(p.cosell_partner),
            inbound: p.referral_direction === 'INBOUND' || (text(p.commerce_referral_id) !== undefined && !shared),
            cosellStatus: text(p.cosell_status),
            decided: text(p.cosell_decision) !== undefined,
            draftRequested: p.private_offer_requested === 'true',
            hasOffer: text(p.commerce_offer_id) !== undefined,
            accountIds: companiesOf.get(deal.id) ?? [],
            offerDeal: pipeline?.label === OFFER_PIPELINE,
            pipeline: pipeline?.id,
            currency: text(p.deal_currency_code) ?? company,
            approved: p.offer_approval_status === 'Approved',
          };
        }),
        accounts: companies
          .filter((company) => text(company.properties.commerce_buyer_id) && company.properties.marketplace_status !== 'Deleted')
          .map((company) => ({ id: company.id, name: company.properties.name ?? company.id, buyerId: company.properties.commerce_buyer_id!, marketplace: text(company.properties.marketplace) })),
        newDealStages: stagesOpen(pipelines.get(SELLER_PIPELINE)),
      };
    },
    async moveStage(deal, stage) {
      await patch(deal.id, { dealstage: stage });
    },
    async createShared(account: SellerAccount, deal: NewSharedDeal) {
      // Made, put on the buyer's company, then shared: shared before it is on the company, the co-sell
      // run could read it first and answer that it has no buyer.
      const made = await call('POST', '/crm/v3/objects/deals', {
        properties: { dealname: deal.name, pipeline: SELLER_PIPELINE, dealstage: deal.stage, closedate: `${deal.closeDate}T00:00:00.000Z`, amount: String(deal.amount) },
      });
      await call('PUT', `/crm/v4/objects/deals/${made.id}/associations/default/companies/${account.id}`);
      await patch(made.id, { cosell_share: 'true', cosell_partner: deal.partner });
      return String(made.id);
    },
    async share(deal, partner) {
      await patch(deal.id, { cosell_share: 'true', cosell_partner: partner });
    },
    async decide(deal, decision: Decision) {
      await patch(deal.id, decision.accept ? { cosell_decision: COSELL_DECISION.accept } : { cosell_decision: COSELL_DECISION.reject, cosell_decision_reason: decision.reason });
    },
    async close(deal, outcome: Outcome) {
      await patch(deal.id, outcome.won ? { dealstage: closingStage(deal, true) } : { dealstage: closingStage(deal, false), closed_lost_reason: outcome.reason });
    },
    async requestDraft(deal, productId) {
      await patch(deal.id, { private_offer_requested: 'true', commerce_product_id: productId });
    },
    async readOfferDesk(deals) {
      const { company, others } = await currencies();
      const withLines = new Set<string>();
      for (let i = 0; i < deals.length; i += 1000) {
        const read = await call('POST', '/crm/v4/associations/deals/line_items/batch/read', { inputs: deals.slice(i, i + 1000).map((deal) => ({ id: deal.id })) });
        for (const result of read.results as { from: { id: string }; to: unknown[] }[]) if (result.to.length > 0) withLines.add(String(result.from.id));
      }
      const priceProperty = (currency: string) => (currency === company ? 'price' : currencyPriceProperty(currency));
      const products = (await listAll('products', [...PRODUCT_PROPERTIES, ...others.map(currencyPriceProperty)])).flatMap((product): CatalogueProduct[] => {
        const p = product.properties;
        if (!text(p.commerce_product_id) || !text(p.commerce_dimension_key)) return []; // not the catalogue's
        // A price left empty is no price in that currency (HubSpot leaves an unset property out).
        const prices = Object.fromEntries([company, ...others].flatMap((currency) => (text(p[priceProperty(currency)]) && Number.isFinite(Number(p[priceProperty(currency)])) ? [[currency, Number(p[priceProperty(currency)])]] : [])));
        return [{ id: product.id, name: p.name ?? product.id, productId: p.commerce_product_id!, dimensionKey: p.commerce_dimension_key!, prices }];
      });
      return { withLines, products };
    },
    async addLines(deal: SellerDeal, lines: NewLine[]) {
      const { others } = await currencies();
      for (const line of lines) {
        const properties: Record<string, string> = { hs_product_id: line.product.id, quantity: String(line.quantity), price: String(line.unitPrice) };
        // The line item's currency exists only in an account with several currencies.
        if (others.length > 0 && deal.currency) properties.hs_line_item_currency_code = deal.currency;
        const made = await call('POST', '/crm/v3/objects/line_items', { properties });
        await call('PUT', `/crm/v4/objects/line_items/${made.id}/associations/default/deals/${deal.id}`);
      }
      const total = lines.reduce((sum, line) => sum + line.quantity * line.unitPrice, 0);
      await patch(deal.id, { amount: String(Math.round(total * 100) / 100) });
    },
    async approve(deal, by) {
      await patch(deal.id, { offer_approval_status: 'Approved', offer_approved_by: by });
    },
  };
}
