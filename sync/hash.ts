// The content hash of a mapped record: only what would be written (object, external id, fields), in a
// canonical form, so an unchanged record hashes the same on every run and costs no CRM write.
import { createHash } from 'node:crypto';
import type { MappedRecord } from '../mappings/types.ts';

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, inner]) => inner !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(',')}}`;
}

export function contentHash(record: MappedRecord): string {
  return createHash('sha256')
    .update(canonicalJson({ object: record.object, externalIdField: record.externalIdField, externalId: record.externalId, fields: record.fields }))
    .digest('base64url');
}
