#!/bin/bash
# Patroni's post_bootstrap: run once on the new cluster's first primary, with a connection string
# to it as $1. Makes the service's role and database (APP_USER, APP_PASSWORD, APP_DB).
set -euo pipefail
user=${APP_USER:-plants}
db=${APP_DB:-$user}
psql "$1" -v ON_ERROR_STOP=1 -q \
  -v user="$user" -v password="${APP_PASSWORD:?is required}" -v db="$db" <<'SQL'
create role :"user" login password :'password';
create database :"db" owner :"user" encoding 'UTF8';
SQL
