// Dataverse's error answers: `{"error":{"code":"0x…","message":"…"}}` with the HTTP status, and the
// codes and messages the sandbox uses (tags as in docs/crm-wire-behaviour.md: [doc] documented,
// [inf] inferred from reports of the live service).
export class DataverseError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;
  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
  body() {
    return { error: { code: this.code, message: this.message } };
  }
}

/** OData URL / query problems (unknown segment, property, syntax error): 0x80060888 [inf]. */
export const odataError = (message: string, status = 400) => new DataverseError(status, '0x80060888', message);
/** A payload the OData reader refuses (unknown property, wrong JSON type): 0x80048d19 [inf]. */
export const payloadError = (setName: string, inner: string) =>
  new DataverseError(
    400,
    '0x80048d19',
    `Error identified in Payload provided by the user for Entity :'${setName}', For more information on this error please follow this help link https://go.microsoft.com/fwlink/?linkid=2195293  ---->  InnerException : Microsoft.OData.ODataException: ${inner}`,
  );
/** ObjectDoesNotExist (0x80040217) [doc]. */
export const doesNotExist = (table: string, id: string) => new DataverseError(404, '0x80040217', `${table} With Id = ${id} Does Not Exist`);
export const keyDoesNotExist = (table: string) => new DataverseError(404, '0x80040217', `A record with the specified key values does not exist in ${table} entity`);
/** MaxLength exceeded (0x80044331) [inf]. */
export const tooLong = (attribute: string, table: string, max: number) =>
  new DataverseError(400, '0x80044331', `A validation error occurred.  The length of the '${attribute}' attribute of the '${table}' entity exceeded the maximum allowed length of '${max}'.`);
/** DuplicateRecordEntityKey (0x80060892) [doc]. */
export const duplicateKey = (keyDisplay: string, attributes: string) =>
  new DataverseError(412, '0x80060892', `A record that has the attribute values ${attributes} already exists. The entity key ${keyDisplay} requires that this set of attributes contains unique values. Select unique values and try again.`);
/** DuplicateRecord (0x80040237) [doc]: If-None-Match: * on a record that exists. */
export const alreadyExists = () => new DataverseError(412, '0x80040237', 'A record with matching key values already exists.');
export const internal = (message: string) => new DataverseError(500, '0x80040216', message);
