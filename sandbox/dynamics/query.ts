// Reading rows: $select, $expand of single-valued lookups (with nested $select and $expand, expand.ts), $filter,
// $orderby (several keys, GUIDs in SQL Server order), $top, $count, and paging with
// `Prefer: odata.maxpagesize` (default and max 5000) through an @odata.nextLink built from the
// request's Host, whose $skiptoken carries the last row's sort values (keyset paging).
import { odataError } from './errors.ts';
import { parseExpand } from './expand.ts';
import { compareValues, matches, parseFilter, type Expr } from './filter.ts';
import { preferences, queryOptions, type ApiRequest, type Reply } from './http.ts';
import type { AttributeDef, EntityDef } from './schema.ts';
import type { Lookup, Row, Store } from './store.ts';
import { annotationsWanted, attributeNamed, comparable, noProperty, present } from './values.ts';

export const MAX_PAGE = 5000;

export function parseSelect(entity: EntityDef, select: string | undefined): AttributeDef[] | undefined {
  if (select === undefined || select.trim() === '' || select.trim() === '*') return undefined;
  return select.split(',').map((s) => s.trim()).map((name) => attributeNamed(entity, name) ?? (() => { throw noProperty(entity, name); })());
}

/** A row as answered to a read: its selected columns and any expanded lookups. */
export function shapeRow(req: ApiRequest, entity: EntityDef, row: Row, options: Map<string, string>): Record<string, unknown> {
  const annotations = annotationsWanted(req.headers.prefer);
  const out = present(entity, row, { select: parseSelect(entity, options.get('$select')), annotations });
  for (const expand of parseExpand(options.get('$expand'))) {
    const rel = entity.ManyToOneRelationships.find((r) => r.ReferencingEntityNavigationPropertyName === expand.nav);
    if (!rel) throw noProperty(entity, expand.nav);
    // [inf] A single-valued navigation property takes $select and $expand only (OData: the others apply to collections).
    const other = [...expand.options.keys()].find((name) => name !== '$select' && name !== '$expand');
    if (other) throw odataError(`The query option '${other}' is not allowed inside $expand of the single-valued navigation property '${expand.nav}'.`);
    const target = req.state.store.entity(rel.ReferencedEntity)!;
    const lookup = row[rel.ReferencingAttribute] as Lookup | null;
    const related = lookup && lookup.table === target.LogicalName ? req.state.store.get(target.LogicalName, lookup.id) : undefined;
    out[expand.nav] = related ? shapeRow(req, target, related, expand.options) : null;
  }
  return out;
}

const contextOf = (req: ApiRequest, entity: EntityDef, options: Map<string, string>, single: boolean) => {
  const select = options.get('$select');
  return `${req.base}$metadata#${entity.EntitySetName}${select ? `(${select})` : ''}${single ? '/$entity' : ''}`;
};
export const entityContext = (req: ApiRequest, entity: EntityDef, options: Map<string, string>) => contextOf(req, entity, options, true);

