// `crm-sync backfill` (start or join, live progress, summary) and `crm-sync preview` (a dry run).
import type { Command } from 'commander';
import { WorkflowNotFoundError } from '@temporalio/client';
import { setTimeout as sleep } from 'node:timers/promises';
import { backfillWorkflowId, readProgress, startBackfill } from '../temporal/sync-schedules.ts';
import { ENTITIES } from '../mappings/types.ts';
import type { SyncProgress } from '../workflows/sync.ts';
import { parseEntities } from './connection-commands.ts';
import { openCommandContext } from './context.ts';
import type { withConfigType } from './with-config.ts';
import { runPreview } from '../sync/preview.ts';

function progressLine(progress: SyncProgress): string {
  const t = progress.totals;
  const entity = progress.entity ? `${progress.entity} page ${progress.entities[progress.entity]?.pages ?? 0}` : progress.finished ? 'done' : 'starting';
  return `[${entity}] pages ${t.pages}, read ${t.records}, written ${t.created + t.updated} (created ${t.created}, updated ${t.updated}), unchanged ${t.unchanged}, failed ${t.failed}`;
}

export function registerSyncCommands(program: Command, withConfig: withConfigType) {
  program
    .command('backfill <connection>')
    .description('sync chosen entities over a time range now; a repeated call joins the running backfill')
    .option('--entities <list>', `entities (${ENTITIES.join(',')}); default: the connection's`)
    .option('--from <time>', 'lastUpdateTime from (ISO 8601, inclusive); default: the beginning')
    .option('--to <time>', 'lastUpdateTime up to (ISO 8601); default: now')
    .option('--reset-cursors', 'also restart the scheduled incremental sync from the beginning')
    .option('--forget-links', 'forget which CRM records were written, so every record is written again')
    .option('--no-wait', 'start it and return')
    .option('--cancel', 'cancel the running backfill with these options')
    .action((connection: string, options) =>
      withConfig(async (config, logger) => {
        const context = await openCommandContext(config, logger);
        try {
          const found = await context.findConnection(connection);
          const settings = found.settings as { entities?: string[] };
          const request = {
            connectionId: found.id,
            entities: parseEntities(options.entities) ?? ((settings.entities ?? ENTITIES) as never),
            from: options.from ? new Date(options.from).toISOString() : undefined,
            to: options.to ? new Date(options.to).toISOString() : undefined,
            resetCursors: Boolean(options.resetCursors),
            forgetLinks: Boolean(options.forgetLinks),
          };
          const client = await context.temporalClient();
          if (options.cancel) {
            await client.workflow.getHandle(backfillWorkflowId(request)).cancel();
            process.stdout.write(`Cancelled ${backfillWorkflowId(request)}\n`);
            return;
          }
          const handle = await startBackfill(client, config.temporal.taskQueue, request);
          process.stderr.write(`Backfill ${handle.workflowId} (watch it in the Temporal Web UI too)\n`);
          if (options.wait === false) return;
          let last = '';
          for (;;) {
            const description = await handle.describe();
            try {
              const line = progressLine(await readProgress(handle));
              if (line !== last) process.stderr.write(`${line}\n`);
              last = line;
            } catch (error) {
              if (!(error instanceof WorkflowNotFoundError)) logger.debug({ err: error }, 'progress not available yet');
            }
            if (description.status.name !== 'RUNNING') break;
            await sleep(1000);
          }
          const summary = await handle.result();
          process.stdout.write(JSON.stringify({ workflowId: handle.workflowId, ...summary.totals, entities: summary.entities }) + '\n');
        } finally {
          await context.close();
        }
      })(),
    );

  program
    .command('preview <connection>')
    .description('dry run: per entity, what the next sync would create, update, leave unchanged or reject (with reasons); writes nothing')
    .option('--entities <list>', `entities (${ENTITIES.join(',')})`)
    .action((connection: string, options) =>
      withConfig(async (config, logger) => {
        const context = await openCommandContext(config, logger);
        try {
          const found = await context.findConnection(connection);
          const report = await runPreview(context.database.pool, context.connections, found.id, parseEntities(options.entities));
          process.stdout.write(JSON.stringify(report, null, 2) + '\n');
        } finally {
          await context.close();
        }
      })(),
    );
}
