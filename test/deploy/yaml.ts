// YAML for the deploy tests (the compose file, the chart's values and `helm template` output), read by the
// `yaml` package (eemeli/yaml, YAML 1.2). Each document comes back as plain JSON data.
import { parseAllDocuments } from 'yaml';

/** Every non-empty document of a YAML stream (a `helm template` output has many). */
export function parseYamlDocuments(text: string): unknown[] {
  // merge: the compose file shares settings with `<<: *anchor` merge keys (YAML 1.1, as Compose reads them).
  const documents = parseAllDocuments(text, { merge: true });
  if (!Array.isArray(documents)) return [];
  const problems = documents.flatMap((document) => document.errors.map((error) => error.message));
  if (problems.length) throw new Error(`Not valid YAML: ${problems.slice(0, 3).join(' ')}`);
  return documents.map((document) => document.toJS({ maxAliasCount: -1 }) as unknown).filter((value) => value !== null && value !== undefined);
}

export function parseYaml(text: string): unknown {
  const documents = parseYamlDocuments(text);
  if (documents.length !== 1) throw new Error(`expected one YAML document, found ${documents.length}`);
  return documents[0];
}
