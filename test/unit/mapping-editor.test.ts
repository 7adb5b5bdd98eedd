// The mapping page's model and form (issue #26 section 3): each CRM field's source as the page shows it,
// the picklist suggestion preselected where the org lacks the default value and has one of the same
// label, and the overrides a submitted page says, keeping renames and what concerns fields not shown.
import { describe, expect, it } from 'vitest';
import type { FieldSchema, ObjectSchema } from '../../crm/connector.ts';
import { offerToOpportunity } from '../../mappings/salesforce/opportunity.ts';
import { mappingEditorView, overridesFromForm } from '../../ops/mapping-view.ts';

const field = (name: string, extra: Partial<FieldSchema> = {}): FieldSchema => ({ name, type: 'string', required: false, createable: true, updateable: true, externalId: false, ...extra });
// An org whose stages are worded like the statuses: "Accepted", not "Closed Won".
const opportunity: ObjectSchema = {
  name: 'Opportunity',
  fields: new Map(
    [
      field('Name', { required: true }), field('StageName', { type: 'picklist', picklistValues: ['Prospecting', 'Accepted', 'Closed Lost'], restrictedPicklist: true }),
      field('CloseDate', { type: 'date' }), field('Amount', { type: 'currency' }), field('AccountId', { type: 'reference', relationshipName: 'Account' }),
      field('Commerce_Offer_Id__c', { externalId: true }), field('Marketplace__c'), field('Cloud__c'), field('Offer_Type__c'), field('Offer_Status__c'), field('Offer_URL__c'),
      field('Offer_Expiration__c', { type: 'datetime' }), field('Description', { type: 'textarea' }), field('Priority__c', { type: 'double' }),
      field('SystemModstamp', { createable: false, updateable: false }),
    ].map((f) => [f.name, f]),
  ),
};
const canonical = { name: 'offer.name', offerType: 'offer.offerType', status: 'offer.status' };

describe('the mapping page model', () => {
  const view = mappingEditorView({
    mapping: offerToOpportunity,
    overrides: { rename: { Marketplace__c: 'Cloud__c' }, constants: { Priority__c: 3 }, map: { Description: 'offerType' }, createOnly: ['Amount'] },
    schema: opportunity,
    canonical,
    sellerRecords: true,
    typeFilter: 'string',
  });
  const row = (name: string) => view.rows.find((candidate) => candidate.field === name)!;

  it("shows each writable field's source: default, renamed default, canonical value, constant, nothing", () => {
    expect(view.rows.map((candidate) => candidate.field)).not.toContain('SystemModstamp');
    expect(row('Name')).toMatchObject({ source: 'default', defaultFrom: 'offer.name (else "Offer <id>")', required: true, shown: true });
    expect(row('Cloud__c')).toMatchObject({ source: 'default', defaultField: 'Marketplace__c' });
    expect(row('Marketplace__c')).toMatchObject({ source: 'none' });
    expect(row('Description')).toMatchObject({ source: 'canonical', canonical: 'offerType', shown: false });
    expect(row('Priority__c')).toMatchObject({ source: 'constant', constant: '3' });
    expect(row('AccountId')).toMatchObject({ source: 'default', defaultField: 'Account' });
    expect(row('Commerce_Offer_Id__c').key).toBe(true);
    expect(view.types).toEqual(['currency', 'date', 'datetime', 'double', 'picklist', 'reference', 'string', 'textarea']);
  });

  it('suggests the same-label stage where the default one is not in the org, and keeps a default the org has', () => {
    const rows = row('StageName').picklist!.rows;
    expect(rows.find((entry) => entry.source === 'ACCEPTED')).toEqual({ source: 'ACCEPTED', value: 'Closed Won', suggested: 'Accepted' });
    expect(rows.find((entry) => entry.source === 'PENDING_CREATE')).toEqual({ source: 'PENDING_CREATE', value: 'Prospecting' });
    expect(rows.find((entry) => entry.source === 'EXPIRED')).toEqual({ source: 'EXPIRED', value: 'Closed Lost' });
    expect(rows.find((entry) => entry.source === 'ACTIVE')).toEqual({ source: 'ACTIVE', value: 'Proposal/Price Quote' });
  });

  it("create-only and owner: the mapping's own are locked, the connection's ticked", () => {
    expect(row('Amount')).toMatchObject({ createOnly: true, createOnlyLocked: false });
    expect(row('StageName')).toMatchObject({ sellerKeeps: true, sellerKeepsLocked: true });
    expect(row('Name')).toMatchObject({ createOnly: false, sellerKeeps: false });
  });
});

describe('the overrides a submitted mapping page says', () => {
  const saved = { rename: { Marketplace__c: 'Cloud__c' }, disable: ['Offer_URL__c'], constants: { Region__c: 'EMEA' } };
  const form = new URLSearchParams([
    ['source:Name', 'default'], ['source:StageName', 'default'], ['source:Cloud__c', 'default'], ['source:Offer_URL__c', 'default'],
    ['source:Offer_Type__c', 'none'], ['source:Description', 'canonical:offerType'], ['source:Priority__c', 'constant'], ['constant:Priority__c', '7'],
    ['source:Offer_Status__c', 'constant'], ['constant:Offer_Status__c', 'Open'], ['source:Amount', 'default'],
    ['pick:StageName:ACCEPTED', 'Accepted'], ['pick:StageName:EXPIRED', 'Closed Lost'],
    ['createOnly', 'Amount'], ['sellerKeeps', ''], ['sellerKeeps', 'Amount'], ['sellerKeeps', 'StageName'],
  ]);

  it('builds map, disable, constants (typed), picklist changes, createOnly and sellerKeeps; keeps renames and fields not on the page', () => {
    expect(overridesFromForm(form, { mapping: offerToOpportunity, saved, schema: opportunity })).toEqual({
      rename: { Marketplace__c: 'Cloud__c' },
      // Offer_URL__c was set back to its default on the page; Region__c is not in this org's page and stays.
      disable: ['Offer_Type__c'],
      constants: { Region__c: 'EMEA', Priority__c: 7, Offer_Status__c: 'Open' },
      map: { Description: 'offerType' },
      picklists: { StageName: { ACCEPTED: 'Accepted' } },
      createOnly: ['Amount'],
      sellerKeeps: ['Amount'],
    });
  });
});
