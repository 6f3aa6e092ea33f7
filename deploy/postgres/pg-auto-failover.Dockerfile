# docker-compose.yml's PostgreSQL: one image for the pg_auto_failover monitor and both data nodes
# (docs/operations.md "High-availability PostgreSQL"). Debian's own packages, the same ones the
# project's tests run (tools/pg-ha/cluster.ts): PostgreSQL 15 and postgresql-15-auto-failover
# (`pg_autoctl`). Everything pg_autoctl keeps (data directory, its configuration and state) lives
# under /var/lib/postgresql/ha, one volume per container.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends postgresql-common \
 && sed -ri 's/^#?\s*create_main_cluster\s*=.*/create_main_cluster = false/' /etc/postgresql-common/createcluster.conf \
 && apt-get install -y --no-install-recommends postgresql-15 postgresql-15-auto-failover pg-auto-failover-cli \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/lib/postgresql/ha /var/lib/postgresql/wal-archive \
 && chown -R postgres:postgres /var/lib/postgresql
COPY --chown=postgres:postgres pg-auto-failover-node.sh postgresql-payouts.conf init-roles.sql /etc/payouts/
ENV PATH=/usr/lib/postgresql/15/bin:$PATH \
    PGDATA=/var/lib/postgresql/ha/pgdata \
    XDG_CONFIG_HOME=/var/lib/postgresql/ha/config \
    XDG_DATA_HOME=/var/lib/postgresql/ha/state
USER postgres
WORKDIR /var/lib/postgresql
EXPOSE 5432
