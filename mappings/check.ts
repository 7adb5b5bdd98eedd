// Before a connection writes anything: describe every target object and check the mappings, with the
// connection's overrides, against it. All problems are reported at once, each by name.
import { CRM_NAMES, type CrmConnector } from '../crm/connector.ts';
import type { MappingOverrides } from './overrides.ts';
import { validateMapping } from './overrides.ts';
import { unfilledRequiredFields } from './required-fields.ts';
import type { Entity, EntityMapping } from './types.ts';

export class MappingConfigError extends Error {
  override name = 'MappingConfigError';
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`The connection's field mapping does not fit the CRM:\n- ${problems.join('\n- ')}`);
    this.problems = problems;
  }
}

function isMissingObject(error: unknown): boolean {
  const { code, status, message } = error as { code?: unknown; status?: unknown; message?: unknown };
  return code === 'NOT_FOUND' || code === 'OBJECT_NOT_FOUND' || status === 404 || /requested resource does not exist|unknown object|no such object/i.test(String(message));
}

export async function checkMappings(
  connector: Pick<CrmConnector, 'describe'> & Partial<Pick<CrmConnector, 'kind'>>,
  mappings: Partial<Record<Entity, EntityMapping<any, any>>>,
  overrides: MappingOverrides = {},
  options: { requiredFields?: boolean } = {},
): Promise<void> {
  const problems: string[] = [];
  for (const entity of Object.keys(overrides) as Entity[]) {
    if (!mappings[entity]) problems.push(`overrides name the entity '${entity}', which this CRM's mappings do not sync`);
  }
  for (const [entity, mapping] of Object.entries(mappings) as [Entity, EntityMapping<any, any>][]) {
    let schema;
    try {
      schema = await connector.describe(mapping.object);
    } catch (error) {
      // An object the org does not have is one more thing to name (setup creates it), not the end of the check.
      if (!isMissingObject(error)) throw error;
      problems.push(`${mapping.object} does not exist in the CRM (the ${entity} mapping writes to it)`);
      continue;
    }
    problems.push(...validateMapping(mapping, overrides[entity], schema));
    // The worker does not stop a run for these (options.requiredFields false): `connect`, `setup` and
    // `doctor` name them, and a create the CRM refuses for one is a dead letter, as any refused record.
    if (options.requiredFields !== false) problems.push(...unfilledRequiredFields(mapping, overrides[entity], schema, connector.kind && CRM_NAMES[connector.kind]));
  }
  if (problems.length > 0) throw new MappingConfigError(problems);
}
