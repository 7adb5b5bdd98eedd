// Where the embedded PostgreSQL keeps its cluster. Normally <data dir>/postgres/cluster. As root,
// PostgreSQL runs as the user `postgres`, which cannot enter a checkout in a folder only root can enter
// (/root, a `mktemp -d` folder): then the cluster lives under a root-owned, world-enterable folder, one
// per checkout (named by a hash of its data directory), and <data dir>/postgres/cluster-location
// records where, so every later start finds the same cluster.
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../config/logger.ts';
import { canEnter, type PostgresUser } from './postgres-user.ts';

export const DEFAULT_CLUSTER_ROOT = '/var/lib/commerce-crm-sync/postgres';
export const LOCATION_FILE = 'cluster-location';

/** `baseDir` is <data dir>/postgres and exists. */
export function resolveClusterDir(baseDir: string, user: PostgresUser | undefined, logger: Logger, clusterRoot = DEFAULT_CLUSTER_ROOT): string {
  const locationFile = path.join(baseDir, LOCATION_FILE);
  if (existsSync(locationFile)) {
    const recorded = readFileSync(locationFile, 'utf8').trim();
    // Its folder was removed (a cleaned /var/lib): a new, empty cluster goes to the same place.
    if (user && !existsSync(path.dirname(recorded))) makeEnterableFolders(path.dirname(recorded));
    return recorded;
  }
  const configured = path.join(baseDir, 'cluster');
  if (!user || canEnter(user, baseDir)) return configured;
  if (existsSync(path.join(configured, 'PG_VERSION'))) {
    // An existing cluster is never moved behind the user's back: say how to make it reachable.
    throw new Error(
      `The embedded PostgreSQL runs as the user "${user.name}" (we are root), which cannot enter ${baseDir} ` +
        `(a folder above it is closed to other users), so it cannot use the cluster in ${configured}. ` +
        `Let it through (chmod o+x on each folder above ${baseDir}), move the data directory (CRM_SYNC_DATA_DIR) somewhere it can enter, ` +
        `or run crm-sync as an ordinary user.`,
    );
  }
  const checkout = createHash('sha256').update(realpathSync(baseDir)).digest('hex').slice(0, 16);
  const home = path.join(clusterRoot, checkout);
  try {
    makeEnterableFolders(home);
    // For whoever finds the folder later: which data directory it belongs to.
    writeFileSync(path.join(home, 'data-directory'), `${path.dirname(realpathSync(baseDir))}\n`, { mode: 0o644 });
  } catch (error) {
    throw new Error(
      `The embedded PostgreSQL runs as the user "${user.name}" (we are root), which cannot enter ${baseDir}, and ${home} could not be created for it: ` +
        `${(error as Error).message}. Move the data directory (CRM_SYNC_DATA_DIR) to a folder "${user.name}" can enter, or run crm-sync as an ordinary user.`,
      { cause: error },
    );
  }
  if (!canEnter(user, home)) {
    throw new Error(`The user "${user.name}" cannot enter ${home} either: make ${clusterRoot} and the folders above it enterable (chmod 755), or set CRM_SYNC_DATA_DIR to a folder "${user.name}" can enter.`);
  }
  const clusterDir = path.join(home, 'cluster');
  writeFileSync(locationFile, `${clusterDir}\n`, { mode: 0o644 });
  logger.warn(
    { dataDir: path.dirname(baseDir), clusterDir, recordedIn: locationFile },
    `The user "${user.name}" cannot enter the data directory, so the embedded PostgreSQL keeps its cluster in ${clusterDir}`,
  );
  return clusterDir;
}

/** Creates each missing folder root-owned with mode 0755, so any user can pass through. */
function makeEnterableFolders(dir: string): void {
  const missing: string[] = [];
  for (let current = dir; !existsSync(current); current = path.dirname(current)) missing.unshift(current);
  for (const folder of missing) {
    mkdirSync(folder, { mode: 0o755 });
    chmodSync(folder, 0o755); // whatever the umask
  }
}
