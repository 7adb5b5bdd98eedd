// Before a connection writes anything: describe every target object and check the mappings, with the
// connection's overrides, against it. All problems are reported at once, each by name.
import type { CrmConnector } from '../crm/connector.ts';
import type { MappingOverrides } from './overrides.ts';
import { validateMapping } from './overrides.ts';
import type { Entity, EntityMapping } from './types.ts';

export class MappingConfigError extends Error {
  override name = 'MappingConfigError';
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`The connection's field mapping does not fit the CRM:\n- ${problems.join('\n- ')}`);
    this.problems = problems;
  }
}

export async function checkMappings(
  connector: Pick<CrmConnector, 'describe'>,
  mappings: Partial<Record<Entity, EntityMapping<any, any>>>,
  overrides: MappingOverrides = {},
): Promise<void> {
  const problems: string[] = [];
  for (const entity of Object.keys(overrides) as Entity[]) {
    if (!mappings[entity]) problems.push(`overrides name the entity '${entity}', which this CRM's mappings do not sync`);
  }
  for (const [entity, mapping] of Object.entries(mappings) as [Entity, EntityMapping<any, any>][]) {
    problems.push(...validateMapping(mapping, overrides[entity], await connector.describe(mapping.object)));
  }
  if (problems.length > 0) throw new MappingConfigError(problems);
}
