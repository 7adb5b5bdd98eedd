// `crm-sync setup <connection>`: makes the CRM ready for the sync. HubSpot: creates the project's
// properties, deal pipelines and (where custom objects are missing) the entitlement fallback, says what
// it created, and is safe to run twice. Salesforce: its fields are deployed as metadata (README "Setting
// up Salesforce"); setup checks the mappings against the org and names what is missing.
import type { Command } from 'commander';
import { CRM_NAMES, type CrmKind } from '../crm/connector.ts';
import { dynamicsCredentials } from '../crm/dynamics/connector.ts';
import { setUpDynamics } from '../crm/dynamics/setup.ts';
import { hubspotCredentials } from '../crm/hubspot/connector.ts';
import { setUpHubSpot, type SetupReport } from '../crm/hubspot/setup.ts';
import { createConnector, mappingsFor } from '../crm/registry.ts';
import { checkMappings } from '../mappings/check.ts';
import { connectionSecretsSchema, connectionSettingsSchema } from '../sync/connection-settings.ts';
import { openCommandContext } from './context.ts';
import { jsonOutput } from './output.ts';
import type { withConfigType } from './with-config.ts';

export function registerSetupCommand(program: Command, withConfig: withConfigType) {
  program
    .command('setup <connection>')
    .description("make the connection's CRM ready: HubSpot properties and pipelines, Dataverse tables, columns, lookups and alternate keys are created where missing (safe to run twice); Salesforce fields are checked")
    .option('--json', 'print the report as JSON')
    .action((name: string) =>
      withConfig(async (config, logger) => {
        const context = await openCommandContext(config, logger);
        try {
          const found = await context.findConnection(name);
          const connection = (await context.connections.getWithSecrets(found.id))!;
          const settings = connectionSettingsSchema.parse(connection.settings);
          if (settings.crm.kind === 'hubspot') {
            const report = await setUpHubSpot({ baseUrl: settings.crm.baseUrl, credentials: hubspotCredentials(settings.crm, connection.secrets) });
            const notes: string[] = [];
            if (report.entitlementObject !== settings.crm.entitlementObject) {
              await context.connections.update(found.id, { settings: connectionSettingsSchema.parse({ ...settings, crm: { ...settings.crm, entitlementObject: report.entitlementObject } }) });
              notes.push(`${found.name} now writes entitlements to ${report.entitlementObject === 'line_items' ? "line items on the offer's deal (this account has no custom objects)" : 'the marketplace_entitlement custom object'}.`);
            }
            print(report, notes, jsonOutput());
            if (report.problems.length) process.exitCode = 1;
            return;
          }
          if (settings.crm.kind === 'dynamics') {
            const report = await setUpDynamics({ orgUrl: settings.crm.orgUrl, apiVersion: settings.crm.apiVersion, credentials: dynamicsCredentials(settings.crm, connection.secrets) });
            print({ ...report, crm: 'Dataverse' }, [], jsonOutput());
            if (report.problems.length) process.exitCode = 1;
            return;
          }
          if (settings.crm.kind === 'salesforce') {
            const problems: string[] = [];
            try {
              const crm = createConnector(settings, connectionSecretsSchema.parse(connection.secrets));
              await crm.verify();
              const mappings = mappingsFor('salesforce', settings.crm);
              await checkMappings(crm, Object.fromEntries(settings.entities.flatMap((entity) => (mappings[entity] ? [[entity, mappings[entity]]] : []))), settings.overrides);
            } catch (error) {
              problems.push(...((error as { problems?: string[] }).problems ?? [(error as Error).message]));
            }
            const report = { created: [], present: problems.length ? [] : ['every field the mappings write'], problems, notes: ['Salesforce fields are deployed as metadata (README "Setting up Salesforce"); setup changes nothing in the org.'] };
            if (jsonOutput()) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
            else {
              process.stdout.write(`${report.notes[0]}\n`);
              process.stdout.write(problems.length ? `Missing or not fitting:\n${problems.map((p) => `  - ${p}`).join('\n')}\n` : 'All fields present.\n');
            }
            if (problems.length) process.exitCode = 1;
            return;
          }
          throw new Error(`Setting up ${CRM_NAMES[(settings.crm as { kind: CrmKind }).kind]} is not supported yet`);
        } finally {
          await context.close();
        }
      })(),
    );
}

function print(report: Pick<SetupReport, 'created' | 'present' | 'problems'> & { crm?: string }, notes: string[], json?: boolean) {
  if (json) {
    process.stdout.write(JSON.stringify({ ...report, notes }, null, 2) + '\n');
    return;
  }
  const lines = [
    report.created.length ? `Created (${report.created.length}):\n${report.created.map((item) => `  + ${item}`).join('\n')}` : 'Created nothing: everything was there already.',
    report.present.length ? `Already there (${report.present.length}):\n${report.present.map((item) => `  = ${item}`).join('\n')}` : '',
    report.problems.length ? `Problems (${report.problems.length}), fix them in ${report.crm ?? 'HubSpot'} and run setup again:\n${report.problems.map((item) => `  ! ${item}`).join('\n')}` : '',
    ...notes,
  ];
  process.stdout.write(lines.filter(Boolean).join('\n') + '\n');
}
