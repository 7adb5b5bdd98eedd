// Makes the org move like sellers at work on co-sell: an Opportunity's stage moves, a new shared
// Opportunity is opened on a buyer's Account, a private-offer draft is requested, an existing
// Opportunity is shared, an inbound referral's Opportunity gets the seller's decision (Accept, or Reject
// with a reason), a shared deal is closed won or lost; and, only when asked for by name (issue #28), the
// seller adds catalogue products to an Opportunity that asks for a private offer and the deal desk
// approves the offer built from them. Every change is a save through the same engine as API writes (validation,
// SystemModstamp, the journal). Picks come from the driver's seeded PRNG, so a seed and the same
// org give the same changes. Runs on demand (POST /_sandbox/changes) and on a timer (change-timer.ts).
import { createRandom, type Random } from '../commerce/prng.ts';
import { COSELL_PARTNERS, findField, findObject, OPPORTUNITY_STAGES, SALESFORCE_SANDBOX_SCHEMA, type SandboxObject } from './schema.ts';
import type { Store, StoredRecord } from './store.ts';
import { coerceJson } from './values.ts';
import { emptyInput, saveRecords, type WriteMode } from './writes.ts';

export const CHANGE_KINDS = ['stageMove', 'newShared', 'draftRequest', 'shareExisting', 'inboundDecision', 'closeDeal', 'addProducts', 'approveOffer'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];
/**
 * The kinds drawn when none are named (the timer, POST /_sandbox/changes without kinds). Sellers adding
 * Opportunity Products and the deal desk approving the offer built from them (issue #28) happen only when
 * asked for by name, so orgs and tests that do not know the catalogue see the changes they always saw.
 */
export const OFFER_DESK_KINDS = ['addProducts', 'approveOffer'] as const;
export type OfferDeskKind = (typeof OFFER_DESK_KINDS)[number];
export type DefaultChangeKind = Exclude<ChangeKind, OfferDeskKind>;
export const DEFAULT_CHANGE_KINDS: readonly ChangeKind[] = CHANGE_KINDS.filter((kind) => !(OFFER_DESK_KINDS as readonly string[]).includes(kind));

/** What one change did, to which record, and the SystemModstamp it left. */
export type Change = { object: string; id: string; kind: ChangeKind; summary: string; systemModstamp: string };

/** The mix of the timer and of POST /_sandbox/changes without kinds (part of what a seed gives). */
export const WEIGHTS: readonly (readonly [DefaultChangeKind, number])[] = [
  ['stageMove', 50],
  ['newShared', 15],
  ['draftRequest', 15],
  ['shareExisting', 20],
  ['inboundDecision', 15],
  ['closeDeal', 8],
];
/** The weights of the kinds drawn only when named, beside the mix (the demo's sellers draw them too: cli/demo-sellers.ts). */
export const OFFER_DESK_WEIGHTS: readonly (readonly [OfferDeskKind, number])[] = [
  ['addProducts', 15],
  ['approveOffer', 15],
];

/**
 * Who approves private offers at the deal desk (Offer_Approved_By__c): an org's approval process writes
 * the approver's name there with a final field update (docs/cosell.md). Quotes and non-Latin letters, as
 * people's names have them.
 */
export const DEAL_DESK_APPROVERS: readonly string[] = ['Zoë O\'Brien (Deal Desk)', 'Kenji Satō', 'Amara "Mara" Okafor', 'Łukasz Nowak', 'Inés García-Márquez'];

/** How often a seller accepts a partner's referral; the rest are rejected with one of SELLER_REJECT_REASONS. */
export const SELLER_ACCEPTS = 0.8;
/** Why a seller turns a partner's referral down (Cosell_Decision_Reason__c), in a seller's words. */
export const SELLER_REJECT_REASONS: readonly string[] = [
  'Customer is already working with another partner on this project.',
  'Duplicate of an opportunity we are already working.',
  'Outside our territory; the customer is served by another region.',
  'Customer has no budget for this before next fiscal year.',
  'Not a fit for our product line.',
];

