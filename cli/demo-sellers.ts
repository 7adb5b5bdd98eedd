// Sellers at work in the HubSpot and Dynamics demos, as the Salesforce sandbox's change driver is in the
// Salesforce one (sandbox/salesforce/change-driver.ts, the same kinds and weights): a deal's stage moves,
// a new shared deal is opened on a marketplace buyer's company/account, a private-offer draft is asked
// for, an existing deal is shared, a partner's (inbound) referral is accepted or rejected with a reason,
// a shared deal is closed won or lost; and (issue #28) catalogue products are added to a deal that asks
// for a private offer, whose offer the deal desk approves once its draft is made. Unlike the Salesforce driver these sellers work from outside,
// through each CRM's public API (demo-sellers-hubspot.ts, demo-sellers-dynamics.ts), as a person's edits
// reach the CRM; picks are drawn from a seeded PRNG so a seed and the same records give the same moves.
// They work while the Salesforce sandbox's driver runs (as the demo partner does), so
// `POST <salesforce controlUrl>/changes/rate {"changesPerSecond": 0}` quiets every seller of the demo.
// Salesforce's own timer draws only the co-sell mix; the offer desk's moves there (addProducts,
// approveOffer, drawn only when named) are asked of its change driver from here, as often as the other
// CRMs' sellers draw them from the whole mix.
import type { Logger } from '../config/logger.ts';
import { createRandom, type Random } from '../sandbox/commerce/prng.ts';
import { DEAL_DESK_APPROVERS, DEFAULT_PRODUCT_IDS, OFFER_DESK_KINDS, OFFER_DESK_WEIGHTS, SELLER_ACCEPTS, SELLER_REJECT_REASONS, WEIGHTS as SALESFORCE_SELLER_WEIGHTS } from '../sandbox/salesforce/change-driver.ts';
import { MARKETPLACE_NAMES } from '../mappings/values.ts';

export const SELLER_KINDS = ['stageMove', 'newShared', 'draftRequest', 'shareExisting', 'inboundDecision', 'closeDeal', 'addProducts', 'approveOffer'] as const;
export type SellerKind = (typeof SELLER_KINDS)[number];

/** The mix: the Salesforce sellers' (its README "Change driver") and its offer desk's, so every demo CRM moves alike. */
const WEIGHTS: readonly (readonly [SellerKind, number])[] = [...SALESFORCE_SELLER_WEIGHTS, ...OFFER_DESK_WEIGHTS];
const weightOf = (weights: readonly (readonly [string, number])[]) => weights.reduce((sum, [, weight]) => sum + weight, 0);
/**
 * Salesforce's offer desk moves beside its timer's co-sell moves (one a tick): asked at this chance a tick,
 * they are as many per co-sell move as in the other CRMs' mix (about one move in five is the desk's).
 */
export const OFFER_DESK_PER_COSELL_MOVE = weightOf(OFFER_DESK_WEIGHTS) / weightOf(SALESFORCE_SELLER_WEIGHTS);

const PARTNERS = Object.values(MARKETPLACE_NAMES);
const DAY_MS = 86_400_000;

/** Why a seller loses a deal, and whether it went to a competitor (Dynamics: Out-Sold, else Canceled). */
export const LOSS_REASONS: readonly { reason: string; outSold: boolean }[] = [
  { reason: 'Customer chose a competitor.', outSold: true },
  { reason: 'Customer went with another reseller.', outSold: true },
  { reason: 'Project cancelled by the customer.', outSold: false },
  { reason: 'No budget approved this year.', outSold: false },
];

