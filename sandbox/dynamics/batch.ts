// POST $batch (multipart/mixed): at most 1000 operations; change sets are atomic (one failure
// undoes the change set and answers one error part for it); without Prefer: odata.continue-on-error
// the batch stops at the first failure. Inner URLs may be absolute (resolved by path: a proxy may
// change the host) or relative; `$n` refers to the entity a change set's Content-ID n created.
// Answers multipart/mixed; boundary=batchresponse_<guid> with application/http parts. Lines inside
// the answer end with LF: dynamics-web-api reads OData-EntityId to the end of its line.
// Server time (issue #22 item 7): "These operations will be performed sequentially in the order they're
// specified" (Execute batch operations using the Web API), each costing the limits' operationMs. A batch
// still running when the request's 2 minutes are up stops there: the operations already done stay done
// (each part without a change set is its own transaction [inf]), the rest never run, and the answer is
// one error, 0x80044151 "SQL timeout expired", which Microsoft names for a batch too large to finish
// (Use bulk operation messages, troubleshooting) [status 500 inf]. Nothing here watches the client: a
// client that stopped waiting does not stop the batch.
import { randomUUID } from 'node:crypto';
import { handleApi } from './api.ts';
import { DataverseError } from './errors.ts';
import { preferences, type ApiRequest, type Reply } from './http.ts';
import { isCloseAction } from './opportunity-states.ts';
import { realServerTime } from './server-time.ts';

export const MAX_OPERATIONS = 1000;
type Op = { method: string; url: string; headers: Record<string, string>; body: string; contentId?: string };
type Part = { changeset: Op[] } | { op: Op };

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 204: 'No Content', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 412: 'Precondition Failed', 429: 'Too Many Requests', 500: 'Internal Server Error' };

const boundaryOf = (contentType: string | undefined) => /boundary=("?)([^";]+)\1/i.exec(contentType ?? '')?.[2];

