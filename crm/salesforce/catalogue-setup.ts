// `crm-sync setup` for the product catalogue on Salesforce (issue #28): what the catalogue sync needs
// beyond the rest of setup (setup.ts). One Product2 per commerce product dimension, so an Opportunity
// Product names a dimension: Product2 gets the commerce product id (an external id several dimensions
// share), the dimension key, and their unique key "productId|dimensionKey" that the sync upserts on. The
// prices live in the price book the connection names, made here (active) when the org lacks it; the
// standard price book every org has holds the standard prices Salesforce requires first. A price is a
// PricebookEntry, upserted by its own unique external id Commerce_Price_Entry_Key__c:
// "productId|dimensionKey|currency" in the connection's price book, "productId|dimensionKey|currency|standard"
// in the standard one (one entry per product, book and currency, so the key names exactly one). Setup
// finds both books' ids and records them (catalogueIds), so the sync never looks them up. Safe to run
// twice: what exists is reported as present, a field of another kind is a problem, never changed.
// Wire facts: docs/crm-wire-behaviour.md, "Products, price books and opportunity products".
import type { Connection } from 'jsforce';
import { customFieldMetadata, DESCRIBE_TYPES, type SalesforceCustomField } from '../../mappings/salesforce/schema.ts';
import { existingFields } from './field-access.ts';
import { grantAccess, refusal, type Grant } from './permission-set.ts';
import type { SalesforceSetupReport } from './setup.ts';
import { soqlIdentifier, soqlString } from './soql.ts';

/** The price book a connection names when it names none (the connection settings' default). */
export { DEFAULT_CATALOGUE_PRICE_BOOK } from '../../sync/connection-settings.ts';
import { DEFAULT_CATALOGUE_PRICE_BOOK } from '../../sync/connection-settings.ts';

/** The separator of Commerce_Price_Key__c ("productId|dimensionKey") and Commerce_Price_Entry_Key__c. */
export const PRICE_KEY_SEPARATOR = '|';
/** The last part of a standard price book entry's Commerce_Price_Entry_Key__c ("productId|dimensionKey|currency|standard"). */
export const STANDARD_ENTRY_SUFFIX = 'standard';

/** The catalogue's fields: Product2's, and the price book entry's upsert key. */
export const CATALOGUE_FIELDS: SalesforceCustomField[] = [
  { object: 'Product2', name: 'Commerce_Product_Id__c', label: 'Commerce Product Id', type: 'Text', length: 255, externalId: true },
  { object: 'Product2', name: 'Commerce_Dimension_Key__c', label: 'Commerce Dimension Key', type: 'Text', length: 255 },
  { object: 'Product2', name: 'Commerce_Price_Key__c', label: 'Commerce Price Key', type: 'Text', length: 255, externalId: true, unique: true },
  { object: 'PricebookEntry', name: 'Commerce_Price_Entry_Key__c', label: 'Commerce Price Entry Key', type: 'Text', length: 255, externalId: true, unique: true },
];

/** Where an admin finds each object's fields in Setup (Object Manager's names). */
const OBJECT_MANAGER_NAMES: Record<string, string> = { Product2: 'Product', PricebookEntry: 'Price Book Entry' };

/** The objects the catalogue reads and writes; PricebookEntry and OpportunityLineItem take their access from Product2, Pricebook2 and Opportunity. */
const CATALOGUE_OBJECTS = ['Product2', 'Pricebook2', 'PricebookEntry', 'OpportunityLineItem'];
const GRANTED_OBJECTS = ['Product2', 'Pricebook2'];

export type CatalogueSetupReport = SalesforceSetupReport & { priceBookId?: string; standardPriceBookId?: string };

type Described = { name: string; type: string; externalId?: boolean; unique?: boolean; updateable: boolean; permissionable: boolean };

const fieldText = (field: SalesforceCustomField) => `${field.object}.${field.name} (${field.type}(${field.length})${field.externalId ? ', external id' : ''}${field.unique ? ', unique' : ''})`;

async function describedFields(connection: Connection, object: string): Promise<Map<string, Described>> {
  return new Map(((await connection.sobject(object).describe()).fields as Described[]).map((field) => [field.name.toLowerCase(), field]));
}

/** The catalogue's fields: made where missing, granted to the integration user, proved readable, checked for kind. */
async function setUpFields(connection: Connection, userId: string, report: SalesforceSetupReport) {
  const byObject = Map.groupBy(CATALOGUE_FIELDS, (field) => field.object);
  const grants: Grant[] = [];
  for (const [object, fields] of byObject) {
    const described = await describedFields(connection, object);
    const existing = fields.some((field) => !described.has(field.name.toLowerCase())) ? await existingFields(connection, object) : new Set<string>();
    for (const field of fields) {
      const seen = described.get(field.name.toLowerCase());
      if (seen || existing.has(field.name.toLowerCase())) {
        report.present.push(`${object}.${field.name}`);
        if (!seen || seen.permissionable) grants.push({ object, field: field.name, edit: seen ? seen.updateable : true });
        continue;
      }
      try {
        await connection.tooling.create('CustomField', { FullName: `${object}.${field.name}`, Metadata: customFieldMetadata(field) });
        report.created.push(fieldText(field));
        grants.push({ object, field: field.name, edit: true });
      } catch (error) {
        report.problems.push(`${object}.${field.name} could not be created: ${refusal(error)}`);
      }
    }
  }

  const granted = await grantAccess(connection, userId, GRANTED_OBJECTS, grants);
  report.created.push(...granted.created);
  report.present.push(...granted.present);
  report.problems.push(...granted.problems);

  for (const [object, fields] of byObject) {
    try {
      await connection.query(`SELECT Id, ${fields.map((field) => soqlIdentifier(field.name)).join(', ')} FROM ${soqlIdentifier(object)} LIMIT 1`);
    } catch (error) {
      report.problems.push(`the integration user still cannot read ${object}'s catalogue fields: ${refusal(error)}`);
      continue;
    }
    const now = await describedFields(connection, object);
    const where = (field: SalesforceCustomField) => `Setup (Object Manager, ${OBJECT_MANAGER_NAMES[object] ?? object}, Fields & Relationships, ${field.label})`;
    for (const field of fields) {
      const found = now.get(field.name.toLowerCase());
      if (!found) continue;
      if (!DESCRIBE_TYPES[field.type].includes(found.type)) report.problems.push(`${object}.${field.name} is a ${found.type} field; the catalogue needs Text(${field.length}): change or replace it in Setup`);
      else if (field.externalId && !found.externalId) report.problems.push(`${object}.${field.name} is not marked External ID: mark it in ${where(field)}, the catalogue finds ${object === 'Product2' ? 'products' : 'prices'} by it`);
      else if (field.unique && !found.unique) report.problems.push(`${object}.${field.name} is not marked Unique: mark it in ${where(field)}, the catalogue upserts ${object === 'Product2' ? 'one product per dimension' : 'one price per product, price book and currency'} on it`);
    }
  }
}

