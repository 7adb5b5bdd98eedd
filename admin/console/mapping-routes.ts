// The mapping page's routes (issue #26 section 3), answered once a request is signed in and its form's
// CSRF token checked by the admin server:
//   GET  /connections/<id>/mappings              -> the first flow the connection syncs
//   GET  /connections/<id>/mappings/<flow>       the page (?type= filters the fields by type)
//   POST /connections/<id>/mappings/<flow>       action=filter | test | save, with the page's choices
//   POST /connections/<id>/mappings/<flow>/rollback   version=N
//   GET|POST /connections/<id>/mappings/crm/<flow>    a CRM-to-commerce flow (admin/console/mapping-reverse-page.ts)
// Saving needs an admin (admin/permissions.ts: every POST not listed there does); testing posts the
// page too, so it does as well. The CRM is described through the connection's runtime, as the sync does.
// A failure's message is shown redacted: a client's or CRM's error may quote a token or a signed URL.
import type pg from 'pg';
import { CRM_NAMES } from '../../crm/connector.ts';
import { mappingsFor } from '../../crm/registry.ts';
import { FLOWS } from '../../flows/index.ts';
import { CANONICAL_RECORDS, type EntityOverrides } from '../../mappings/overrides.ts';
import type { Entity, EntityMapping } from '../../mappings/types.ts';
import { MappingOverridesRefused, rollBackFlowOverrides, saveFlowOverrides } from '../../ops/mapping-save.ts';
import { connectionReads, testMappingOnRecord, type MappingTestResult } from '../../ops/mapping-test.ts';
import { mappingEditorView, overridesFromForm } from '../../ops/mapping-view.ts';
import type { ConnectionStore } from '../../store/connections.ts';
import { createMappingVersionStore } from '../../store/mapping-versions.ts';
import { redactText } from '../../store/redact.ts';
import { connectionSettingsSchema } from '../../sync/connection-settings.ts';
import { createRuntimeCache, type ConnectionRuntime, type RuntimeFor } from '../../sync/runtime.ts';
import { sessionActor } from '../actor.ts';
import { sessionVia } from './audit-record.ts';
import { mappingEditorPage } from './mapping-page.ts';
import { crmFlowRoute, crmFlowsOf } from './mapping-reverse-page.ts';
import { messagePage, type PageContext } from './pages.ts';
import type { Session } from './sessions.ts';

export type MappingRouteDeps = { pool: pg.Pool; connections: ConnectionStore; runtimeFor?: RuntimeFor };
type Reply = { status: number; headers?: Record<string, string>; body: string; type?: string };

const page = (body: string, status = 200): Reply => ({ status, body, type: 'text/html; charset=utf-8' });
const redirect = (to: string): Reply => ({ status: 303, headers: { location: to }, body: '' });

// One runtime cache per connection store: describes and tokens are reused between page views.
const runtimes = new WeakMap<ConnectionStore, RuntimeFor>();
function runtimeFor(deps: MappingRouteDeps): RuntimeFor {
  if (deps.runtimeFor) return deps.runtimeFor;
  let cached = runtimes.get(deps.connections);
  if (!cached) runtimes.set(deps.connections, (cached = createRuntimeCache(deps.connections)));
  return cached;
}

const ROUTE = /^\/connections\/([^/]+)\/mappings(?:\/([^/]+)(\/rollback)?)?$/;
const CRM_ROUTE = /^\/connections\/([^/]+)\/mappings\/crm\/([^/]+)$/;