export const DEFAULT_PRODUCT_IDS: readonly string[] = Array.from({ length: 8 }, (_, i) => `prod-${String(i + 1).padStart(6, '0')}`);

export type Driver = {
  /** The stream every pick is drawn from; `restart` goes back to the seed's first draw (POST /_sandbox/reset). */
  readonly random: Random;
  readonly productIds: readonly string[];
  restart(): void;
};

export type DriverEnv = { store: Store; now: () => Date; driver: Driver };

// Not the commerce driver's mixing: the two sandboxes started on one seed draw different streams.
const driverSeed = (seed: number) => (Math.imul(seed, 0x9e3779b1) ^ 0x5f0c_5e11) >>> 0;

export function createDriver(seed: number, productIds: readonly string[]): Driver {
  let random = createRandom(driverSeed(seed));
  return {
    get random() {
      return random;
    },
    productIds,
    restart() {
      random = createRandom(driverSeed(seed));
    },
  };
}

const OPPORTUNITY = SALESFORCE_SANDBOX_SCHEMA.Opportunity!;
const ACCOUNT = SALESFORCE_SANDBOX_SCHEMA.Account!;
const OPPORTUNITY_NAME_LENGTH = findField(OPPORTUNITY, 'Name')!.length;
const CLOSED = new Set(['Closed Won', 'Closed Lost']);
const DAY_MS = 86_400_000;

const live = (store: Store, object: SandboxObject) => [...store.table(object).all()].filter((record) => !record.IsDeleted);
const isOpen = (opportunity: StoredRecord) => !CLOSED.has(String(opportunity.StageName));
const hasText = (value: unknown) => typeof value === 'string' && value.trim() !== '';
/**
 * An Opportunity the referral flow made for a partner's (INBOUND) referral: it carries the referral's id
 * (mappings/salesforce/inbound-referral.ts) but was never shared by a seller (an OUTBOUND referral's
 * Opportunity is the shared one its id was written back to). Opportunity has no direction field.
 */
const isInbound = (opportunity: StoredRecord) => hasText(opportunity.Commerce_Referral_Id__c) && opportunity.Cosell_Share__c !== true;

/** An Account a seller can co-sell with: it carries a commerce buyer id, and the buyer is not deleted. */
const isBuyerAccount = (account: StoredRecord | undefined) => account !== undefined && !account.IsDeleted && hasText(account.Commerce_Buyer_Id__c) && account.Marketplace_Status__c !== 'Deleted';

/** A random record of the first tier that has any (tiers go from the likeliest seller choice to the least). */
function pickFromTiers(random: Random, tiers: StoredRecord[][]): StoredRecord | undefined {
  const tier = tiers.find((records) => records.length > 0);
  return tier && random.pick(tier);
}

/** The partner to share with: the Account's marketplace when it is one of the picklist's, else a drawn one. */
function partnerFor(random: Random, account: StoredRecord | undefined): string {
  const marketplace = account?.Marketplace__c;
  return typeof marketplace === 'string' && COSELL_PARTNERS.includes(marketplace) ? marketplace : random.pick(COSELL_PARTNERS);
}

/** Where an open deal goes next: usually one stage on, sometimes lost; a closed deal is reopened. */
function nextStage(random: Random, current: string): string {
  const index = OPPORTUNITY_STAGES.indexOf(current);
  const lastOpen = OPPORTUNITY_STAGES.length - 3; // Negotiation/Review
  if (CLOSED.has(current)) return random.pick(OPPORTUNITY_STAGES.slice(0, lastOpen + 1));
  if (index >= lastOpen) return random.chance(0.7) ? 'Closed Won' : 'Closed Lost';
  if (random.chance(0.1)) return 'Closed Lost';
  return OPPORTUNITY_STAGES[index + 1]!;
}

