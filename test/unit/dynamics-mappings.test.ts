// The default Dynamics 365 (Dataverse) mappings against a table worked out by hand (test/fixtures/dynamics):
// whole records, every column and lookup, for one buyer, contact, offer, entitlement and referral per
// marketplace; every name they write declared in the schema setup creates; the stage tables; and the pure
// co-sell decisions on opportunities, with the page reads behind them against a fake connector.
import { describe, expect, it } from 'vitest';
import type { CrmConnector, CrmRecord } from '../../crm/connector.ts';
import {
  COSELL_TO_DYNAMICS_STAGE,
  DYNAMICS_MAPPINGS,
  DYNAMICS_STEPS,
  DYNAMICS_TABLES,
  DYNAMICS_TO_COSELL_STAGE,
  dynamicsTable,
  inboundReferralToOpportunity,
  NAVIGATION_PROPERTIES,
  OFFER_STATUS_TO_STATE,
  OFFER_STATUS_TO_STEP,
  opportunityDraftOfferSide,
  opportunityReferralSide,
  opportunityRelations,
  opportunityToDraftOffer,
  opportunityToReferral,
  PUBLISHER_PREFIX,
} from '../../mappings/dynamics/index.ts';
import { DRAFT_FIELDS, REFERRAL_FIELDS } from '../../mappings/dynamics/opportunity-cosell.ts';
import { applyMapping } from '../../mappings/overrides.ts';
import { COSELL_TO_SALESFORCE_STAGE } from '../../mappings/salesforce/stages.ts';
import type { EntityMapping, MappedRecord } from '../../mappings/types.ts';
import { MARKETPLACE_FIXTURES } from '../fixtures/commerce/marketplaces.ts';
import { EXPECTED_DYNAMICS_INBOUND_OPPORTUNITY_B, EXPECTED_DYNAMICS_RECORDS } from '../fixtures/dynamics/expected-records.ts';

type Marketplace = keyof typeof MARKETPLACE_FIXTURES;
type Name = keyof (typeof EXPECTED_DYNAMICS_RECORDS)['A'];
const MARKETPLACES = Object.keys(MARKETPLACE_FIXTURES) as Marketplace[];

const CASES: Record<Name, { mapping: EntityMapping<any, any>; input(m: Marketplace): [unknown, unknown] }> = {
  account: { mapping: DYNAMICS_MAPPINGS.buyer, input: (m) => [MARKETPLACE_FIXTURES[m].buyer, undefined] },
  contact: { mapping: DYNAMICS_MAPPINGS.contact, input: (m) => [MARKETPLACE_FIXTURES[m].contact, undefined] },
  offerOpportunity: { mapping: DYNAMICS_MAPPINGS.offer, input: (m) => [MARKETPLACE_FIXTURES[m].offer, undefined] },
  entitlement: { mapping: DYNAMICS_MAPPINGS.entitlement, input: (m) => [MARKETPLACE_FIXTURES[m].entitlement, { terms: MARKETPLACE_FIXTURES[m].terms }] },
  referral: { mapping: DYNAMICS_MAPPINGS.referral, input: (m) => [MARKETPLACE_FIXTURES[m].referral, undefined] },
};

const mapped = (name: Name, m: Marketplace): MappedRecord => {
  const [source, related] = CASES[name].input(m);
  const result = applyMapping(CASES[name].mapping, undefined, source, related);
  if (!result.ok) throw new Error(result.reason);
  return result.record;
};

const mapOk = (mapping: EntityMapping<any, any>, source: unknown, related?: unknown): MappedRecord => {
  const result = applyMapping(mapping, undefined, source, related);
  if (!result.ok) throw new Error(result.reason);
  return result.record;
};

const ALL_MAPPINGS = [...Object.values(DYNAMICS_MAPPINGS), inboundReferralToOpportunity] as EntityMapping<any, any>[];

describe('Dynamics default mappings: whole records, marketplace by marketplace', () => {
  for (const m of MARKETPLACES) {
    for (const name of Object.keys(CASES) as Name[]) {
      it(`${m}: ${name} is exactly the expected record`, () => {
        expect(mapped(name, m)).toEqual(EXPECTED_DYNAMICS_RECORDS[m][name]);
      });
    }
  }

  it("an inbound referral becomes an opportunity on its buyer's account, its stage set only when made", () => {
    expect(mapOk(inboundReferralToOpportunity, MARKETPLACE_FIXTURES.B.referral)).toEqual(EXPECTED_DYNAMICS_INBOUND_OPPORTUNITY_B);
    expect(inboundReferralToOpportunity.createOnly).toEqual(['stepname', 'statecode']);
    // A referral the partner already launched or lost makes a Won or Lost opportunity (issue #22 item 8).
    expect(mapOk(inboundReferralToOpportunity, { ...MARKETPLACE_FIXTURES.B.referral, stage: 'Launched' }).fields.statecode).toBe('Won');
    expect(mapOk(inboundReferralToOpportunity, { ...MARKETPLACE_FIXTURES.B.referral, stage: 'Closed Lost' }).fields.statecode).toBe('Lost');
    // No expected close date: its creation date; no stage: Prospect's step.
    const bare = mapOk(inboundReferralToOpportunity, { ...MARKETPLACE_FIXTURES.B.referral, expectedCloseDate: undefined, creationTime: '2026-02-03T22:00:00.000Z', stage: undefined });
    expect(bare.fields.estimatedclosedate).toBe('2026-02-03');
    expect(bare.fields.stepname).toBe('0-Prospect');
  });

  it('every mapping documents exactly the columns and lookups the table expects it to write', () => {
    for (const name of Object.keys(CASES) as Name[]) {
      const written = new Set(MARKETPLACES.flatMap((m) => Object.keys(EXPECTED_DYNAMICS_RECORDS[m][name].fields)));
      expect(new Set(Object.keys(CASES[name].mapping.describe)), name).toEqual(written);
    }
    expect(new Set(Object.keys(inboundReferralToOpportunity.describe))).toEqual(new Set(Object.keys(EXPECTED_DYNAMICS_INBOUND_OPPORTUNITY_B.fields)));
  });
});

