// Column values: checking and converting what a client writes (JSON types, MaxLength, options,
// datetimes to whole seconds in UTC, date-only values), and presenting stored rows as the Web API
// answers them (lookups as _x_value with their annotations, @odata.etag from versionnumber).
import { DataverseError, odataError, payloadError, tooLong } from './errors.ts';
import { GUID_RE } from './guid.ts';
import { isLookup, type AttributeDef, type EntityDef } from './schema.ts';
import type { Lookup, Row } from './store.ts';

export const EDM: Record<string, string> = {
  String: 'Edm.String', Memo: 'Edm.String', Boolean: 'Edm.Boolean', Decimal: 'Edm.Decimal', Money: 'Edm.Decimal', Double: 'Edm.Double',
  Integer: 'Edm.Int32', Picklist: 'Edm.Int32', State: 'Edm.Int32', Status: 'Edm.Int32', BigInt: 'Edm.Int64', DateTime: 'Edm.DateTimeOffset',
  Uniqueidentifier: 'Edm.Guid', Lookup: 'Edm.Guid', Customer: 'Edm.Guid', Owner: 'Edm.Guid',
};
export const edmOf = (a: AttributeDef) => (a.AttributeType === 'DateTime' && a.Format === 'DateOnly' ? 'Edm.Date' : EDM[a.AttributeType] ?? 'Edm.String');

/** Whole seconds, UTC, `YYYY-MM-DDTHH:MM:SSZ`. */
export const isoSeconds = (date: Date) => `${date.toISOString().slice(0, 19)}Z`;
const DATETIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,7})?)?(Z|[+-]\d{2}:\d{2})$/;
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

/** The value to store for `value` written to `attribute`, or Dataverse's refusal. */
export function convertValue(entity: EntityDef, attribute: AttributeDef, value: unknown): unknown {
  if (value === null) return null;
  const literal = typeof value === 'string' ? value : JSON.stringify(value);
  const cannot = () => payloadError(entity.EntitySetName, `Cannot convert the literal '${literal}' to the expected type '${edmOf(attribute)}'.`);
  switch (attribute.AttributeType) {
    case 'String':
    case 'Memo':
      if (typeof value !== 'string') throw cannot();
      if (attribute.MaxLength !== undefined && value.length > attribute.MaxLength) throw tooLong(attribute.LogicalName, entity.LogicalName, attribute.MaxLength);
      return value;
    case 'Boolean':
      if (typeof value !== 'boolean') throw cannot();
      return value;
    case 'Integer':
    case 'BigInt':
    case 'Picklist':
    case 'State':
    case 'Status': {
      if (typeof value !== 'number' || !Number.isInteger(value)) throw cannot();
      if (attribute.Options && !attribute.Options.includes(value))
        throw new DataverseError(400, '0x8004431a', `${attribute.LogicalName} value ${value} is not a valid option for the ${entity.LogicalName} entity. Choose one of ${attribute.Options.join(', ')}.`);
      if ((attribute.MinValue !== undefined && value < attribute.MinValue) || (attribute.MaxValue !== undefined && value > attribute.MaxValue))
        throw new DataverseError(400, '0x80044331', `A validation error occurred.  The value ${value} of '${attribute.LogicalName}' on record of type '${entity.LogicalName}' is outside the valid range. Accepted Values: ${attribute.MinValue} to ${attribute.MaxValue}`);
      return value;
    }
    case 'Decimal':
    case 'Money':
    case 'Double': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;
      if (!Number.isFinite(n)) throw cannot();
      return n;
    }
    case 'DateTime': {
      if (typeof value !== 'string') throw cannot();
      if (attribute.Format === 'DateOnly') {
        if (!DATE_RE.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) throw cannot();
        return value;
      }
      if (!DATETIME_RE.test(value) || Number.isNaN(Date.parse(value))) throw cannot();
      return isoSeconds(new Date(value));
    }
    case 'Uniqueidentifier':
      if (typeof value !== 'string' || !GUID_RE.test(value)) throw cannot();
      return value.toLowerCase();
    default:
      throw cannot();
  }
}

