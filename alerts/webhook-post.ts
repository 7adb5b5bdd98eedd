// One POST of a JSON body to a webhook (Slack, Teams). The URL is the secret: no error names it, only
// the service and its answer. 429 and 5xx are worth another try (429 after Retry-After); any other 4xx
// is not (a wrong or revoked URL, a payload the service refuses).
import { AlertSendError, retryAfterMs } from './send-error.ts';

const ANSWER_LIMIT = 500;
const TIMEOUT_MS = 15_000;

export async function postJson(service: string, url: string, body: unknown): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    throw new AlertSendError(`${service} could not be reached (${cause}); it will be tried again`, { service, permanent: false, answer: String(cause) });
  }
  if (response.ok) {
    await response.arrayBuffer().catch(() => undefined);
    return;
  }
  const answer = (await response.text().catch(() => '')).slice(0, ANSWER_LIMIT);
  const status = response.status;
  if (status === 429) {
    const wait = retryAfterMs(response.headers.get('retry-after'));
    throw new AlertSendError(`${service} asked us to slow down (429${wait === undefined ? '' : `, retry after ${Math.ceil(wait / 1000)} s`}): ${answer}`, { service, status, answer, permanent: false, retryAfterMs: wait });
  }
  if (status >= 500) throw new AlertSendError(`${service} answered ${status}: ${answer}`, { service, status, answer, permanent: false });
  throw new AlertSendError(`${service} refused the alert (${status}): ${answer}. Check the route's webhook URL (crm-sync alerts --test <route>)`, { service, status, answer, permanent: true });
}