describe('Dynamics schema: what setup creates covers everything the mappings write', () => {
  // The standard lookups' targets (custom lookups declare theirs).
  const STANDARD_LOOKUP_TARGETS: Record<string, string> = { 'opportunity.parentaccountid': 'account', 'contact.parentcustomerid': 'account' };
  const column = (table: string, field: string) => NAVIGATION_PROPERTIES[table]?.[field] ?? field;
  const declared = (table: string, field: string) => {
    const declaration = dynamicsTable(table)!;
    const name = column(table, field);
    return (
      declaration.standardColumns?.includes(name) ||
      declaration.primaryName?.logicalName === name ||
      declaration.columns.some((c) => c.logicalName === name) ||
      declaration.lookups.some((l) => l.logicalName === name)
    );
  };
  const lookupTarget = (table: string, field: string) =>
    dynamicsTable(table)!.lookups.find((l) => l.logicalName === column(table, field))?.target ?? STANDARD_LOOKUP_TARGETS[`${table}.${column(table, field)}`];
  const keyOf = (mapping: EntityMapping<any, any>) => dynamicsTable(mapping.object)!.keys.find((k) => k.columns.length === 1 && k.columns[0] === mapping.externalIdField);

  it('declares the eight tables with their entity sets, the custom ones with a primary name', () => {
    expect(DYNAMICS_TABLES.map((t) => [t.logicalName, t.entitySetName, t.custom])).toEqual([
      ['account', 'accounts', false],
      ['contact', 'contacts', false],
      ['opportunity', 'opportunities', false],
      ['ccs_marketplaceentitlement', 'ccs_marketplaceentitlements', true],
      ['ccs_cosellreferral', 'ccs_cosellreferrals', true],
      ['ccs_opportunitycontact', 'ccs_opportunitycontacts', true],
      // Usage by day (issue #25 section 4).
      ['ccs_marketplaceusage', 'ccs_marketplaceusages', true],
      // The timeline's task activities, keyed by ccs_commerceeventid (issue #27 section 1).
      ['task', 'tasks', false],
    ]);
    for (const table of DYNAMICS_TABLES) {
      expect(Boolean(table.primaryName), table.logicalName).toBe(table.custom);
      // Everything setup creates carries the publisher prefix.
      for (const name of [...table.columns, ...table.lookups, ...table.keys].map((d) => d.logicalName)) expect(name.startsWith(PUBLISHER_PREFIX), name).toBe(true);
      if (table.custom) expect(table.logicalName.startsWith(PUBLISHER_PREFIX)).toBe(true);
      for (const c of table.columns) {
        if (c.type === 'String' || c.type === 'Memo') expect(c.maxLength, c.logicalName).toBeGreaterThan(0);
      }
    }
    expect(dynamicsTable('opportunity')!.columns.find((c) => c.logicalName === 'ccs_cosellerrors')).toEqual({ logicalName: 'ccs_cosellerrors', label: 'Co-sell Errors', type: 'Memo', maxLength: 100_000 });
    expect(dynamicsTable('opportunity')!.columns.find((c) => c.logicalName === 'ccs_offerurl')!.maxLength).toBe(2000);
    expect(dynamicsTable('ccs_opportunitycontact')!.keys).toEqual([]);
  });

  it("keys each mapping by an alternate key named as the README says", () => {
    const keys = Object.fromEntries(ALL_MAPPINGS.map((mapping) => [`${mapping.object}.${mapping.externalIdField}`, keyOf(mapping)?.logicalName]));
    expect(keys).toEqual({
      'account.ccs_commercebuyerid': 'ccs_commercebuyerid_key',
      'contact.ccs_commercecontactid': 'ccs_commercecontactid_key',
      'opportunity.ccs_commerceofferid': 'ccs_commerceofferid_key',
      'ccs_marketplaceentitlement.ccs_entitlementid': 'ccs_entitlementid_key',
      'ccs_cosellreferral.ccs_commercereferralid': 'ccs_commercereferralid_key',
      'opportunity.ccs_commercereferralid': 'ccs_commercereferralid_key',
    });
    for (const mapping of ALL_MAPPINGS) expect(declared(mapping.object, mapping.externalIdField), mapping.externalIdField).toBe(true);
  });

  it('every column and lookup a mapping writes is declared, standard or custom', () => {
    for (const mapping of ALL_MAPPINGS) {
      expect(dynamicsTable(mapping.object), mapping.object).toBeDefined();
      for (const field of Object.keys(mapping.describe)) expect(declared(mapping.object, field), `${mapping.object}.${field}`).toBe(true);
    }
  });

  it("every reference names its parent by the parent's key column, the parent mapping's external id field", () => {
    const parentKeyOf: Record<string, string[]> = {};
    for (const mapping of ALL_MAPPINGS) (parentKeyOf[mapping.object] ??= []).push(mapping.externalIdField);
    const records = [...MARKETPLACES.flatMap((m) => (Object.keys(CASES) as Name[]).map((name) => mapped(name, m))), EXPECTED_DYNAMICS_INBOUND_OPPORTUNITY_B as MappedRecord];
    let references = 0;
    for (const record of records) {
      for (const [field, value] of Object.entries(record.fields)) {
        if (value === null || typeof value !== 'object') continue;
        references += 1;
        const target = lookupTarget(record.object, field);
        expect(target, `${record.object}.${field} is a lookup`).toBeDefined();
        const keys = Object.keys(value);
        expect(keys, `${record.object}.${field}`).toHaveLength(1);
        expect(parentKeyOf[target!], `${record.object}.${field} -> ${target}`).toContain(keys[0]);
        expect(keyOf({ object: target!, externalIdField: keys[0]! } as EntityMapping<any, any>), `${target}.${keys[0]} is an alternate key`).toBeDefined();
      }
    }
    expect(references).toBeGreaterThan(20);
  });

  it('the co-sell sides read and write only declared opportunity columns (lookups read as _<lookup>_value)', () => {
    const asColumn = (field: string) => field.replace(/^_(.+)_value$/, '$1');
    const read = [...REFERRAL_FIELDS, ...DRAFT_FIELDS, 'ccs_cosellshare'];
    const written = [
      ...Object.keys(opportunityReferralSide.made({ id: 'r', status: 's', stage: 't' })),
      ...Object.keys(opportunityReferralSide.refused('x')),
      ...Object.keys(opportunityDraftOfferSide.made({ id: 'o' })),
      ...Object.keys(opportunityDraftOfferSide.refused('x')),
      opportunityReferralSide.madeField,
      opportunityDraftOfferSide.madeField,
    ];
    for (const field of [...read, ...written]) expect(declared('opportunity', asColumn(field)), field).toBe(true);
  });
});

