// Which of the project's custom objects and fields this org has. A sandbox started with
// `customMetadata: 'missing'` is an org before `crm-sync setup`: its describe shows none of them until
// the Tooling API creates them (tooling.ts). The definitions themselves are schema.ts's: the sandbox
// models only those, and refuses a definition that does not match its model.
import { RequestError } from './errors.ts';
import { findField, findObject, SALESFORCE_SANDBOX_SCHEMA, type FieldType } from './schema.ts';

export type CustomMetadata = 'deployed' | 'missing';

// The Metadata API's field types and what describe calls them.
const METADATA_TYPES: Record<string, FieldType> = {
  Text: 'string',
  LongTextArea: 'textarea',
  TextArea: 'textarea',
  Url: 'url',
  Email: 'email',
  Phone: 'phone',
  Picklist: 'picklist',
  Date: 'date',
  DateTime: 'datetime',
  Currency: 'currency',
  Checkbox: 'boolean',
  Lookup: 'reference',
};

let sequence = 0;
const toolingId = (prefix: string) => `${prefix}${String(++sequence).padStart(15 - prefix.length, '0')}AAA`.slice(0, 18);

export function createDeployments(customMetadata: CustomMetadata = 'deployed') {
  const undeployed = new Set<string>();
  const initial = () => {
    undeployed.clear();
    if (customMetadata !== 'missing') return;
    for (const object of Object.values(SALESFORCE_SANDBOX_SCHEMA)) {
      if (object.custom) undeployed.add(object.name);
      for (const field of object.fields) if (field.custom) undeployed.add(`${object.name}.${field.name}`);
    }
  };
  initial();

  return {
    objectDeployed: (object: string) => !undeployed.has(object),
    fieldDeployed: (object: string, field: string) => !undeployed.has(object) && !undeployed.has(`${object}.${field}`),

    /** POST /tooling/sobjects/CustomObject. */
    createObject(fullName: string, metadata: Record<string, unknown> | undefined): string {
      const object = findObject(fullName);
      if (!object || !object.custom) throw new RequestError(400, 'INVALID_INPUT', `This sandbox org models only the project's custom objects; ${fullName} is not one of them`);
      if (!undeployed.has(object.name)) throw new RequestError(400, 'DUPLICATE_DEVELOPER_NAME', `There is already an object named ${object.name}.`);
      if (!metadata?.label || !metadata.pluralLabel || !(metadata.nameField as { type?: string } | undefined)?.type) {
        throw new RequestError(400, 'FIELD_INTEGRITY_EXCEPTION', 'Required fields are missing: [Label, PluralLabel, NameField]', ['Metadata']);
      }
      undeployed.delete(object.name);
      return toolingId('01I');
    },

    /** POST /tooling/sobjects/CustomField ("Object.Field__c"). */
    createField(fullName: string, metadata: Record<string, unknown> | undefined): string {
      const [objectName, fieldName] = fullName.split('.');
      const object = objectName ? findObject(objectName) : undefined;
      if (!object || !fieldName || undeployed.has(object.name)) throw new RequestError(400, 'INVALID_INPUT', `Cannot create ${fullName}: no such object ${objectName ?? ''}`, ['FullName']);
      const field = findField(object, fieldName);
      if (!field || !field.custom) throw new RequestError(400, 'INVALID_INPUT', `This sandbox org models only the project's custom fields; ${fullName} is not one of them`, ['FullName']);
      if (!undeployed.has(`${object.name}.${field.name}`)) throw new RequestError(400, 'DUPLICATE_DEVELOPER_NAME', `There is already a field named ${field.name} on ${object.name}.`, ['FullName']);
      const type = METADATA_TYPES[String(metadata?.type)];
      if (!metadata?.label || !type) throw new RequestError(400, 'FIELD_INTEGRITY_EXCEPTION', `Required fields are missing or invalid: [Label, Type] (got type ${JSON.stringify(metadata?.type)})`, ['Metadata']);
      if (type !== field.type) throw new RequestError(400, 'FIELD_INTEGRITY_EXCEPTION', `This sandbox org models ${fullName} as ${field.type}, not ${String(metadata.type)}`, ['Metadata']);
      if (field.type === 'string' && Number(metadata.length) !== field.length) throw new RequestError(400, 'FIELD_INTEGRITY_EXCEPTION', `This sandbox org models ${fullName} with length ${field.length}, not ${String(metadata.length)}`, ['Metadata']);
      if (field.externalId && metadata.externalId !== true) throw new RequestError(400, 'FIELD_INTEGRITY_EXCEPTION', `This sandbox org models ${fullName} as an external id`, ['Metadata']);
      if (field.type === 'reference' && metadata.referenceTo !== field.referenceTo[0]) throw new RequestError(400, 'FIELD_INTEGRITY_EXCEPTION', `${fullName} must look up ${field.referenceTo[0]}`, ['Metadata']);
      undeployed.delete(`${object.name}.${field.name}`);
      return toolingId('00N');
    },

    reset: initial,
  };
}

export type Deployments = ReturnType<typeof createDeployments>;
