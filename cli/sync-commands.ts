// `crm-sync backfill` (start or join, live progress, summary) and `crm-sync preview` (a dry run).
import type { Command } from 'commander';
import { WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import type { Logger } from '../config/logger.ts';
import { progressView, type Reading } from '../ops/backfill-progress.ts';
import { printResult, table } from './output.ts';
import { progressBar } from './progress.ts';
import { EXIT, NotFoundError, UsageError } from './exit-codes.ts';
import { entityList, isoTime } from './option-parsers.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { backfillWorkflowId, readProgress, startBackfill } from '../temporal/sync-schedules.ts';
import { ENTITIES, type Entity } from '../mappings/types.ts';
import type { SyncProgress } from '../workflows/sync.ts';
import { openCommandContext } from './context.ts';
import { recordAudit } from './audit.ts';
import type { withConfigType } from './with-config.ts';
import { runPreview } from '../sync/preview.ts';

/**
 * Watches a backfill until it ends, or until Ctrl-C detaches (the backfill runs on). On a terminal a
 * progress bar (records of the current entity against the commerce side's count, records per second,
 * ETA); otherwise one line per change, for logs.
 */
async function watchBackfill(handle: WorkflowHandle, logger: Logger): Promise<'finished' | 'detached'> {
  const detach = new AbortController();
  const onInterrupt = () => detach.abort();
  process.once('SIGINT', onInterrupt);
  const bar = progressBar('{entity} |{bar}| {value}/{expected} | {rate} rec/s | ETA {eta} | written {written}, failed {failed}');
  let first: Reading | undefined;
  let last = '';
  try {
    for (;;) {
      const description = await handle.describe();
      try {
        const progress = await readProgress(handle);
        first ??= { at: Date.now(), records: progress.totals.records };
        if (bar) {
          const view = progressView(progress, Date.now(), first);
          const total = Math.max(view.entityExpected ?? view.entityRecords, view.entityRecords, 1);
          const payload = {
            entity: view.entity ? `${view.entity} (${view.index} of ${view.of})` : view.finished ? 'done' : 'starting',
            expected: view.entityExpected ?? '?',
            rate: view.perSecond === null ? '-' : Math.round(view.perSecond),
            eta: view.etaSeconds === null ? '-' : `${Math.round(view.etaSeconds)}s`,
            written: view.written,
            failed: view.failed,
          };
          if (!bar.isActive) bar.start(total, view.entityRecords, payload);
          bar.setTotal(total);
          bar.update(view.entityRecords, payload);
        } else {
          const line = progressLine(progress);
          if (line !== last) process.stderr.write(`${line}\n`);
          last = line;
        }
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) logger.debug({ err: error }, 'progress not available yet');
      }
      if (description.status.name !== 'RUNNING') return 'finished';
      await sleep(1000, undefined, { signal: detach.signal }).catch(() => undefined);
      if (detach.signal.aborted) return 'detached';
    }
  } finally {
    bar?.stop();
    process.off('SIGINT', onInterrupt);
  }
}

function progressLine(progress: SyncProgress): string {
  const t = progress.totals;
  const entity = progress.entity ? `${progress.entity} page ${progress.entities[progress.entity]?.pages ?? 0}` : progress.finished ? 'done' : 'starting';
  return `[${entity}] pages ${t.pages}, read ${t.records}, written ${t.created + t.updated} (created ${t.created}, updated ${t.updated}), unchanged ${t.unchanged}, failed ${t.failed}`;
}

