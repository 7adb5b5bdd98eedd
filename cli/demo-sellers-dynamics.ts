// The demo's sellers in Dynamics 365 (demo-sellers.ts picks the moves): everything through the Dataverse
// Web API with the application user's client-credentials token, as the model-driven app's edits would
// land. A deal is shared with ccs_cosellshare and ccs_cosellpartner; a partner's referral is decided with
// ccs_coselldecision (a Choice: 100000000 Accept, 100000001 Reject) and ccs_coselldecisionreason; a deal is
// closed only through the WinOpportunity / LoseOpportunity actions (Dataverse refuses a PATCH of a closed
// statecode), a loss as Out-Sold (5) when a competitor won it, else Canceled (4), the reason in the close
// activity's description. The stage (stepname) moves by PATCH; a close leaves it as it was.
// A private offer's products (issue #28) are opportunity products of the catalogue's products, priced
// from the opportunity's price list (pricelevelid: the catalogue's price list in the opportunity's
// currency, set first; a discounted line overrides its price, ispriceoverridden), after which the seller
// saves the opportunity's estimated revenue (the worker sees a line change through its opportunity); the
// deal desk approves with ccs_offerapprovalstatus Approved (100000001) and ccs_offerapprovedby.
import { COSELL_DECISION_OPTION } from '../mappings/dynamics/schema.ts';
import { DYNAMICS_STEPS } from '../mappings/dynamics/stages.ts';
import { OFFER_APPROVAL_OPTION } from '../mappings/dynamics/opportunity-offer-lines.ts';
import type { CatalogueProduct, Decision, NewLine, NewSharedDeal, Outcome, SellerAccount, SellerBook, SellerCrm, SellerDeal } from './demo-sellers.ts';

/** The open phases of the co-sell stage table, in order (Won and Lost are states, reached by the close actions). */
const OPEN_STEPS = DYNAMICS_STEPS.filter((step) => step !== 'Won' && step !== 'Lost');
const OPPORTUNITY_COLUMNS = ['opportunityid', 'name', 'stepname', 'statecode', 'estimatedvalue', '_parentaccountid_value', 'ccs_cosellshare', 'ccs_cosellpartner', 'ccs_commercereferralid', 'ccs_referraldirection', 'ccs_cosellstatus', 'ccs_coselldecision', 'ccs_privateofferrequested', 'ccs_commerceofferid', '_transactioncurrencyid_value', 'ccs_offerapprovalstatus'];
const ACCOUNT_COLUMNS = ['accountid', 'name', 'ccs_commercebuyerid', 'ccs_marketplace', 'ccs_marketplacestatus'];
const STATUS = { won: 3, canceled: 4, outSold: 5 } as const;

export type DynamicsSellerOptions = { orgUrl: string; tokenUrl: string; clientId: string; clientSecret: string };

const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