/**
 * The connection's price book, found by name: made active when missing, activated when inactive (an
 * Opportunity takes products only from an active price book). Two price books of that name are a
 * problem: Salesforce does not keep price book names unique, and the sync must know which one it fills.
 */
async function setUpPriceBook(connection: Connection, name: string, report: CatalogueSetupReport) {
  const found = (await connection.query<{ Id: string; IsActive: boolean; IsStandard: boolean }>(`SELECT Id, IsActive, IsStandard FROM Pricebook2 WHERE Name = ${soqlString(name)}`)).records;
  if (found.length > 1) {
    report.problems.push(`${found.length} price books are named "${name}" (${found.map((book) => book.Id).join(', ')}): rename all but one in Setup (Price Books) or name another price book for the connection`);
    return;
  }
  const book = found[0];
  if (!book) {
    try {
      const made = await connection.sobject('Pricebook2').create({ Name: name, IsActive: true, Description: 'Marketplace products and their prices, kept by commerce-crm-sync (made by crm-sync setup)' });
      if (!made.success) throw new Error(JSON.stringify(made.errors));
      report.created.push(`price book "${name}" (active)`);
      report.priceBookId = made.id;
    } catch (error) {
      report.problems.push(`price book "${name}" could not be created: ${refusal(error)}`);
    }
    return;
  }
  report.priceBookId = book.Id;
  if (book.IsStandard) report.notes.push(`"${name}" is the standard price book: the catalogue's prices will be the standard prices`);
  if (book.IsActive) {
    report.present.push(`price book "${name}" (active)`);
    return;
  }
  try {
    await connection.sobject('Pricebook2').update({ Id: book.Id, IsActive: true });
    report.created.push(`price book "${name}" activated (it was inactive, and Opportunities take products only from an active price book)`);
  } catch (error) {
    report.problems.push(`price book "${name}" is inactive and could not be activated: ${refusal(error)}; activate it in Setup (Price Books)`);
  }
}

/**
 * Sets the org up for the catalogue: Product2's catalogue fields (granted to the integration user
 * `userId`) and the price book `priceBookName`. Says what it made, what was there and what it could not do.
 */
export async function setUpSalesforceCatalogue(connection: Connection, userId: string, priceBookName: string = DEFAULT_CATALOGUE_PRICE_BOOK): Promise<CatalogueSetupReport> {
  const report: CatalogueSetupReport = { created: [], present: [], problems: [], notes: [] };
  if (!priceBookName.trim()) {
    report.problems.push('the connection names no price book for the catalogue: give it a price book name');
    return report;
  }
  const visible = new Set((await connection.describeGlobal()).sobjects.map((object) => object.name));
  const missing = CATALOGUE_OBJECTS.filter((name) => !visible.has(name));
  if (missing.length > 0) {
    report.problems.push(`the integration user sees no ${missing.join(', ')}: turn on Products for the org and give the user's profile access to Products and Price Books`);
    return report;
  }
  await setUpFields(connection, userId, report);
  await setUpPriceBook(connection, priceBookName, report);
  // Every org has one standard price book (Pricebook2.IsStandard); its id is kept so the sync writes standard prices without a query.
  const standard = (await connection.query<{ Id: string }>('SELECT Id FROM Pricebook2 WHERE IsStandard = true LIMIT 1')).records[0];
  if (standard) report.standardPriceBookId = standard.Id;
  else report.problems.push('the org has no standard price book visible to the integration user: Salesforce needs a standard price for every product before any other price');
  return report;
}

/**
 * The catalogue's setup added to the rest of setup's report (setup.ts): one call there. Records the ids
 * found in `report.catalogueIds` (priceBookId, standardPriceBookId: the connection settings' crm.catalogueIds
 * keys; an id setup could not find or tell apart is left out) and answers the connection's price book id.
 */
export async function addCatalogueSetup(report: SalesforceSetupReport, connection: Connection, userId: string, priceBookName: string = DEFAULT_CATALOGUE_PRICE_BOOK): Promise<string | undefined> {
  const catalogue = await setUpSalesforceCatalogue(connection, userId, priceBookName);
  report.created.push(...catalogue.created);
  report.present.push(...catalogue.present);
  report.problems.push(...catalogue.problems);
  report.notes.push(...catalogue.notes);
  report.catalogueIds = {
    ...(catalogue.priceBookId && { priceBookId: catalogue.priceBookId }),
    ...(catalogue.standardPriceBookId && { standardPriceBookId: catalogue.standardPriceBookId }),
  };
  return catalogue.priceBookId;
}
