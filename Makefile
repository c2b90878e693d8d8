# meshguard — run `make help` for the targets.
SHELL := /usr/bin/env bash
GO    ?= go
BIN   := bin/meshguard
PKGS  := ./...
# Each long step says what it does, how long it usually takes, a line a minute while the
# go tool is silent, and its elapsed time (times measured on a 2-core VM; docs/e2e.md).
STEP  := bash hack/step.sh
# Release version: the tag at HEAD, or a describe string between tags.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)

.DEFAULT_GOAL := help

.PHONY: help
help: ## Show this help (coloured only on a terminal, and not under NO_COLOR)
	@if [ -t 1 ] && [ -z "$${NO_COLOR:-}" ] && [ "$${TERM:-}" != dumb ]; then on=$$'\033[36m' off=$$'\033[0m'; else on= off=; fi; \
	awk -v on="$$on" -v off="$$off" 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  %s%-12s%s %s\n", on, $$1, off, $$2}' $(MAKEFILE_LIST)

.PHONY: build
build: ## Build bin/meshguard and its renderer bin/meshguard-render (Helm charts, kustomizations)
	$(GO) build -o bin/ ./cmd/meshguard ./cmd/meshguard-render

.PHONY: deps
deps: ## Download the Go modules (quiet; first run only)
	@$(STEP) "fetching Go modules" "first run on a fresh machine: about 1 minute; then instant" $(GO) mod download

.PHONY: lint
lint: deps ## go vet and a gofmt check
	@$(STEP) "go vet ./..." "first run compiles every dependency: 3 to 5 minutes on 2 cores; then seconds" $(GO) vet $(PKGS)
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

.PHONY: test
test: test-intro lint test-unit test-e2e ## Vet, format check, unit tests and the e2e suite on a local control plane

.PHONY: test-intro
test-intro:
	@echo "make test: go vet and gofmt, the unit tests, then the e2e suite against a real"
	@echo "kube-apiserver and etcd on loopback. On a fresh 2-core machine the first run takes"
	@echo "about 20 minutes, more on a busy one (modules, compiling, and building"
	@echo "kube-apiserver and etcd once into ~/.cache/meshguard); later runs take about 13 minutes on a quiet"
	@echo "VM, more on a busy one (TestAvailability is about 4 of them: its soak waits out real idle gaps)."

.PHONY: test-unit
test-unit: deps ## Unit, golden, conformance, chart and fuzz-corpus tests, and the HTML map page in headless Chromium
	@# Chromium (the Debian package) for mapview's browser tests, installed once per machine;
	@# the tests find it through MESHGUARD_CHROMIUM and keep their screenshots in _artifacts/.
	@$(STEP) "Chromium for the HTML page's browser tests" "first run installs the Debian package, about 30 seconds; then instant" bash hack/install-chromium.sh >/dev/null
	@PATH="$$(bash hack/test-tools.sh):$$PATH" MESHGUARD_CHROMIUM="$$(bash hack/install-chromium.sh)" MESHGUARD_ARTIFACTS="$(CURDIR)/_artifacts" \
	  $(STEP) "unit tests" "first run 3 to 5 minutes; then about 4" $(GO) test -count=1 $(PKGS)

.PHONY: test-e2e
test-e2e: ## e2e suite against a local kube-apiserver + etcd (built from source once per machine, 4-12 min)
	@# Build (or find cached) kube-apiserver and etcd first, outside the test timeout:
	@# on a fresh machine this takes minutes; afterwards it returns at once.
	@$(STEP) "kube-apiserver and etcd for the e2e suite" "built once per machine, 4 to 12 minutes on 2 cores; then cached" bash hack/build-control-plane.sh >/dev/null
	@$(STEP) "e2e suite on a local control plane" "about 9 minutes; 14 at load average 20 (docs/e2e.md)" $(GO) test -tags e2e -count=1 -p 1 -timeout 30m ./e2e/... ./hack/demo/

