// `crm-sync setup` for Salesforce: creates the custom objects and fields the mappings and co-sell write
// (mappings/salesforce/schema.ts) through the Tooling API, as an admin would in Setup, grants them to the
// integration user through a permission set (permission-set.ts; with the standard fields the mappings use),
// then proves the user can read them by a
// SOQL query naming every field, and says what it created and what was already there. Safe to run twice:
// what exists is never created again, whether the user sees it yet or not (the Tooling API's
// FieldDefinition and EntityDefinition tell a field not granted from one missing), and a field that
// exists with another type is named as a problem, never changed.
import type { Connection } from 'jsforce';
import { customFieldMetadata, DESCRIBE_TYPES, SALESFORCE_CUSTOM_FIELDS, SALESFORCE_CUSTOM_OBJECTS, TIMELINE_ACTIVITY_OBJECTS, type SalesforceCustomField } from '../../mappings/salesforce/schema.ts';
import { SALESFORCE_MAPPINGS } from '../../mappings/salesforce/index.ts';
import { OPPORTUNITY_FIELDS } from '../../mappings/salesforce/opportunity-referral.ts';
import { addCatalogueSetup } from './catalogue-setup.ts';
import { existingFields, existingObjects } from './field-access.ts';
import { grantAccess, refusal, type Grant } from './permission-set.ts';
import { soqlIdentifier } from './soql.ts';

/** `catalogueIds`: the price books' ids the catalogue part found (catalogue-setup.ts), when it ran. */
export type SalesforceSetupReport = { created: string[]; present: string[]; problems: string[]; notes: string[]; catalogueIds?: Record<string, string> };

/** `catalogue`: the connection syncs the product catalogue (issue #28) into the price book it names. */
export type SalesforceSetupOptions = { catalogue?: { priceBook: string } };

const fieldText = (field: SalesforceCustomField) =>
  `${field.object}.${field.name} (${field.type}${field.length ? `(${field.length})` : ''}${field.externalId ? ', external id' : ''}${field.unique ? ', unique' : ''}${field.referenceTo ? ` to ${field.referenceTo}` : ''})`;

type Described = {
  name: string;
  type: string;
  custom: boolean;
  externalId?: boolean;
  updateable: boolean;
  nillable: boolean;
  defaultedOnCreate: boolean;
  createable: boolean;
  /** False for fields Salesforce never restricts (required ones): they take no field permission. */
  permissionable: boolean;
  relationshipName?: string | null;
  picklistValues?: { value: string; active?: boolean }[];
  referenceTo?: string[];
};

/**
 * The standard fields (Website, Amount, AccountId ...) the default mappings and co-sell read or write,
 * by object: granted too, so the sync does not depend on the integration user's profile for them.
 * Names may be relationship names (Account) or paths (Account.Commerce_Buyer_Id__c): resolved by describe.
 */
function standardFieldNames(): Map<string, Set<string>> {
  const byObject = new Map<string, Set<string>>();
  const add = (object: string, names: string[]) => {
    const set = byObject.get(object) ?? new Set<string>();
    for (const name of names) if (!name.includes('.') && !name.endsWith('__c') && !name.endsWith('__r')) set.add(name);
    byObject.set(object, set);
  };
  for (const mapping of Object.values(SALESFORCE_MAPPINGS)) add(mapping.object, Object.keys(mapping.describe));
  add('Opportunity', OPPORTUNITY_FIELDS);
  return byObject;
}

/** The fields of `object` the integration user sees, by lower-case name; undefined when it sees no such object. */
async function describedFields(connection: Connection, object: string): Promise<Map<string, Described> | undefined> {
  try {
    return new Map(((await connection.sobject(object).describe()).fields as Described[]).map((field) => [field.name.toLowerCase(), field]));
  } catch (error) {
    if ((error as { errorCode?: string }).errorCode === 'NOT_FOUND') return undefined;
    throw error;
  }
}

