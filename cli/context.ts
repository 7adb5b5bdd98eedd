// What the short-lived commands share: the database, a Temporal client, and the connection store.
import net from 'node:net';
import { Client, Connection } from '@temporalio/client';
import type { AppConfig } from '../config/config.ts';
import type { Logger } from '../config/logger.ts';
import { createConnectionStore } from '../store/connections.ts';
import { openDatabase } from '../store/database.ts';
import { resolveSecretBox } from '../store/secret-box.ts';
import { connectToRunningTemporal } from '../temporal/cluster.ts';
import { NotFoundError, UnreachableError } from './exit-codes.ts';

/** Connection-level failures (nothing answered), as opposed to a database that answered with an error. */
const UNREACHABLE = /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|ECONNRESET|timeout expired|Connection terminated/i;

export async function openCommandContext(config: AppConfig, logger: Logger) {
  let database: Awaited<ReturnType<typeof openDatabase>>;
  try {
    database = await openDatabase(config, logger);
  } catch (error) {
    const message = `${(error as Error).message} ${(error as { code?: string }).code ?? ''}`;
    if (!UNREACHABLE.test(message)) throw error;
    throw new UnreachableError(
      `PostgreSQL is not reachable${config.database.url ? ' at DATABASE_URL' : ''}: ${(error as Error).message}. Check DATABASE_URL (or unset it to use the embedded PostgreSQL).`,
    );
  }
  const connections = createConnectionStore(database.pool, resolveSecretBox(config));
  let temporal: Connection | undefined;
  return {
    database,
    connections,
    async temporalClient(): Promise<Client> {
      const target = await connectToRunningTemporal(config);
      try {
        // A refused port fails at once (gRPC alone would retry it until the deadline); a busy server (a
        // worker host under load) gets 15 s to answer.
        if (!temporal) await refusedAtOnce(target.connectionOptions.address);
        temporal ??= await Connection.connect({ ...target.connectionOptions, connectTimeout: 15_000 } as never);
      } catch (error) {
        throw new UnreachableError(
          `Temporal is not reachable at ${target.connectionOptions.address}: start the worker first (npx crm-sync start) or set TEMPORAL_ADDRESS. (${(error as Error).message})`,
        );
      }
      return new Client({ connection: temporal, namespace: target.namespace });
    },
    /** A connection by id or by name, or a clear error listing what exists. */
    async findConnection(idOrName: string) {
      const all = await connections.list();
      const match = all.find((connection) => connection.id === idOrName || connection.name === idOrName);
      if (!match) throw new NotFoundError(`No connection named or numbered ${JSON.stringify(idOrName)}; known: ${all.map((c) => c.name).join(', ') || 'none'}`);
      return match;
    },
    async close() {
      await temporal?.close();
      await database.close();
    },
  };
}

export type CommandContext = Awaited<ReturnType<typeof openCommandContext>>;

/**
 * Fails with the socket's error when nothing listens at `address` (refused, unknown host, no route):
 * gRPC's connect retries a refused port until its deadline, so without this a stopped server took the
 * whole 15 s to be named. Anything else (it answers, or is slow to) is left to the gRPC connect.
 */
async function refusedAtOnce(address: string | undefined): Promise<void> {
  const parsed = /^(?:\[([^\]]+)\]|([^:/\[\]]+)):(\d+)$/.exec(address ?? '');
  if (!parsed) return;
  const host = parsed[1] ?? parsed[2]!;
  const port = Number(parsed[3]);
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect({ host, port });
    const done = (error?: Error) => {
      socket.destroy();
      if (error && /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH/.test((error as NodeJS.ErrnoException).code ?? '')) reject(error);
      else resolve();
    };
    socket.setTimeout(3_000, () => done());
    socket.once('connect', () => done());
    socket.once('error', done);
  });
}