/** A deal as a seller sees it, read from the CRM at the start of a move. */
export type SellerDeal = {
  id: string;
  name: string;
  /** Where the deal is, and the open stages its pipeline goes through, in order. */
  stage: string;
  openStages: readonly string[];
  open: boolean;
  shared: boolean;
  partner?: string;
  /** Made by the referral flow for a partner's referral (INBOUND). */
  inbound: boolean;
  cosellStatus?: string;
  decided: boolean;
  draftRequested: boolean;
  hasOffer: boolean;
  /** The companies/accounts the deal is on (their ids). */
  accountIds: readonly string[];
  /** A deal the sellers leave alone but for a draft request (HubSpot: a marketplace offer's deal). */
  offerDeal?: boolean;
  /** HubSpot: the deal's pipeline (its stages are that pipeline's). */
  pipeline?: string;
  /** The deal's currency (ISO code): its own, else the CRM's default one. */
  currency?: string;
  /** The deal desk approved its private offer (the approval status field holds Approved). */
  approved?: boolean;
};

/** A catalogue product of the CRM (one dimension of a marketplace product) and its list price in each currency. */
export type CatalogueProduct = { id: string; name: string; productId: string; dimensionKey: string; prices: Record<string, number> };
/** What the offer desk reads besides the deals: which deals have product lines, and the catalogue. */
export type OfferDesk = { withLines: ReadonlySet<string>; products: CatalogueProduct[] };
/** A line a seller adds: a catalogue product, a whole quantity and the unit price (the list price, or a discount of it). */
export type NewLine = { product: CatalogueProduct; quantity: number; unitPrice: number };

/** A company/account of a marketplace buyer (it carries a commerce buyer id, and the buyer is not deleted). */
export type SellerAccount = { id: string; name: string; buyerId: string; marketplace?: string };

export type SellerBook = { deals: SellerDeal[]; accounts: SellerAccount[]; newDealStages: readonly string[] };

export type NewSharedDeal = { name: string; stage: string; closeDate: string; amount: number; partner: string; description: string };
export type Decision = { accept: true } | { accept: false; reason: string };
export type Outcome = { won: true } | { won: false; reason: string; outSold: boolean };

/** One CRM's seller hands: reads what a seller sees, writes what a seller does, through the CRM's API. */
export interface SellerCrm {
  readonly crm: string;
  read(): Promise<SellerBook>;
  moveStage(deal: SellerDeal, stage: string): Promise<void>;
  /** Makes the deal on the account, then shares it (the id it got). */
  createShared(account: SellerAccount, deal: NewSharedDeal): Promise<string>;
  share(deal: SellerDeal, partner: string): Promise<void>;
  decide(deal: SellerDeal, decision: Decision): Promise<void>;
  close(deal: SellerDeal, outcome: Outcome): Promise<void>;
  requestDraft(deal: SellerDeal, productId: string): Promise<void>;
  /** Read only by the offer desk's moves (an account set up without the catalogue never reads it); `deals` as read. */
  readOfferDesk(deals: readonly SellerDeal[]): Promise<OfferDesk>;
  /** Adds the lines to the deal in its currency, and saves the deal as the CRM's line editor does. */
  addLines(deal: SellerDeal, lines: NewLine[]): Promise<void>;
  /** The deal desk's approval: the approval status Approved and who approved. */
  approve(deal: SellerDeal, by: string): Promise<void>;
}

export type SellerChange = { crm: string; kind: SellerKind; id: string; summary: string };

const pickFromTiers = <T>(random: Random, tiers: T[][]): T | undefined => {
  const tier = tiers.find((items) => items.length > 0);
  return tier && random.pick(tier);
};

const partnerFor = (random: Random, account: SellerAccount | undefined) => (account?.marketplace && PARTNERS.includes(account.marketplace) ? account.marketplace : random.pick(PARTNERS));

function drawOutcome(random: Random): Outcome {
  if (random.chance(0.7)) return { won: true };
  const loss = random.pick(LOSS_REASONS);
  return { won: false, ...loss };
}
const outcomeText = (outcome: Outcome) => (outcome.won ? 'won' : `lost: ${outcome.reason}`);