describe('Dynamics mappings refuse what cannot be mapped, with a reason, never a throw', () => {
  it('records without an id', () => {
    expect(applyMapping(DYNAMICS_MAPPINGS.buyer, undefined, { ...MARKETPLACE_FIXTURES.A.buyer, id: '' }, undefined)).toEqual({ ok: false, reason: 'the buyer has no id' });
    expect(applyMapping(DYNAMICS_MAPPINGS.contact, undefined, { ...MARKETPLACE_FIXTURES.A.contact, id: '' }, undefined)).toEqual({ ok: false, reason: 'the contact has no id' });
    expect(applyMapping(DYNAMICS_MAPPINGS.offer, undefined, { ...MARKETPLACE_FIXTURES.A.offer, id: '' }, undefined)).toEqual({ ok: false, reason: 'the offer has no id' });
    expect(applyMapping(DYNAMICS_MAPPINGS.entitlement, undefined, { ...MARKETPLACE_FIXTURES.A.entitlement, id: '' }, { terms: [] })).toEqual({ ok: false, reason: 'the entitlement has no id' });
    expect(applyMapping(DYNAMICS_MAPPINGS.referral, undefined, { ...MARKETPLACE_FIXTURES.A.referral, id: '' }, undefined)).toEqual({ ok: false, reason: 'the referral has no id' });
    expect(applyMapping(inboundReferralToOpportunity, undefined, { ...MARKETPLACE_FIXTURES.B.referral, id: '' }, undefined)).toEqual({ ok: false, reason: 'the referral has no id' });
  });

  it('unparseable dates, naming the record and the field', () => {
    expect(applyMapping(DYNAMICS_MAPPINGS.offer, undefined, { ...MARKETPLACE_FIXTURES.A.offer, expireTime: 'next tuesday' }, undefined)).toEqual({ ok: false, reason: 'offer offer-cloudA: expireTime "next tuesday" is not a date-time' });
    expect(applyMapping(DYNAMICS_MAPPINGS.entitlement, undefined, { ...MARKETPLACE_FIXTURES.B.entitlement, startTime: 'soon' }, { terms: [] })).toEqual({ ok: false, reason: 'entitlement ent-cloudB-1: startTime "soon" is not a date-time' });
    expect(applyMapping(DYNAMICS_MAPPINGS.referral, undefined, { ...MARKETPLACE_FIXTURES.A.referral, expectedCloseDate: '31/06/2026' }, undefined)).toEqual({ ok: false, reason: 'referral ref-cloudA: expectedCloseDate "31/06/2026" is not a date-time' });
    expect(applyMapping(inboundReferralToOpportunity, undefined, { ...MARKETPLACE_FIXTURES.B.referral, expectedCloseDate: 'Q3' }, undefined)).toEqual({ ok: false, reason: 'referral ref-cloudB: expectedCloseDate "Q3" is not a date-time' });
  });

  it('an inbound referral without a buyer', () => {
    expect(applyMapping(inboundReferralToOpportunity, undefined, { ...MARKETPLACE_FIXTURES.B.referral, buyerID: undefined }, undefined)).toEqual({
      ok: false,
      reason: 'referral ref-cloudB names no buyer, so there is no account to put its opportunity on',
    });
  });

  it('an offer status no step is mapped for, naming the value and the way out; a connection may map it', () => {
    const onHold = { ...MARKETPLACE_FIXTURES.B.offer, status: 'ON_HOLD' };
    // §9.5: the phase and state stay as the CRM holds them, the raw status goes to ccs_offerstatus, the rest is written.
    const unknown = applyMapping(DYNAMICS_MAPPINGS.offer, undefined, onHold, undefined);
    expect(unknown.ok && unknown.record.fields.ccs_offerstatus).toBe('ON_HOLD');
    expect(unknown.ok && ['stepname', 'statecode'].filter((field) => field in unknown.record.fields)).toEqual([]);
    expect(unknown.ok && unknown.unknown).toEqual([{ field: 'stepname', value: 'ON_HOLD', onCreate: '1-Qualify' }, { field: 'statecode', value: 'ON_HOLD', onCreate: 'Open' }]);
    const overridden = applyMapping(DYNAMICS_MAPPINGS.offer, { picklists: { stepname: { ON_HOLD: '2-Develop' } } }, onHold, undefined);
    expect(overridden.ok && overridden.record.fields.stepname).toBe('2-Develop');
  });

  it('an offer status the state map lacks leaves the opportunity\'s state alone (no statecode in the record), never refusing it', () => {
    const onHold = { ...MARKETPLACE_FIXTURES.B.offer, status: 'ON_HOLD' };
    const mapped = applyMapping(DYNAMICS_MAPPINGS.offer, { picklists: { stepname: { ON_HOLD: '2-Develop' } } }, onHold, undefined);
    expect(mapped.ok).toBe(true);
    if (!mapped.ok) return;
    expect(mapped.record.fields).not.toHaveProperty('statecode');
    expect(mapped.record.fields).toMatchObject({ stepname: '2-Develop', ccs_offerstatus: 'ON_HOLD' });
    // A mapped status still names its state.
    const won = applyMapping(DYNAMICS_MAPPINGS.offer, { picklists: { stepname: { ON_HOLD: '2-Develop' }, statecode: { ON_HOLD: 'Won' } } }, onHold, undefined);
    expect(won.ok && won.record.fields.statecode).toBe('Won');
  });
});

