-- docker-compose.yml: the role the Temporal server and its schema job use (its databases
-- `temporal` and `temporal_visibility` are created by temporal-sql-tool in the temporal-schema job).
CREATE ROLE temporal WITH LOGIN PASSWORD 'temporal' CREATEDB;