function splitHeaders(text: string): { headers: Record<string, string>; rest: string } {
  const normalized = text.replace(/^(\r?\n)+/, '');
  const end = /\r?\n\r?\n/.exec(normalized);
  const head = end ? normalized.slice(0, end.index) : normalized;
  const rest = end ? normalized.slice(end.index + end[0].length) : '';
  const headers: Record<string, string> = {};
  for (const line of head.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return { headers, rest };
}

function parts(body: string, boundary: string): string[] {
  const chunks = body.split(`--${boundary}`);
  chunks.shift(); // preamble
  const out: string[] = [];
  for (const chunk of chunks) {
    if (chunk.startsWith('--')) break;
    out.push(chunk);
  }
  return out;
}

function parseOp(text: string, mime: Record<string, string>): Op {
  const lines = text.replace(/^(\r?\n)+/, '');
  const first = /^(\w+)\s+(\S+)\s+HTTP\/1\.[01]\r?\n?/.exec(lines);
  if (!first) throw new DataverseError(400, '0x80048d1e', 'The batch request contains a part that is not an HTTP request.');
  const { headers, rest } = splitHeaders(lines.slice(first[0].length));
  return { method: first[1]!.toUpperCase(), url: first[2]!, headers, body: rest.replace(/\r?\n$/, '').trim(), contentId: mime['content-id'] };
}

export function parseBatch(contentType: string | undefined, body: string): Part[] {
  const boundary = boundaryOf(contentType);
  if (!boundary) throw new DataverseError(400, '0x80048d1e', 'The batch request must have a multipart/mixed Content-Type with a boundary.');
  return parts(body, boundary).map((chunk) => {
    const { headers, rest } = splitHeaders(chunk);
    const inner = boundaryOf(headers['content-type']);
    if (/multipart\/mixed/i.test(headers['content-type'] ?? '') && inner) {
      return { changeset: parts(rest, inner).map((c) => { const s = splitHeaders(c); return parseOp(s.rest, s.headers); }) };
    }
    return { op: parseOp(rest, headers) };
  });
}

/** The request path after /api/data/v9.2/ for an inner URL (absolute, rooted or relative). */
function innerPath(url: string, references: Map<string, string>): { path: string; query: string } {
  let u = url;
  const ref = /^\$(\w+)(.*)$/.exec(u);
  if (ref && references.has(ref[1]!)) u = references.get(ref[1]!)! + ref[2]!;
  const marker = '/api/data/v9.2/';
  const at = u.indexOf(marker);
  let path = at >= 0 ? u.slice(at + marker.length) : u.replace(/^\/+/, '');
  const q = path.indexOf('?');
  const query = q >= 0 ? path.slice(q + 1) : '';
  if (q >= 0) path = path.slice(0, q);
  return { path, query };
}

function runOp(outer: ApiRequest, op: Op, references: Map<string, string>): Reply {
  const { path, query } = innerPath(op.url, references);
  // Counted apart (not in the total) so a benchmark can tell the closes from the records' own writes.
  if (op.method === 'POST' && isCloseAction(path)) outer.state.calls.count('$batch close actions');
  let body = op.body;
  for (const [id, url] of references) body = body.split(`"$${id}"`).join(JSON.stringify(url));
  const headers: Record<string, string | undefined> = { ...op.headers };
  return handleApi({ ...outer, method: op.method, path, query, headers, body });
}

function renderPart(reply: Reply, contentId?: string): string {
  const lines = ['Content-Type: application/http', 'Content-Transfer-Encoding: binary'];
  if (contentId !== undefined) lines.push(`Content-ID: ${contentId}`);
  lines.push('', `HTTP/1.1 ${reply.status} ${STATUS_TEXT[reply.status] ?? 'Unknown'}`);
  const headers: Record<string, string> = { ...(reply.headers ?? {}) };
  if (reply.json !== undefined) headers['Content-Type'] = 'application/json; odata.metadata=minimal';
  headers['OData-Version'] = '4.0';
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  lines.push('', reply.json !== undefined ? JSON.stringify(reply.json) : '');
  return lines.join('\n');
}

class ChangesetFailed extends Error {
  readonly reply: Reply;
  readonly contentId?: string;
  constructor(reply: Reply, contentId?: string) {
    super('change set failed');
    this.reply = reply;
    this.contentId = contentId;
  }
}

/** The request's server time: `done` operations finish `operationMs` apart from the request's start. */
function serverClock(req: ApiRequest, startedAt: number) {
  const { operationMs, requestTimeoutMs } = req.state.limits.cost();
  const time = req.state.config.serverTime ?? realServerTime;
  let done = 0;
  return {
    /** Spends one more operation's server time (nothing to wait for at zero cost). */
    async spend(operations = 1) {
      done += operations;
      if (operationMs <= 0) return;
      const due = startedAt + done * operationMs - time.now();
      if (due > 0) await time.sleep(due);
    },
    /** Whether `operations` more would run past the request's time limit. */
    wouldTimeOut: (operations: number) => time.now() - startedAt + operations * operationMs > requestTimeoutMs,
  };
}

const timeoutReply = (): Reply => ({
  status: 500,
  json: { error: { code: '0x80044151', message: 'Sql error: SQL timeout expired. CRM ErrorCode: -2147204783 Sql ErrorCode: -2146232060 Sql Number: -2 (the request ran past the 2-minute limit of a Dataverse operation; send fewer operations per $batch)' } },
});

/**
 * The batch's answer, how many operations it held, and whether every one was a GET (a batch of reads).
 * `startedAt`: when the request was admitted (on the server-time clock), from which its time limit runs.
 */
export async function handleBatch(req: ApiRequest, startedAt = (req.state.config.serverTime ?? realServerTime).now()): Promise<{ reply: Reply; operations: number; readsOnly: boolean }> {
  let parsed: Part[];
  try {
    parsed = parseBatch(req.headers['content-type'], req.body);
  } catch (error) {
    const e = error as DataverseError;
    return { reply: { status: e.status ?? 400, json: e.body() }, operations: 0, readsOnly: false };
  }
  const operations = parsed.reduce((n, p) => n + ('op' in p ? 1 : p.changeset.length), 0);
  const readsOnly = operations > 0 && parsed.every((p) => 'op' in p && p.op.method === 'GET');
  if (operations > MAX_OPERATIONS) {
    return { reply: { status: 400, json: { error: { code: '0x8005f103', message: `The current change set contains too many operations. A maximum number of '${MAX_OPERATIONS}' operations are allowed in a change set.` } } }, operations: 0, readsOnly: false };
  }
  const continueOnError = preferences(req.headers.prefer).has('odata.continue-on-error');
  const boundary = `batchresponse_${randomUUID()}`;
  const out: string[] = [];
  const clock = serverClock(req, startedAt);
  for (const part of parsed) {
    if (clock.wouldTimeOut('op' in part ? 1 : part.changeset.length)) return { reply: timeoutReply(), operations, readsOnly };
    let failed = false;
    if ('op' in part) {
      await clock.spend(); // the operation's server time, then its effect
      const reply = runOp(req, part.op, new Map());
      out.push(renderPart(reply));
      failed = reply.status >= 400;
    } else {
      const references = new Map<string, string>();
      const replies: { reply: Reply; contentId?: string }[] = [];
      await clock.spend(part.changeset.length);
      try {
        req.state.store.transaction(() => {
          for (const op of part.changeset) {
            const reply = runOp(req, op, references);
            if (reply.status >= 400) throw new ChangesetFailed(reply, op.contentId);
            const entityId = reply.headers?.['OData-EntityId'];
            if (op.contentId !== undefined && entityId) references.set(op.contentId, entityId);
            replies.push({ reply, contentId: op.contentId });
          }
        });
        const inner = `changesetresponse_${randomUUID()}`;
        out.push(`Content-Type: multipart/mixed; boundary=${inner}\n\n${replies.map((r) => `--${inner}\n${renderPart(r.reply, r.contentId)}`).join('\n')}\n--${inner}--\n`);
      } catch (error) {
        if (!(error instanceof ChangesetFailed)) throw error;
        out.push(renderPart(error.reply, error.contentId));
        failed = true;
      }
    }
    if (failed && !continueOnError) break;
  }
  const lf = `${out.map((p) => `--${boundary}\n${p}\n`).join('')}--${boundary}--\n`;
  const text = req.state.config.batchLineEnding === '\r\n' ? lf.replace(/\n/g, '\r\n') : lf;
  return { reply: { status: 200, text, contentType: `multipart/mixed; boundary=${boundary}` }, operations, readsOnly };
}