/** `userId`: the integration user (the id in the token's identity URL), given the permission set. */
export async function setUpSalesforce(connection: Connection, userId: string, options: SalesforceSetupOptions = {}): Promise<SalesforceSetupReport> {
  const report: SalesforceSetupReport = { created: [], present: [], problems: [], notes: [] };
  const visibleObjects = new Set((await connection.describeGlobal()).sobjects.map((object) => object.name));
  const unseen = SALESFORCE_CUSTOM_OBJECTS.map((object) => object.name).filter((name) => !visibleObjects.has(name));
  const inOrg = await existingObjects(connection, unseen);
  const objects = new Set<string>();

  for (const object of SALESFORCE_CUSTOM_OBJECTS) {
    if (visibleObjects.has(object.name) || inOrg.has(object.name)) {
      report.present.push(`object ${object.name}`);
      objects.add(object.name);
      continue;
    }
    try {
      await connection.tooling.create('CustomObject', {
        FullName: object.name,
        // Allow Activities where the timeline's Tasks (issue #27) name the records by WhatId.
        Metadata: { label: object.label, pluralLabel: object.pluralLabel, nameField: { type: 'Text', label: `${object.label} Name` }, deploymentStatus: 'Deployed', sharingModel: 'ReadWrite', ...(TIMELINE_ACTIVITY_OBJECTS.includes(object.name) && { enableActivities: true }) },
      });
      report.created.push(`object ${object.name}`);
      objects.add(object.name);
    } catch (error) {
      report.problems.push(`object ${object.name} could not be created: ${refusal(error)}`);
    }
  }

  const byObject = Map.groupBy(SALESFORCE_CUSTOM_FIELDS, (field) => field.object);
  const standardObjects = [...byObject.keys()].filter((name) => !SALESFORCE_CUSTOM_OBJECTS.some((object) => object.name === name));
  const grants: Grant[] = [];
  for (const [objectName, fields] of byObject) {
    if (!objects.has(objectName) && !standardObjects.includes(objectName)) {
      report.problems.push(`${objectName} does not exist, so its ${fields.length} fields were not created`);
      continue;
    }
    const described = (await describedFields(connection, objectName)) ?? new Map<string, Described>();
    const existing = fields.some((field) => !described.has(field.name.toLowerCase())) ? await existingFields(connection, objectName) : new Set<string>();
    for (const field of fields) {
      const seen = described.get(field.name.toLowerCase());
      if (seen || existing.has(field.name.toLowerCase())) {
        report.present.push(`${objectName}.${field.name}`);
        // Describe says whether Salesforce takes a field permission for it (not for a required field, which
        // is always visible); a field that exists but is hidden is not required, so it takes one.
        if (!seen || seen.permissionable) grants.push({ object: objectName, field: field.name, edit: seen ? seen.updateable : field.formula === undefined });
        continue;
      }
      try {
        await connection.tooling.create('CustomField', { FullName: `${field.definedOn ?? objectName}.${field.name}`, Metadata: customFieldMetadata(field) });
        report.created.push(fieldText(field));
        // A formula field is computed by Salesforce: a permission set grants it Read only.
        grants.push({ object: objectName, field: field.name, edit: field.formula === undefined });
      } catch (error) {
        report.problems.push(`${objectName}.${field.name} could not be created: ${refusal(error)}`);
      }
    }
  }

  // The standard fields the sync uses, where the user sees them and Salesforce lets them be granted.
  for (const [objectName, names] of standardFieldNames()) {
    const described = await describedFields(connection, objectName);
    if (!described) continue;
    const byRelationship = new Map([...described.values()].filter((f) => f.relationshipName).map((f) => [f.relationshipName!.toLowerCase(), f]));
    for (const name of names) {
      const found = described.get(name.toLowerCase()) ?? byRelationship.get(name.toLowerCase());
      if (!found || found.custom || !found.permissionable || grants.some((g) => g.object === objectName && g.field === found.name)) continue;
      grants.push({ object: objectName, field: found.name, edit: found.updateable });
    }
  }

  const granted = await grantAccess(connection, userId, [...objects], grants);
  report.created.push(...granted.created);
  report.present.push(...granted.present);
  report.problems.push(...granted.problems);

  // Proof the integration user now reads every field (a grant the org refused, or one another admin
  // removed, fails here in Salesforce's words), and that each has the type the mapping needs.
  for (const [objectName, fields] of byObject) {
    if (!objects.has(objectName) && !standardObjects.includes(objectName)) continue;
    try {
      await connection.query(`SELECT Id, ${fields.map((field) => soqlIdentifier(field.name)).join(', ')} FROM ${soqlIdentifier(objectName)} LIMIT 1`);
    } catch (error) {
      report.problems.push(`the integration user still cannot read ${objectName}'s fields: ${refusal(error)}`);
      continue;
    }
    const described = (await describedFields(connection, objectName)) ?? new Map<string, Described>();
    for (const field of fields) {
      const found = described.get(field.name.toLowerCase());
      if (!found) continue;
      if (!DESCRIBE_TYPES[field.type].includes(found.type)) report.problems.push(`${objectName}.${field.name} is a ${found.type} field; the mapping needs ${field.type}: change or replace it in Setup`);
      // An activity field's key is External ID only: whether Salesforce lets an activity field be Unique
      // is not documented, and exactly once does not rest on it (docs/crm-wire-behaviour.md).
      else if (field.externalId && !found.externalId && field.definedOn === 'Activity') report.problems.push(`${objectName}.${field.name} is not marked External ID: mark it in Setup (Object Manager, Activity, Fields & Relationships, ${field.label}, Edit, External ID), the timeline upserts Tasks by it`);
      else if (field.externalId && !found.externalId) report.problems.push(`${objectName}.${field.name} is not marked External ID (and Unique): mark it in Setup, upserts key on it`);
      else if (field.type === 'Picklist' && field.restricted) {
        // A restricted picklist refuses a value it lacks: one the sync or a seller needs must be added.
        const values = new Set((found.picklistValues ?? []).filter((v) => v.active !== false).map((v) => v.value));
        const missing = (field.values ?? []).filter((value) => !values.has(value));
        if (missing.length) report.problems.push(`${objectName}.${field.name} lacks the picklist value${missing.length > 1 ? 's' : ''} ${missing.map((v) => `"${v}"`).join(', ')}: add ${missing.length > 1 ? 'them' : 'it'} in Setup (Object Manager, ${objectName}, Fields & Relationships, ${field.label})`);
      }
    }
  }
  // The timeline's Tasks name their records by WhatId: a custom object takes activities only with Allow
  // Activities, which objects made before issue #27 may lack (Task's WhatId then does not list them).
  // A note, not a problem: the timeline is an entity a connection chooses, and one that does not is fine.
  const whatId = (await describedFields(connection, 'Task'))?.get('whatid');
  if (whatId?.referenceTo) {
    for (const object of TIMELINE_ACTIVITY_OBJECTS.filter((name) => objects.has(name) && !whatId.referenceTo!.includes(name))) {
      report.notes.push(`${object} does not allow activities, so the timeline cannot put Tasks on its records: tick Allow Activities in Setup (Object Manager, ${object}, Edit) before choosing the timeline`);
    }
  }
  if (options.catalogue) await addCatalogueSetup(report, connection, userId, options.catalogue.priceBook);
  return report;
}