describe('Dynamics mappings pass hostile text through unchanged (a typed column value, never a query)', () => {
  const hostile = `O'Neil "Deal" \\ ') or 1 eq 1 -- ✓ Zürich 日本 🚀`;

  it('in names, ids and references alike', () => {
    const offer = mapOk(DYNAMICS_MAPPINGS.offer, { ...MARKETPLACE_FIXTURES.A.offer, name: hostile, buyerID: hostile });
    expect(offer.fields.name).toBe(hostile);
    expect(offer.fields.parentaccountid).toEqual({ ccs_commercebuyerid: hostile });
    const buyer = mapOk(DYNAMICS_MAPPINGS.buyer, { ...MARKETPLACE_FIXTURES.A.buyer, id: hostile, name: hostile });
    expect(buyer.externalId).toBe(hostile);
    expect(buyer.fields.name).toBe(hostile);
    const contact = mapOk(DYNAMICS_MAPPINGS.contact, { ...MARKETPLACE_FIXTURES.A.contact, lastName: hostile, email: `o'neil@example.com` });
    expect(contact.fields.lastname).toBe(hostile);
    expect(contact.fields.emailaddress1).toBe(`o'neil@example.com`);
    const referral = mapOk(DYNAMICS_MAPPINGS.referral, { ...MARKETPLACE_FIXTURES.A.referral, name: hostile, offerID: hostile });
    expect(referral.fields.ccs_name).toBe(hostile);
    expect(referral.fields.ccs_opportunityid).toEqual({ ccs_commerceofferid: hostile });
    expect(opportunityToReferral({ id: 'a1b2c3d4-0000-0000-0000-000000000001', name: hostile, ccs_cosellshare: true, ccs_cosellpartner: 'Marketplace A' }, { by: 'checkbox', field: 'ccs_cosellshare' }, { buyerId: 'b', contactIds: [] })).toMatchObject({ asks: true, request: { name: hostile } });
  });
});

