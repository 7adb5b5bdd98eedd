// `crm-sync setup <connection>`: makes the CRM ready for the sync, says what it created and what was
// there, and is safe to run twice. HubSpot: the custom object (its objectTypeId kept in the connection),
// property groups, the project's properties, deal pipelines and (where HubSpot refuses the account
// custom objects) the entitlement fallback. Dataverse: tables, columns, lookups and alternate keys, and
// activities for the timeline's tables when the connection chose the timeline. Salesforce: custom objects
// and fields through the Tooling API, granted to the integration user by a permission set. Then the
// mappings are checked. A connection that chose the product catalogue gets its part too (product
// fields and keys, the price book or price lists, the unit group), and the ids it found are kept in the
// connection's crm.catalogueIds, saved with the audit row (setup-catalogue.ts).
import type { Command } from 'commander';
import { CRM_NAMES, type CrmKind } from '../crm/connector.ts';
import { dynamicsCredentials } from '../crm/dynamics/connector.ts';
import { setUpDynamics } from '../crm/dynamics/setup.ts';
import { hubspotCredentials } from '../crm/hubspot/connector.ts';
import { setUpHubSpot, type SetupReport } from '../crm/hubspot/setup.ts';
import { openSalesforceSession } from '../crm/salesforce/session.ts';
import { setUpSalesforce } from '../crm/salesforce/setup.ts';
import { createConnector } from '../crm/registry.ts';
import { checkConnectionMappings } from '../sync/verify-connection.ts';
import { connectionSecretsSchema, connectionSettingsSchema } from '../sync/connection-settings.ts';
import { storedRefreshTokenVault } from '../sync/refresh-token-handover.ts';
import { openCommandContext } from './context.ts';
import { recordAudit } from './audit.ts';
import { catalogueIdsToSave, catalogueNote, choosesCatalogue } from './setup-catalogue.ts';
import { withTransaction } from '../store/transaction.ts';
import { jsonOutput } from './output.ts';
import { EXIT } from './exit-codes.ts';
import { stepProgress, type Steps } from './progress.ts';
import type { withConfigType } from './with-config.ts';

