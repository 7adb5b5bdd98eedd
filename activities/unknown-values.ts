// Values the commerce side sent that a mapping's picklist maps do not know (contract §9.5: statuses and
// enums may gain values). The record was written without that field (its last known value stays); here
// each new value is said once per worker process, in words a revenue-ops person can act on, and counted
// (metrics: crm_sync_unknown_values_total).
import type { UnknownValue } from '../mappings/types.ts';

const said = new Set<string>();

/** The values of a page, by field and value, with how many records carried each. */
export function countUnknown(values: (UnknownValue & { sourceId: string })[]): (UnknownValue & { records: number; example: string })[] {
  const byKey = new Map<string, UnknownValue & { records: number; example: string }>();
  for (const value of values) {
    const key = `${value.field}\u0000${value.value}`;
    const seen = byKey.get(key);
    if (seen) seen.records += 1;
    else byKey.set(key, { field: value.field, value: value.value, records: 1, example: value.sourceId });
  }
  return [...byKey.values()];
}

/** Says each value once per process (connection, object, field, value), through `log`. */
export function sayUnknownOnce(connectionId: string, object: string, values: (UnknownValue & { records: number; example: string })[], log: (message: string) => void): void {
  for (const value of values) {
    const key = [connectionId, object, value.field, value.value].join('\u0000');
    if (said.has(key)) continue;
    said.add(key);
    log(`the marketplace sent ${value.field} value ${JSON.stringify(value.value)} (${object} ${value.example}${value.records > 1 ? ` and ${value.records - 1} more` : ''}), which the connection's picklist map does not know: ${object}.${value.field} keeps its last value and the rest of the record is written; add the value to the map (crm-sync edit <connection> with overrides) to have it mapped`);
  }
}
