// Everything one running sandbox holds, shared by the auth server, the API server, the control
// endpoints and the change driver. reset() brings it back to the freshly generated state.
import { CallCounter } from './calls.ts';
import { buildEvent, DEFAULT_DELIVERY, eventId, type EventDelivery, type EventInput } from './data/events.ts';
import { CreateDedup } from './dedup.ts';
import { Faults } from './faults.ts';
import type { CommerceJournal } from './journal.ts';
import { createRandom, type Random } from './prng.ts';
import { OrgQuotas } from './quotas.ts';
import { createStore, type Store } from './store.ts';
import { TokenRegistry } from './tokens.ts';
import type { NotificationEvent } from './types.ts';

export type SandboxSettings = {
  seed: number;
  entitlements: number;
  organizationId: string;
  clientId: string;
  clientSecret: string;
  tokenTtlSeconds: number;
  totalCountCap: number;
  changesPerSecond: number;
  unknownEventVersionRate: number;
  /**
   * Whether a change of an entitlement term (usage or commit amounts) also bumps its entitlement's
   * lastUpdateTime and emits an ENTITLEMENT event (true, the assumption A12), or changes the term
   * alone (false). Set by the option and POST /_sandbox/changes/mode.
   */
  termsBumpEntitlement: boolean;
  /**
   * How long the partner reviews a referral the seller submitted (A13); 0 turns the review off. Set by
   * the option and POST /_sandbox/cosell/review.
   */
  partnerReviewSeconds: number;
  baseTime: string;
  now: () => Date;
};

export type SandboxState = {
  settings: SandboxSettings;
  store: Store;
  tokens: TokenRegistry;
  calls: CallCounter;
  faults: Faults;
  dedup: CreateDedup;
  /** Each organization's service quotas and its calls counted against them (A20). */
  quotas: OrgQuotas;
  /** Draws of the change driver and of event versions; reseeded by reset(). */
  random: Random;
  apiUrl: string;
  authUrl: string;
  /** Set with the journalPath option: every change is written to it before it is answered. */
  journal: CommerceJournal | undefined;
  nowMs(): number;
  nowIso(): string;
};

const driverSeed = (seed: number) => (seed * 2654435761) ^ 0xc4a7_9e5d;

export function createState(settings: SandboxSettings): SandboxState {
  const state: SandboxState = {
    settings,
    store: createStore({ seed: settings.seed, entitlements: settings.entitlements, organizationId: settings.organizationId, baseTime: settings.baseTime }),
    tokens: new TokenRegistry(),
    calls: new CallCounter(),
    faults: new Faults(settings.seed),
    dedup: new CreateDedup(),
    quotas: new OrgQuotas(),
    random: createRandom(driverSeed(settings.seed)),
    apiUrl: '',
    authUrl: '',
    journal: undefined,
    nowMs: () => settings.now().getTime(),
    nowIso: () => settings.now().toISOString(),
  };
  return state;
}

/** POST /_sandbox/reset: data regenerated from the seed; counts, faults, tokens, dedup and quotas cleared. */
export function resetState(state: SandboxState): void {
  const { settings } = state;
  state.store = createStore({ seed: settings.seed, entitlements: settings.entitlements, organizationId: settings.organizationId, baseTime: settings.baseTime });
  state.tokens.expireAll();
  state.calls.reset();
  state.faults.clear();
  state.dedup.clear();
  state.quotas.clear();
  state.random = createRandom(driverSeed(settings.seed));
  state.journal?.reset();
}

/** One more than the events held, skipping an eventID an injected event already took. */
function nextEventId(state: SandboxState): string {
  let n = state.store.events.rows.length + 1;
  while (state.store.events.ids.has(eventId(n))) n++;
  return eventId(n);
}

/**
 * Records one notification event for a change (A8). With unknownEventVersionRate > 0 some events
 * carry version 2, which consumers must reject and leave for redelivery (§6.3).
 */
export function emitEvent(state: SandboxState, input: EventInput, delivery: EventDelivery = DEFAULT_DELIVERY): NotificationEvent {
  const rate = state.settings.unknownEventVersionRate;
  const version = rate > 0 && state.random.next() < rate ? 2 : 1;
  const event = buildEvent(state.settings.organizationId, nextEventId(state), version, input, delivery);
  state.store.events.add(event);
  state.journal?.change(state, event);
  return event;
}
