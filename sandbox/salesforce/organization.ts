// The Organization object as a query sees it (issue #25 section 5): the one row of the org, read-only,
// with the few fields the worker reads. `DefaultCurrencyIsoCode` is the org's default currency (a
// single-currency org keeps every amount in it; a multi-currency org answers its corporate currency
// here [inf]: the wire doc's "Org default currency"). Any other field is Salesforce's INVALID_FIELD, a
// filter or sort is refused as unsupported here. Start option `defaultCurrencyIsoCode` (default USD, or
// a multi-currency org's corporate currency); GET/POST /_sandbox/organization reads and sets it. Such a
// query is counted apart, as `query-organization` (`callKind`), so the counts of record queries a test
// checks stay about records.
import { RequestError } from './errors.ts';
import { json, type Ctx, type Reply } from './http.ts';
import { ORG_ID } from './ids.ts';
import { queryError } from './soql-lexer.ts';
import type { SoqlQuery } from './soql-parser.ts';

const ISO_CODE = /^[A-Z]{3}$/;
const FIELDS = ['Id', 'Name', 'DefaultCurrencyIsoCode'] as const;

export function createOrganization(defaultCurrencyIsoCode = 'USD') {
  if (!ISO_CODE.test(defaultCurrencyIsoCode)) throw new Error(`Salesforce sandbox: defaultCurrencyIsoCode must be an ISO 4217 code (three capital letters), not ${JSON.stringify(defaultCurrencyIsoCode)}`);
  const org = { Id: ORG_ID, Name: 'Sandbox Org', DefaultCurrencyIsoCode: defaultCurrencyIsoCode };
  return {
    row: () => ({ ...org }),
    setCurrency(code: string) {
      org.DefaultCurrencyIsoCode = code;
    },
  };
}

export type Organization = ReturnType<typeof createOrganization>;

export const isOrganizationQuery = (query: SoqlQuery): boolean => query.from.name.toLowerCase() === 'organization';

/** The kind a request is counted under: a query of Organization apart from record queries. */
export function callKind(kind: string, url: URL): string {
  return kind === 'query' && /\bFROM\s+Organization\b/i.test(url.searchParams.get('q') ?? '') ? 'query-organization' : kind;
}

/** The answer to a query of Organization: its one row, with the fields asked for. */
export function organizationQuery(ctx: Ctx, query: SoqlQuery): Reply {
  const organization = ctx.state.organization;
  if (query.where || query.orderBy.length || query.count) throw queryError(query.text, query.from.pos, 'MALFORMED_QUERY', 'the Salesforce sandbox answers Organization queries without WHERE, ORDER BY or COUNT only');
  const row = organization.row();
  const record: Record<string, unknown> = { attributes: { type: 'Organization', url: `/services/data/v${ctx.version}/sobjects/Organization/${row.Id}` } };
  for (const path of query.fields) {
    const name = FIELDS.find((field) => field.toLowerCase() === path.text.toLowerCase());
    if (!name || path.parts.length > 1) {
      throw queryError(query.text, path.pos, 'INVALID_FIELD', `No such column '${path.text}' on entity 'Organization'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names.`);
    }
    record[name] = row[name];
  }
  const records = query.limit === 0 ? [] : [record];
  return json(200, { totalSize: records.length, done: true, records });
}

/** GET /_sandbox/organization: the org's default currency. */
export function getOrganization(ctx: Ctx): Reply {
  return json(200, { defaultCurrencyIsoCode: ctx.state.organization.row().DefaultCurrencyIsoCode });
}

/** POST /_sandbox/organization `{defaultCurrencyIsoCode}`: as an admin changing the org's currency in Company Information. */
export function setOrganization(ctx: Ctx): Reply {
  let body: { defaultCurrencyIsoCode?: unknown };
  try {
    body = JSON.parse(ctx.body || '{}');
  } catch {
    throw new RequestError(400, 'INVALID_BODY', 'expected a JSON object');
  }
  if (body.defaultCurrencyIsoCode !== undefined) {
    if (typeof body.defaultCurrencyIsoCode !== 'string' || !ISO_CODE.test(body.defaultCurrencyIsoCode)) throw new RequestError(400, 'INVALID_BODY', 'defaultCurrencyIsoCode must be an ISO 4217 code of three capital letters, such as EUR');
    ctx.state.organization.setCurrency(body.defaultCurrencyIsoCode);
  }
  return getOrganization(ctx);
}
