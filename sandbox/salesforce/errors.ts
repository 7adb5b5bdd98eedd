// Salesforce's error shapes and texts. Two kinds: per-record errors inside save results
// ({statusCode, message, fields}) and request-level errors, answered as an HTTP error with the body
// [{message, errorCode, fields?}].
import type { SandboxField, SandboxObject } from './schema.ts';

export type RecordError = { statusCode: string; message: string; fields: string[] };

/** A whole request refused: becomes `status` with `[{message, errorCode, fields?}]`. */
export class RequestError extends Error {
  readonly status: number;
  readonly errorCode: string;
  readonly fields: string[] | undefined;
  constructor(status: number, errorCode: string, message: string, fields?: string[]) {
    super(message);
    this.status = status;
    this.errorCode = errorCode;
    this.fields = fields;
  }
  body(): unknown[] {
    return [{ message: this.message, errorCode: this.errorCode, ...(this.fields ? { fields: this.fields } : {}) }];
  }
}

const recordError = (statusCode: string, message: string, fields: string[] = []): RecordError => ({ statusCode, message, fields });

export const notFound = () => new RequestError(404, 'NOT_FOUND', 'The requested resource does not exist');
export const sessionInvalid = () => new RequestError(401, 'INVALID_SESSION_ID', 'Session expired or invalid');
export const noSuchColumn = (object: SandboxObject, name: string) =>
  new RequestError(400, 'INVALID_FIELD', `No such column '${name}' on sobject of type ${object.name}`);
export const jsonParserError = (typeName: string, token: string, value: string, column: number) =>
  new RequestError(
    400,
    'JSON_PARSER_ERROR',
    `Cannot deserialize instance of ${typeName} from ${token} value ${value} or request may be missing a required field at [line:1, column:${column}]`,
  );

export const errors = {
  requiredMissing: (fields: SandboxField[]) =>
    recordError('REQUIRED_FIELD_MISSING', `Required fields are missing: [${fields.map((f) => f.name).join(', ')}]`, fields.map((f) => f.name)),
  stringTooLong: (field: SandboxField, value: string) =>
    recordError('STRING_TOO_LONG', `${field.label}: data value too large: ${value} (max length=${field.length})`, [field.name]),
  badPicklist: (field: SandboxField, value: string) =>
    recordError('INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', `${field.label}: bad value for restricted picklist field: ${value}`, [field.name]),
  invalidEmail: (field: SandboxField, value: string) => recordError('INVALID_EMAIL_ADDRESS', `${field.label}: invalid email address: ${value}`, [field.name]),
  numberOutOfRange: (field: SandboxField, value: number) =>
    recordError('NUMBER_OUTSIDE_VALID_RANGE', `${field.label}: value outside of valid range on numeric field: ${value}`, [field.name]),
  /** A checkbox given null: it holds true or false, never nothing [inf: refusals reported for REST and Apex saves]. */
  checkboxNull: (field: SandboxField) => recordError('INVALID_TYPE_ON_FIELD_IN_RECORD', `${field.label}: value not of required type: `, [field.name]),
  malformedId: (field: SandboxField, value: string) => recordError('MALFORMED_ID', `${field.label}: id value of incorrect type: ${value}`, [field.name]),
  crossReferenceMissing: () => recordError('INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY', 'insufficient access rights on cross-reference id'),
  foreignKeyNotFound: (parent: SandboxObject, keyField: SandboxField, value: string) =>
    recordError('INVALID_FIELD', `Foreign key external ID: ${value} not found for field ${keyField.name} in entity ${parent.name}`),
  duplicateValue: (field: SandboxField, otherId: string) =>
    recordError('DUPLICATE_VALUE', `duplicate value found: ${field.name} duplicates value on record with id: ${otherId}`),
  duplicateExternalId: (value: string) => recordError('DUPLICATE_VALUE', `Duplicate external id specified: ${value}`),
  externalIdMatchesMany: (object: SandboxObject, field: SandboxField, ids: string[]) =>
    recordError('DUPLICATE_EXTERNAL_ID', `${object.label}: more than one record found for external id field: [${ids.join(', ')}]`, [field.name]),
  notWritable: (fields: SandboxField[]) =>
    recordError(
      'INVALID_FIELD_FOR_INSERT_UPDATE',
      `Unable to create/update fields: ${fields.map((f) => f.name).join(', ')}. Please check the security settings of this field and verify that it is read/write for your profile or permission set.`,
      fields.map((f) => f.name),
    ),
  idOnInsert: () => recordError('INVALID_FIELD_FOR_INSERT_UPDATE', 'Record ID: cannot specify Id in an insert call', ['Id']),
  missingId: () => recordError('MISSING_ARGUMENT', 'Id not specified in an update call'),
  missingExternalId: (field: SandboxField) => recordError('MISSING_ARGUMENT', `${field.name} not specified`),
  malformedRecordId: (value: string) => recordError('MALFORMED_ID', `Record ID: id value of incorrect type: ${value}`, ['Id']),
  unknownRecord: () => recordError('INVALID_CROSS_REFERENCE_KEY', 'invalid cross reference id'),
  entityDeleted: () => recordError('ENTITY_IS_DELETED', 'entity is deleted'),
  rolledBack: () =>
    recordError('ALL_OR_NONE_OPERATION_ROLLED_BACK', 'Record rolled back because not all records were valid and the request was using AllOrNone header'),
  csvUnreadable: (column: number, text: string, xsdType: string) =>
    recordError('INVALID_FIELD', `Failed to deserialize field at col ${column}. Due to, '${text}' is not a valid value for the type ${xsdType}`),
};