describe('carried Dynamics opportunity ids become lowercase bare GUIDs', () => {
  const braced = '{6F9619FF-8B86-D011-B42D-00C04FC964FF}';
  const guid = '6f9619ff-8b86-d011-b42d-00c04fc964ff';

  it("an offer's metaInfo.crmCOpportunityId is the opportunity it updates", () => {
    const record = mapOk(DYNAMICS_MAPPINGS.offer, { ...MARKETPLACE_FIXTURES.A.offer, metaInfo: { crmCOpportunityId: braced } });
    expect(record.carriedCrmId).toBe(guid);
    expect(record.externalId).toBe('offer-cloudA');
  });

  it("a referral's crmCOpportunityId binds its row to that opportunity by GUID instead of by the offer's key", () => {
    const record = mapOk(DYNAMICS_MAPPINGS.referral, { ...MARKETPLACE_FIXTURES.A.referral, crmCOpportunityId: ` ${braced} ` });
    expect(record.fields.ccs_opportunityid).toBe(guid);
    // The row is the referral's own, not the opportunity: it carries no CRM id of its own.
    expect(record.carriedCrmId).toBeUndefined();
    expect(mapOk(DYNAMICS_MAPPINGS.referral, { ...MARKETPLACE_FIXTURES.C.referral, crmCOpportunityId: guid.toUpperCase() }).fields.ccs_opportunityid).toBe(guid);
  });

  it('an inbound referral already linked carries its opportunity; a buyer its account', () => {
    expect(mapOk(inboundReferralToOpportunity, { ...MARKETPLACE_FIXTURES.B.referral, crmCOpportunityId: braced }).carriedCrmId).toBe(guid);
    expect(mapOk(DYNAMICS_MAPPINGS.buyer, { ...MARKETPLACE_FIXTURES.B.buyer, metaInfo: { crmCAccountId: braced } }).carriedCrmId).toBe(guid);
  });
});

describe('Dynamics stage tables', () => {
  const COSELL_STAGES = Object.keys(COSELL_TO_SALESFORCE_STAGE);

  it('every co-sell stage goes to a step and every step comes back as a co-sell stage', () => {
    expect(new Set(Object.keys(COSELL_TO_DYNAMICS_STAGE))).toEqual(new Set(COSELL_STAGES));
    expect(new Set(Object.keys(DYNAMICS_TO_COSELL_STAGE))).toEqual(new Set(DYNAMICS_STEPS));
    expect([...DYNAMICS_STEPS]).toEqual(['0-Prospect', '1-Qualify', '2-Develop', '3-Propose', '4-Close', 'Won', 'Lost']);
    for (const step of Object.values(COSELL_TO_DYNAMICS_STAGE)) expect(DYNAMICS_STEPS, step).toContain(step);
    for (const stage of Object.values(DYNAMICS_TO_COSELL_STAGE)) expect(COSELL_STAGES, stage).toContain(stage);
  });

  it('a step goes to the commerce side and comes back as itself (no stage flips between runs)', () => {
    for (const step of DYNAMICS_STEPS) expect(COSELL_TO_DYNAMICS_STAGE[DYNAMICS_TO_COSELL_STAGE[step]!], step).toBe(step);
    // And each co-sell stage comes back as itself: seven steps for seven stages.
    for (const stage of COSELL_STAGES) expect(DYNAMICS_TO_COSELL_STAGE[COSELL_TO_DYNAMICS_STAGE[stage]!], stage).toBe(stage);
    expect(COSELL_TO_DYNAMICS_STAGE.Prospect).toBe('0-Prospect');
    expect(DYNAMICS_TO_COSELL_STAGE['1-Qualify']).toBe('Qualified');
  });

  it('every offer status has a step', () => {
    expect(OFFER_STATUS_TO_STEP).toEqual({
      PENDING_CREATE: '1-Qualify',
      PENDING_ACCEPTANCE: '3-Propose',
      ACTIVE: '3-Propose',
      UPDATE_FAILED: '4-Close',
      PENDING_CANCEL: '4-Close',
      ACCEPTED: 'Won',
      USED: 'Won',
      EXPIRED: 'Lost',
      DELETED: 'Lost',
    });
    expect(DYNAMICS_MAPPINGS.offer.picklists).toEqual({ stepname: OFFER_STATUS_TO_STEP, statecode: OFFER_STATUS_TO_STATE });
  });

  it('every offer status has a state: accepted deals Won, expired, cancelled or deleted ones Lost (issue #22 item 8)', () => {
    expect(OFFER_STATUS_TO_STATE).toEqual({
      PENDING_CREATE: 'Open',
      PENDING_ACCEPTANCE: 'Open',
      ACTIVE: 'Open',
      UPDATE_FAILED: 'Open',
      PENDING_CANCEL: 'Lost',
      ACCEPTED: 'Won',
      USED: 'Won',
      EXPIRED: 'Lost',
      DELETED: 'Lost',
    });
  });
});

