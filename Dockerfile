# syntax=docker/dockerfile:1
# Multi-stage build of the meshguard image: static binaries (meshguard and its renderer,
# meshguard-render) on distroless, non-root.
#   docker build -t ghcr.io/meshguard/meshguard:dev .

# The builder runs on the build host's platform and cross-compiles, so multi-arch
# builds (buildx --platform) need no emulation: the binary is pure Go.
FROM --platform=$BUILDPLATFORM golang:1.26 AS build
ARG TARGETOS
ARG TARGETARCH
# make image sets these; meshguard version prints them.
ARG VERSION=devel
ARG COMMIT=
WORKDIR /src
# Module download in its own layer: it is only redone when go.mod/go.sum change.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod \
    go mod download
COPY . .
# CGO off: a static binary that runs on distroless/static (no libc).
# -trimpath and -s -w: reproducible paths, smaller binary; flags as hack/release.sh.
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} \
    go build -trimpath -buildvcs=false \
      -ldflags "-s -w -buildid= -X main.version=${VERSION} -X main.commit=${COMMIT}" \
      -o /out/ ./cmd/meshguard ./cmd/meshguard-render

# distroless/static:nonroot has CA certificates and tzdata, no shell, and uid 65532,
# the user the Helm chart's securityContext expects.
FROM gcr.io/distroless/static:nonroot
# meshguard-render next to meshguard: lint and default run it for Helm charts and
# kustomizations (the webhook never renders).
COPY --from=build /out/meshguard /out/meshguard-render /
USER 65532:65532
# 9443 webhook (TLS), 8080 metrics, 8081 /healthz and /readyz.
EXPOSE 9443 8080 8081
ENTRYPOINT ["/meshguard"]
CMD ["serve"]
