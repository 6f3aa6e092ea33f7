#!/bin/sh
# A pg_auto_failover data node of docker-compose.yml (docs/operations.md "High-availability
# PostgreSQL"). First start: `pg_autoctl create postgres` registers the node with the monitor (the
# first node becomes the primary, the next one its synchronous standby, copied with pg_basebackup),
# then this project's settings are included, password logins from the compose network allowed,
# and, on the primary only, the roles created. Every start: `pg_autoctl run` (the keeper).
set -eu
: "${NODE_NAME:?}" "${NODE_HOSTNAME:?}" "${PG_AUTOCTL_MONITOR:?}"
MARK=/var/lib/postgresql/ha/.payouts-initialized
CFG="$XDG_CONFIG_HOME/pg_autoctl$PGDATA/pg_autoctl.cfg"
if [ ! -f "$MARK" ]; then
  # Resumes where it stopped when a previous first start was interrupted.
  pg_autoctl create postgres --pgdata "$PGDATA" --pgport 5432 --name "$NODE_NAME" --hostname "$NODE_HOSTNAME" \
    --auth trust --pg-hba-lan --ssl-self-signed --dbname postgres --monitor "$PG_AUTOCTL_MONITOR"
  test -f "$CFG"
  grep -q "postgresql-payouts.conf" "$PGDATA/postgresql.conf" || echo "include '/etc/payouts/postgresql-payouts.conf'" >> "$PGDATA/postgresql.conf"
  grep -q "^host all all samenet scram-sha-256" "$PGDATA/pg_hba.conf" || echo "host all all samenet scram-sha-256" >> "$PGDATA/pg_hba.conf"
  # Postgres up (whether `create` left it running or not), the roles on the primary, then stopped
  # so that the keeper starts it with the settings above (archive_mode needs a restart).
  pg_ctl -D "$PGDATA" status >/dev/null 2>&1 || pg_ctl -D "$PGDATA" -w -l "$PGDATA/startup.log" start
  if [ "$(psql -p 5432 -d postgres -tAc 'select pg_is_in_recovery()')" = "f" ]; then
    psql -v ON_ERROR_STOP=1 -p 5432 -d postgres -f /etc/payouts/init-roles.sql
  fi
  pg_ctl -D "$PGDATA" -m fast -w stop
  touch "$MARK"
fi
exec pg_autoctl run --pgdata "$PGDATA"