async function applyOne(seller: SellerCrm, book: SellerBook, kind: SellerKind, random: Random, now: () => Date, productIds: readonly string[]): Promise<SellerChange | undefined> {
  const accounts = new Map(book.accounts.map((account) => [account.id, account]));
  const buyerOf = (deal: SellerDeal) => deal.accountIds.map((id) => accounts.get(id)).find(Boolean);
  const worked = book.deals.filter((deal) => !deal.offerDeal);
  const open = worked.filter((deal) => deal.open);
  const change = (deal: { id: string }, summary: string): SellerChange => ({ crm: seller.crm, kind, id: deal.id, summary });

  switch (kind) {
    case 'stageMove': {
      const sharedOpen = open.filter((deal) => deal.shared);
      const deal = pickFromTiers(random, random.chance(0.7) ? [sharedOpen, open] : [open]);
      if (!deal) return undefined;
      const index = deal.openStages.indexOf(deal.stage);
      // From the last open stage a deal closes (won 70%); sometimes one is lost on the way.
      if (index >= deal.openStages.length - 1 || random.chance(0.1)) {
        const outcome = index >= deal.openStages.length - 1 ? drawOutcome(random) : { won: false as const, ...random.pick(LOSS_REASONS) };
        await seller.close(deal, outcome);
        return change(deal, `stage ${deal.stage} -> ${outcomeText(outcome)}`);
      }
      const stage = deal.openStages[index + 1]!;
      await seller.moveStage(deal, stage);
      return change(deal, `stage ${deal.stage} -> ${stage}`);
    }
    case 'newShared': {
      const account = pickFromTiers(random, [book.accounts]);
      if (!account || book.newDealStages.length === 0) return undefined;
      const partner = partnerFor(random, account);
      const fields: NewSharedDeal = {
        name: `${account.name.slice(0, 60)} co-sell ${random.alnum(4).toUpperCase()}`,
        stage: random.pick(book.newDealStages.slice(0, 3)),
        closeDate: new Date(now().getTime() + random.int(30, 180) * DAY_MS).toISOString().slice(0, 10),
        amount: random.amount(5_000, 250_000),
        partner,
        description: `Opened by the seller to co-sell with ${partner}.`,
      };
      const id = await seller.createShared(account, fields);
      return change({ id }, `new shared deal on ${account.buyerId} with ${partner}`);
    }
    case 'draftRequest': {
      if (productIds.length === 0) return undefined;
      const candidates = book.deals.filter((deal) => !deal.draftRequested);
      const likely = candidates.filter((deal) => deal.open && buyerOf(deal));
      const deal = pickFromTiers(random, [likely.filter((d) => !d.hasOffer), likely]);
      if (!deal) return undefined;
      const product = random.pick(productIds);
      await seller.requestDraft(deal, product);
      return change(deal, `private offer draft requested for ${product}`);
    }
    case 'shareExisting': {
      // A partner's referral is already co-sell: its deal is decided (inboundDecision), not shared.
      const candidates = open.filter((deal) => !deal.shared && !deal.inbound);
      const deal = pickFromTiers(random, [candidates.filter((d) => buyerOf(d)), candidates]);
      if (!deal) return undefined;
      const partner = deal.partner && PARTNERS.includes(deal.partner) ? deal.partner : partnerFor(random, buyerOf(deal));
      await seller.share(deal, partner);
      return change(deal, `shared with ${partner}`);
    }
    case 'inboundDecision': {
      const waiting = open.filter((deal) => deal.inbound && deal.cosellStatus === 'SUBMITTED' && !deal.decided);
      const deal = pickFromTiers(random, [waiting]);
      if (!deal) return undefined;
      const decision: Decision = random.chance(SELLER_ACCEPTS) ? { accept: true } : { accept: false, reason: random.pick(SELLER_REJECT_REASONS) };
      await seller.decide(deal, decision);
      return change(deal, decision.accept ? 'inbound referral accepted' : `inbound referral rejected: ${decision.reason}`);
    }
    case 'addProducts': {
      // As the Salesforce driver's addProducts: one or two dimensions of one marketplace product priced in
      // the deal's currency, on a deal that asks for a private offer and has no products yet.
      const requested = book.deals.filter((deal) => deal.draftRequested && !deal.offerDeal && deal.currency);
      if (requested.length === 0) return undefined;
      const desk = await seller.readOfferDesk(book.deals);
      const priced = (deal: SellerDeal) => desk.products.filter((product) => product.prices[deal.currency!] !== undefined);
      const suited = requested.filter((deal) => !desk.withLines.has(deal.id) && priced(deal).length > 0);
      const deal = pickFromTiers(random, [suited.filter((d) => d.open), suited]);
      if (!deal) return undefined;
      const offered = priced(deal);
      const productId = random.pick([...new Set(offered.map((product) => product.productId))]);
      const dimensions = offered.filter((product) => product.productId === productId);
      const chosen = dimensions.length > 1 && random.chance(0.5) ? [dimensions.splice(random.int(0, dimensions.length - 1), 1)[0]!, random.pick(dimensions)] : [random.pick(dimensions)];
      const lines = chosen.map((product): NewLine => {
        const list = product.prices[deal.currency!]!;
        // Now and then the seller discounts the list price by a tenth.
        return { product, quantity: random.int(1, 12), unitPrice: random.chance(0.3) ? Math.round(list * 90) / 100 : list };
      });
      await seller.addLines(deal, lines);
      return change(deal, `products added: ${chosen.map((product) => product.name).join(', ')}`);
    }
    case 'approveOffer': {
      const waiting = book.deals.filter((deal) => deal.draftRequested && deal.hasOffer && !deal.approved);
      if (waiting.length === 0) return undefined;
      const desk = await seller.readOfferDesk(book.deals);
      const built = waiting.filter((deal) => desk.withLines.has(deal.id));
      const deal = pickFromTiers(random, [built.filter((d) => d.open), built]);
      if (!deal) return undefined;
      const approver = random.pick(DEAL_DESK_APPROVERS);
      await seller.approve(deal, approver);
      return change(deal, `private offer approved by ${approver}`);
    }
    case 'closeDeal': {
      const sharedOpen = open.filter((deal) => deal.shared);
      const deal = pickFromTiers(random, [sharedOpen.filter((d) => d.cosellStatus === 'ACCEPTED'), sharedOpen]);
      if (!deal) return undefined;
      const outcome = drawOutcome(random);
      await seller.close(deal, outcome);
      return change(deal, `closed ${outcomeText(outcome)}`);
    }
  }
}

