// The content hash of a mapped record: only what would be written (object, external id, fields), in a
// canonical form, so an unchanged record hashes the same on every run and costs no CRM write.
import { createHash } from 'node:crypto';
import type { MappedRecord } from '../mappings/types.ts';

// Built by concatenation rather than entries/filter/sort/map/join: it runs for every record of every
// page, and those intermediate arrays were a tenth of a backfill's garbage. The output must stay
// byte for byte what it was (keys sorted by code unit, undefined left out): stored hashes depend on it.
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  let out = '{';
  let first = true;
  for (const key of Object.keys(object).sort()) {
    const inner = object[key];
    if (inner === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${canonicalJson(inner)}`;
    first = false;
  }
  return `${out}}`;
}

export function contentHash(record: MappedRecord): string {
  return createHash('sha256')
    .update(canonicalJson({ object: record.object, externalIdField: record.externalIdField, externalId: record.externalId, fields: record.fields }))
    .digest('base64url');
}
