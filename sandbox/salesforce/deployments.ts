// The Tooling API's create of CustomObject and CustomField, checked as a real org checks the metadata:
// the API name's grammar (letters, digits and single underscores, ending __c), a label, and what each
// field type needs (Text a length of 1-255, LongTextArea 256-131,072 and visible lines, Currency and
// Number a precision of at most 18 and a scale within it, Picklist a value set, Lookup an object to
// look up and a relationship name). A name already taken is DUPLICATE_DEVELOPER_NAME. What is created
// joins this org's schema (org-schema.ts), hidden from the integration user until a permission set
// grants it (field-access.ts).
import { RequestError } from './errors.ts';
import { isKnownFormula, KNOWN_FORMULAS } from './formulas.ts';
import type { OrgSchema } from './org-schema.ts';
import { field, ownerField, systemFields, type FieldType, type SandboxField, type SandboxObject } from './schema.ts';

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
  Number: 'double',
  Checkbox: 'boolean',
  Lookup: 'reference',
};

let sequence = 0;
const toolingId = (prefix: string) => `${prefix}${String(++sequence).padStart(15 - prefix.length, '0')}AAA`.slice(0, 18);

const integrity = (message: string, fields = ['Metadata']) => new RequestError(400, 'FIELD_INTEGRITY_EXCEPTION', message, fields);

/** "Region__c": a letter first, letters, digits and single underscores, no trailing underscore, at most 40 before __c. */
function checkApiName(name: string, what: 'Field Name' | 'Object Name') {
  const base = name.endsWith('__c') ? name.slice(0, -3) : '';
  if (!/^[A-Za-z][A-Za-z0-9]*(_[A-Za-z0-9]+)*$/.test(base) || base.length > 40) {
    throw new RequestError(
      400,
      'INVALID_FIELD',
      `The ${what} "${name}" can only contain underscores and alphanumeric characters, must end in __c, be unique, begin with a letter, not include spaces, not end with an underscore, and not contain two consecutive underscores.`,
      ['FullName'],
    );
  }
}

const int = (value: unknown) => (typeof value === 'number' || (typeof value === 'string' && value.trim() !== '') ? Number(value) : NaN);

/** The field a CustomField's metadata defines, or the refusal a real org gives it. */
function fieldFromMetadata(schema: OrgSchema, fullName: string, name: string, metadata: Record<string, unknown>): SandboxField {
  const type = METADATA_TYPES[String(metadata.type)];
  if (!type) throw integrity(`Required fields are missing or invalid: [Type] (got ${JSON.stringify(metadata.type)}; this sandbox accepts ${Object.keys(METADATA_TYPES).join(', ')})`);
  const label = typeof metadata.label === 'string' ? metadata.label.trim() : '';
  if (!label || label.length > 40) throw integrity('Required fields are missing: [Label] (1 to 40 characters)');
  const required = metadata.required === true || metadata.required === 'true';
  const externalId = metadata.externalId === true || metadata.externalId === 'true';
  const unique = metadata.unique === true || metadata.unique === 'true';
  if ((externalId || unique) && !['string', 'email', 'double'].includes(type)) throw integrity(`${fullName}: only Text, Email and Number fields can be External ID or Unique`);
  if (required && type === 'boolean') throw integrity(`${fullName}: a Checkbox cannot be required`);
  const options: Partial<SandboxField> = { required, externalId, unique, idLookup: externalId || unique, custom: true };
  if (typeof metadata.formula === 'string' && metadata.formula.trim()) {
    // A formula field is computed, so it can be neither required, unique nor an external id.
    if (required || externalId || unique) throw integrity(`${fullName}: a formula field cannot be required, unique or an external id`);
    if (!isKnownFormula(metadata.formula)) throw integrity(`${fullName}: this sandbox evaluates only the formulas the project declares (${KNOWN_FORMULAS.join('; ')}), not ${metadata.formula}`);
    options.formula = metadata.formula;
  }

  switch (type) {
    case 'string': {
      const length = int(metadata.length);
      if (!Number.isInteger(length) || length < 1 || length > 255) throw integrity(`Length: ${String(metadata.length)} is not valid: a Text field takes a length from 1 to 255`);
      return field(name, label, type, { ...options, length });
    }
    case 'textarea': {
      if (metadata.type === 'TextArea') return field(name, label, type, { ...options, length: 255 });
      const length = int(metadata.length);
      if (!Number.isInteger(length) || length < 256 || length > 131072) throw integrity(`Length: ${String(metadata.length)} is not valid: a Long Text Area takes a length from 256 to 131,072`);
      if (!Number.isInteger(int(metadata.visibleLines))) throw integrity('Required fields are missing: [VisibleLines]');
      return field(name, label, type, { ...options, length });
    }
    case 'currency':
    case 'double': {
      const precision = int(metadata.precision);
      const scale = int(metadata.scale);
      if (!Number.isInteger(precision) || precision < 1 || precision > 18) throw integrity(`Precision: ${String(metadata.precision)} is not valid: from 1 to 18 digits`);
      if (!Number.isInteger(scale) || scale < 0 || scale > precision) throw integrity(`Scale: ${String(metadata.scale)} is not valid: from 0 to the precision (${precision})`);
      return field(name, label, type, { ...options, precision, scale });
    }
    case 'picklist': {
      const valueSet = metadata.valueSet as { restricted?: unknown; valueSetDefinition?: { value?: { fullName?: unknown }[] } } | undefined;
      const values = (valueSet?.valueSetDefinition?.value ?? []).map((v) => String(v.fullName ?? '')).filter(Boolean);
      if (values.length === 0) throw integrity('Required fields are missing: [ValueSet] (a picklist needs at least one value)');
      return field(name, label, type, { ...options, length: 255, picklistValues: values, restrictedPicklist: valueSet?.restricted === true || valueSet?.restricted === 'true' });
    }
    case 'boolean':
      return field(name, label, type, { ...options, defaultValue: metadata.defaultValue === true || metadata.defaultValue === 'true' });
    case 'reference': {
      const target = typeof metadata.referenceTo === 'string' ? schema.find(metadata.referenceTo) : undefined;
      if (!target) throw integrity(`referenceTo: ${String(metadata.referenceTo)} is not an object of this org`);
      if (typeof metadata.relationshipName !== 'string' || !/^[A-Za-z][A-Za-z0-9]*(_[A-Za-z0-9]+)*$/.test(metadata.relationshipName)) {
        throw integrity('Required fields are missing or invalid: [RelationshipName]');
      }
      return field(name, label, type, { ...options, length: 18, referenceTo: [target.name], relationshipName: `${name.slice(0, -3)}__r` });
    }
    case 'url':
      return field(name, label, type, { ...options, length: 255 });
    case 'email':
      return field(name, label, type, { ...options, length: 80 });
    case 'phone':
      return field(name, label, type, { ...options, length: 40 });
    default:
      return field(name, label, type, options);
  }
}

