// Alerts to the owner of the CRM record (issue #27 follow-up 1), on each CRM's sandbox through the real
// connector: a commerce offer's record is owned by a seller; an alert of a route whose destination is
// the record's owner arrives at that seller's email on a local SMTP server (Salesforce: the record's
// OwnerId user's Email; HubSpot: hubspot_owner_id through the owners API; Dynamics: _ownerid_value's
// internalemailaddress). On HubSpot, owners are read once per delivery pass, counted at the sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlertActivities } from '../../activities/alerts.ts';
import { ownerEmail } from '../../alerts/owner-email.ts';
import { createAlertDeliveryStore } from '../../alerts/deliveries-store.ts';
import { createAlertRouteStore } from '../../alerts/routes-store.ts';
import type { CrmConnector } from '../../crm/connector.ts';
import { createConnector } from '../../crm/registry.ts';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { SELLERS } from '../../sandbox/dynamics/users.ts';
import { control as hubspotControl } from '../../sandbox/hubspot/testing.ts';
import { clientCredentialsConnection } from '../../sandbox/salesforce/testing.ts';
import { SecretBox } from '../../store/secret-box.ts';
import { connectionSettingsSchema } from '../../sync/connection-settings.ts';
import { startCrmSandbox, type CrmUnderTest, type CrmUnderTestKind } from '../support/crm-sandbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { commerceDump } from '../support/expected-crm.ts';
import { memoryConnection } from '../support/memory-crm.ts';
import { startSmtpServer } from '../support/smtp-server.ts';

const box = new SecretBox(Buffer.alloc(32, 7));
let database: TestDatabase;
let commerce: CommerceSandbox;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let offers: { id: string; name: string }[];
const stops: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  commerce = await startCommerceSandbox({ seed: 27 });
  smtp = await startSmtpServer({ user: 'alerts', password: 'pw-owner-smtp' });
  offers = await commerceDump(commerce, 'offers');
});
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
  await smtp?.stop();
  await commerce?.stop();
  await database?.drop();
});

/** A seller's opportunity (deal) for an offer, owned by that seller; the CRM object, its id and the seller's email. */
type Owned = { object: string; crmId: string; email: string };

/** How each CRM makes the offer's record owned by a seller with an email, as an admin and the sync would. */
const OWNED: Record<CrmUnderTestKind, (crm: CrmUnderTest, connector: CrmConnector, offerId: string) => Promise<Owned>> = {
  async salesforce(crm, _connector, offerId) {
    const { conn } = await clientCredentialsConnection(crm.salesforce!);
    const user = (await conn.sobject('User').create({ Username: 'dana@seller.example', Name: 'Dana Seller', Email: 'dana.seller@example.com' })) as { id: string };
    const opportunity = (await conn.sobject('Opportunity').create({ Name: `Offer ${offerId}`, StageName: 'Prospecting', CloseDate: '2027-03-31', OwnerId: user.id })) as { id: string };
    return { object: 'Opportunity', crmId: opportunity.id, email: 'dana.seller@example.com' };
  },
  async hubspot(_crm, connector, offerId) {
    // 71000002 is the sandbox portal's owner Ben Rep (sandbox/hubspot/owners.ts).
    const [deal] = await connector.upsert('deals', [{ sourceId: offerId, externalIdField: 'commerce_offer_id', externalId: offerId, fields: { dealname: `Offer ${offerId}`, hubspot_owner_id: '71000002' } }]);
    if (!deal?.ok) throw new Error(`the deal was not made: ${JSON.stringify(deal)}`);
    return { object: 'deals', crmId: deal.crmId, email: 'ben.rep@example.com' };
  },
  async dynamics(_crm, connector, offerId) {
    const ada = SELLERS.find((seller) => seller.fullname === 'Ada Seller')!;
    const [opportunity] = await connector.upsert('opportunity', [{ sourceId: offerId, externalIdField: 'ccs_commerceofferid', externalId: offerId, fields: { name: `Offer ${offerId}`, ownerid: ada.id } }]);
    if (!opportunity?.ok) throw new Error(`the opportunity was not made: ${JSON.stringify(opportunity)}`);
    return { object: 'opportunity', crmId: opportunity.crmId, email: 'ada.seller@example.com' };
  },
};

