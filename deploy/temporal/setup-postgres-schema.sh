#!/bin/sh
# Temporal's two databases (temporal, temporal_visibility) on our PostgreSQL, with Temporal's own schema
# tool, as Temporal's PostgreSQL recipe does (github.com/temporalio/samples-server, compose/scripts/
# setup-postgres.sh). Safe to run again: `create` of an existing database is reported and skipped,
# setup-schema -v 0.0 keeps a newer version, and update-schema applies only the versions not yet applied.
# The password comes from SQL_PASSWORD (read by temporal-sql-tool), never from the command line.
set -eu
HOST=${POSTGRES_SEEDS:-postgresql}
PORT=${DB_PORT:-5432}
USER=${POSTGRES_USER:-temporal}
SCHEMA_DIR=/etc/temporal/schema/postgresql/v12
sql_tool() { temporal-sql-tool --plugin postgres12 --ep "$HOST" -p "$PORT" -u "$USER" "$@"; }

echo "Waiting for PostgreSQL at $HOST:$PORT"
until nc -z -w 5 "$HOST" "$PORT"; do sleep 2; done

for pair in temporal:temporal temporal_visibility:visibility; do
  database=${pair%%:*}
  schema=${pair##*:}
  if sql_tool --db "$database" create; then
    echo "Created database $database"
  else
    echo "Database $database exists already (or could not be created: the next step says which)"
  fi
  sql_tool --db "$database" setup-schema -v 0.0
  sql_tool --db "$database" update-schema -d "$SCHEMA_DIR/$schema/versioned"
done
echo "Temporal schema is up to date"