/**
 * One seller move on the CRM, drawn from `kinds` with the mix's weights; a kind no record suits is
 * dropped, so nothing comes back when the CRM has nothing a seller could change (never an error).
 */
export async function applySellerChange(seller: SellerCrm, random: Random, options: { kinds?: readonly SellerKind[]; now?: () => Date; productIds?: readonly string[] } = {}): Promise<SellerChange | undefined> {
  const kinds = options.kinds ?? SELLER_KINDS;
  const book = await seller.read();
  let open = WEIGHTS.filter(([kind]) => kinds.includes(kind));
  while (open.length > 0) {
    const kind = open.length === 1 ? open[0]![0] : random.weighted(open);
    const change = await applyOne(seller, book, kind, random, options.now ?? (() => new Date()), options.productIds ?? DEFAULT_PRODUCT_IDS);
    if (change) return change;
    open = open.filter(([k]) => k !== kind);
  }
  return undefined;
}

/** Each CRM's sellers draw from a stream of their own (not the Salesforce driver's, nor each other's). */
export const sellerRandom = (seed: number, crm: string) => createRandom((Math.imul(seed, 0x85ebca6b) ^ [...crm].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 0x01000193), 0x811c9dc5)) >>> 0);

export type DemoSellersOptions = {
  sellers: SellerCrm[];
  changesPerSecond: number;
  seed: number;
  /** The Salesforce sandbox's control: the sellers move only while its change driver runs. */
  salesforceControlUrl: string;
  /** The demo works a Salesforce org: its offer desk's moves are asked of its change driver (by name). */
  salesforceOfferDesk?: boolean;
  logger: Logger;
};

