// `crm-sync setup` for connections that chose the product catalogue (issue #28 section 1), as processes
// against real PostgreSQL and the CRM sandboxes: on Salesforce and Dynamics setup makes the catalogue's
// part, keeps the ids it found in the connection's crm.catalogueIds (each as the CRM's own queries find
// it) with the audit row in one transaction, and says so; a second run keeps them and says nothing of
// them. The price book (price lists) is the connection's catalogue.priceBook, a name with quotes, a
// backslash and non-Latin text. On HubSpot setup makes the product properties (no ids to keep). A
// Dynamics connection that chose the timeline gets activities on a table made before it.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ENTITIES } from '../../mappings/types.ts';
import { startCommerceSandbox, type CommerceSandbox } from '../../sandbox/commerce/index.ts';
import { startDynamicsSandbox, type DynamicsSandbox } from '../../sandbox/dynamics/index.ts';
import { startHubSpotSandbox, type HubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { createConnectionStore, type ConnectionStore } from '../../store/connections.ts';
import { SecretBox } from '../../store/secret-box.ts';
import { connectionSettingsSchema } from '../../sync/connection-settings.ts';
import { clientFor } from '../sandbox/dynamics-helpers.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const BIN = path.join(import.meta.dirname, '..', '..', 'bin', 'crm-sync.ts');
const run = promisify(execFile);
const BOOK = `Acme's "EU" \\ 価格表`;
const soqlString = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const odataString = (text: string) => `'${text.replace(/'/g, "''")}'`;

describe('crm-sync setup with the product catalogue chosen (real PostgreSQL, sandboxes)', () => {
  const key = randomBytes(32);
  let database: TestDatabase;
  let store: ConnectionStore;
  let commerce: CommerceSandbox;
  let salesforce: SalesforceSandbox;
  let dynamics: DynamicsSandbox;
  let hubspot: HubSpotSandbox;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    database = await createTestDatabase();
    store = createConnectionStore(database.pool, new SecretBox(key));
    [commerce, salesforce, dynamics, hubspot] = await Promise.all([
      startCommerceSandbox({ entitlements: 2, seed: 3 }),
      startSalesforceSandbox(),
      startDynamicsSandbox({ currencies: ['EUR'], keyActivationMs: 0 }),
      startHubSpotSandbox(),
    ]);
    env = {
      ...process.env,
      DATABASE_URL: database.url,
      CRM_SYNC_SECRET_KEY: key.toString('base64'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      CRM_SYNC_TASK_QUEUE: `setup-catalogue-${Date.now()}`,
      CRM_SYNC_DEMO: 'off',
      LOG_LEVEL: 'silent',
    };
  });
  afterAll(async () => {
    await Promise.all([salesforce?.stop(), dynamics?.stop(), hubspot?.stop(), commerce?.stop()]);
    await database?.drop();
  });

  const setup = async (name: string) => JSON.parse((await run(process.execPath, [BIN, 'setup', name, '--json'], { env })).stdout) as { created: string[]; present: string[]; problems: string[]; notes: string[] };
  /** A connection saved as `connect` saves one, choosing the catalogue (and the timeline) with the hostile price book. */
  const save = (name: string, crmKind: 'salesforce' | 'dynamics' | 'hubspot', crm: Record<string, unknown>, crmSecrets: Record<string, string>) =>
    store.create({
      name,
      crmKind,
      settings: connectionSettingsSchema.parse({
        commerce: { baseUrl: commerce.apiUrl, authUrl: commerce.authUrl, clientId: commerce.clientId, organizationId: commerce.organizationId },
        crm,
        entities: [...ENTITIES, 'timeline', 'catalogue'],
        catalogue: { priceBook: BOOK },
      }),
      secrets: { commerceClientSecret: commerce.clientSecret, ...crmSecrets },
    });
  const kept = async (id: string) => ((await store.get(id))!.settings as { crm: { catalogueIds?: Record<string, string> } }).crm.catalogueIds;
  const audits = async (id: string) => (await database.pool.query('SELECT before, after FROM audit_events WHERE connection_id = $1 AND action = $2 ORDER BY id', [id, 'setup'])).rows;

  it('Salesforce: keeps the price book and the standard price book ids, says so, and a second run keeps them', async () => {
    const saved = await save('sf-catalogue', 'salesforce', { kind: 'salesforce', loginUrl: salesforce.loginUrl, clientId: salesforce.clientId }, { crmClientSecret: salesforce.clientSecret });
    const first = await setup('sf-catalogue');
    expect(first.problems).toEqual([]);
    expect(first.created).toContain(`price book "${BOOK}" (active)`);

    // The ids as the org answers them to a plain REST client.
    const token = (await (await fetch(`${salesforce.loginUrl}/services/oauth2/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: salesforce.clientId, client_secret: salesforce.clientSecret }) })).json()) as { access_token: string; instance_url: string };
    const query = async (soql: string) => ((await (await fetch(`${token.instance_url}/services/data/v62.0/query?q=${encodeURIComponent(soql)}`, { headers: { authorization: `Bearer ${token.access_token}` } })).json()) as { records: { Id: string }[] }).records;
    const [book] = await query(`SELECT Id FROM Pricebook2 WHERE Name = ${soqlString(BOOK)}`);
    const [standard] = await query('SELECT Id FROM Pricebook2 WHERE IsStandard = true');
    const expected = { priceBookId: book!.Id, standardPriceBookId: standard!.Id };
    expect(await kept(saved.id)).toEqual(expected);
    expect(first.notes).toContain(`sf-catalogue now writes the product catalogue with: price book "${BOOK}" ${book!.Id}, the standard price book ${standard!.Id}.`);
    // Saved with its audit row: the CRM settings before (no ids) and after (the ids).
    const [row] = await audits(saved.id);
    expect(row.before.crm.catalogueIds).toBeUndefined();
    expect(row.after.crm.catalogueIds).toEqual(expected);

    const second = await setup('sf-catalogue');
    expect(second).toMatchObject({ created: [], problems: [] });
    expect(second.notes.filter((note) => note.includes('product catalogue'))).toEqual([]);
    expect(await kept(saved.id)).toEqual(expected);
    expect((await audits(saved.id))[1]).toMatchObject({ before: null, after: null });
  }, 60_000);

  it("Dynamics: keeps the unit group, base unit and a price list per currency named from the price book; the timeline's table gets activities", async () => {
    const api = clientFor(dynamics);
    // A table an older setup made without activities: the connection chose the timeline, so setup turns them on.
    await api.createEntity({
      data: {
        '@odata.type': 'Microsoft.Dynamics.CRM.EntityMetadata',
        SchemaName: 'ccs_cosellreferral',
        EntitySetName: 'ccs_cosellreferrals',
        DisplayName: { LocalizedLabels: [{ Label: 'Co-sell referral', LanguageCode: 1033 }] },
        OwnershipType: 'UserOwned',
        HasActivities: false,
        Attributes: [{ '@odata.type': 'Microsoft.Dynamics.CRM.StringAttributeMetadata', AttributeType: 'String', SchemaName: 'ccs_name', IsPrimaryName: true, MaxLength: 200 }],
      },
    });
    const saved = await save('dyn-catalogue', 'dynamics', { kind: 'dynamics', orgUrl: dynamics.orgUrl, authority: dynamics.authority, tenantId: dynamics.tenantId, clientId: dynamics.clientId }, { crmClientSecret: dynamics.clientSecret });
    const report = await setup('dyn-catalogue');
    expect(report.problems).toEqual([]);
    expect(report.created).toEqual(expect.arrayContaining(['productpricelevel alternate key ccs_priceentrykey_key (ccs_priceentrykey)', `price list "${BOOK} (USD)"`, `price list "${BOOK} (EUR)"`]));

    const group: any = await api.retrieveMultiple({ collection: 'uomschedules', select: ['uomscheduleid'], filter: "name eq 'Marketplace units'" });
    const unit: any = await api.retrieveMultiple({ collection: 'uoms', select: ['uomid'], filter: `_uomscheduleid_value eq ${group.value[0].uomscheduleid}` });
    const list = async (code: string) => ((await api.retrieveMultiple({ collection: 'pricelevels', select: ['pricelevelid'], filter: `name eq ${odataString(`${BOOK} (${code})`)}` })) as any).value[0].pricelevelid;
    const expected = { unitGroupId: group.value[0].uomscheduleid, baseUnitId: unit.value[0].uomid, 'priceList:USD': await list('USD'), 'priceList:EUR': await list('EUR') };
    expect(await kept(saved.id)).toEqual(expected);
    expect(report.notes.find((note) => note.startsWith('dyn-catalogue now writes the product catalogue with:'))).toContain(`price list "${BOOK} (EUR)" ${expected['priceList:EUR']}`);
    expect((await audits(saved.id))[0].after.crm.catalogueIds).toEqual(expected);

    expect(report.created).toContain("table ccs_cosellreferral activities (HasActivities, for the timeline's tasks)");
    expect(((await api.retrieveEntity({ key: "LogicalName='ccs_cosellreferral'", select: ['HasActivities'] })) as { HasActivities?: boolean }).HasActivities).toBe(true);
  }, 60_000);

  it('HubSpot: makes the product properties the catalogue keys on, and keeps no ids', async () => {
    const saved = await save('hs-catalogue', 'hubspot', { kind: 'hubspot', baseUrl: hubspot.baseUrl, auth: 'private-app' }, { crmAccessToken: hubspot.accessToken });
    const report = await setup('hs-catalogue');
    expect(report.problems).toEqual([]);
    expect(report.created).toEqual(expect.arrayContaining(['products.commerce_product_id', 'products.commerce_dimension_key', 'products.commerce_price_key']));
    const property = await fetch(`${hubspot.baseUrl}/crm/v3/properties/products/commerce_price_key`, { headers: { authorization: `Bearer ${hubspot.accessToken}` } });
    expect(await property.json()).toMatchObject({ name: 'commerce_price_key', type: 'string' });
    expect(await kept(saved.id)).toBeUndefined();
  }, 60_000);
});