export function registerSyncCommands(program: Command, withConfig: withConfigType) {
  program
    .command('backfill <connection>')
    .description('sync chosen entities over a time range now; a repeated call joins the running backfill')
    .option('--entities <list>', `entities (${ENTITIES.join(',')}); default: the connection's`, entityList)
    .option('--from <time>', 'lastUpdateTime from (ISO 8601, inclusive); default: the beginning', isoTime)
    .option('--to <time>', 'lastUpdateTime up to (ISO 8601); default: now', isoTime)
    .option('--reset-cursors', 'also restart the scheduled incremental sync from the beginning')
    .option('--forget-links', 'forget which CRM records were written, so every record is written again')
    .option('--no-wait', 'start it and return')
    .option('--cancel', 'cancel the running backfill with these options')
    .addHelpText(
      'after',
      `
Exit code ${EXIT.attention} when it ended with failed records (crm-sync errors names them).

Examples:
  crm-sync backfill acme                                       every entity the connection syncs, watched live
  crm-sync backfill acme --entities offer,entitlement --from 2026-01-01
  crm-sync backfill acme --entities offer --no-wait            start it and return
  crm-sync backfill acme --entities offer --cancel             stop the one started with these options`,
    )
    .action((connection: string, options) =>
      withConfig(async (config, logger) => {
        // An empty range would run and find nothing: say so before anything is opened.
        if (options.from && options.to && options.from > options.to) throw new UsageError(`--from (${options.from}) is later than --to (${options.to}); give a --from on or before --to`);
        const context = await openCommandContext(config, logger);
        try {
          const found = await context.findConnection(connection);
          const settings = found.settings as { entities?: string[] };
          const request = {
            connectionId: found.id,
            entities: (options.entities as Entity[] | undefined) ?? ((settings.entities ?? ENTITIES) as never),
            from: options.from as string | undefined,
            to: options.to as string | undefined,
            resetCursors: Boolean(options.resetCursors),
            forgetLinks: Boolean(options.forgetLinks),
          };
          const client = await context.temporalClient();
          if (options.cancel) {
            await client.workflow.getHandle(backfillWorkflowId(request)).cancel().catch((error: unknown) => {
              // None was started with these options, or it has ended: a script learns it from exit 3.
              if (error instanceof WorkflowNotFoundError) throw new NotFoundError(`No backfill of ${found.name} with these options is running (entities ${request.entities.join(',')}${request.from ? `, --from ${request.from}` : ''}${request.to ? `, --to ${request.to}` : ''}): nothing to cancel. Give the options it was started with.`);
              throw error;
            });
            await recordAudit(context.database.pool, { action: 'backfill.cancel', connectionId: found.id, target: request.entities.join(','), detail: { workflowId: backfillWorkflowId(request) } });
            printResult({ workflowId: backfillWorkflowId(request), cancelled: true }, (result) => `Cancelled ${result.workflowId}`);
            return;
          }
          // Running already (started by an earlier command or the console): this one attaches to it.
          const attached = await client.workflow
            .getHandle(backfillWorkflowId(request))
            .describe()
            .then((described) => described.status.name === 'RUNNING', () => false);
          const handle = await startBackfill(client, config.temporal.taskQueue, request);
          // Joining a running backfill changes nothing: only a start is an audit event.
          if (!attached) {
            const { connectionId: _id, entities, ...asked } = request;
            await recordAudit(context.database.pool, { action: 'backfill', connectionId: found.id, target: entities.join(','), detail: { workflowId: handle.workflowId, ...asked } });
          }
          process.stderr.write(`${attached ? 'Attached to the running' : 'Started the'} backfill ${handle.workflowId} (watch it in the Temporal Web UI and the console too)\n`);
          if (options.wait === false) {
            printResult({ workflowId: handle.workflowId, started: !attached }, () => `Backfill ${handle.workflowId} runs on; crm-sync backfill ${found.name} with the same options shows its progress`);
            return;
          }
          const watched = await watchBackfill(handle, logger);
          if (watched === 'detached') {
            process.stderr.write(`Detached: the backfill goes on. Run the same command to watch it again, or add --cancel to stop it.\n`);
            return;
          }
          const summary = await handle.result();
          printResult({ workflowId: handle.workflowId, ...summary.totals, entities: summary.entities }, (result) =>
            `Backfill done: read ${result.records}, created ${result.created}, updated ${result.updated}, unchanged ${result.unchanged}, failed ${result.failed}${result.failed ? ` (see crm-sync errors ${found.name})` : ''}`,
          );
          // Done, but records failed: a script sees it without reading the summary.
          if (summary.totals.failed > 0) process.exitCode = EXIT.attention;
        } finally {
          await context.close();
        }
      })(),
    );

  program
    .command('preview <connection>')
    .description('dry run: per entity, what the next sync would create, update, leave unchanged or reject (with reasons); writes nothing')
    .option('--entities <list>', `entities (${ENTITIES.join(',')})`, entityList)
    .addHelpText('after', '\nExamples:\n  crm-sync preview acme\n  crm-sync preview acme --entities buyer,offer --json')
    .action((connection: string, options: { entities?: Entity[] }) =>
      withConfig(async (config, logger) => {
        const context = await openCommandContext(config, logger);
        try {
          const found = await context.findConnection(connection);
          const bar = progressBar('{entity} |{bar}| entity {value}/{total} | create {create}, update {update}, unchanged {unchanged}, reject {reject}');
          const report = await runPreview(context.database.pool, context.connections, found.id, options.entities, ({ entity, index, of, counts }) => {
            if (!bar) return;
            if (!bar.isActive) bar.start(of, index - 1, { entity, ...counts });
            bar.update(index - 1, { entity, ...counts });
          })
            .then((done) => (bar?.update(bar.getTotal(), { entity: 'done' }), done))
            .finally(() => bar?.stop());
          printResult(report, (shown) => {
            const { cosell, ...entities } = shown;
            const rows = Object.entries(entities).map(([entity, preview]) => [entity, preview!.create, preview!.update, preview!.unchanged, preview!.reject]);
            const reasons = Object.entries(entities).flatMap(([entity, preview]) => preview!.reasons.map((reason) => `  ${entity} ${reason.sourceId}: ${reason.reason}`));
            return [
              table(['ENTITY', 'CREATE', 'UPDATE', 'UNCHANGED', 'REJECT'], rows),
              ...(reasons.length ? ['', 'Would be rejected:', ...reasons] : []),
              ...(cosell ? ['', `Co-sell ${cosell.enabled ? 'on' : 'off'}; stage owner ${cosell.owners.stage}; shared when ${JSON.stringify(cosell.share)}`] : []),
              '',
              'Nothing was written (a dry run).',
            ].join('\n');
          });
        } finally {
          await context.close();
        }
      })(),
    );
}
