// The demo's connections and the product catalogue (issue #28 section 1): started for the three sandbox
// CRMs, each demo connection chooses the catalogue, names the default price book, and carries the ids the
// catalogue part of setup found, as `crm-sync setup` keeps them (Salesforce: the price book and the
// standard price book; Dynamics: the unit group, base unit and a price list per currency), each as the
// CRM's own queries find it. The Dynamics environment has a price list for every currency the commerce
// catalogue prices in; HubSpot keeps no ids. Real PostgreSQL; the demo's sandboxes in a temporary data dir.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_CONNECTION_NAMES, ensureDemoConnections, startDemoSandboxes, type DemoSandboxes } from '../../cli/demo.ts';
import { loadConfig } from '../../config/config.ts';
import { createConnectionStore } from '../../store/connections.ts';
import { SecretBox } from '../../store/secret-box.ts';
import { connectionSettingsSchema } from '../../sync/connection-settings.ts';
import { clientFor } from '../sandbox/dynamics-helpers.ts';
import { createTestDatabase, quietLogger, type TestDatabase } from '../support/database.ts';

const BOOK = 'Commerce Marketplace Products';

describe('the demo connections and the product catalogue', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'crm-sync-demo-catalogue-'));
  let database: TestDatabase | undefined;
  let sandboxes: DemoSandboxes | undefined;
  afterAll(async () => {
    await sandboxes?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('each chooses the catalogue and carries the ids the CRM answers for its price book, unit group and price lists', async () => {
    database = await createTestDatabase();
    const key = randomBytes(32);
    const config = loadConfig({ DATABASE_URL: database.url, CRM_SYNC_SECRET_KEY: key.toString('base64'), CRM_SYNC_DATA_DIR: dataDir, CRM_SYNC_DEMO_CRMS: 'salesforce,hubspot,dynamics', LOG_LEVEL: 'silent' }, false);
    sandboxes = await startDemoSandboxes(config, quietLogger);
    const store = createConnectionStore(database.pool, new SecretBox(key));
    await ensureDemoConnections(database.pool, store, sandboxes, quietLogger);
    const saved = new Map((await store.list()).map((connection) => [connection.name, connectionSettingsSchema.parse(connection.settings)]));
    const settingsOf = (kind: 'salesforce' | 'hubspot' | 'dynamics') => saved.get(DEMO_CONNECTION_NAMES[kind])!;
    for (const kind of ['salesforce', 'hubspot', 'dynamics'] as const) {
      expect(settingsOf(kind).entities).toContain('catalogue');
      expect(settingsOf(kind).catalogue).toEqual({ priceBook: BOOK });
    }

    // Salesforce: the ids as the org answers them to a plain REST client.
    const sf = sandboxes.salesforce;
    const token = (await (await fetch(`${sf.loginUrl}/services/oauth2/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: sf.clientId, client_secret: sf.clientSecret }) })).json()) as { access_token: string; instance_url: string };
    const query = async (soql: string) => ((await (await fetch(`${token.instance_url}/services/data/v62.0/query?q=${encodeURIComponent(soql)}`, { headers: { authorization: `Bearer ${token.access_token}` } })).json()) as { records: { Id: string }[] }).records;
    const [book] = await query(`SELECT Id FROM Pricebook2 WHERE Name = '${BOOK}'`);
    const [standard] = await query('SELECT Id FROM Pricebook2 WHERE IsStandard = true');
    expect((settingsOf('salesforce').crm as { catalogueIds?: unknown }).catalogueIds).toEqual({ priceBookId: book!.Id, standardPriceBookId: standard!.Id });

    // Dynamics: a price list per currency the commerce catalogue prices in, each as the environment lists it.
    const api = clientFor(sandboxes.dynamics);
    const lists: any = await api.retrieveMultiple({ collection: 'pricelevels', select: ['pricelevelid', 'name'] });
    const group: any = await api.retrieveMultiple({ collection: 'uomschedules', select: ['uomscheduleid'], filter: "name eq 'Marketplace units'" });
    const unit: any = await api.retrieveMultiple({ collection: 'uoms', select: ['uomid'], filter: `_uomscheduleid_value eq ${group.value[0].uomscheduleid}` });
    const listId = (code: string) => lists.value.find((row: any) => row.name === `${BOOK} (${code})`)?.pricelevelid;
    expect((settingsOf('dynamics').crm as { catalogueIds?: unknown }).catalogueIds).toEqual({
      unitGroupId: group.value[0].uomscheduleid,
      baseUnitId: unit.value[0].uomid,
      'priceList:USD': listId('USD'),
      'priceList:EUR': listId('EUR'),
      'priceList:GBP': listId('GBP'),
      'priceList:JPY': listId('JPY'),
    });
    expect(lists.value).toHaveLength(4);

    // HubSpot: the catalogue's product properties are there; no ids to keep.
    const property = await fetch(`${sandboxes.hubspot.baseUrl}/crm/v3/properties/products/commerce_price_key`, { headers: { authorization: `Bearer ${sandboxes.hubspot.accessToken}` } });
    expect(property.status).toBe(200);
    expect('catalogueIds' in settingsOf('hubspot').crm).toBe(false);
  }, 60_000);
});
