// CRM opportunities asking for a private offer -> commerce draft offers (POST {O}/draftOffer, A9), exactly
// once: the draft carries metaInfo.crmAOpportunityId (crmBDealId, ...), by which an earlier create whose answer was lost is found.
// Every CRM side reads the record's product lines (issue #28: Salesforce OpportunityLineItem, HubSpot line
// items, Dynamics opportunity products) and, with the connection's approval rule, its approval: the draft
// is built from the lines, held until approved, and a later change of the record is the offer's next step
// (flows/offer-changes.ts). Without a rule Salesforce holds and publishes in one step; HubSpot and Dynamics
// send the draft at once, as they always did (docs/cosell.md).
import { OPPORTUNITY_ID_FIELD } from '../commerce/crm-ids.ts';
import { opportunityDraftOfferSide as dynamicsOpportunityDraftOfferSide, type DynamicsDraftOfferRequest } from '../mappings/dynamics/opportunity-cosell.ts';
import { dealDraftOfferSide, type HubSpotDraftOfferRequest } from '../mappings/hubspot/deal-cosell.ts';
import { opportunityDraftOfferSide, type DraftOfferRequest as SalesforceDraftOfferRequest } from '../mappings/salesforce/opportunity-draft-offer.ts';

type DraftOfferRequest = SalesforceDraftOfferRequest | HubSpotDraftOfferRequest | DynamicsDraftOfferRequest;
import type { CrmToCommerceFlow, Made } from './crm-to-commerce.ts';
import { adoptedDraft, advanceDraftOffer, createDraftOffer } from './offer-changes.ts';
import { PRIVATE_OFFER_REQUESTED, PRIVATE_OFFER_REQUESTED_BY_KIND } from './narrowing.ts';

export const opportunityDraftOfferFlow: CrmToCommerceFlow<DraftOfferRequest> = {
  name: 'opportunity-draft-offer',
  direction: 'crm-to-commerce',
  enabled: (settings) => settings.cosell.enabled,
  // Each CRM reads only the Opportunities asking for a private offer (flows/narrowing.ts).
  crm: {
    salesforce: { ...opportunityDraftOfferSide, narrow: () => PRIVATE_OFFER_REQUESTED },
    hubspot: { ...dealDraftOfferSide, narrow: () => PRIVATE_OFFER_REQUESTED_BY_KIND.hubspot },
    dynamics: { ...dynamicsOpportunityDraftOfferSide, narrow: () => PRIVATE_OFFER_REQUESTED_BY_KIND.dynamics },
  },
  target: {
    // The draft endpoint takes one offer a call.
    batch: 1,
    async create(commerce, orgId, [request]) {
      return [await createDraftOffer(commerce, orgId, request!)];
    },
    async findByCrmIds(commerce, orgId, crmIds, kind) {
      const field = OPPORTUNITY_ID_FIELD[kind];
      const found = new Map<string, Made>();
      for (const crmId of crmIds) {
        for await (const page of commerce.offers.list(orgId, { [field]: crmId, limit: 10 })) {
          const offer = page.records.find((record) => record.metaInfo?.[field] === crmId);
          if (offer) found.set(crmId, adoptedDraft(offer));
        }
      }
      return found;
    },
    // Every CRM's changed record takes its next step, with or without an approval rule: a HubSpot or
    // Dynamics draft sent at once (no rule, publish absent) still takes its changed lines while it is a draft.
    advance: (commerce, orgId, id, request) => advanceDraftOffer(commerce, orgId, id, request),
  },
};
