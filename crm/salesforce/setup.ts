// `crm-sync setup` for Salesforce: creates the custom objects and fields the mappings and co-sell write
// (mappings/salesforce/schema.ts) through the Tooling API, as an admin would in Setup, and says what it
// created and what was already there. Safe to run twice: what describe shows is never created again, and
// a field that exists with another type is named as a problem, never changed.
import type { Connection } from 'jsforce';
import { customFieldMetadata, DESCRIBE_TYPES, SALESFORCE_CUSTOM_FIELDS, SALESFORCE_CUSTOM_OBJECTS, type SalesforceCustomField } from '../../mappings/salesforce/schema.ts';

export type SalesforceSetupReport = { created: string[]; present: string[]; problems: string[]; notes: string[] };

const fieldText = (field: SalesforceCustomField) =>
  `${field.object}.${field.name} (${field.type}${field.length ? `(${field.length})` : ''}${field.externalId ? ', external id' : ''}${field.unique ? ', unique' : ''}${field.referenceTo ? ` to ${field.referenceTo}` : ''})`;

/** A Tooling API refusal in Salesforce's own words. */
function refusal(error: unknown): string {
  const { errorCode, message } = error as { errorCode?: string; message?: string; name?: string };
  return `${errorCode ?? (error as Error).name}: ${message ?? String(error)}`;
}

export async function setUpSalesforce(connection: Connection): Promise<SalesforceSetupReport> {
  const report: SalesforceSetupReport = { created: [], present: [], problems: [], notes: [] };
  const existing = new Set((await connection.describeGlobal()).sobjects.map((object) => object.name));

  for (const object of SALESFORCE_CUSTOM_OBJECTS) {
    if (existing.has(object.name)) {
      report.present.push(`object ${object.name}`);
      continue;
    }
    try {
      await connection.tooling.create('CustomObject', {
        FullName: object.name,
        Metadata: { label: object.label, pluralLabel: object.pluralLabel, nameField: { type: 'Text', label: `${object.label} Name` }, deploymentStatus: 'Deployed', sharingModel: 'ReadWrite' },
      });
      report.created.push(`object ${object.name}`);
      existing.add(object.name);
    } catch (error) {
      report.problems.push(`object ${object.name} could not be created: ${refusal(error)}`);
    }
  }

  const byObject = Map.groupBy(SALESFORCE_CUSTOM_FIELDS, (field) => field.object);
  for (const [objectName, fields] of byObject) {
    if (!existing.has(objectName)) {
      report.problems.push(`${objectName} does not exist, so its ${fields.length} fields were not created`);
      continue;
    }
    const described = new Map((await connection.sobject(objectName).describe()).fields.map((field) => [field.name.toLowerCase(), field]));
    for (const field of fields) {
      const found = described.get(field.name.toLowerCase());
      if (found) {
        if (!DESCRIBE_TYPES[field.type].includes(found.type)) report.problems.push(`${objectName}.${field.name} is a ${found.type} field; the mapping needs ${field.type}: change or replace it in Setup`);
        else if (field.externalId && !found.externalId) report.problems.push(`${objectName}.${field.name} is not marked External ID (and Unique): mark it in Setup, upserts key on it`);
        else report.present.push(`${objectName}.${field.name}`);
        continue;
      }
      try {
        await connection.tooling.create('CustomField', { FullName: `${objectName}.${field.name}`, Metadata: customFieldMetadata(field) });
        report.created.push(fieldText(field));
      } catch (error) {
        report.problems.push(`${objectName}.${field.name} could not be created: ${refusal(error)}`);
      }
    }
  }
  if (report.created.length) {
    report.notes.push("Created fields are visible to profiles with access to them: give the integration user's permission set read and edit access to them (Field-Level Security).");
  }
  return report;
}
