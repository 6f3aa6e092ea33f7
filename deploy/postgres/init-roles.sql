-- docker-compose.yml: the service's and Temporal's roles, created once on the first primary by
-- deploy/postgres/pg-auto-failover-node.sh (the standby gets them by replication). Temporal's two
-- databases are created by temporal-sql-tool in the temporal-schema job.
SELECT 'CREATE ROLE payouts WITH LOGIN PASSWORD ''payouts'''
  WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'payouts') \gexec
SELECT 'CREATE ROLE temporal WITH LOGIN PASSWORD ''temporal'' CREATEDB'
  WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'temporal') \gexec
SELECT 'CREATE DATABASE payouts OWNER payouts'
  WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'payouts') \gexec
