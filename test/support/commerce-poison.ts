// Malformed commerce records of every kind, for the per-CRM poison scenario (test/e2e/poison-records-crms.test.ts):
// what each row is, what is wrong with it (the field and the problem its dead letter must name, written
// here from the contract and the documented rules, never from the code under test) and its repair.
// Rows carry ids of their own and name no record as a child would, so one refusal never drags another
// record with it; their lastUpdateTime is older than any generated record's, so once the first pass has
// gone by, only a dead-letter retry (a read by id) can bring a repaired row to the CRM.
import type { Entity } from './expected-crm.ts';

/** Older than every generated record (those lie on 2025-12-31 and 2026-01-01). */
export const OLD_TIME = '2025-12-01T00:00:00.000Z';
/** A name of 1,000 characters: beyond Salesforce's (Account 255, Contact last name 80) and Dataverse's (160, 50). */
export const OVERSIZED = 'x'.repeat(1_000);

export type PoisonKind = 'missing field' | 'wrong type' | 'bad date' | 'oversized string' | 'unknown enum value' | 'plain-string error body';

export type PoisonRow = {
  entity: Entity;
  kind: PoisonKind;
  /** The commerce record as served: verbatim, however wrong. */
  row: Record<string, unknown>;
  /** The field at fault and the problem, as the dead letter's reason must name them. */
  field: RegExp;
  problem: RegExp;
  /**
   * The same record repaired on the commerce side (same id, same lastUpdateTime). Absent for a row the
   * service serves without a usable id: there is no record to repair in place, its letter stays open.
   */
  repaired?: Record<string, unknown>;
};

/** The commerce kind (`/_sandbox/records/{kind}`) of each entity. */
export const COMMERCE_KIND: Record<Entity, string> = { buyer: 'buyers', contact: 'contacts', offer: 'offers', entitlement: 'entitlements', referral: 'referrals' };

/** A row the service serves without a string id: the sync cannot name it, its letter is `unreadable:<hash>`. */
export const isUnnamed = (poison: PoisonRow) => typeof poison.row.id !== 'string';

const buyer = { organizationID: 'org-1', partner: 'cloudB', country: 'US', status: 'ACTIVE', lastUpdateTime: OLD_TIME };
const contact = { organizationID: 'org-1', buyerID: 'buyer-000002', firstName: 'Pat', phone: '+1-555-000-0000', lastUpdateTime: OLD_TIME };
const offer = { organizationID: 'org-1', buyerID: 'buyer-000002', contactIds: [], partner: 'cloudB', offerType: 'PRIVATE', status: 'ACTIVE', creationTime: '2025-11-01T00:00:00.000Z', lastUpdateTime: OLD_TIME };
const entitlement = { organizationID: 'org-1', buyerID: 'buyer-000002', offerID: 'offer-000032', partner: 'cloudB', status: 'ACTIVE', currency: 'USD', lastUpdateTime: OLD_TIME };
const referral = { organizationID: 'org-1', buyerID: 'buyer-000002', partner: 'cloudB', direction: 'OUTBOUND', status: 'DRAFT', stage: 'Prospect', dealValue: 1000, currency: 'USD', lastUpdateTime: OLD_TIME };

/** What the first pass meets on its pages (window queries), for every entity the sync reads. */
export const PAGE_POISON: PoisonRow[] = [
  // Missing fields: no id at all (the service sends the row, the sync has nothing to key it by).
  { entity: 'buyer', kind: 'missing field', row: { ...buyer, name: 'Buyer without an id' }, field: /\bid\b/, problem: /must be a non-empty string/ },
  { entity: 'contact', kind: 'missing field', row: { ...contact, lastName: 'Without an id', email: 'no.id@poison.example.com' }, field: /\bid\b/, problem: /must be a non-empty string/ },
  { entity: 'entitlement', kind: 'missing field', row: { ...entitlement, name: 'Entitlement without an id' }, field: /\bid\b/, problem: /must be a non-empty string/ },
  { entity: 'referral', kind: 'missing field', row: { ...referral, name: 'Referral without an id' }, field: /\bid\b/, problem: /must be a non-empty string/ },
  // Wrong types: a number where the id string belongs; an object where a date-time belongs.
  { entity: 'contact', kind: 'wrong type', row: { ...contact, id: 4242, lastName: 'Numbered', email: 'numbered@poison.example.com' }, field: /\bid\b/, problem: /must be a non-empty string/ },
  {
    entity: 'offer',
    kind: 'wrong type',
    row: { ...offer, id: 'offer-poison-type', name: 'Poison offer (expiry as an object)', expireTime: { seconds: 1_782_777_600 } },
    field: /expireTime/,
    problem: /not a date-time/,
    repaired: { ...offer, id: 'offer-poison-type', name: 'Poison offer (expiry as an object)', expireTime: '2026-06-30T00:00:00.000Z' },
  },
  // Bad dates: text that is no date-time where the contract has one.
  {
    entity: 'offer',
    kind: 'bad date',
    row: { ...offer, id: 'offer-poison-date', name: 'Poison offer (expiry in words)', expireTime: 'next tuesday' },
    field: /expireTime/,
    problem: /not a date-time/,
    repaired: { ...offer, id: 'offer-poison-date', name: 'Poison offer (expiry in words)', expireTime: '2026-07-31T00:00:00.000Z' },
  },
  {
    entity: 'entitlement',
    kind: 'bad date',
    row: { ...entitlement, id: 'ent-poison-date', name: 'Poison entitlement (start in words)', startTime: 'the first of March' },
    field: /startTime/,
    problem: /not a date-time/,
    repaired: { ...entitlement, id: 'ent-poison-date', name: 'Poison entitlement (start in words)', startTime: '2026-03-01T00:00:00.000Z' },
  },
  {
    entity: 'referral',
    kind: 'bad date',
    row: { ...referral, id: 'ref-poison-date', name: 'Poison referral (close in words)', expectedCloseDate: 'end of Q3' },
    field: /expectedCloseDate/,
    problem: /not a date-time|date/,
    repaired: { ...referral, id: 'ref-poison-date', name: 'Poison referral (close in words)', expectedCloseDate: '2026-09-30' },
  },
  // Oversized strings: a 300 kB name no CRM text field holds.
  {
    entity: 'buyer',
    kind: 'oversized string',
    row: { ...buyer, id: 'buyer-poison-long', name: OVERSIZED, emailDomain: 'long.poison.example.com' },
    field: /name/i,
    problem: /too large|exceeded the maximum allowed length|too long/i,
    repaired: { ...buyer, id: 'buyer-poison-long', name: 'Poison buyer (name repaired)', emailDomain: 'long.poison.example.com' },
  },
  {
    entity: 'contact',
    kind: 'oversized string',
    row: { ...contact, id: 'contact-poison-long', lastName: OVERSIZED, email: 'long@poison.example.com' },
    field: /last ?name/i,
    problem: /too large|exceeded the maximum allowed length|too long/i,
    repaired: { ...contact, id: 'contact-poison-long', lastName: 'Repaired', email: 'long@poison.example.com' },
  },
  // Unknown enum values are no poison since issue #25 section 5 (contract §9.5): an offer status §3 does not
  // list is written, the stage left as the CRM holds it (a new record opens at PENDING_CREATE's stage), the
  // raw status kept and counted (test/integration/unknown-values.test.ts; the witnesses above expect it so).
];
