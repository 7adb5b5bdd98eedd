// Salesforce's answers handed to jsforce whole, or not at all. jsforce 3 pipes a response body into its
// own stream without an error listener (lib/request.js: `Readable.fromWeb(res.body).pipe(output)`),
// so an answer cut off after its headers (a dropped connection, a proxy restart) becomes an uncaught
// exception that takes the whole worker process down. This undici interceptor holds the status and
// headers back until the body has fully arrived: a connection lost half way then fails the fetch
// itself, which jsforce reports as an ordinary request error (and the sync retries). The bodies are
// read whole by jsforce anyway, so holding them costs no extra memory beyond one copy.
import { createRequire } from 'node:module';
import type { Dispatcher } from 'undici';

// The DecoratorHandler of the undici jsforce itself fetches with.
const requireFromJsforce = createRequire(createRequire(import.meta.url).resolve('jsforce'));
const { DecoratorHandler } = requireFromJsforce('undici') as typeof import('undici');

type Controller = Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>[0];
type Headers = Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>[2];
// undici's type declarations still describe the handler's older callbacks; these are the ones it calls.
interface Decorated {
  onResponseStart(controller: Controller, statusCode: number, headers: Headers, statusMessage?: string): void;
  onResponseData(controller: Controller, chunk: Buffer): void;
  onResponseEnd(controller: Controller, trailers: Headers): void;
}
const Decorator = DecoratorHandler as unknown as new (handler: Dispatcher.DispatchHandler) => Decorated;

class WholeAnswerHandler extends Decorator {
  #start?: { statusCode: number; headers: Headers; statusMessage?: string };
  #chunks: Buffer[] = [];

  override onResponseStart(_controller: Controller, statusCode: number, headers: Headers, statusMessage?: string): void {
    this.#start = { statusCode, headers, statusMessage };
  }

  override onResponseData(_controller: Controller, chunk: Buffer): void {
    this.#chunks.push(chunk);
  }

  override onResponseEnd(controller: Controller, trailers: Headers): void {
    const start = this.#start!;
    super.onResponseStart(controller, start.statusCode, start.headers, start.statusMessage);
    if (this.#chunks.length > 0) super.onResponseData(controller, Buffer.concat(this.#chunks));
    this.#chunks = [];
    super.onResponseEnd(controller, trailers);
  }
}

/** The interceptor: compose it onto the dispatcher jsforce fetches through. */
export function wholeAnswers(): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (options, handler) => dispatch(options, new WholeAnswerHandler(handler as Dispatcher.DispatchHandler) as unknown as Dispatcher.DispatchHandler);
}
