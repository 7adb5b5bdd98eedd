// `crm-sync setup`'s catalogue part on Salesforce (issue #28) against the Salesforce sandbox: in an org
// without the project's metadata it makes Product2's catalogue fields (the commerce product id, the
// dimension key and their unique upsert key), grants them with Product2 and Pricebook2 through the
// Commerce_CRM_Sync permission set, and makes the connection's price book active; a second run makes
// nothing. An inactive price book of that name (named with quotes, a backslash and non-Latin text) is
// activated, two of that name are a problem, and a price key made without Unique is named as one.
import type { Connection } from 'jsforce';
import { describe, expect, it } from 'vitest';
import { addCatalogueSetup, setUpSalesforceCatalogue } from '../../crm/salesforce/catalogue-setup.ts';
import { setUpSalesforce } from '../../crm/salesforce/setup.ts';
import { soqlString } from '../../crm/salesforce/soql.ts';
import { salesforceOrgPerTest } from '../support/salesforce-org-per-test.ts';

const BOOK = 'Commerce Marketplace Products';
const HOSTILE_BOOK = "Partner's \\ \"Marketplace\" 価格表";

describe('Salesforce setup: the product catalogue', () => {
  const { start } = salesforceOrgPerTest();
  const books = async (conn: Connection, name: string) =>
    (await conn.query<{ Id: string; IsActive: boolean; IsStandard: boolean }>(`SELECT Id, IsActive, IsStandard FROM Pricebook2 WHERE Name = ${soqlString(name)}`)).records;

  it('makes the fields and the price book, grants them, and the integration user upserts products by the price key; a second run makes nothing', async () => {
    const { conn, userId } = await start('missing');
    expect((await conn.sobject('Product2').describe()).fields.map((f) => f.name)).not.toContain('Commerce_Price_Key__c');

    const first = await setUpSalesforceCatalogue(conn, userId, BOOK);
    expect(first.problems).toEqual([]);
    expect(first.created).toEqual(
      expect.arrayContaining([
        'Product2.Commerce_Product_Id__c (Text(255), external id)',
        'Product2.Commerce_Dimension_Key__c (Text(255))',
        'Product2.Commerce_Price_Key__c (Text(255), external id, unique)',
        'Commerce_CRM_Sync: Product2 read, create, edit',
        'Commerce_CRM_Sync: Pricebook2 read, create, edit',
        `price book "${BOOK}" (active)`,
      ]),
    );
    const made = await books(conn, BOOK);
    expect(made).toEqual([expect.objectContaining({ IsActive: true, IsStandard: false })]);
    expect(first.priceBookId).toBe(made[0]!.Id);

    const fields = new Map((await conn.sobject('Product2').describe()).fields.map((f) => [f.name, f]));
    expect(fields.get('Commerce_Price_Key__c')).toMatchObject({ externalId: true, unique: true, updateable: true });
    expect(fields.get('Commerce_Product_Id__c')).toMatchObject({ externalId: true, unique: false });
    const [upserted] = await conn.sobject('Product2').upsert([{ Name: 'Seats', Commerce_Product_Id__c: 'prod-000001', Commerce_Dimension_Key__c: 'seats', Commerce_Price_Key__c: 'prod-000001|seats' }], 'Commerce_Price_Key__c', { allOrNone: false });
    expect(upserted).toMatchObject({ success: true, created: true });

    const second = await setUpSalesforceCatalogue(conn, userId, BOOK);
    expect(second).toMatchObject({ created: [], problems: [], priceBookId: made[0]!.Id });
    expect(second.present).toEqual(expect.arrayContaining(['Product2.Commerce_Price_Key__c', `price book "${BOOK}" (active)`]));
    expect(await books(conn, BOOK)).toHaveLength(1);
  });

  it('adds to the rest of setup in one call: after setUpSalesforce, its report holds the catalogue too and setup stays clean', async () => {
    const { conn, userId } = await start('missing');
    const report = await setUpSalesforce(conn, userId);
    const priceBookId = await addCatalogueSetup(report, conn, userId);
    expect(report.problems).toEqual([]);
    expect(report.created).toEqual(expect.arrayContaining(['Product2.Commerce_Price_Key__c (Text(255), external id, unique)', `price book "${BOOK}" (active)`]));
    expect(priceBookId).toBe((await books(conn, BOOK))[0]!.Id);
    const again = await setUpSalesforce(conn, userId);
    expect(await addCatalogueSetup(again, conn, userId)).toBe(priceBookId);
    expect(again).toMatchObject({ created: [], problems: [] });
  });

  it('activates an inactive price book of the name (quotes, backslash, unicode), and says two of one name is a problem', async () => {
    const { conn, userId } = await start('deployed');
    const inactive = (await conn.sobject('Pricebook2').create({ Name: HOSTILE_BOOK, IsActive: false })) as { id: string };
    const report = await setUpSalesforceCatalogue(conn, userId, HOSTILE_BOOK);
    expect(report.problems).toEqual([]);
    expect(report.created).toContain(`price book "${HOSTILE_BOOK}" activated (it was inactive, and Opportunities take products only from an active price book)`);
    expect(report.priceBookId).toBe(inactive.id);
    expect(await books(conn, HOSTILE_BOOK)).toEqual([expect.objectContaining({ Id: inactive.id, IsActive: true })]);

    const twin = (await conn.sobject('Pricebook2').create({ Name: HOSTILE_BOOK, IsActive: true })) as { id: string };
    const twice = await setUpSalesforceCatalogue(conn, userId, HOSTILE_BOOK);
    expect(twice.problems).toEqual([`2 price books are named "${HOSTILE_BOOK}" (${inactive.id}, ${twin.id}): rename all but one in Setup (Price Books) or name another price book for the connection`]);
    expect(twice.priceBookId).toBeUndefined();
  });

  it('names a price key made without Unique, and the standard price book when the connection names it', async () => {
    const { conn, userId } = await start('missing');
    await conn.tooling.create('CustomField', { FullName: 'Product2.Commerce_Price_Key__c', Metadata: { label: 'Commerce Price Key', type: 'Text', length: 255, externalId: true } });
    const report = await setUpSalesforceCatalogue(conn, userId, 'Standard Price Book');
    expect(report.problems).toEqual(['Product2.Commerce_Price_Key__c is not marked Unique: mark it in Setup (Object Manager, Product, Fields & Relationships, Commerce Price Key), the catalogue upserts one product per dimension on it']);
    expect(report.notes).toEqual(['"Standard Price Book" is the standard price book: the catalogue\'s prices will be the standard prices']);
    expect(report.present).toEqual(expect.arrayContaining(['Product2.Commerce_Price_Key__c', 'price book "Standard Price Book" (active)']));
  });
});
