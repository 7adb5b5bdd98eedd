// The portal's owners (HubSpot users records and activities are assigned to), read-only as HubSpot's
// owners API is (docs/crm-wire-behaviour.md, issue #27 section 1): `GET /crm/v3/owners` (email, limit,
// after) and `GET /crm/v3/owners/{ownerId}` (idProperty id or userId). An owner's `id` is what
// `hubspot_owner_id` holds; its `userId` is another number, refused as an owner (writes.ts).
import { notFound, validation } from './errors.ts';
import { json, type Ctx, type Reply } from './http.ts';

export type Owner = { id: string; email: string; firstName: string; lastName: string; userId: number };

/** The owners a portal starts with unless the `owners` start option names others. */
export const DEFAULT_OWNERS: readonly Owner[] = [
  { id: '71000001', email: 'ada.seller@example.com', firstName: 'Ada', lastName: 'Seller', userId: 9100001 },
  { id: '71000002', email: 'ben.rep@example.com', firstName: 'Ben', lastName: 'Rep', userId: 9100002 },
  { id: '71000003', email: 'cy.manager@example.com', firstName: 'Cy', lastName: 'Manager', userId: 9100003 },
];

const SINCE = '2020-01-01T00:00:00.000Z';
const present = (owner: Owner) => ({ id: owner.id, email: owner.email, type: 'PERSON', firstName: owner.firstName, lastName: owner.lastName, userId: owner.userId, userIdIncludingInactive: owner.userId, createdAt: SINCE, updatedAt: SINCE, archived: false });

export function listOwners(ctx: Ctx): Reply {
  const limit = Number(ctx.url.searchParams.get('limit') ?? 100);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw validation(`limit must be a whole number from 1 to 500, not ${ctx.url.searchParams.get('limit')}`);
  const email = ctx.url.searchParams.get('email')?.toLowerCase();
  const all = ctx.state.store.owners().filter((owner) => email === undefined || owner.email.toLowerCase() === email);
  const after = Number(ctx.url.searchParams.get('after') ?? 0);
  const page = all.slice(after, after + limit);
  const next = after + limit < all.length ? { paging: { next: { after: String(after + limit) } } } : {};
  return json(200, { results: page.map(present), ...next });
}

export function getOwner(ctx: Ctx): Reply {
  const by = ctx.url.searchParams.get('idProperty') ?? 'id';
  if (by !== 'id' && by !== 'userId') throw validation(`idProperty must be id or userId, not ${by}`);
  const owner = ctx.state.store.owners().find((o) => (by === 'id' ? o.id : String(o.userId)) === ctx.params.ownerId);
  if (!owner) throw notFound(`No owner with ${by} ${ctx.params.ownerId}`);
  return json(200, present(owner));
}
