// Salesforce caps each REST call's URI plus headers at 16,384 bytes: a URI alone past it answers
// 414 URI Too Long, URI and headers together past it 431 Request Header Fields Too Large (help article
// 000386264). The answer comes from the web tier, not the API, so its body is a page, not Salesforce's
// JSON error list. Node's own header limit is raised in server.ts so these are the answers a client sees.
import type { IncomingMessage } from 'node:http';
import type { Reply } from './http.ts';

export const MAX_URI_AND_HEADERS = 16_384;
/** What Node itself accepts before this check runs (server.ts passes it as maxHeaderSize). */
export const NODE_MAX_HEADER_SIZE = 256 * 1024;

const page = (status: number, title: string): Reply => ({
  status,
  text: `<html><head><title>${status} ${title}</title></head><body><h1>${title}</h1></body></html>`,
  contentType: 'text/html',
});

/** The refusal for a request whose URI or URI and headers are too long, or undefined. */
export function oversizeReply(req: IncomingMessage): Reply | undefined {
  const uri = Buffer.byteLength(req.url ?? '');
  if (uri > MAX_URI_AND_HEADERS) return page(414, 'URI Too Long');
  let headers = 0;
  for (let index = 0; index + 1 < req.rawHeaders.length; index += 2) headers += Buffer.byteLength(`${req.rawHeaders[index]}: ${req.rawHeaders[index + 1]}\r\n`);
  if (uri + headers > MAX_URI_AND_HEADERS) return page(431, 'Request Header Fields Too Large');
  return undefined;
}