describe('Dynamics opportunities asking the commerce side', () => {
  const rule = { by: 'checkbox', field: 'ccs_cosellshare' } as const;
  const settings = (share: unknown = rule) => ({ cosell: { enabled: true, share } }) as never;
  const opportunity: CrmRecord = {
    id: 'A1B2C3D4-E5F6-4711-8899-AABBCCDDEEFF',
    name: 'Big deal',
    _parentaccountid_value: 'aaaa0000-0000-0000-0000-000000000001',
    estimatedvalue: 1200.5,
    estimatedclosedate: '2027-03-31',
    stepname: '2-Develop',
    ccs_cosellshare: true,
    ccs_cosellpartner: 'Marketplace B',
  };
  const linked = { accountId: 'aaaa0000-0000-0000-0000-000000000001', buyerId: 'buyer-1', contactIds: [] };

  it('a shared opportunity asks for a referral naming it by its lowercase GUID', () => {
    expect(opportunityToReferral(opportunity, rule, linked)).toEqual({
      asks: true,
      request: { name: 'Big deal', partner: 'cloudB', buyerID: 'buyer-1', dealValue: 1200.5, currency: 'USD', expectedCloseDate: '2027-03-31', crmCOpportunityId: 'a1b2c3d4-e5f6-4711-8899-aabbccddeeff', status: 'SUBMITTED' },
    });
    const braced = opportunityToReferral({ ...opportunity, id: '{A1B2C3D4-E5F6-4711-8899-AABBCCDDEEFF}', description: 'Joint pursuit', estimatedvalue: null, estimatedclosedate: null }, rule, linked);
    expect(braced).toEqual({ asks: true, request: { name: 'Big deal', partner: 'cloudB', buyerID: 'buyer-1', currency: 'USD', description: 'Joint pursuit', crmCOpportunityId: 'a1b2c3d4-e5f6-4711-8899-aabbccddeeff', status: 'SUBMITTED' } });
  });

  it('with a submit rule, the referral waits as a draft until the second signal (ccs_cosellsubmit) is there', () => {
    const submit = { by: 'checkbox', field: 'ccs_cosellsubmit' } as const;
    const waiting = opportunityToReferral(opportunity, rule, linked, submit);
    expect(waiting.asks && 'request' in waiting && waiting.request.status).toBe(undefined);
    const signalled = opportunityToReferral({ ...opportunity, ccs_cosellsubmit: true }, rule, linked, submit);
    expect(signalled.asks && 'request' in signalled && signalled.request.status).toBe('SUBMITTED');
  });

  it("the connection's share rule decides: the checkbox, a picklist, or the stepname", () => {
    expect(opportunityToReferral({ ...opportunity, ccs_cosellshare: false }, rule, linked)).toEqual({ asks: false });
    expect(opportunityToReferral({ ...opportunity, ccs_cosellshare: null }, rule, linked)).toEqual({ asks: false });
    expect(opportunityToReferral(opportunity, { by: 'stage', stages: ['3-Propose'] }, linked)).toEqual({ asks: false });
    expect(opportunityToReferral({ ...opportunity, ccs_cosellshare: false }, { by: 'stage', stages: ['2-Develop'] }, linked).asks).toBe(true);
    expect(opportunityToReferral({ ...opportunity, new_share: 'Yes' }, { by: 'picklist', field: 'new_share', values: ['Yes'] }, linked).asks).toBe(true);
    expect(opportunityReferralSide.fields(settings({ by: 'stage', stages: ['4-Close'] }))).toContain('stepname');
    expect(opportunityReferralSide.fields(settings())).toContain('ccs_cosellshare');
    expect(opportunityReferralSide.fields(settings({ by: 'picklist', field: 'new_share', values: ['Yes'] }))).toContain('new_share');
    expect(opportunityReferralSide.ask(opportunity, settings(), linked)).toEqual(opportunityToReferral(opportunity, rule, linked));
  });

  it('shared without a marketplace partner or a marketplace account: refused in words revenue ops can act on in Dynamics', () => {
    expect(opportunityToReferral({ ...opportunity, ccs_cosellpartner: 'Marketplace Z' }, rule, { accountId: 'aaaa0000-0000-0000-0000-000000000001', contactIds: [] })).toEqual({
      asks: true,
      refused:
        'partner: "Marketplace Z" is not a marketplace; enter one of Marketplace A to Marketplace F in Co-sell Partner\n' +
        "buyerID: the opportunity's Account is not linked to a marketplace buyer (its Commerce Buyer Id is empty); choose an account synced from the marketplace, then save the opportunity again",
    });
    expect(opportunityToReferral({ ...opportunity, ccs_cosellpartner: null, _parentaccountid_value: null }, rule, { contactIds: [] })).toEqual({
      asks: true,
      refused:
        'partner: "(empty)" is not a marketplace; enter one of Marketplace A to Marketplace F in Co-sell Partner\n' +
        'buyerID: the opportunity has no Account; choose in its Account field an account synced from the marketplace (one with a Commerce Buyer Id), then save the opportunity again',
    });
    // The partner's name is matched whatever its case.
    expect(opportunityToReferral({ ...opportunity, ccs_cosellpartner: ' marketplace f ' }, rule, linked)).toMatchObject({ asks: true, request: { partner: 'cloudF' } });
  });

  it('what goes back onto the opportunity: the referral, or the reasons', () => {
    expect(opportunityReferralSide.madeField).toBe('ccs_commercereferralid');
    expect(opportunityReferralSide.made({ id: 'ref-9', status: 'SUBMITTED', stage: 'Prospect' })).toEqual({ ccs_commercereferralid: 'ref-9', ccs_cosellstatus: 'SUBMITTED', ccs_cosellstage: 'Prospect', ccs_cosellerrors: null, ccs_cosellreviewends: null });
    expect(opportunityReferralSide.made({ id: 'ref-9' })).toEqual({ ccs_commercereferralid: 'ref-9', ccs_cosellstatus: null, ccs_cosellstage: null, ccs_cosellerrors: null });
    expect(opportunityReferralSide.refused('partner: no')).toEqual({ ccs_cosellstatus: 'Not shared', ccs_cosellerrors: 'partner: no' });
    expect((opportunityReferralSide.refused('x'.repeat(200_000)).ccs_cosellerrors as string).length).toBe(100_000);
    expect(opportunityDraftOfferSide.madeField).toBe('ccs_commerceofferid');
    expect(opportunityDraftOfferSide.made({ id: 'offer-9' })).toEqual({ ccs_commerceofferid: 'offer-9', ccs_coselldrafterrors: null });
    expect(opportunityDraftOfferSide.refused('productID: none')).toEqual({ ccs_coselldrafterrors: 'productID: none' });
    expect(opportunityReferralSide.object).toBe('opportunity');
    expect(opportunityDraftOfferSide.object).toBe('opportunity');
  });

  it('an opportunity asking for a private offer names its product, buyer, contacts and itself', () => {
    const asking = { ...opportunity, ccs_privateofferrequested: true, ccs_commerceproductid: ' prod-9 ' };
    expect(opportunityToDraftOffer(asking, { ...linked, contactIds: ['c-2', 'c-1', 'c-2'] })).toEqual({
      asks: true,
      request: {
        name: 'Big deal', offerType: 'PRIVATE', productID: 'prod-9', buyerID: 'buyer-1', expireTime: '2027-03-31T23:59:59.000Z',
        info: { commitAmount: 1200.5, currency: 'USD' }, contactIds: ['c-1', 'c-2'], metaInfo: { crmCOpportunityId: 'a1b2c3d4-e5f6-4711-8899-aabbccddeeff' },
      },
    });
    expect(opportunityToDraftOffer({ ...asking, id: '{0000AAAA-0000-0000-0000-00000000BBBB}', estimatedvalue: -5, estimatedclosedate: undefined }, linked)).toEqual({
      asks: true,
      request: { name: 'Big deal', offerType: 'PRIVATE', productID: 'prod-9', buyerID: 'buyer-1', metaInfo: { crmCOpportunityId: '0000aaaa-0000-0000-0000-00000000bbbb' } },
    });
    expect(opportunityToDraftOffer({ ...asking, ccs_commerceproductid: '' }, { accountId: 'x', contactIds: [] })).toEqual({
      asks: true,
      refused:
        'productID: no marketplace product is named; fill Commerce Product Id with the product to offer\n' +
        "buyerID: the opportunity's Account is not linked to a marketplace buyer (its Commerce Buyer Id is empty); choose an account synced from the marketplace, then save the opportunity again",
    });
    expect(opportunityToDraftOffer(opportunity, linked)).toEqual({ asks: false });
    expect(opportunityToDraftOffer({ ...asking, ccs_privateofferrequested: false }, linked)).toEqual({ asks: false });
    expect(opportunityDraftOfferSide.ask(asking, settings(), linked)).toEqual(opportunityToDraftOffer(asking, linked));
  });
});