export function registerSetupCommand(program: Command, withConfig: withConfigType) {
  program
    .command('setup <connection>')
    .description("make the connection's CRM ready: HubSpot properties and pipelines, Dataverse tables, columns, lookups and alternate keys are created where missing (safe to run twice); Salesforce custom objects and fields are created through the Tooling API and granted to the integration user by a permission set")
    .option('--json', 'print the report as JSON (one line)')
    .addHelpText(
      'after',
      `
Exit code ${EXIT.attention} when setup found problems it could not fix (the report says what to do in the CRM).

Examples:
  crm-sync setup acme
  crm-sync setup acme --json | jq .problems`,
    )
    .action((name: string) =>
      withConfig(async (config, logger) => {
        const context = await openCommandContext(config, logger);
        // On a terminal, which step setup is at: signing in and creating can take a minute on a big org.
        let steps: Steps | undefined;
        try {
          const found = await context.findConnection(name);
          const connection = (await context.connections.getWithSecrets(found.id))!;
          const settings = connectionSettingsSchema.parse(connection.settings);
          // The product catalogue (issue #28), when the connection chose it: its part of setup runs too, and
          // the ids it found (price books, unit group, price lists) are kept in the connection.
          const catalogue = choosesCatalogue(settings) ? settings.catalogue : undefined;
          /** The CRM settings setup changes, saved with its audit row in one transaction; else the audit row alone. */
          const record = async (detail: Record<string, unknown>, changes: Record<string, unknown> | undefined) => {
            if (!changes) {
              await recordAudit(context.database.pool, { action: 'setup', connectionId: found.id, detail });
              return;
            }
            const crm = { ...settings.crm, ...changes };
            await withTransaction(context.database.pool, async (tx) => {
              await context.connections.update(found.id, { settings: connectionSettingsSchema.parse({ ...settings, crm }) }, tx);
              await recordAudit(tx, { action: 'setup', connectionId: found.id, before: { crm: settings.crm }, after: { crm }, detail });
            });
          };
          /** The catalogue's ids to keep (undefined: nothing new), and the report's line saying so. */
          const catalogueChanges = (ids: Record<string, string> | undefined, notes: string[]) => {
            const kept = 'catalogueIds' in settings.crm ? settings.crm.catalogueIds : undefined;
            const catalogueIds = catalogue ? catalogueIdsToSave(kept, ids) : undefined;
            if (!catalogueIds) return undefined;
            notes.push(catalogueNote(found.name, catalogueIds, catalogue!.priceBook));
            return { catalogueIds };
          };
          if (settings.crm.kind === 'hubspot') {
            steps = stepProgress(1);
            steps.next('Creating the HubSpot properties, pipelines and custom object where missing');
            const report = await setUpHubSpot({ baseUrl: settings.crm.baseUrl, credentials: hubspotCredentials(settings.crm, connection.secrets) }, { catalogue: catalogue !== undefined });
            const notes: string[] = [];
            let changes: Record<string, unknown> | undefined;
            // Where entitlements go, and the custom object's objectTypeId API paths take, kept in the
            // connection. Setup that could not tell (its problems say why) changes neither.
            const { entitlementObject, entitlementObjectTypeId } = report;
            if (entitlementObject && (entitlementObject !== settings.crm.entitlementObject || entitlementObjectTypeId !== settings.crm.entitlementObjectTypeId)) {
              changes = { entitlementObject, entitlementObjectTypeId };
              if (entitlementObject !== settings.crm.entitlementObject) {
                notes.push(`${found.name} now writes entitlements to ${entitlementObject === 'line_items' ? "line items on the offer's deal (HubSpot refused this account a custom object)" : `the marketplace_entitlement custom object (${entitlementObjectTypeId})`}.`);
              } else notes.push(`${found.name} now names the marketplace_entitlement custom object by its objectTypeId ${entitlementObjectTypeId}.`);
            }
            steps.stop();
            await record({ crm: 'HubSpot', created: report.created, problems: report.problems.length }, changes);
            print(report, notes, jsonOutput());
            if (report.problems.length) process.exitCode = EXIT.attention;
            return;
          }
          if (settings.crm.kind === 'dynamics') {
            steps = stepProgress(1);
            steps.next('Creating the Dataverse tables, columns, lookups and keys where missing');
            const report = await setUpDynamics({ orgUrl: settings.crm.orgUrl, apiVersion: settings.crm.apiVersion, credentials: dynamicsCredentials(settings.crm, connection.secrets) }, undefined, {
              // Tables the timeline's tasks are regarding get activities only when the connection chose it.
              timeline: settings.entities.includes('timeline'),
              catalogue: catalogue && { priceBook: catalogue.priceBook },
            });
            steps.stop();
            const notes = [...report.notes];
            await record({ crm: 'Dataverse', created: report.created, problems: report.problems.length }, catalogueChanges(report.catalogueIds, notes));
            print({ ...report, crm: 'Dataverse' }, notes, jsonOutput());
            if (report.problems.length) process.exitCode = EXIT.attention;
            return;
          }
          if (settings.crm.kind === 'salesforce') {
            steps = stepProgress(3);
            steps.next('Signing in to Salesforce');
            const secrets = connectionSecretsSchema.parse(connection.secrets);
            // Both sessions below sign in: a rotated refresh token goes back into the connection.
            const refreshTokens = storedRefreshTokenVault(context.connections, found.id);
            const { connection: org, userInfo } = await openSalesforceSession(
              { loginUrl: settings.crm.loginUrl, apiVersion: settings.crm.apiVersion },
              { clientId: settings.crm.clientId, clientSecret: secrets.crmClientSecret!, refreshToken: secrets.crmRefreshToken, refreshTokens },
            );
            steps.next('Creating the custom objects and fields and the permission set where missing');
            const report = await setUpSalesforce(org, userInfo.id, { catalogue: catalogue && { priceBook: catalogue.priceBook } });
            steps.next('Checking the mappings against the org');
            // Then the same check connect makes: the mappings (with this connection's overrides) against the org.
            try {
              const crm = createConnector(settings, secrets, { refreshTokens });
              await checkConnectionMappings(crm, settings);
            } catch (error) {
              report.problems.push(...((error as { problems?: string[] }).problems ?? [(error as Error).message]));
            }
            steps.stop();
            const notes = [...report.notes];
            await record({ crm: 'Salesforce', created: report.created, problems: report.problems.length }, catalogueChanges(report.catalogueIds, notes));
            print({ ...report, crm: 'Salesforce' }, notes, jsonOutput());
            if (report.problems.length) process.exitCode = EXIT.attention;
            return;
          }
          throw new Error(`Setting up ${CRM_NAMES[(settings.crm as { kind: CrmKind }).kind]} is not supported yet`);
        } finally {
          steps?.stop(false);
          await context.close();
        }
      })(),
    );
}

function print(report: Pick<SetupReport, 'created' | 'present' | 'problems'> & { crm?: string }, notes: string[], json?: boolean) {
  if (json) {
    process.stdout.write(JSON.stringify({ ...report, notes }) + '\n'); // one line, as every command's --json
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
