# The two commands of the quick start, `make run` and `make test`; and `make stress`, `make bench`.
SWIFT ?= swift
CATALOG ?= products.json
# The catalog readers under libFuzzer (Fuzz/); lld, because gold cannot link libFuzzer's runtime here.
FUZZ_FLAGS = -Xswiftc -sanitize=fuzzer -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld
# e.g. STRESS_FLAGS="--quick" or "--only crash"
STRESS_FLAGS ?=

.PHONY: run test build bench deps oracle clean stress fuzz-build

## Open the storefront on the bundled catalog (builds first).
run: build
	@./.build/debug/storefront --catalog $(CATALOG)

## Build and run every test (the signed-data tests use Apple's library from .build/oracle),
## then the Examples package's (StorefrontKit with SKTestSession).
test: deps oracle
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	$(SWIFT) build --package-path Examples --build-tests
	$(SWIFT) test --package-path Examples --skip-build

build: deps
	$(SWIFT) build

## The reliability suite: crashes, concurrency, damaged files, fuzzing, hostile text,
## terminals, tampering. One line per part with its figures, then "N passed, N failed".
stress: build fuzz-build
	./.build/debug/storefront-stress --storefront .build/debug/storefront --catalog products.json \
		--fuzzer Fuzz/.build/debug/catalog-fuzz --corpus Tests/Fuzz/corpus $(STRESS_FLAGS)

fuzz-build: deps
	$(SWIFT) build --package-path Fuzz $(FUZZ_FLAGS)

## Measure speed beside baselines run now on this machine (README: Performance).
## A release build, synthetic data made on the spot, dialog as the terminal baseline.
bench: deps
	@./scripts/install-deps.sh bench
	$(SWIFT) build -c release
	./.build/release/storefront-bench --storefront .build/release/storefront --work .build/bench

## Install the Debian packages the project needs, when missing.
deps:
	@./scripts/install-deps.sh

## The tests' independent oracle: Apple's App Store Server Library for Python, in a
## virtual environment under .build/ (python3-venv from Debian when venv needs it).
oracle:
	@./scripts/install-deps.sh oracle

clean:
	rm -rf .build Fuzz/.build Examples/.build
