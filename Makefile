# refactord — see README.md. Every target runs from a fresh clone.
GO       ?= go
FUZZTIME ?= 3s
BIN      := bin

.PHONY: all build test vet unit fuzz lint bench run clean

all: build

build:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ ./cmd/...

test: vet unit fuzz

vet:
	$(GO) vet ./...

unit:
	$(GO) test -race -count=1 ./...

# Every Fuzz target in the tree, each for a bounded time (seconds, not minutes).
fuzz:
	@set -e; for f in $$(grep -rl --include='*_test.go' '^func Fuzz' .); do \
		pkg=./$$(dirname $$f); \
		for t in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$f); do \
			echo "fuzz $$pkg $$t ($(FUZZTIME))"; \
			$(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

bench:
	$(GO) run ./bench

run:
	@echo "make run: not yet — the service arrives with the refactord issue (see README)."

clean:
	rm -rf $(BIN)
