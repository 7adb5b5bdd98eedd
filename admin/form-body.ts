// The body of a form posted to the admin server, read only up to a limit. Bytes are counted as they
// arrive (a chunked body declares no length to refuse up front): past the limit reading stops, what was
// read is dropped, and the caller answers 413 and closes the connection, so a 300 MB post costs 64 KiB.
// (sandbox/read-body.ts reads whole bodies for the sandboxes; the admin server faces people, not tests.)
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';

export const MAX_FORM_BYTES = 64 * 1024;

/** An error with the HTTP status and the words to answer with (shown as is: it holds nothing secret). */
export class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export const formTooLarge = (limit: number) => new HttpError(413, `The form is too large: the admin server takes forms of at most ${Math.round(limit / 1024)} KiB.`);

export function readLimitedBody(request: Readable & { headers?: IncomingHttpHeaders }, limit = MAX_FORM_BYTES): Promise<string> {
  return new Promise((resolve, reject) => {
    const refuse = () => {
      request.off('data', onData);
      request.pause();
      chunks.length = 0;
      reject(formTooLarge(limit));
    };
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return refuse();
      chunks.push(chunk);
    };
    if (Number(request.headers?.['content-length'] ?? 0) > limit) return refuse();
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.once('error', reject);
  });
}
