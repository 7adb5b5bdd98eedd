#!/bin/sh
# Run once by the postgres image on its first start (/docker-entrypoint-initdb.d): the sync's own login
# role and database, so the workers never hold the superuser's password. The password comes from the
# environment (deploy/.env) and psql reads it from there itself (\getenv, psql 15 and later; the compose
# image is postgres:16), so it never appears on a command line or in a process list.
set -eu
: "${CRM_SYNC_DB_PASSWORD:?CRM_SYNC_DB_PASSWORD is not set: copy deploy/.env.example to deploy/.env and fill it in}"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres <<'SQL'
\getenv password CRM_SYNC_DB_PASSWORD
CREATE ROLE crm_sync LOGIN PASSWORD :'password';
CREATE DATABASE crm_sync OWNER crm_sync;
SQL