async function stack(kind: CrmUnderTestKind, name = `owner-alerts-${kind}`) {
  const crm = await startCrmSandbox(kind);
  stops.push(() => crm.stop());
  const settings = connectionSettingsSchema.parse({ commerce: { baseUrl: commerce.apiUrl, authUrl: commerce.authUrl, clientId: commerce.clientId, organizationId: commerce.organizationId }, crm: crm.settings() });
  const connector = createConnector(settings, { commerceClientSecret: commerce.clientSecret, ...crm.secrets() } as never);
  const made = await memoryConnection(database.pool, commerce, { name, crm: connector as never });
  const activities = createAlertActivities({ pool: database.pool, secretBox: box, runtimeFor: async () => made.runtime as never });
  const route = await createAlertRouteStore(database.pool, box).add({
    connectionId: made.connectionId,
    eventTypes: ['OFFER.*'],
    destination: { kind: 'owner-email', smtp: { host: smtp.host, port: smtp.port, secure: false, user: 'alerts', password: 'pw-owner-smtp', from: 'crm-sync@example.com' } },
  });
  /** The sync's link from a commerce offer to its CRM record. */
  const link = (offerId: string, owned: Owned) =>
    database.pool.query("INSERT INTO record_links (connection_id, entity, source_id, crm_object, crm_id, content_hash) VALUES ($1, 'offer', $2, $3, $4, 'h')", [made.connectionId, offerId, owned.object, owned.crmId]);
  /** One offer event queued for the route and delivered in the pass `pass`, as the alerts workflow does. */
  const deliver = async (eventId: string, offer: { id: string; name: string }, pass: string) => {
    const event = { eventID: eventId, entityType: 'OFFER', entityID: offer.id, entityName: offer.name, action: 'ACCEPTED', title: 'Offer accepted', message: 'The buyer accepted the offer.', channels: ['EMAIL'], partner: 'cloudA' };
    await createAlertDeliveryStore(database.pool).enqueue(made.connectionId, [{ routeId: route.id, event: event as never }]);
    return activities.deliverAlert({ connectionId: made.connectionId, job: { routeId: route.id, eventId }, claim: `${pass}/${eventId}` });
  };
  return { crm, connector, link, deliver };
}

const mailsTo = (address: string) => smtp.mails.filter((mail) => mail.to.includes(address));

describe.each(['salesforce', 'hubspot', 'dynamics'] as const)('%s: an alert to the record owner', (kind) => {
  it("reads the owner's email of the offer's record and the alert arrives there once", async () => {
    const { crm, connector, link, deliver } = await stack(kind);
    const offer = offers[0]!;
    const owned = await OWNED[kind](crm, connector, offer.id);
    expect(await ownerEmail(connector, kind, owned.object, owned.crmId)).toBe(owned.email);
    await link(offer.id, owned);
    const before = mailsTo(owned.email).length;

    expect(await deliver(`evt-${kind}-1`, offer, `alerts-${kind}/run-1`)).toEqual({ sent: 1 });
    const arrived = mailsTo(owned.email).slice(before);
    expect(arrived).toHaveLength(1);
    expect(arrived[0]).toMatchObject({ from: 'crm-sync@example.com', to: [owned.email], user: 'alerts' });
    expect(arrived[0]!.raw.replace(/=\r?\n/g, '')).toContain('Offer accepted');
    // Delivered again (a retry after the send): nothing more.
    expect(await deliver(`evt-${kind}-1`, offer, `alerts-${kind}/run-1`)).toEqual({ sent: 0 });
    expect(mailsTo(owned.email).slice(before)).toHaveLength(1);
  });
});

describe('hubspot: owners are read once per delivery pass', () => {
  it('two alerts to one owner in a pass read the owner once; the next pass reads it again', async () => {
    const { crm, connector, link, deliver } = await stack('hubspot', 'owner-alerts-passes');
    const [first, second] = [offers[1]!, offers[2]!];
    await link(first.id, await OWNED.hubspot(crm, connector, first.id));
    await link(second.id, await OWNED.hubspot(crm, connector, second.id));
    const ownerReads = async () => (await hubspotControl(crm.hubspot!, 'GET', '/calls'))['owners.read'] ?? 0;
    expect(await ownerReads()).toBe(0);
    await deliver('evt-pass-1a', first, 'alerts-hubspot/run-2');
    await deliver('evt-pass-1b', second, 'alerts-hubspot/run-2');
    expect(await ownerReads()).toBe(1);
    await deliver('evt-pass-2', first, 'alerts-hubspot/run-3');
    expect(await ownerReads()).toBe(2);
  });
});
