// Test control: what the integration user's profile lacks. POST /_sandbox/user-permissions
// {lacks: ["Assign Permission Sets" | "Manage Profiles and Permission Sets"]} makes the org refuse its
// writes of permission sets (their rows) or assignments, record by record, with
// INSUFFICIENT_ACCESS_OR_READONLY, as an org whose admin gave the integration user neither. [] undoes it;
// a reset too.
import { RequestError } from './errors.ts';
import { json, type Ctx, type Reply } from './http.ts';
import { USER_PERMISSIONS } from './permissions.ts';

export function setUserLacks(ctx: Ctx): Reply {
  const body = JSON.parse(ctx.body || '{}') as { lacks?: unknown };
  const lacks = Array.isArray(body.lacks) ? body.lacks.map(String) : [];
  const unknown = lacks.filter((permission) => !USER_PERMISSIONS.includes(permission));
  if (unknown.length) throw new RequestError(400, 'INVALID_INPUT', `Not a permission this sandbox models: ${unknown.join(', ')} (it models ${USER_PERMISSIONS.join(', ')})`);
  ctx.state.schema.setUserLacks(lacks);
  return json(200, { lacks });
}
