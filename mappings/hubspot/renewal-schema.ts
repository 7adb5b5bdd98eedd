// The renewal deal's properties and pipeline, and the company's live-agreement mark (issue #25 section 3), as `crm-sync setup` creates them.
import type { PipelineDeclaration, PropertyDeclaration } from './schema.ts';

export const RENEWAL_PIPELINE_LABEL = 'Marketplace renewals';

export const RENEWAL_DEAL_PROPERTIES: PropertyDeclaration[] = [
  { name: 'commerce_renewal_key', label: 'Commerce Renewal Key', type: 'string', fieldType: 'text', hasUniqueValue: true, description: "The renewal's key on the Marketplace Commerce Service side: renewal-<entitlement id> (set by commerce-crm-sync)" },
  { name: 'renewal_offer_id', label: 'Renewal Offer Id', type: 'string', fieldType: 'text' },
  { name: 'renewal_entitlement_id', label: 'Renewal Entitlement Id', type: 'string', fieldType: 'text' },
];

export const RENEWAL_PIPELINE_DECLARATION: PipelineDeclaration = {
  label: RENEWAL_PIPELINE_LABEL,
  stages: [
    { label: 'Renewal due', probability: 0.2 },
    { label: 'Renewal offer drafted', probability: 0.6 },
    { label: 'Renewed', probability: 1, closed: true },
    { label: 'Not renewed', probability: 0, closed: true },
  ],
};

/**
 * The renewing entitlement's side: the commerce id of the entitlement it renews
 * (flows/previous-entitlement-links.ts; text, not an association: docs/crm-wire-behaviour.md).
 */
export const RENEWAL_ENTITLEMENT_PROPERTIES: PropertyDeclaration[] = [
  { name: 'previous_entitlement_id', label: 'Previous Entitlement Id', type: 'string', fieldType: 'text', description: 'The entitlement this one renews, by its Marketplace Commerce Service id (set by commerce-crm-sync)' },
];

/** The company's mark: the buyer has a live marketplace agreement (flows/live-agreement.ts). */
export const LIVE_AGREEMENT_COMPANY_PROPERTIES: PropertyDeclaration[] = [
  { name: 'has_live_marketplace_agreement', label: 'Has Live Marketplace Agreement', type: 'bool', fieldType: 'booleancheckbox', options: [{ label: 'Yes', value: 'true' }, { label: 'No', value: 'false' }] },
];
