// The Tooling API: create of CustomObject and CustomField (what `crm-sync setup` calls), answered as
// Salesforce does: 201 with the new component's id, or 400 with [{errorCode, message, fields}]; and
// query of the org's setup metadata (tooling-query.ts), which shows fields the user is not granted.
import { RequestError } from './errors.ts';
import { json, type Ctx, type Reply } from './http.ts';

export function create(ctx: Ctx): Reply {
  let body: { FullName?: unknown; Metadata?: Record<string, unknown> };
  try {
    body = JSON.parse(ctx.body || '{}');
  } catch {
    throw new RequestError(400, 'JSON_PARSER_ERROR', 'The request body is not valid JSON');
  }
  if (typeof body.FullName !== 'string' || !body.FullName) throw new RequestError(400, 'REQUIRED_FIELD_MISSING', 'Required fields are missing: [FullName]', ['FullName']);
  const type = ctx.params.type;
  let id: string;
  if (type === 'CustomObject') {
    id = ctx.state.deployments.createObject(body.FullName, body.Metadata).id;
  } else if (type === 'CustomField') {
    const created = ctx.state.deployments.createField(body.FullName, body.Metadata);
    // The records' table keeps unique values for a field marked Unique, and only for one.
    ctx.state.store.table(created.object).setUnique(created.field, created.field.unique);
    id = created.id;
  } else {
    throw new RequestError(404, 'NOT_FOUND', `The requested resource does not exist: this sandbox's Tooling API creates CustomObject and CustomField only, not ${type}`);
  }
  return json(201, { id, success: true, errors: [], warnings: [], infos: [] });
}
