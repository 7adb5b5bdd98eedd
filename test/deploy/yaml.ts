// YAML for the deploy tests, read by Debian's python3-yaml (PyYAML): no YAML parser is among the
// project's npm packages, and the tests must not add one. Each document comes back as plain JSON data.
import { execFileSync } from 'node:child_process';

const TO_JSON = 'import json, sys, yaml; json.dump([d for d in yaml.safe_load_all(sys.stdin) if d is not None], sys.stdout)';

/** Every non-empty document of a YAML stream (a `helm template` output has many). */
export function parseYamlDocuments(text: string): unknown[] {
  let output: string;
  try {
    output = execFileSync('python3', ['-c', TO_JSON], { input: text, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '');
    if (/No module named 'yaml'|ENOENT/.test(stderr + String(error))) {
      throw new Error('The deploy tests read YAML with python3 and PyYAML: install them (apt-get install python3-yaml)');
    }
    throw new Error(`Not valid YAML: ${stderr.trim().split('\n').slice(-3).join(' ')}`);
  }
  return JSON.parse(output) as unknown[];
}

export function parseYaml(text: string): unknown {
  const documents = parseYamlDocuments(text);
  if (documents.length !== 1) throw new Error(`expected one YAML document, found ${documents.length}`);
  return documents[0];
}
