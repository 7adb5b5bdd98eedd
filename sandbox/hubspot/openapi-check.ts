// For tests: checks a recorded answer against HubSpot's published OpenAPI specs in
// docs/hubspot-openapi. The operation is found by method and path (a literal segment beats a
// {parameter}), its response by status (else `default`), and its schema compiled with $refs resolved.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const SPEC_DIR = path.join(import.meta.dirname, '..', '..', 'docs', 'hubspot-openapi');

type Operation = { responses?: Record<string, { $ref?: string; content?: Record<string, { schema?: unknown }> }> };
type Spec = { paths: Record<string, Record<string, Operation>>; components?: { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> } };

const specs = readdirSync(SPEC_DIR)
  .filter((f) => f.endsWith('.json'))
  .map((file) => ({ file, spec: JSON.parse(readFileSync(path.join(SPEC_DIR, file), 'utf8')) as Spec }));

// The specs are OpenAPI 3.0 documents, not JSON Schema: strict off for their `example` keywords.
const ajv = new Ajv({ strict: false, allErrors: true });
const addFormats = addFormatsModule as unknown as (a: Ajv) => void;
addFormats(ajv);
for (const { file, spec } of specs) ajv.addSchema(spec as object, file);

/** How well a template fits: undefined when it does not, else the number of literal segments. */
function fit(template: string, actual: string): number | undefined {
  const want = template.split('/');
  const have = actual.split('/');
  if (want.length !== have.length) return undefined;
  let literals = 0;
  for (let i = 0; i < want.length; i += 1) {
    if (want[i]!.startsWith('{')) continue;
    if (want[i] !== have[i]) return undefined;
    literals += 1;
  }
  return literals;
}

const compiled = new Map<string, ValidateFunction>();

export type SchemaCheck = { operation: string; schema: string; errors: string[] };

/** Validates `body` as the answer of `method path` with `status`; throws when the specs have no such operation or response. */
export function checkAgainstSpec(method: string, urlPath: string, status: number, body: unknown): SchemaCheck {
  const pathOnly = urlPath.split('?')[0]!;
  let best: { file: string; template: string; op: Operation; score: number } | undefined;
  for (const { file, spec } of specs) {
    for (const [template, ops] of Object.entries(spec.paths)) {
      const op = ops[method.toLowerCase()];
      const score = op ? fit(template, pathOnly) : undefined;
      if (op && score !== undefined && (!best || score > best.score)) best = { file, template, op, score };
    }
  }
  if (!best) throw new Error(`no operation ${method} ${pathOnly} in docs/hubspot-openapi`);
  const operation = `${best.file} ${method.toUpperCase()} ${best.template}`;
  const declared = best.op.responses?.[String(status)] ?? best.op.responses?.default;
  if (!declared) throw new Error(`${operation} declares no response ${status}`);
  let content = declared.content;
  if (declared.$ref) {
    const name = declared.$ref.split('/').pop()!;
    content = specs.find((s) => s.file === best!.file)!.spec.components?.responses?.[name]?.content;
  }
  const media = content?.['application/json'] ?? content?.['*/*'];
  const ref = (media?.schema as { $ref?: string } | undefined)?.$ref;
  if (!ref) throw new Error(`${operation} response ${status} has no JSON schema`);
  const key = `${best.file}${ref}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile({ $ref: key });
    compiled.set(key, validate);
  }
  const valid = validate(body);
  const errors = valid ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  return { operation, schema: ref, errors };
}