export function createDeployments(schema: OrgSchema) {
  return {
    /** POST /tooling/sobjects/CustomObject. */
    createObject(fullName: string, metadata: Record<string, unknown> | undefined): { id: string; object: SandboxObject } {
      checkApiName(fullName, 'Object Name');
      if (schema.find(fullName)) throw new RequestError(400, 'DUPLICATE_DEVELOPER_NAME', `There is already an object named ${schema.find(fullName)!.name}.`);
      const nameField = metadata?.nameField as { type?: unknown; label?: unknown } | undefined;
      if (!metadata?.label || !metadata.pluralLabel || !nameField?.label || !['Text', 'AutoNumber'].includes(String(nameField.type))) {
        throw integrity('Required fields are missing: [Label, PluralLabel, NameField]');
      }
      const label = String(metadata.label);
      const object: SandboxObject = {
        name: fullName,
        label,
        labelPlural: String(metadata.pluralLabel),
        // a1x, counted per org: clear of the model's own prefixes (a0E, a0R), so ids name their object.
        keyPrefix: `a1${(schema.objects().filter((o) => o.keyPrefix.startsWith('a1')).length % 36).toString(36)}`,
        custom: true,
        fields: systemFields('Record ID', [field('Name', String(nameField.label), 'string', { length: 80, required: true, custom: false, idLookup: true }), ownerField()]),
      };
      schema.addObject(object);
      if (metadata.enableActivities === true || metadata.enableActivities === 'true') schema.allowActivities(object.name);
      return { id: toolingId('01I'), object };
    },

    /** POST /tooling/sobjects/CustomField ("Object.Field__c"). */
    createField(fullName: string, metadata: Record<string, unknown> | undefined): { id: string; object: SandboxObject; field: SandboxField } {
      const dot = fullName.indexOf('.');
      const prefix = fullName.slice(0, Math.max(dot, 0));
      // Activity custom fields are defined on Activity and appear on Task (and Event); Task or Event itself takes none.
      if (/^(task|event)$/i.test(prefix)) throw new RequestError(400, 'INVALID_INPUT', `Cannot create ${fullName}: custom fields of activities are created on Activity (Activity.${fullName.slice(dot + 1)})`, ['FullName']);
      const object = dot > 0 ? schema.find(/^activity$/i.test(prefix) ? 'Task' : prefix) : undefined;
      if (!object) throw new RequestError(400, 'INVALID_INPUT', `Cannot create ${fullName}: no such object ${fullName.slice(0, Math.max(dot, 0))}`, ['FullName']);
      const name = fullName.slice(dot + 1);
      checkApiName(name, 'Field Name');
      const taken = schema.findField(object, name);
      if (taken) throw new RequestError(400, 'DUPLICATE_DEVELOPER_NAME', `There is already a field named ${taken.name} on ${object.name}.`, ['FullName']);
      const created = fieldFromMetadata(schema, fullName, name, metadata ?? {});
      schema.addField(object.name, created);
      return { id: toolingId('00N'), object: schema.find(object.name)!, field: created };
    },
  };
}

export type Deployments = ReturnType<typeof createDeployments>;
