// A fetch with a bounded number of sockets. Node's global fetch shares one dispatcher with no limit on
// connections per origin, so a burst of concurrent calls opens a socket each. Each commerce client gets
// its own undici Agent instead; calls beyond the limit wait in its queue for a free socket.
// undici's own fetch goes with its Agent: Node's bundled fetch rejects an Agent from another undici major.
import { Agent, fetch as undiciFetch } from 'undici';

export const DEFAULT_MAX_CONNECTIONS_PER_ORIGIN = 16;

export function createBoundedFetch(maxConnectionsPerOrigin = DEFAULT_MAX_CONNECTIONS_PER_ORIGIN): typeof fetch {
  const dispatcher = new Agent({ connections: maxConnectionsPerOrigin });
  const bounded = (input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher });
  return bounded as unknown as typeof fetch;
}