/**
 * Saves `values` (as a client would send them in JSON) through the write engine. A refusal here is a
 * driver bug, not a seller's mistake, so it throws with the org's own errors.
 */
function save(env: DriverEnv, object: SandboxObject, values: Record<string, unknown>, mode: WriteMode): StoredRecord {
  const input = emptyInput(object);
  for (const [name, raw] of Object.entries(values)) {
    const field = findField(object, name)!;
    const coerced = coerceJson(field, raw);
    if (!coerced.ok) throw new Error(`change driver: ${object.name}.${name} cannot hold ${JSON.stringify(raw)}`);
    input.values.set(field.name, coerced.value);
  }
  const [result] = saveRecords({ store: env.store, now: env.now }, [{ input, mode }], { allOrNone: true });
  if (!result!.ok) throw new Error(`change driver: the org refused a ${object.name} save: ${JSON.stringify(result!.errors)}`);
  return env.store.table(object).get(result!.id)!;
}

function changeOf(kind: ChangeKind, record: StoredRecord, summary: string): Change {
  return { object: OPPORTUNITY.name, id: record.Id, kind, summary, systemModstamp: String(record.SystemModstamp) };
}

function applyOne(env: DriverEnv, kind: ChangeKind): Change | undefined {
  const { store, driver } = env;
  const { random } = driver;
  const accounts = store.table(ACCOUNT);
  const accountOf = (opportunity: StoredRecord) => (opportunity.AccountId ? accounts.get(String(opportunity.AccountId)) : undefined);
  const opportunities = live(store, OPPORTUNITY);
  const onBuyer = (opportunity: StoredRecord) => isBuyerAccount(accountOf(opportunity));

  switch (kind) {
    case 'stageMove': {
      const open = opportunities.filter(isOpen);
      const sharedOpen = open.filter((o) => o.Cosell_Share__c === true);
      // Shared deals move most of the time (co-sell is what the driver is for); closed deals reopen only when nothing is open.
      const opportunity = pickFromTiers(random, random.chance(0.7) ? [sharedOpen, open, opportunities] : [open, opportunities]);
      if (!opportunity) return undefined;
      const previous = String(opportunity.StageName);
      const stage = nextStage(random, previous);
      const saved = save(env, OPPORTUNITY, { StageName: stage }, { kind: 'update', id: opportunity.Id });
      return changeOf(kind, saved, `stage ${previous} -> ${stage}`);
    }
    case 'newShared': {
      const account = pickFromTiers(random, [live(store, ACCOUNT).filter(isBuyerAccount)]);
      if (!account) return undefined;
      const partner = partnerFor(random, account);
      const suffix = ` co-sell ${random.alnum(4).toUpperCase()}`;
      const name = String(account.Name).slice(0, OPPORTUNITY_NAME_LENGTH - suffix.length) + suffix;
      const stage = random.pick(OPPORTUNITY_STAGES.slice(0, 3));
      const closeDate = new Date(env.now().getTime() + random.int(30, 180) * DAY_MS).toISOString().slice(0, 10);
      const saved = save(
        env,
        OPPORTUNITY,
        {
          Name: name,
          AccountId: account.Id,
          StageName: stage,
          CloseDate: closeDate,
          Amount: random.amount(5_000, 250_000),
          Description: `Opened by the seller to co-sell with ${partner}.`,
          Cosell_Share__c: true,
          Cosell_Partner__c: partner,
        },
        { kind: 'create' },
      );
      return changeOf(kind, saved, `new shared Opportunity on ${String(account.Commerce_Buyer_Id__c)} with ${partner}`);
    }
    case 'draftRequest': {
      if (driver.productIds.length === 0) return undefined;
      const candidates = opportunities.filter((o) => o.Private_Offer_Requested__c !== true);
      const likely = candidates.filter((o) => isOpen(o) && onBuyer(o));
      const opportunity = pickFromTiers(random, [likely.filter((o) => !hasText(o.Commerce_Offer_Id__c)), likely, candidates.filter(isOpen), candidates]);
      if (!opportunity) return undefined;
      const product = random.pick(driver.productIds);
      const saved = save(env, OPPORTUNITY, { Private_Offer_Requested__c: true, Commerce_Product_Id__c: product }, { kind: 'update', id: opportunity.Id });
      return changeOf(kind, saved, `private offer draft requested for ${product}`);
    }
    case 'shareExisting': {
      // A partner's referral is already co-sell: its Opportunity is decided (inboundDecision), not shared.
      const candidates = opportunities.filter((o) => o.Cosell_Share__c !== true && !isInbound(o));
      const open = candidates.filter(isOpen);
      const opportunity = pickFromTiers(random, [open.filter(onBuyer), open, candidates]);
      if (!opportunity) return undefined;
      const partner = hasText(opportunity.Cosell_Partner__c) ? String(opportunity.Cosell_Partner__c) : partnerFor(random, accountOf(opportunity));
      const saved = save(env, OPPORTUNITY, { Cosell_Share__c: true, Cosell_Partner__c: partner }, { kind: 'update', id: opportunity.Id });
      return changeOf(kind, saved, `shared with ${partner}`);
    }
    case 'inboundDecision': {
      // Only a referral waiting for the seller (SUBMITTED) and not decided yet: a decision is asked once.
      const waiting = opportunities.filter((o) => isInbound(o) && isOpen(o) && o.Cosell_Status__c === 'SUBMITTED' && !hasText(o.Cosell_Decision__c));
      const opportunity = pickFromTiers(random, [waiting]);
      if (!opportunity) return undefined;
      const values = random.chance(SELLER_ACCEPTS)
        ? { Cosell_Decision__c: 'Accept' }
        : { Cosell_Decision__c: 'Reject', Cosell_Decision_Reason__c: random.pick(SELLER_REJECT_REASONS) };
      const saved = save(env, OPPORTUNITY, values, { kind: 'update', id: opportunity.Id });
      const summary = values.Cosell_Decision__c === 'Accept' ? 'inbound referral accepted' : `inbound referral rejected: ${values.Cosell_Decision_Reason__c}`;
      return changeOf(kind, saved, summary);
    }
    case 'addProducts': {
      // A seller builds the private offer the Opportunity asks for from Opportunity Products: one or two
      // active entries of one price book (its own, else an active custom one) in its currency.
      const lineItems = findObject('OpportunityLineItem')!;
      const withLines = new Set(live(store, lineItems).map((line) => String(line.OpportunityId)));
      const requested = opportunities.filter((o) => o.Private_Offer_Requested__c === true && !withLines.has(o.Id));
      const pricebooks = new Map(live(store, findObject('Pricebook2')!).map((book) => [book.Id, book]));
      const entriesFor = (o: StoredRecord) =>
        live(store, findObject('PricebookEntry')!).filter((entry) => {
          const book = pricebooks.get(String(entry.Pricebook2Id));
          const inBook = o.Pricebook2Id ? entry.Pricebook2Id === o.Pricebook2Id : book?.IsActive === true && book.IsStandard !== true;
          return entry.IsActive === true && inBook && (o.CurrencyIsoCode === undefined || entry.CurrencyIsoCode === o.CurrencyIsoCode);
        });
      const suited = requested.filter((o) => entriesFor(o).length > 0);
      const opportunity = pickFromTiers(random, [suited.filter(isOpen), suited]);
      if (!opportunity) return undefined;
      const entries = entriesFor(opportunity);
      const book = opportunity.Pricebook2Id ?? random.pick([...new Set(entries.map((entry) => String(entry.Pricebook2Id)))]);
      // An offer is for one marketplace product: the lines are dimensions of one (Product2's Commerce_Product_Id__c).
      const products = live(store, findObject('Product2')!);
      const marketplaceProduct = (entry: StoredRecord) => String(products.find((product) => product.Id === entry.Product2Id)?.Commerce_Product_Id__c ?? entry.Product2Id);
      const bookEntries = entries.filter((entry) => entry.Pricebook2Id === book);
      const product = random.pick([...new Set(bookEntries.map(marketplaceProduct))]);
      const inBook = bookEntries.filter((entry) => marketplaceProduct(entry) === product);
      const chosen = inBook.length > 1 && random.chance(0.5) ? [inBook.splice(random.int(0, inBook.length - 1), 1)[0]!, random.pick(inBook)] : [random.pick(inBook)];
      for (const entry of chosen) {
        // Now and then the seller discounts the list price by a tenth.
        const unitPrice = random.chance(0.3) ? Math.round(Number(entry.UnitPrice) * 90) / 100 : Number(entry.UnitPrice);
        save(env, lineItems, { OpportunityId: opportunity.Id, PricebookEntryId: entry.Id, Quantity: random.int(1, 12), UnitPrice: unitPrice }, { kind: 'create' });
      }
      const saved = store.table(OPPORTUNITY).get(opportunity.Id)!;
      return changeOf(kind, saved, `products added: ${chosen.map((entry) => String(entry.Name)).join(', ')}`);
    }
    case 'approveOffer': {
      // The deal desk approves a private offer the seller built from products, once its draft is made
      // (Commerce_Offer_Id__c written back): the approval process's final field updates set the status
      // and the approver's name. An Opportunity without products is left for the seller to finish.
      const withLines = new Set(live(store, findObject('OpportunityLineItem')!).map((line) => String(line.OpportunityId)));
      const waiting = opportunities.filter((o) => o.Private_Offer_Requested__c === true && withLines.has(o.Id) && hasText(o.Commerce_Offer_Id__c) && o.Offer_Approval_Status__c !== 'Approved');
      const opportunity = pickFromTiers(random, [waiting.filter(isOpen), waiting]);
      if (!opportunity) return undefined;
      const approver = random.pick(DEAL_DESK_APPROVERS);
      const saved = save(env, OPPORTUNITY, { Offer_Approval_Status__c: 'Approved', Offer_Approved_By__c: approver }, { kind: 'update', id: opportunity.Id });
      return changeOf(kind, saved, `private offer ${String(opportunity.Commerce_Offer_Id__c)} approved by ${approver}`);
    }
    case 'closeDeal': {
      // A shared deal the partner took on (ACCEPTED) is the likeliest to close; then any shared open one.
      const sharedOpen = opportunities.filter((o) => o.Cosell_Share__c === true && isOpen(o));
      const opportunity = pickFromTiers(random, [sharedOpen.filter((o) => o.Cosell_Status__c === 'ACCEPTED'), sharedOpen]);
      if (!opportunity) return undefined;
      const previous = String(opportunity.StageName);
      const stage = random.chance(0.7) ? 'Closed Won' : 'Closed Lost';
      const saved = save(env, OPPORTUNITY, { StageName: stage }, { kind: 'update', id: opportunity.Id });
      return changeOf(kind, saved, `closed: ${previous} -> ${stage}`);
    }
  }
}

/**
 * `count` changes now, drawn from `kinds` (default: all of them) with the mix's weights. A kind that no
 * record suits is dropped for the rest of the call, so fewer than `count` come back when the org has
 * nothing left to change (no Opportunity yet, no Account with a buyer id): never an error.
 */
export function applyChanges(env: DriverEnv, count: number, kinds: readonly ChangeKind[] = DEFAULT_CHANGE_KINDS): Change[] {
  const changes: Change[] = [];
  let open = [...WEIGHTS, ...OFFER_DESK_WEIGHTS].filter(([kind]) => kinds.includes(kind));
  while (changes.length < count && open.length > 0) {
    const kind = open.length === 1 ? open[0]![0] : env.driver.random.weighted(open);
    const change = applyOne(env, kind);
    if (change) changes.push(change);
    else open = open.filter(([k]) => k !== kind);
  }
  return changes;
}
