# PostgreSQL 16 + pgvector for environments that cannot pull pgvector/pgvector (no registry): the server binaries
# come from the PyPI wheel pgserver 0.1.4 (PostgreSQL 16.2 + pgvector 0.6.2), the base from a build ARG. Used by
# bench/container_smoke.sh; compose.yaml takes it as PGVECTOR_IMAGE. Same environment contract as the official
# image for what memdesk needs: POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB, data in /var/lib/postgresql/data.
ARG BASE=debian:bookworm-slim
FROM ${BASE}
# hadolint ignore=DL3008
RUN --mount=type=secret,id=ca,required=false \
    if [ -s /run/secrets/ca ]; then export PIP_CERT=/run/secrets/ca; fi \
 && apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && python3 -m venv /opt/pg \
 && /opt/pg/bin/pip install --no-cache-dir pgserver==0.1.4 \
 && ln -s "$(/opt/pg/bin/python -c 'import pathlib, pgserver; print(pathlib.Path(pgserver.__file__).parent / "pginstall")')" /opt/pginstall \
 && groupadd --system --gid 999 postgres \
 && useradd --system --uid 999 --gid postgres --home-dir /var/lib/postgresql --create-home postgres \
 && mkdir -p /var/lib/postgresql/data /run/postgresql && chown -R postgres:postgres /var/lib/postgresql /run/postgresql
COPY docker/pg-entrypoint.sh /usr/local/bin/pg-entrypoint
ENV PATH=/opt/pginstall/bin:$PATH PGDATA=/var/lib/postgresql/data
USER 999:999
VOLUME ["/var/lib/postgresql/data"]
EXPOSE 5432
ENTRYPOINT ["pg-entrypoint"]
