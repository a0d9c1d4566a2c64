# The two commands of the quick start, `make run` and `make test`; and `make bench`.
SWIFT ?= swift
CATALOG ?= products.json

.PHONY: run test build bench deps clean

## Open the storefront on the bundled catalog (builds first).
run: build
	@./.build/debug/storefront --catalog $(CATALOG)

## Build and run every test.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

build: deps
	$(SWIFT) build

## Measure speed beside baselines run now on this machine (README: Performance).
## A release build, synthetic data made on the spot, dialog as the terminal baseline.
bench: deps
	@./scripts/install-deps.sh bench
	$(SWIFT) build -c release
	./.build/release/storefront-bench --storefront .build/release/storefront --work .build/bench

## Install the Debian packages the project needs, when missing.
deps:
	@./scripts/install-deps.sh

clean:
	rm -rf .build
