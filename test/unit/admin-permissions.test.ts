// The console's permission table: what each role may send where, written out by hand per request.
import { describe, expect, it } from 'vitest';
import { allows, highestRole, permissionFor, type Role } from '../../admin/permissions.ts';

const cases: [method: string, path: string, viewer: boolean, operator: boolean, admin: boolean][] = [
  ['GET', '/', true, true, true],
  ['GET', '/connections/c-1', true, true, true],
  ['GET', '/connections/c-1/mapping', true, true, true],
  ['GET', '/metrics', true, true, true],
  ['GET', '/api/connections/c-1/backfills/backfill-c-1-x', true, true, true],
  ['HEAD', '/', true, true, true],
  ['POST', '/logout', true, true, true],
  ['POST', '/connections/c-1/retry', false, true, true],
  ['POST', '/api/connections/c-1/retry', false, true, true],
  ['POST', '/connections/c-1/pause', false, true, true],
  ['POST', '/connections/c-1/resume', false, true, true],
  ['POST', '/connections/c-1/backfill', false, true, true],
  ['POST', '/connections/c-1/cosell/retry', false, true, true],
  // Not listed: changes need an admin.
  ['POST', '/connections/c-1/mapping', false, false, true],
  ['POST', '/connections/c-1/mapping/rollback', false, false, true],
  // The mapping page's forms (admin/console/mapping-routes.ts): reading is open, every post is an admin's.
  ['GET', '/connections/c-1/mappings/offer', true, true, true],
  ['POST', '/connections/c-1/mappings/offer', false, false, true],
  ['POST', '/connections/c-1/mappings/offer/rollback', false, false, true],
  ['POST', '/connections/c-1/settings', false, false, true],
  ['POST', '/connections', false, false, true],
  ['POST', '/alerts/routes', false, false, true],
  ['PUT', '/connections/c-1', false, false, true],
  ['DELETE', '/connections/c-1', false, false, true],
  // A listed path with a different method, or a longer path, is not the listed action.
  ['DELETE', '/connections/c-1/retry', false, false, true],
  ['POST', '/connections/c-1/retry/all', false, false, true],
  ['POST', '/connections/c-1/pauseall', false, false, true],
  ['POST', '/connections/a/b/retry', false, false, true],
];

describe('the permission table', () => {
  it.each(cases)('%s %s: viewer %s, operator %s, admin %s', (method, path, viewer, operator, admin) => {
    const got: Record<Role, boolean> = { viewer: allows('viewer', method, path), operator: allows('operator', method, path), admin: allows('admin', method, path) };
    expect(got).toEqual({ viewer, operator, admin });
  });

  it('names what a rule allows and the role it needs, for the refusal', () => {
    expect(permissionFor('POST', '/connections/c-1/retry')).toMatchObject({ role: 'operator', what: 'retrying dead letters' });
    expect(permissionFor('POST', '/connections/c-1/mapping')).toMatchObject({ role: 'admin', what: 'changing settings' });
    expect(permissionFor('get', '/anything')).toMatchObject({ role: 'viewer' });
  });

  it('gives a person in several groups the highest role', () => {
    expect(highestRole(['viewer', 'admin', 'operator'])).toBe('admin');
    expect(highestRole(['viewer', 'operator'])).toBe('operator');
    expect(highestRole([])).toBeUndefined();
  });
});
