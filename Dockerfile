# contextd as a container: the streamable HTTP transport on port 8000, the
# database in the volume /data, a bearer token required.
#
#   docker build -t contextd .
#   docker run -d -p 8000:8000 -v contextd-data:/data \
#     -e MCP_AUTH_TOKEN="$(openssl rand -hex 32)" contextd
#
# Clients send "Authorization: Bearer <token>" to http://HOST:8000/mcp.
# The server listens on every interface inside the container, so it needs
# authentication: without MCP_AUTH_TOKEN it exits 78 and says so. Behind
# an authenticating proxy on a trusted network, MCP_AUTH_PROVIDER=none
# with CONTEXTD_TRUSTED_NETWORK=true serves without a token
# (docs/install.md).

ARG GO_VERSION=1.26.8

# Build: a static binary (the SQLite driver is pure Go, so CGO_ENABLED=0).
FROM golang:${GO_VERSION} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=0.1.0
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X main.version=${VERSION}" \
      -o /out/contextd ./cmd/contextd \
 && mkdir -p /out/data

# Run: no shell, no package manager, a non-root user (uid 65532).
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/contextd /usr/local/bin/contextd
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
ENV MCP_TRANSPORT=http \
    FASTMCP_HOST=0.0.0.0 \
    FASTMCP_PORT=8000 \
    MCP_AUTH_PROVIDER=simple_token \
    DB_PATH=/data/context_storage.db \
    HOME=/data
VOLUME ["/data"]
EXPOSE 8000
# The image has no curl: the binary asks its own /health.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["/usr/local/bin/contextd", "health"]
LABEL org.opencontainers.image.source="https://github.com/contextd/contextd" \
      io.modelcontextprotocol.server.name="io.github.contextd/contextd"
ENTRYPOINT ["/usr/local/bin/contextd"]
