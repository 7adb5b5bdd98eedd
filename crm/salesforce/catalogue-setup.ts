// `crm-sync setup` for the product catalogue on Salesforce (issue #28): what the catalogue sync needs
// beyond the rest of setup (setup.ts). One Product2 per commerce product dimension, so an Opportunity
// Product names a dimension: Product2 gets the commerce product id (an external id several dimensions
// share), the dimension key, and their unique key "productId|dimensionKey" that the sync upserts on. The
// prices live in the price book the connection names, made here (active) when the org lacks it; the
// standard price book every org has holds the standard prices Salesforce requires first. Safe to run
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

/** The separator of Commerce_Price_Key__c: "productId|dimensionKey". */
export const PRICE_KEY_SEPARATOR = '|';

/** Product2's catalogue fields. */
export const CATALOGUE_FIELDS: SalesforceCustomField[] = [
  { object: 'Product2', name: 'Commerce_Product_Id__c', label: 'Commerce Product Id', type: 'Text', length: 255, externalId: true },
  { object: 'Product2', name: 'Commerce_Dimension_Key__c', label: 'Commerce Dimension Key', type: 'Text', length: 255 },
  { object: 'Product2', name: 'Commerce_Price_Key__c', label: 'Commerce Price Key', type: 'Text', length: 255, externalId: true, unique: true },
];

/** The objects the catalogue reads and writes; PricebookEntry and OpportunityLineItem take their access from Product2, Pricebook2 and Opportunity. */
const CATALOGUE_OBJECTS = ['Product2', 'Pricebook2', 'PricebookEntry', 'OpportunityLineItem'];
const GRANTED_OBJECTS = ['Product2', 'Pricebook2'];

export type CatalogueSetupReport = SalesforceSetupReport & { priceBookId?: string };

type Described = { name: string; type: string; externalId?: boolean; unique?: boolean; updateable: boolean; permissionable: boolean };

const fieldText = (field: SalesforceCustomField) => `${field.object}.${field.name} (${field.type}(${field.length})${field.externalId ? ', external id' : ''}${field.unique ? ', unique' : ''})`;

async function productFields(connection: Connection): Promise<Map<string, Described>> {
  return new Map(((await connection.sobject('Product2').describe()).fields as Described[]).map((field) => [field.name.toLowerCase(), field]));
}

/** The catalogue's fields on Product2: made where missing, granted to the integration user, proved readable, checked for kind. */
async function setUpFields(connection: Connection, userId: string, report: SalesforceSetupReport) {
  const described = await productFields(connection);
  const existing = CATALOGUE_FIELDS.some((field) => !described.has(field.name.toLowerCase())) ? await existingFields(connection, 'Product2') : new Set<string>();
  const grants: Grant[] = [];
  for (const field of CATALOGUE_FIELDS) {
    const seen = described.get(field.name.toLowerCase());
    if (seen || existing.has(field.name.toLowerCase())) {
      report.present.push(`Product2.${field.name}`);
      if (!seen || seen.permissionable) grants.push({ object: 'Product2', field: field.name, edit: seen ? seen.updateable : true });
      continue;
    }
    try {
      await connection.tooling.create('CustomField', { FullName: `Product2.${field.name}`, Metadata: customFieldMetadata(field) });
      report.created.push(fieldText(field));
      grants.push({ object: 'Product2', field: field.name, edit: true });
    } catch (error) {
      report.problems.push(`Product2.${field.name} could not be created: ${refusal(error)}`);
    }
  }

  const granted = await grantAccess(connection, userId, GRANTED_OBJECTS, grants);
  report.created.push(...granted.created);
  report.present.push(...granted.present);
  report.problems.push(...granted.problems);

  try {
    await connection.query(`SELECT Id, ${CATALOGUE_FIELDS.map((field) => soqlIdentifier(field.name)).join(', ')} FROM Product2 LIMIT 1`);
  } catch (error) {
    report.problems.push(`the integration user still cannot read Product2's catalogue fields: ${refusal(error)}`);
    return;
  }
  const now = await productFields(connection);
  for (const field of CATALOGUE_FIELDS) {
    const found = now.get(field.name.toLowerCase());
    if (!found) continue;
    if (!DESCRIBE_TYPES[field.type].includes(found.type)) report.problems.push(`Product2.${field.name} is a ${found.type} field; the catalogue needs Text(${field.length}): change or replace it in Setup`);
    else if (field.externalId && !found.externalId) report.problems.push(`Product2.${field.name} is not marked External ID: mark it in Setup (Object Manager, Product, Fields & Relationships, ${field.label}), the catalogue finds products by it`);
    else if (field.unique && !found.unique) report.problems.push(`Product2.${field.name} is not marked Unique: mark it in Setup (Object Manager, Product, Fields & Relationships, ${field.label}), the catalogue upserts one product per dimension on it`);
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
  const standard = (await connection.query<{ Id: string }>('SELECT Id FROM Pricebook2 WHERE IsStandard = true LIMIT 1')).records[0];
  if (!standard) report.problems.push('the org has no standard price book visible to the integration user: Salesforce needs a standard price for every product before any other price');
  return report;
}

/**
 * The catalogue's setup added to the rest of setup's report (setup.ts): one call there. Answers the
 * connection's price book id, undefined when it could not be made or told apart.
 */
export async function addCatalogueSetup(report: SalesforceSetupReport, connection: Connection, userId: string, priceBookName: string = DEFAULT_CATALOGUE_PRICE_BOOK): Promise<string | undefined> {
  const catalogue = await setUpSalesforceCatalogue(connection, userId, priceBookName);
  report.created.push(...catalogue.created);
  report.present.push(...catalogue.present);
  report.problems.push(...catalogue.problems);
  report.notes.push(...catalogue.notes);
  return catalogue.priceBookId;
}