type Sort = { attribute: AttributeDef; desc: boolean };
function parseOrderBy(entity: EntityDef, text: string | undefined): Sort[] {
  const sorts: Sort[] = [];
  for (const item of (text ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const [name, dir, extra] = item.split(/\s+/);
    if (extra !== undefined || (dir !== undefined && !['asc', 'desc'].includes(dir))) throw odataError(`Syntax error at position ${item.length} in '${text}'.`);
    const attribute = attributeNamed(entity, name!);
    if (!attribute) throw noProperty(entity, name!);
    sorts.push({ attribute, desc: dir === 'desc' });
  }
  // The primary key ends every order, so pages never overlap.
  const id = entity.Attributes.find((a) => a.LogicalName === entity.PrimaryIdAttribute)!;
  if (!sorts.some((s) => s.attribute === id)) sorts.push({ attribute: id, desc: false });
  return sorts;
}

const compareTuples = (sorts: Sort[], a: unknown[], b: unknown[]) => {
  for (let i = 0; i < sorts.length; i += 1) {
    const c = compareValues(sorts[i]!.attribute, a[i], b[i]);
    if (c !== 0) return sorts[i]!.desc ? -c : c;
  }
  return 0;
};

export function list(req: ApiRequest, entity: EntityDef): Reply {
  const options = queryOptions(req.query);
  for (const name of options.keys()) {
    if (name.startsWith('$') && !['$select', '$filter', '$orderby', '$top', '$expand', '$count', '$skiptoken'].includes(name)) {
      throw odataError(`The query parameter ${name} is not supported`);
    }
  }
  const filter = options.has('$filter') ? parseFilter(entity, options.get('$filter')!) : undefined;
  const sorts = parseOrderBy(entity, options.get('$orderby'));
  const topText = options.get('$top');
  const top = topText === undefined ? undefined : Number(topText);
  if (top !== undefined && (!Number.isInteger(top) || top < 0)) throw odataError(`Invalid value '${topText}' for $top query option found. The $top query option requires a non-negative integer value.`);
  const prefs = preferences(req.headers.prefer);
  const asked = prefs.has('odata.maxpagesize') ? Number(prefs.get('odata.maxpagesize')) : undefined;
  const pageSize = asked && Number.isInteger(asked) && asked > 0 ? Math.min(asked, MAX_PAGE) : MAX_PAGE;
  parseSelect(entity, options.get('$select'));

  const tupleOf = (row: Row) => sorts.map((s) => comparable(row, s.attribute));
  let rows = (filter ? candidateRows(req.state.store, entity, filter) : req.state.store.rows(entity.LogicalName)).filter((row) => !filter || matches(filter, row));
  const total = rows.length;
  let decorated = rows.map((row) => ({ row, tuple: tupleOf(row) }));
  decorated.sort((a, b) => compareTuples(sorts, a.tuple, b.tuple));
  let pageNumber = 1;
  const token = options.get('$skiptoken');
  if (token) {
    const m = /pagenumber="(\d+)"\s+pagingcookie="([^"]*)"/.exec(token);
    let after: unknown[] | undefined;
    try {
      after = m ? (JSON.parse(Buffer.from(decodeURIComponent(m[2]!), 'base64url').toString('utf8')) as unknown[]) : undefined;
    } catch {
      after = undefined;
    }
    if (!m || !Array.isArray(after) || after.length !== sorts.length) throw odataError(`The $skiptoken '${token}' is not valid.`);
    pageNumber = Number(m[1]);
    decorated = decorated.filter((d) => compareTuples(sorts, d.tuple, after!) > 0);
  }
  let nextLink: string | undefined;
  let page = decorated;
  if (top !== undefined) page = decorated.slice(0, top);
  else if (decorated.length > pageSize) {
    page = decorated.slice(0, pageSize);
    const last = page[page.length - 1]!.tuple;
    const cookie = Buffer.from(JSON.stringify(last)).toString('base64url');
    const skip = `<cookie pagenumber="${pageNumber + 1}" pagingcookie="${cookie}" istracking="False" />`;
    const kept = req.query.split('&').filter((p) => p && !p.startsWith('$skiptoken=') && !p.startsWith('%24skiptoken='));
    nextLink = `${req.base}${entity.EntitySetName}?${[...kept, `$skiptoken=${encodeURIComponent(skip)}`].join('&')}`;
  }
  const body: Record<string, unknown> = { '@odata.context': contextOf(req, entity, options, false) };
  if (options.get('$count') === 'true') body['@odata.count'] = total;
  body.value = page.map((d) => shapeRow(req, entity, d.row, options));
  if (nextLink) body['@odata.nextLink'] = nextLink;
  const headers: Record<string, string> = {};
  const applied = [asked !== undefined ? `odata.maxpagesize=${pageSize}` : '', prefs.has('odata.include-annotations') ? `odata.include-annotations="${prefs.get('odata.include-annotations')}"` : ''].filter(Boolean);
  if (applied.length) headers['Preference-Applied'] = applied.join(',');
  return { status: 200, json: body, headers };
}

/**
 * The rows a filter can match at most, as SQL Server would find them through an index: where the filter
 * is `column eq value`, an `or` of such, or an `and` with one, on the table's primary id or a text
 * column, the rows filed under those values; otherwise every row. `matches` still decides each row.
 */
function candidateRows(store: Store, entity: EntityDef, filter: Expr): Row[] {
  const terms = equalities(entity, filter);
  if (!terms) return store.rows(entity.LogicalName);
  const found = new Map<unknown, Row>();
  for (const { attribute, value } of terms) {
    if (attribute.LogicalName === entity.PrimaryIdAttribute) {
      const row = store.get(entity.LogicalName, value);
      if (row) found.set(row, row);
    } else {
      for (const row of store.candidates(entity.LogicalName, attribute.LogicalName, value)) found.set(row, row);
    }
  }
  return [...found.values()];
}

function equalities(entity: EntityDef, expr: Expr): { attribute: AttributeDef; value: string }[] | undefined {
  if (expr.kind === 'or') {
    const left = equalities(entity, expr.left);
    const right = left && equalities(entity, expr.right);
    return left && right ? [...left, ...right] : undefined;
  }
  if (expr.kind === 'and') return equalities(entity, expr.left) ?? equalities(entity, expr.right);
  if (expr.kind !== 'cmp' || expr.op !== 'eq') return undefined;
  const [prop, lit] = expr.left.kind === 'prop' ? [expr.left, expr.right] : [expr.right, expr.left];
  if (prop.kind !== 'prop' || lit.kind !== 'lit' || typeof lit.value !== 'string') return undefined;
  const { attribute } = prop;
  if (attribute.LogicalName === entity.PrimaryIdAttribute && lit.edm === 'Edm.Guid') return [{ attribute, value: lit.value }];
  if ((attribute.AttributeType === 'String' || attribute.AttributeType === 'Memo') && lit.edm === 'Edm.String') return [{ attribute, value: lit.value }];
  return undefined;
}
