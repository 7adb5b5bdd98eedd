// What changed between an audit event's before and after (settings, mapping overrides), as rows a person
// reads: the path of each value that differs, its old value and its new one. Shared by `crm-sync audit
// --details` and the console's audit page. Values are shown as compact JSON; paths use dots and [n].

export type DiffRow = { path: string; before?: string; after?: string };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const shown = (value: unknown) => (value === undefined ? undefined : JSON.stringify(value));

/** Every leaf that was added, removed or changed, in a stable order; arrays compare as whole values. */
export function auditDiff(before: unknown, after: unknown, path = ''): DiffRow[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => auditDiff(before[key], after[key], path ? `${path}.${key}` : key));
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  // One side an object and the other not (a setting added whole): list the object's leaves.
  if (isObject(after) && before === undefined) return auditDiff({}, after, path);
  if (isObject(before) && after === undefined) return auditDiff(before, {}, path);
  return [{ path: path || '(value)', ...(before !== undefined && { before: shown(before) }), ...(after !== undefined && { after: shown(after) }) }];
}

/** What an action noted (how many letters a retry made due, which backfill started), as "key: value" pairs by key. */
export function detailText(detail: unknown): string {
  if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) return JSON.stringify(detail);
  return Object.entries(detail)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' · ');
}
