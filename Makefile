# refactord — see README.md. Every target runs from a fresh clone.
GO       ?= go
FUZZTIME ?= 3s
BIN      := bin
DATA_DIR ?= .data

.PHONY: all build test test-fast vet unit fuzz lint bench soak eval run clean swagger-ui image

all: build

build:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ ./cmd/...

test: vet unit fuzz

# The fast tier: the unit tests without the race detector, building no
# binary and starting no subprocess, PostgreSQL or Chromium (-short).
test-fast:
	$(GO) test -short -count=1 ./...

vet:
	$(GO) vet ./...

unit:
	@command -v chromium >/dev/null 2>&1 || echo "*** chromium is not installed: the browser test of /docs is SKIPPED (apt-get install chromium) ***"
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || [ -n "$$PG_BIN" ] || echo "*** PostgreSQL is not installed: the store's PostgreSQL cases and the pool's tests are SKIPPED (apt-get install postgresql) ***"
	@command -v podman >/dev/null 2>&1 || echo "*** podman is not installed: the container image's tests are SKIPPED (apt-get install podman runc) ***"
	$(GO) test -race -count=1 ./...

# Every Fuzz target in the tree, each for a bounded time (seconds, not minutes).
# Go 1.26's fuzzing coordinator can report a bare "context deadline exceeded"
# as the -fuzztime window closes, with no input found (go.dev/issue/75804,
# fixed in Go 1.27): such a run is tried once more; a run that wrote a
# failing input, or fails any other way, fails at once.
fuzz:
	@set -e; for f in $$(grep -rl --include='*_test.go' '^func Fuzz' .); do \
		pkg=./$$(dirname $$f); \
		for t in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$f); do \
			echo "fuzz $$pkg $$t ($(FUZZTIME))"; \
			out=$$(mktemp); \
			if ! $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg >$$out 2>&1; then \
				cat $$out; \
				if grep -q 'context deadline exceeded' $$out && ! grep -q -e 'Failing input written' -e 'panic:' -e '_test.go:[0-9]' $$out; then \
					echo "fuzz $$pkg $$t: the coordinator's deadline race (go.dev/issue/75804), no input found: once more"; \
					$(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
				else \
					rm -f $$out; exit 1; \
				fi; \
			else \
				cat $$out; \
			fi; \
			rm -f $$out; \
		done; \
	done

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

bench:
	$(GO) run ./bench

# The service under load, faults and bad input, its history held against
# its promises (soak/README.md); writes soak/results.json, fails on a
# violation. SOAK_DURATION (default 3m) and SOAK_SEED (to replay) pass
# through the environment.
soak:
	$(GO) run ./soak

# How often a release is right, per guard (docs/eval.md): mutants and
# faithful rewrites of a corpus's methods through the real pipeline on a
# copy of it; writes eval/results.json (resumed when interrupted). EVAL_CORPUS,
# EVAL_METHODS, EVAL_EQUIVALENCE=off and EVAL_OUT pass through the environment.
# EVAL_MODELS=gemini:gemini-2.5-flash,… (with GEMINI_API_KEY; openai:<model>
# with OPENAI_BASE_URL) is the model mode: real models in verify mode, side by
# side, written to eval/models.json.
eval:
	$(GO) run ./cmd/refactor-eval

# The service on a copy of the sample image (copied once; later runs keep
# what earlier refactorings wrote). Gemini when GEMINI_API_KEY or
# GOOGLE_API_KEY is set, else the offline scripted demo model.
run: build
	@if [ ! -d "$(DATA_DIR)/image" ]; then \
		mkdir -p "$(DATA_DIR)" && cp -R examples/sample-image "$(DATA_DIR)/image" && \
		echo "make run: copied examples/sample-image to $(DATA_DIR)/image"; \
	fi
	DATA_DIR="$(DATA_DIR)" ./$(BIN)/refactord

# Refreshes the Swagger UI files /docs serves (api/docs) from npm's
# swagger-ui-dist; VERSION=x.y.z picks another release.
swagger-ui:
	scripts/swagger-ui.sh $(VERSION)

# The container image (Containerfile; docs/install.md): static binaries
# built here, then an offline podman build FROM scratch. REFACTORD_VERSION defaults to
# the source's (internal/version); IMAGE names the result; PODMAN may carry
# flags (PODMAN="podman --runtime runc"), IMAGE_BUILD_FLAGS the build's
# (--layers=false keeps no intermediate images).
REFACTORD_VERSION ?= $(shell sed -n 's/^var Version = "\(.*\)"/\1/p' internal/version/version.go)
IMAGE   ?= localhost/refactord:$(REFACTORD_VERSION)
PODMAN  ?= podman
IMAGE_BUILD_FLAGS ?=
image:
	rm -rf .build/image && mkdir -p .build/image/bin .build/image/tmp
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w -X github.com/pharo-refactor/refactord/internal/version.Version=$(REFACTORD_VERSION)" \
		-o .build/image/bin/ ./cmd/refactord ./cmd/pharo-sim ./cmd/refactorctl
	cp /etc/ssl/certs/ca-certificates.crt .build/image/ca-certificates.crt
	$(PODMAN) build $(IMAGE_BUILD_FLAGS) --build-arg VERSION=$(REFACTORD_VERSION) -f Containerfile -t $(IMAGE) .

clean:
	rm -rf $(BIN) .build
