// The request context handlers receive and the replies they give back; server.ts turns replies into
// HTTP responses (JSON with Salesforce's `application/json;charset=UTF-8`, or text such as CSV).
import type { IncomingHttpHeaders } from 'node:http';
import type { Session } from './sessions.ts';
import type { SandboxState } from './state.ts';

export type Ctx = {
  state: SandboxState;
  method: string;
  url: URL;
  params: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: string;
  /** API version from the path (`62.0`), or '' outside /services/data/vNN.N. */
  version: string;
  /** The origin the client used (from Host), so the URLs we hand out work from where it stands. */
  origin: string;
  session: Session | undefined;
};

export type Reply = {
  status: number;
  /** JSON body (serialized as application/json) unless `text` is given. */
  json?: unknown;
  text?: string;
  contentType?: string;
  headers?: Record<string, string>;
};

export type Handler = (ctx: Ctx) => Reply | Promise<Reply>;

export const json = (status: number, body: unknown, headers?: Record<string, string>): Reply => ({ status, json: body, headers });
export const noContent = (): Reply => ({ status: 204 });
export const csv = (status: number, text: string): Reply => ({ status, text, contentType: 'text/csv' });
