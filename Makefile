# The two commands of the quick start: `make run` and `make test`.
SWIFT ?= swift
CATALOG ?= products.json

.PHONY: run test build deps clean

## Open the storefront on the bundled catalog (builds first).
run: build
	@./.build/debug/storefront --catalog $(CATALOG)

## Build and run every test.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

build: deps
	$(SWIFT) build

## Install the Debian packages the project needs, when missing.
deps:
	@./scripts/install-deps.sh

clean:
	rm -rf .build
