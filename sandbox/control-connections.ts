// The sandboxes' /_sandbox controls answer with `Connection: close`. Tests call them between long waits,
// and a kept-alive socket the server closes after its idle timeout can be picked for the next call just
// as it closes (ECONNRESET in the test's own fetch, seen once under a loaded chaos run); a control call
// is cheap enough to open a connection of its own. The APIs themselves keep their connections alive.
import type { IncomingMessage, ServerResponse } from 'node:http';

export function closeAfterControl(request: IncomingMessage, response: ServerResponse): void {
  if (request.url === '/_sandbox' || request.url?.startsWith('/_sandbox/') || request.url?.startsWith('/_sandbox?')) response.setHeader('Connection', 'close');
}