export const lookupProperty = (attribute: AttributeDef) => `_${attribute.LogicalName}_value`;

/** The attribute a `$select`/`$filter`/`$orderby` name stands for (`_x_value` for a lookup x). */
export function attributeNamed(entity: EntityDef, name: string): AttributeDef | undefined {
  const m = /^_(.+)_value$/.exec(name);
  if (m) {
    const a = entity.Attributes.find((x) => x.LogicalName === m[1]);
    return a && isLookup(a) ? a : undefined;
  }
  const a = entity.Attributes.find((x) => x.LogicalName === name);
  return a;
}

export const noProperty = (entity: EntityDef, name: string) => odataError(`Could not find a property named '${name}' on type 'Microsoft.Dynamics.CRM.${entity.LogicalName}'.`);

/** A stored value as compared in $filter and $orderby (lookups by their GUID). */
export const comparable = (row: Row, attribute: AttributeDef): unknown => {
  const v = row[attribute.LogicalName];
  if (v === undefined || v === null) return null;
  return isLookup(attribute) ? (v as Lookup).id : v;
};

export type Presentation = { select?: AttributeDef[]; annotations: (name: string) => boolean };

/** A row as the Web API answers it. */
export function present(entity: EntityDef, row: Row, how: Presentation): Record<string, unknown> {
  const out: Record<string, unknown> = { '@odata.etag': `W/"${row.versionnumber}"` };
  const attrs = how.select ?? entity.Attributes;
  for (const a of attrs) {
    const v = row[a.LogicalName];
    if (isLookup(a)) {
      const l = (v ?? null) as Lookup | null;
      const name = lookupProperty(a);
      if (l && how.annotations('OData.Community.Display.V1.FormattedValue')) out[`${name}@OData.Community.Display.V1.FormattedValue`] = l.id;
      if (l && how.annotations('Microsoft.Dynamics.CRM.associatednavigationproperty')) {
        const rel = entity.ManyToOneRelationships.find((r) => r.ReferencingAttribute === a.LogicalName && r.ReferencedEntity === l.table);
        if (rel) out[`${name}@Microsoft.Dynamics.CRM.associatednavigationproperty`] = rel.ReferencingEntityNavigationPropertyName;
      }
      if (l && how.annotations('Microsoft.Dynamics.CRM.lookuplogicalname')) out[`${name}@Microsoft.Dynamics.CRM.lookuplogicalname`] = l.table;
      out[name] = l ? l.id : null;
    } else {
      if (v !== undefined && v !== null && how.annotations('OData.Community.Display.V1.FormattedValue') && ['Money', 'Picklist', 'State', 'Status', 'Boolean', 'DateTime'].includes(a.AttributeType)) {
        // A choice answers its option's label (Accept), other kinds their value as text.
        out[`${a.LogicalName}@OData.Community.Display.V1.FormattedValue`] = (a.AttributeType === 'Picklist' && a.OptionLabels?.[v as number]) || String(v);
      }
      out[a.LogicalName] = v ?? null;
    }
  }
  // The primary id is always answered.
  if (how.select && !how.select.some((a) => a.LogicalName === entity.PrimaryIdAttribute)) out[entity.PrimaryIdAttribute] = row[entity.PrimaryIdAttribute];
  return out;
}

/** What `Prefer: odata.include-annotations="..."` asks for. */
export function annotationsWanted(prefer: string | undefined): (name: string) => boolean {
  const m = /odata\.include-annotations\s*=\s*"?([^",;]+(?:,[^",;]+)*)"?/i.exec(prefer ?? '');
  if (!m) return () => false;
  const patterns = m[1]!.split(',').map((p) => p.trim());
  return (name) => patterns.some((p) => p === '*' || p === name || (p.endsWith('.*') && name.startsWith(p.slice(0, -1))));
}