describe("reading a page's accounts and contacts (a fake connector)", () => {
  type Call = { object: string; field: string; values: string[]; fields?: string[] };
  const fake = (tables: Record<string, CrmRecord[]>) => {
    const calls: Call[] = [];
    const crm = {
      kind: 'dynamics',
      idField: 'id',
      stampField: 'modifiedon',
      async findWhereIn(object: string, field: string, values: string[], fields?: string[]) {
        calls.push({ object, field, values, fields });
        return (tables[object] ?? []).filter((row) => values.includes(String(row[field]).toLowerCase()));
      },
    } as unknown as CrmConnector;
    return { crm, calls };
  };
  const ACCOUNT_1 = 'aaaa0000-0000-0000-0000-000000000001';
  const ACCOUNT_2 = 'aaaa0000-0000-0000-0000-000000000002';
  const tables = {
    account: [
      { id: ACCOUNT_1, ccs_commercebuyerid: 'buyer-1' },
      { id: ACCOUNT_2, ccs_commercebuyerid: null },
    ],
    ccs_opportunitycontact: [
      { id: 'link-1', _ccs_opportunityid_value: 'bbbb0000-0000-0000-0000-000000000001', _ccs_contactid_value: 'c0000000-0000-0000-0000-000000000001' },
      { id: 'link-2', _ccs_opportunityid_value: 'bbbb0000-0000-0000-0000-000000000001', _ccs_contactid_value: 'c0000000-0000-0000-0000-000000000002' },
      { id: 'link-3', _ccs_opportunityid_value: 'bbbb0000-0000-0000-0000-000000000002', _ccs_contactid_value: 'c0000000-0000-0000-0000-000000000003' },
    ],
    contact: [
      { id: 'c0000000-0000-0000-0000-000000000001', ccs_commercecontactid: 'contact-1' },
      // Made in Dynamics: no commerce id, so no commerce contact of the draft.
      { id: 'c0000000-0000-0000-0000-000000000002', ccs_commercecontactid: null },
      { id: 'c0000000-0000-0000-0000-000000000003', ccs_commercecontactid: 'contact-3' },
    ],
  };
  const page: CrmRecord[] = [
    // Ids as the connector reads them may come uppercase; the map is keyed by them as read.
    { id: 'BBBB0000-0000-0000-0000-000000000001', _parentaccountid_value: ACCOUNT_1.toUpperCase(), ccs_privateofferrequested: true },
    { id: 'bbbb0000-0000-0000-0000-000000000002', _parentaccountid_value: ACCOUNT_2, ccs_privateofferrequested: true },
    { id: 'bbbb0000-0000-0000-0000-000000000003', _parentaccountid_value: null, ccs_privateofferrequested: false },
  ];

  it('finds each opportunity\'s buyer through its account and its commerce contacts through ccs_opportunitycontact', async () => {
    const { crm, calls } = fake(tables);
    const relations = await opportunityRelations(crm, page, { contacts: true });
    expect(relations).toEqual(
      new Map([
        ['BBBB0000-0000-0000-0000-000000000001', { accountId: ACCOUNT_1, buyerId: 'buyer-1', contactIds: ['contact-1'] }],
        ['bbbb0000-0000-0000-0000-000000000002', { accountId: ACCOUNT_2, contactIds: ['contact-3'] }],
        ['bbbb0000-0000-0000-0000-000000000003', { contactIds: [] }],
      ]),
    );
    expect(calls).toEqual([
      { object: 'account', field: 'id', values: [ACCOUNT_1, ACCOUNT_2], fields: ['ccs_commercebuyerid'] },
      {
        object: 'ccs_opportunitycontact',
        field: '_ccs_opportunityid_value',
        values: ['bbbb0000-0000-0000-0000-000000000001', 'bbbb0000-0000-0000-0000-000000000002', 'bbbb0000-0000-0000-0000-000000000003'],
        fields: ['_ccs_contactid_value'],
      },
      { object: 'contact', field: 'id', values: ['c0000000-0000-0000-0000-000000000001', 'c0000000-0000-0000-0000-000000000002', 'c0000000-0000-0000-0000-000000000003'], fields: ['ccs_commercecontactid'] },
    ]);
  });

  it('the referral side reads accounts only; the draft side reads for the asking opportunities only; an empty page reads nothing', async () => {
    const referral = fake(tables);
    const byReferral = await opportunityReferralSide.related!(referral.crm, page);
    expect(referral.calls.map((call) => call.object)).toEqual(['account']);
    expect(byReferral.get('BBBB0000-0000-0000-0000-000000000001')).toEqual({ accountId: ACCOUNT_1, buyerId: 'buyer-1', contactIds: [] });

    const draft = fake(tables);
    const byDraft = await opportunityDraftOfferSide.related!(draft.crm, page);
    expect(draft.calls.map((call) => call.object)).toEqual(['account', 'ccs_opportunitycontact', 'contact', 'opportunityproduct']);
    expect(draft.calls[1]!.values).toEqual(['bbbb0000-0000-0000-0000-000000000001', 'bbbb0000-0000-0000-0000-000000000002']);
    expect([...byDraft.keys()]).toEqual(['BBBB0000-0000-0000-0000-000000000001', 'bbbb0000-0000-0000-0000-000000000002']);

    const empty = fake(tables);
    expect(await opportunityDraftOfferSide.related!(empty.crm, [page[2]!])).toEqual(new Map());
    expect(await opportunityRelations(empty.crm, [page[2]!], { contacts: false })).toEqual(new Map([['bbbb0000-0000-0000-0000-000000000003', { contactIds: [] }]]));
    expect(empty.calls).toEqual([]);
  });

  it('end to end on a page: the asking opportunity with a marketplace account drafts an offer, the other is refused', async () => {
    const { crm } = fake(tables);
    const records: CrmRecord[] = page.map((record) => ({ ...record, name: 'Draft me', ccs_commerceproductid: 'prod-1' }));
    const related = await opportunityDraftOfferSide.related!(crm, records);
    const asks = records.map((record) => opportunityDraftOfferSide.ask(record, {} as never, related.get(String(record.id))));
    expect(asks).toEqual([
      { asks: true, request: { name: 'Draft me', offerType: 'PRIVATE', productID: 'prod-1', buyerID: 'buyer-1', contactIds: ['contact-1'], metaInfo: { crmCOpportunityId: 'bbbb0000-0000-0000-0000-000000000001' } } },
      { asks: true, refused: "buyerID: the opportunity's Account is not linked to a marketplace buyer (its Commerce Buyer Id is empty); choose an account synced from the marketplace, then save the opportunity again" },
      { asks: false },
    ]);
  });
});