export function dynamicsSeller(options: DynamicsSellerOptions): SellerCrm {
  const api = `${options.orgUrl.replace(/\/$/, '')}/api/data/v9.2/`;
  let token: { value: string; until: number } | undefined;
  const accessToken = async () => {
    if (token && token.until > Date.now()) return token.value;
    const response = await fetch(options.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: options.clientId, client_secret: options.clientSecret, scope: `${new URL(options.orgUrl).origin}/.default` }),
      signal: AbortSignal.timeout(15_000),
    });
    if (!response.ok) throw new Error(`Dynamics sign-in for the demo sellers failed (HTTP ${response.status}): ${await response.text()}`);
    const answer = (await response.json()) as { access_token: string; expires_in: number };
    token = { value: answer.access_token, until: Date.now() + (answer.expires_in - 60) * 1000 };
    return token.value;
  };
  const call = async (method: string, path: string, body?: unknown): Promise<{ body: any; entityId: string | null }> => {
    const response = await fetch(path.startsWith('http') ? path : `${api}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${await accessToken()}`,
        accept: 'application/json',
        'OData-Version': '4.0',
        'OData-MaxVersion': '4.0',
        ...(method === 'GET' && { prefer: 'odata.maxpagesize=500' }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const answer = await response.text();
    if (!response.ok) throw new Error(`Dynamics refused the seller's ${method} ${path.replace(api, '')} (HTTP ${response.status}): ${answer}`);
    return { body: answer ? JSON.parse(answer) : undefined, entityId: response.headers.get('OData-EntityId') };
  };
  const readAll = async (path: string): Promise<Record<string, any>[]> => {
    const rows: Record<string, any>[] = [];
    let next: string | undefined = path;
    while (next) {
      const { body } = await call('GET', next);
      rows.push(...body.value);
      next = body['@odata.nextLink'];
    }
    return rows;
  };
  const patch = (id: string, columns: Record<string, unknown>) => call('PATCH', `opportunities(${id})`, columns);
  /** Currencies by id (isocurrencycode) and the organisation's base currency's code. */
  const currencies = async () => {
    const codes = new Map((await readAll('transactioncurrencies?$select=transactioncurrencyid,isocurrencycode')).map((row) => [String(row.transactioncurrencyid).toLowerCase(), String(row.isocurrencycode)]));
    const [organization] = await readAll('organizations?$select=_basecurrencyid_value');
    return { codes, base: codes.get(String(organization?._basecurrencyid_value ?? '').toLowerCase()) };
  };
  /** Per catalogue product and currency, the price list item the last offer desk read found (its price list and unit). */
  const priceListItems = new Map<string, { priceList: string; unit: string; amount: number }>();
  const closeActivity = (id: string, subject: string, extra: Record<string, unknown> = {}) => ({ 'opportunityid@odata.bind': `/opportunities(${id})`, subject: subject.slice(0, 200), ...extra });

  return {
    crm: 'dynamics',
    async read(): Promise<SellerBook> {
      const { codes, base } = await currencies();
      const opportunities = await readAll(`opportunities?$select=${OPPORTUNITY_COLUMNS.join(',')}`);
      const accounts = await readAll(`accounts?$select=${ACCOUNT_COLUMNS.join(',')}`);
      return {
        deals: opportunities.map((row) => {
          const shared = row.ccs_cosellshare === true;
          return {
            id: row.opportunityid,
            name: row.name ?? row.opportunityid,
            stage: row.stepname ?? '',
            openStages: OPEN_STEPS,
            open: row.statecode === 0,
            shared,
            partner: text(row.ccs_cosellpartner),
            inbound: row.ccs_referraldirection === 'INBOUND' || (text(row.ccs_commercereferralid) !== undefined && !shared),
            cosellStatus: text(row.ccs_cosellstatus),
            decided: row.ccs_coselldecision !== null && row.ccs_coselldecision !== undefined,
            draftRequested: row.ccs_privateofferrequested === true,
            hasOffer: text(row.ccs_commerceofferid) !== undefined,
            accountIds: row._parentaccountid_value ? [row._parentaccountid_value] : [],
            currency: (row._transactioncurrencyid_value && codes.get(String(row._transactioncurrencyid_value).toLowerCase())) || base,
            approved: row.ccs_offerapprovalstatus === OFFER_APPROVAL_OPTION.Approved,
          };
        }),
        accounts: accounts
          .filter((row) => text(row.ccs_commercebuyerid) && row.ccs_marketplacestatus !== 'Deleted')
          .map((row) => ({ id: row.accountid, name: row.name ?? row.accountid, buyerId: row.ccs_commercebuyerid, marketplace: text(row.ccs_marketplace) })),
        newDealStages: OPEN_STEPS,
      };
    },
    async moveStage(deal, stage) {
      await patch(deal.id, { stepname: stage });
    },
    async createShared(account: SellerAccount, deal: NewSharedDeal) {
      // Bound to the buyer's account in the same create, so it is never seen shared without its buyer.
      const made = await call('POST', 'opportunities', {
        name: deal.name,
        'parentaccountid@odata.bind': `/accounts(${account.id})`,
        stepname: deal.stage,
        estimatedclosedate: deal.closeDate,
        estimatedvalue: deal.amount,
        description: deal.description,
        ccs_cosellshare: true,
        ccs_cosellpartner: deal.partner,
      });
      const id = /\(([0-9a-f-]{36})\)\s*$/i.exec(made.entityId ?? '')?.[1] ?? made.body?.opportunityid;
      if (!id) throw new Error('Dynamics made the seller\'s opportunity but did not say its id (no OData-EntityId)');
      return id;
    },
    async share(deal, partner) {
      await patch(deal.id, { ccs_cosellshare: true, ccs_cosellpartner: partner });
    },
    async decide(deal, decision: Decision) {
      await patch(deal.id, decision.accept ? { ccs_coselldecision: COSELL_DECISION_OPTION.accept } : { ccs_coselldecision: COSELL_DECISION_OPTION.reject, ccs_coselldecisionreason: decision.reason });
    },
    async close(deal, outcome: Outcome) {
      if (outcome.won) await call('POST', 'WinOpportunity', { Status: STATUS.won, OpportunityClose: closeActivity(deal.id, `Won: ${deal.name}`) });
      else await call('POST', 'LoseOpportunity', { Status: outcome.outSold ? STATUS.outSold : STATUS.canceled, OpportunityClose: closeActivity(deal.id, `Lost: ${deal.name}`, { description: outcome.reason }) });
    },
    async requestDraft(deal, productId) {
      await patch(deal.id, { ccs_privateofferrequested: true, ccs_commerceproductid: productId });
    },
    async readOfferDesk() {
      const { codes } = await currencies();
      const withLines = new Set((await readAll('opportunityproducts?$select=_opportunityid_value')).map((row) => String(row._opportunityid_value).toLowerCase()));
      const priceLists = new Map((await readAll('pricelevels?$select=pricelevelid,_transactioncurrencyid_value')).map((row) => [String(row.pricelevelid).toLowerCase(), codes.get(String(row._transactioncurrencyid_value).toLowerCase())]));
      const items = await readAll('productpricelevels?$select=_productid_value,_pricelevelid_value,_uomid_value,amount');
      priceListItems.clear();
      const products = (await readAll('products?$select=productid,name,ccs_commerceproductid,ccs_dimensionkey')).flatMap((row): CatalogueProduct[] => {
        if (!text(row.ccs_commerceproductid) || !text(row.ccs_dimensionkey)) return []; // not the catalogue's
        const id = String(row.productid).toLowerCase();
        const prices: Record<string, number> = {};
        for (const item of items.filter((candidate) => String(candidate._productid_value).toLowerCase() === id && typeof candidate.amount === 'number')) {
          const priceList = String(item._pricelevelid_value).toLowerCase();
          const currency = priceLists.get(priceList);
          if (!currency || currency in prices) continue;
          prices[currency] = item.amount;
          priceListItems.set(`${id}|${currency}`, { priceList, unit: String(item._uomid_value).toLowerCase(), amount: item.amount });
        }
        return [{ id, name: row.name ?? id, productId: row.ccs_commerceproductid, dimensionKey: row.ccs_dimensionkey, prices }];
      });
      return { withLines, products };
    },
    async addLines(deal: SellerDeal, lines: NewLine[]) {
      const items = lines.map((line) => {
        const item = priceListItems.get(`${line.product.id}|${deal.currency}`);
        if (!item) throw new Error(`the demo seller found no price of ${line.product.name} in ${deal.currency} to add to opportunity ${deal.id}`);
        return { line, item };
      });
      // The opportunity's price list first: Dataverse prices each line from it.
      await patch(deal.id, { 'pricelevelid@odata.bind': `/pricelevels(${items[0]!.item.priceList})` });
      for (const { line, item } of items) {
        await call('POST', 'opportunityproducts', {
          'opportunityid@odata.bind': `/opportunities(${deal.id})`,
          'productid@odata.bind': `/products(${line.product.id})`,
          'uomid@odata.bind': `/uoms(${item.unit})`,
          quantity: line.quantity,
          ...(line.unitPrice !== item.amount && { ispriceoverridden: true, priceperunit: line.unitPrice }),
        });
      }
      const total = lines.reduce((sum, line) => sum + line.quantity * line.unitPrice, 0);
      await patch(deal.id, { estimatedvalue: Math.round(total * 100) / 100 });
    },
    async approve(deal, by) {
      await patch(deal.id, { ccs_offerapprovalstatus: OFFER_APPROVAL_OPTION.Approved, ccs_offerapprovedby: by });
    },
  };
}
