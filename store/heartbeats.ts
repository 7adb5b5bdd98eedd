// The heartbeat table: proof that schedule, worker, activity and database work together.
import type pg from 'pg';

export type Heartbeat = { beatId: string; workflowStart: Date; recordedAt: Date; workerIdentity: string };

export function createHeartbeatStore(pool: pg.Pool) {
  return {
    /** Idempotent: a replayed activity for the same beat leaves exactly one row. Returns true if it added one. */
    async record(beat: { beatId: string; workflowStart: Date; workerIdentity: string }): Promise<boolean> {
      const result = await pool.query(
        `INSERT INTO heartbeats (beat_id, workflow_start, worker_identity) VALUES ($1, $2, $3)
         ON CONFLICT (beat_id) DO NOTHING`,
        [beat.beatId, beat.workflowStart, beat.workerIdentity],
      );
      return result.rowCount === 1;
    },

    async latest(limit = 10): Promise<Heartbeat[]> {
      const result = await pool.query(
        `SELECT beat_id, workflow_start, recorded_at, worker_identity FROM heartbeats ORDER BY recorded_at DESC LIMIT $1`,
        [limit],
      );
      return result.rows.map((row) => ({
        beatId: row.beat_id,
        workflowStart: row.workflow_start,
        recordedAt: row.recorded_at,
        workerIdentity: row.worker_identity,
      }));
    },

    async count(): Promise<number> {
      const result = await pool.query('SELECT count(*)::int AS n FROM heartbeats');
      return result.rows[0].n;
    },
  };
}

export type HeartbeatStore = ReturnType<typeof createHeartbeatStore>;