export type DemoSellers = {
  /** The CRM is set up (its co-sell fields exist): its sellers may start (before, every write would be refused). */
  setUp(crm: string): void;
  stop(): void;
};

/** Starts the sellers' moves (one per set-up CRM a tick, at `changesPerSecond`); `stop` ends them. */
export function startDemoSellers(options: DemoSellersOptions): DemoSellers {
  const ready = new Set<string>();
  if ((options.sellers.length === 0 && !options.salesforceOfferDesk) || options.changesPerSecond <= 0) return { setUp: () => {}, stop: () => {} };
  const randoms = new Map(options.sellers.map((seller) => [seller.crm, sellerRandom(options.seed, seller.crm)]));
  const salesforceDesk = sellerRandom(options.seed, 'salesforce offer desk');
  const lastProblem = new Map<string, string>();
  let busy = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      const sellers = options.sellers.filter((seller) => ready.has(seller.crm));
      const deskMove = Boolean(options.salesforceOfferDesk) && ready.has('salesforce') && salesforceDesk.chance(OFFER_DESK_PER_COSELL_MOVE);
      if ((sellers.length === 0 && !deskMove) || !(await salesforceDriverRunning(options.salesforceControlUrl))) return;
      if (deskMove) {
        try {
          for (const change of await salesforceOfferDeskMove(options.salesforceControlUrl)) options.logger.debug({ crm: 'salesforce', kind: change.kind, record: change.id, summary: change.summary }, 'Demo seller moved');
          lastProblem.delete('salesforce');
        } catch (error) {
          sayOnce(options.logger, lastProblem, 'salesforce', (error as Error).message);
        }
      }
      for (const seller of sellers) {
        try {
          const change = await applySellerChange(seller, randoms.get(seller.crm)!);
          if (change) options.logger.debug({ crm: change.crm, kind: change.kind, record: change.id, summary: change.summary }, 'Demo seller moved');
          lastProblem.delete(seller.crm);
        } catch (error) {
          sayOnce(options.logger, lastProblem, seller.crm, (error as Error).message);
        }
      }
    } catch (error) {
      sayOnce(options.logger, lastProblem, 'salesforce control', (error as Error).message);
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), 1000 / options.changesPerSecond);
  timer.unref();
  return { setUp: (crm) => void ready.add(crm), stop: () => clearInterval(timer) };
}

/** Said once per new problem (a sandbox stopping at shutdown is not worth a line a tick). */
function sayOnce(logger: Logger, last: Map<string, string>, where: string, problem: string) {
  if (last.get(where) !== problem) logger.warn({ crm: where, problem }, 'Demo sellers could not move');
  last.set(where, problem);
}

/** One move of the Salesforce org's offer desk: its change driver's addProducts or approveOffer (whichever suits). */
async function salesforceOfferDeskMove(controlUrl: string): Promise<{ id: string; kind: string; summary: string }[]> {
  const response = await fetch(`${controlUrl}/changes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 1, kinds: OFFER_DESK_KINDS }), signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`POST ${controlUrl}/changes answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { changes: { id: string; kind: string; summary: string }[] }).changes;
}

async function salesforceDriverRunning(controlUrl: string): Promise<boolean> {
  const response = await fetch(`${controlUrl}/changes/rate`, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`GET ${controlUrl}/changes/rate answered ${response.status}: ${await response.text()}`);
  return Boolean(((await response.json()) as { running?: boolean }).running);
}
