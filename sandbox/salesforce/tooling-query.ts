// GET /tooling/query?q=: the org's setup metadata for a user with View Setup, whatever field-level
// security hides from the user's describe and SOQL. Two questions are answered, as Salesforce's
// FieldDefinition and EntityDefinition do:
//   SELECT QualifiedApiName, ... FROM FieldDefinition WHERE EntityDefinition.QualifiedApiName = 'Account'
//   SELECT QualifiedApiName, ... FROM EntityDefinition WHERE QualifiedApiName IN ('A__c', 'B__c')
// (`=` or `IN` either way); anything else is refused as a query this sandbox does not model.
import { RequestError } from './errors.ts';
import { json, type Ctx, type Reply } from './http.ts';
import type { SandboxField, SandboxObject } from './schema.ts';

const QUERY = /^\s*SELECT\s+([\w\s,.]+?)\s+FROM\s+(FieldDefinition|EntityDefinition)\s+WHERE\s+(EntityDefinition\.QualifiedApiName|QualifiedApiName)\s*(=\s*'([^']*)'|IN\s*\(([^)]*)\))\s*$/i;

const fieldRow = (object: SandboxObject, field: SandboxField): Record<string, unknown> => ({
  attributes: { type: 'FieldDefinition' },
  QualifiedApiName: field.name,
  DeveloperName: field.name.replace(/__c$/, ''),
  DataType: field.type,
  Label: field.label,
  EntityDefinition: { attributes: { type: 'EntityDefinition' }, QualifiedApiName: object.name },
});

const entityRow = (object: SandboxObject): Record<string, unknown> => ({
  attributes: { type: 'EntityDefinition' },
  QualifiedApiName: object.name,
  DeveloperName: object.name.replace(/__c$/, ''),
  Label: object.label,
  KeyPrefix: object.keyPrefix,
});

export function query(ctx: Ctx): Reply {
  const q = ctx.url.searchParams.get('q') ?? '';
  const m = QUERY.exec(q);
  // FieldDefinition is filtered by its object (EntityDefinition.QualifiedApiName), EntityDefinition by its own name.
  const filterFits = !!m && (m[2]!.toLowerCase() === 'fielddefinition') === /^EntityDefinition\./i.test(m[3]!);
  if (!m || !filterFits) {
    throw new RequestError(400, 'MALFORMED_QUERY', `This sandbox's Tooling API answers FieldDefinition by EntityDefinition.QualifiedApiName and EntityDefinition by QualifiedApiName only, not: ${q}`);
  }
  const names = (m[5] !== undefined ? [m[5]] : m[6]!.split(',').map((v) => v.trim().replace(/^'|'$/g, ''))).map((n) => n.toLowerCase());
  const schema = ctx.state.schema;
  const objects = schema.objects().filter((o) => names.includes(o.name.toLowerCase()));
  const select = m[1]!.split(',').map((c) => c.trim());
  const rows = m[2]!.toLowerCase() === 'fielddefinition' ? objects.flatMap((o) => o.fields.map((f) => fieldRow(o, f))) : objects.map(entityRow);
  // Only the columns asked for, as SOQL answers (a relationship column keeps its nested record).
  const records = rows.map((row) => {
    const out: Record<string, unknown> = { attributes: row.attributes };
    for (const column of select) {
      const [head, tail] = column.split('.');
      if (tail && head!.toLowerCase() === 'entitydefinition') out.EntityDefinition = { attributes: { type: 'EntityDefinition' }, QualifiedApiName: (row.EntityDefinition as Record<string, unknown>).QualifiedApiName };
      else {
        const key = Object.keys(row).find((k) => k.toLowerCase() === column.toLowerCase());
        if (!key) throw new RequestError(400, 'INVALID_FIELD', `No such column '${column}' on entity '${m[2]}'.`);
        out[key] = row[key];
      }
    }
    return out;
  });
  return json(200, { size: records.length, totalSize: records.length, done: true, queryLocator: null, entityTypeName: m[2], records });
}