.PHONY: fuzz
fuzz: ## Run each fuzz target for FUZZTIME (default 30s)
	@for t in $$(grep -rhoE '^func (Fuzz[A-Za-z0-9_]+)' --include='*_test.go' . | sed 's/func //'); do \
	  pkg=$$(grep -rlE "^func $$t\(" --include='*_test.go' . | xargs -n1 dirname | head -1); \
	  echo "== $$t in $$pkg"; $(GO) test -run='^$$' -fuzz="^$$t\$$" -fuzztime=$${FUZZTIME:-30s} $$pkg || exit 1; \
	done

.PHONY: bench
bench: ## Run the benchmarks recorded in docs/performance.md
	$(GO) test -run='^$$' -bench=. -benchmem ./kumaauthz/ ./lint/ ./cmd/meshguard/

.PHONY: release
release: ## Reproducible release archives, SBOMs, checksums and krew manifest in dist/ (VERSION=v1.2.3; 4 targets, minutes)
	VERSION=$(VERSION) bash hack/release.sh

.PHONY: image
image: ## Container image from the Dockerfile, stamped with VERSION and the commit (needs Docker)
	docker build --build-arg VERSION=$(VERSION) --build-arg COMMIT=$$(git rev-parse HEAD) -t ghcr.io/meshguard/meshguard:$(VERSION) .

.PHONY: docs
docs: build ## Regenerate docs/rules.md and examples/*invalid/ from the rules catalogue (rules/)
	$(BIN) rules -o markdown > docs/rules.md
	$(GO) test -count=1 -run TestInvalidExamplesInSync ./rules/ -update

.PHONY: demo
demo: ## Local control plane + meshguard; apply examples/ with kubectl, preview and diff a change, write the access map (first run builds kube-apiserver/etcd, 4-12 min)
	@# Built, then run (not `go run`): go run exits 1 after Ctrl-C even when the demo
	@# stopped everything cleanly. DEMO_FLAGS e.g. -no-wait, -dir /tmp/demo.
	@$(STEP) "building the demo" "first run compiles every dependency: 3 to 5 minutes on 2 cores; then seconds" $(GO) build -o bin/demo ./hack/demo
	bin/demo $(DEMO_FLAGS)

# helm for chart-lint: built once from the module proxy into a per-machine cache,
# keyed by version (`make test` covers the same lint through the Helm SDK).
HELM_VERSION ?= v3.22.0
HELM_DIR     ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/meshguard/tools/helm-$(HELM_VERSION)
HELM         := $(HELM_DIR)/helm

$(HELM):
	mkdir -p $(HELM_DIR)
	GOBIN=$(HELM_DIR) $(GO) install helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)

.PHONY: chart-lint
chart-lint: $(HELM) ## helm lint (and --strict) charts/meshguard, and check the generated rules
	$(HELM) lint charts/meshguard
	$(HELM) lint --strict charts/meshguard
	$(HELM) lint --strict charts/meshguard --set webhook.url=https://127.0.0.1:9443,deployment.enabled=false
	$(GO) test -count=1 ./hack/gen-chart-rules/ ./charts/

.PHONY: e2e-kind
e2e-kind: ## e2e suite on kind: docker build, kind load, helm install, go test -tags e2e (needs Docker)
	@# The script checks Docker first, then go-installs kind and helm into the cache if missing.
	HELM_VERSION=$(HELM_VERSION) bash hack/e2e-kind.sh

.PHONY: chart-rules
chart-rules: ## Regenerate the chart's webhook rules from the kind registry
	$(GO) run ./hack/gen-chart-rules

.PHONY: loadtest
loadtest: ## Loopback load benchmark: meshguard /validate vs a no-op webhook (docs/performance.md)
	$(GO) run ./hack/bench load $(LOADGEN_FLAGS)

.PHONY: memload
memload: ## Peak RSS of meshguard serve --offline under hostile concurrent requests (docs/performance.md)
	$(GO) run ./hack/bench mem
