-- docker-compose.yml: the service's and Temporal's roles, created once on the first primary by
-- deploy/postgres/pg-auto-failover-node.sh (the standby gets them by replication). Temporal's two
-- databases are created by temporal-sql-tool in the temporal-schema job.
SELECT 'CREATE ROLE payouts WITH LOGIN CREATEROLE PASSWORD ''payouts'''
  WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'payouts') \gexec
SELECT 'CREATE ROLE temporal WITH LOGIN PASSWORD ''temporal'' CREATEDB'
  WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'temporal') \gexec
SELECT 'CREATE DATABASE payouts OWNER payouts'
  WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'payouts') \gexec
-- The application roles the processes act as (docs/operations.md "Database roles"), members of the
-- login; pg_monitor lets them read pg_stat_replication for db_synchronous_standbys.
SELECT format('CREATE ROLE %I NOLOGIN', r) FROM unnest(array['payouts_api', 'payouts_worker', 'payouts_admin']) AS r
  WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) \gexec
GRANT payouts_api, payouts_worker, payouts_admin TO payouts;
GRANT pg_monitor TO payouts_api, payouts_worker;