/** Answers a mapping page request, or undefined when the path is not one of them. */
export async function mappingRoute(deps: MappingRouteDeps, session: Session, method: string, url: URL, form: URLSearchParams | undefined): Promise<Reply | undefined> {
  const crmMatch = CRM_ROUTE.exec(url.pathname);
  const match = crmMatch ?? ROUTE.exec(url.pathname);
  if (!match) return undefined;
  const context: PageContext = { csrf: session.csrf, flash: session.flash, who: session.identity };
  const connection = await deps.connections.get(decodeURIComponent(match[1]!));
  if (!connection) return page(messagePage(context, 'Not found', 'There is no such connection.'), 404);
  const settings = connectionSettingsSchema.parse(connection.settings);
  const mappings = mappingsFor(settings.crm.kind, settings.crm) as Partial<Record<Entity, EntityMapping<any, any>>>;
  const flows = (Object.keys(mappings) as Entity[]).filter((flow) => mappings[flow]);
  const base = `/connections/${encodeURIComponent(connection.id)}/mappings`;
  if (crmMatch) {
    if (method === 'GET') session.flash = undefined;
    const runtime = () => runtimeFor(deps)(connection.id);
    return crmFlowRoute(context, { connection, settings, flows, flowName: decodeURIComponent(crmMatch[2]!), method, form, runtime });
  }
  if (!match[2]) return method === 'GET' ? redirect(`${base}/${encodeURIComponent(settings.entities.find((entity) => mappings[entity]) ?? flows[0]!)}`) : undefined;
  const flow = decodeURIComponent(match[2]) as Entity;
  const mapping = mappings[flow];
  if (!mapping) return page(messagePage(context, 'Not found', `${CRM_NAMES[settings.crm.kind]} connections have no ${flow} mapping; they have: ${flows.join(', ')}.`), 404);
  const here = `${base}/${encodeURIComponent(flow)}`;
  const rollback = Boolean(match[3]);

  let rt: ConnectionRuntime;
  try {
    rt = await runtimeFor(deps)(connection.id);
  } catch (error) {
    return page(messagePage(context, 'Mapping', `The connection's clients could not be made: ${redactText((error as Error).message)}`), 502);
  }
  const saveDeps = { pool: deps.pool, connections: deps.connections, crm: rt.crm };
  const actor = sessionActor(session);
  // A browser's session is the console; a script's admin token is the API.
  const via = sessionVia(session);

  if (method === 'POST' && rollback) {
    const version = Number(form?.get('version'));
    if (!Number.isSafeInteger(version) || version < 1) return page(messagePage(context, 'Roll back', 'Choose a version to roll back to.'), 400);
    try {
      const saved = await rollBackFlowOverrides(saveDeps, { connection, flow, version, actor, via });
      session.flash = `Rolled the ${flow} mapping back to version ${version}, saved as version ${saved.version}.`;
    } catch (error) {
      if (!(error instanceof MappingOverridesRefused)) throw error;
      session.flash = `Version ${version} was not restored: ${error.problems.join('; ')}`;
    }
    return redirect(`${here}#versions`);
  }
  if (rollback) return undefined;

  const saved = settings.overrides[flow];
  let schema;
  try {
    schema = await rt.crm.describe(mapping.object);
  } catch (error) {
    return page(messagePage(context, 'Mapping', `${CRM_NAMES[settings.crm.kind]} did not describe ${mapping.object}: ${redactText((error as Error).message)}`), 502);
  }
  const action = method === 'POST' ? form?.get('action') : undefined;
  const overrides: EntityOverrides | undefined = method === 'POST' && form ? overridesFromForm(form, { mapping, saved, schema }) : saved;
  const typeFilter = (method === 'POST' ? form?.get('type') : url.searchParams.get('type')) || undefined;
  const recordId = form?.get('record')?.trim() || url.searchParams.get('record') || undefined;

  let refused: string[] | undefined;
  if (action === 'save') {
    try {
      const version = await saveFlowOverrides(saveDeps, { connection, flow, overrides: overrides ?? {}, actor, via });
      session.flash = `Saved the ${flow} mapping as version ${version.version}; the next sync writes with it.`;
      return redirect(`${here}#versions`);
    } catch (error) {
      if (!(error instanceof MappingOverridesRefused)) throw error;
      refused = error.problems;
    }
  }
  let test: MappingTestResult | undefined;
  if (action === 'test') {
    const untested = (refusedWith: string): MappingTestResult => ({ recordId: recordId ?? '', object: schema.name, refused: refusedWith, unknown: [], problems: [], fields: [], missing: [], ok: false });
    if (!recordId) test = untested(`Type the id of the ${flow} to test on.`);
    else {
      try {
        test = await testMappingOnRecord(connectionReads(rt, deps.pool, flow), { mapping, overrides, recordId });
      } catch (error) {
        // The commerce API or the CRM did not answer: said on the page, with the choices kept.
        test = untested(`The ${flow} could not be tested: ${redactText((error as Error).message)}`);
      }
    }
  }
  if (method === 'GET') session.flash = undefined;
  return page(
    mappingEditorPage(context, {
      connection: { id: connection.id, name: connection.name, crm: CRM_NAMES[settings.crm.kind] },
      flows,
      crmFlows: crmFlowsOf(settings.crm.kind),
      view: mappingEditorView({ mapping, overrides, schema, canonical: CANONICAL_RECORDS[flow].describe, sellerRecords: Boolean(FLOWS[flow].sellersRecordsFrom), typeFilter }),
      recordId,
      test,
      refused,
      versions: await createMappingVersionStore(deps.pool).list(connection.id, flow),
    }),
    refused ? 422 : 200,
  );
}

