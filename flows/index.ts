// Every flow the worker runs, and what follows from their declarations: the order they run in (parents
// first) and which flows a notification event names. Adding a flow is adding a declaration here.
import type { Entity } from '../mappings/types.ts';
import { buyerFlow } from './buyer.ts';
import { contactFlow } from './contact.ts';
import { entitlementFlow } from './entitlement.ts';
import { inboundReferralFlow } from './inbound-referral.ts';
import { offerFlow } from './offer.ts';
import { referralFlow } from './referral.ts';
import type { CommerceToCrmFlow } from './types.ts';
import type { CrmToCommerceFlow } from './crm-to-commerce.ts';
import { opportunityDraftOfferFlow } from './opportunity-draft-offer.ts';
import { opportunityReferralFlow } from './opportunity-referral.ts';
import { usageFlow } from './usage.ts';
import { usageSummaryFlow } from './usage-summary.ts';
import { renewalFlow } from './renewal.ts';
import { liveAgreementFlow } from './live-agreement.ts';
import { timelineFlow } from './timeline.ts';
import { catalogueFlow, cataloguePriceFlow, catalogueStandardPriceFlow } from './catalogue.ts';

export const FLOWS: Record<Entity, CommerceToCrmFlow<Entity>> = {
  buyer: buyerFlow,
  contact: contactFlow,
  offer: offerFlow,
  entitlement: entitlementFlow,
  referral: referralFlow,
  'inbound-referral': inboundReferralFlow,
  usage: usageFlow,
  'usage-summary': usageSummaryFlow,
  renewal: renewalFlow,
  'live-agreement': liveAgreementFlow,
  timeline: timelineFlow,
  catalogue: catalogueFlow,
  'catalogue-standard-price': catalogueStandardPriceFlow,
  'catalogue-price': cataloguePriceFlow,
};

/** All flows, parents before children (a stable topological order of the declarations). */
export const FLOW_ORDER: readonly Entity[] = topologicalOrder(FLOWS);

/** The selected flows in the order they run. */
export function flowOrder(selected: readonly Entity[]): Entity[] {
  return FLOW_ORDER.filter((name) => selected.includes(name));
}

/** The flow a notification event's entityType names (any case), if any. */
export function flowForEvent(entityType: unknown): Entity | undefined {
  const type = String(entityType ?? '').toUpperCase();
  return FLOW_ORDER.find((name) => FLOWS[name].events.includes(type));
}

function topologicalOrder(flows: Record<Entity, CommerceToCrmFlow<Entity>>): Entity[] {
  const order: Entity[] = [];
  const visit = (name: Entity, path: Entity[]) => {
    if (order.includes(name)) return;
    if (path.includes(name)) throw new Error(`The flows' parents form a cycle: ${[...path, name].join(' -> ')}`);
    for (const parent of flows[name].parents) visit(parent, [...path, name]);
    order.push(name);
  };
  for (const name of Object.keys(flows) as Entity[]) visit(name, []);
  return order;
}

/** The CRM-to-commerce flows, in the order a co-sell run takes them. */
export const CRM_FLOWS: Record<string, CrmToCommerceFlow<any>> = {
  [opportunityReferralFlow.name]: opportunityReferralFlow,
  [opportunityDraftOfferFlow.name]: opportunityDraftOfferFlow,
};

export type { CommerceToCrmFlow, RelatedRead } from './types.ts';
export type { CrmToCommerceFlow } from './crm-to-commerce.ts';
