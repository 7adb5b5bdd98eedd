// Maps a request to an operation of the contract's catalogue (§4.3). Literal segments beat parameters
// (GET /org/o/offer/query is Query Offers, not Get Offer "query"); a path the catalogue knows with a
// method it does not have is a 405 (A2).
import { OPERATIONS } from '../../commerce/operations.ts';
import { badRequest } from './errors.ts';

type Template = { method: string; path: string; key: string; segments: readonly string[] };

export type RouteMatch =
  | { kind: 'operation'; key: string; path: string; params: Record<string, string> }
  | { kind: 'method-not-allowed'; path: string; allowed: string[] }
  | { kind: 'not-found' };

const TEMPLATES: readonly Template[] = OPERATIONS.map((operation) => ({
  method: operation.method,
  path: operation.path,
  key: `${operation.method} ${operation.path}`,
  segments: operation.path.split('/').slice(1),
}));

const isParam = (segment: string) => segment.startsWith('{') && segment.endsWith('}');

/** Decoded path segments; an undecodable segment is a 400 rather than a crash. */
function splitPath(pathname: string): string[] {
  return pathname.split('/').slice(1).map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      throw badRequest(`path segment ${JSON.stringify(segment)} is not valid percent-encoding`);
    }
  });
}

function bind(template: Template, segments: readonly string[]): Record<string, string> | undefined {
  if (template.segments.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const expected = template.segments[i]!;
    const actual = segments[i]!;
    if (isParam(expected)) {
      if (actual === '') return undefined;
      params[expected.slice(1, -1)] = actual;
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return params;
}

/** Positive when a is more specific than b: the first differing segment is literal in a. */
function specificity(a: Template, b: Template): number {
  for (let i = 0; i < a.segments.length; i++) {
    const aParam = isParam(a.segments[i]!);
    const bParam = isParam(b.segments[i]!);
    if (aParam !== bParam) return aParam ? -1 : 1;
  }
  return 0;
}

export function matchRoute(method: string, pathname: string): RouteMatch {
  const segments = splitPath(pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname);
  const candidates: { template: Template; params: Record<string, string> }[] = [];
  for (const template of TEMPLATES) {
    const params = bind(template, segments);
    if (params) candidates.push({ template, params });
  }
  if (candidates.length === 0) return { kind: 'not-found' };
  const withMethod = candidates.filter((candidate) => candidate.template.method === method);
  if (withMethod.length === 0) {
    const best = candidates.reduce((a, b) => (specificity(b.template, a.template) > 0 ? b : a));
    const allowed = candidates.filter((candidate) => candidate.template.path === best.template.path).map((candidate) => candidate.template.method);
    return { kind: 'method-not-allowed', path: best.template.path, allowed };
  }
  const best = withMethod.reduce((a, b) => (specificity(b.template, a.template) > 0 ? b : a));
  return { kind: 'operation', key: best.template.key, path: best.template.path, params: best.params };
}
