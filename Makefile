# The two commands of the quick start, `make run` and `make test`; and `make stress`, `make bench`;
# `make install`, `make uninstall`, `make deb` and `make check-deb`.
SWIFT ?= swift
# Where `make install` puts storefront; DESTDIR is prefixed to it (staging, packaging).
PREFIX ?= /usr/local
DESTDIR ?=
CATALOG ?= products.json
# The catalog readers under libFuzzer (Fuzz/); lld, because gold cannot link libFuzzer's runtime here.
FUZZ_FLAGS = -Xswiftc -sanitize=fuzzer -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld
# The two Examples packages build in one folder: StoreApp's build reuses the root package's modules
# the Examples build compiled (a folder of their own; the root's .build would be taken for its own).
EXAMPLES_SCRATCH = --scratch-path $(CURDIR)/.build/examples
# e.g. STRESS_FLAGS="--quick" or "--only crash"
STRESS_FLAGS ?=

.PHONY: run test test-clock build bench deps oracle clean stress fuzz-build commit release install uninstall deb check-deb docs parity

## Open the storefront on the bundled catalog (builds first).
run: build
	@./.build/debug/storefront --catalog $(CATALOG)

## Build and run every test (the signed-data tests use Apple's library from .build/oracle),
## then the Examples packages' (StorefrontKit with SKTestSession; Examples/StoreApp, an app's
## store layer and its XCTest suite). A build that prints a warning fails
## (scripts/no-warnings.sh), its output shown all the same.
## Each phase's time goes to .build/make-test-times.txt (scripts/timed.sh; `make bench` shows it).
## The tests run beside one throwaway PostgreSQL cluster (scripts/with-postgres.sh,
## docs/postgresql-tests.md), which fails the run when it cannot start.
## The suites with exit tests (#expect(processExitsWith:)) run on their own: once one has run,
## Swift Testing's monitor thread spins for the rest of its process (docs/performance.md).
EXIT_TEST_SUITES = OpenSSLExitTests|RowAccessByNameTests
test: test-clock deps oracle commit
	./scripts/timed.sh build ./scripts/no-warnings.sh $(SWIFT) build --build-tests
	./scripts/timed.sh tests ./scripts/with-postgres.sh sh -c '\
		STOREFRONT_TEST_BACKEND=postgresql $(SWIFT) test --skip-build --filter StoreEngineTests && \
		$(SWIFT) test --skip-build --filter "$(EXIT_TEST_SUITES)" && \
		$(SWIFT) test --skip-build --skip "$(EXIT_TEST_SUITES)"'
	./scripts/timed.sh examples-build ./scripts/no-warnings.sh $(SWIFT) build --package-path Examples $(EXAMPLES_SCRATCH) --build-tests
	./scripts/timed.sh examples-tests $(SWIFT) test --package-path Examples $(EXAMPLES_SCRATCH) --skip-build
	./scripts/timed.sh storeapp-build ./scripts/no-warnings.sh $(SWIFT) build --package-path Examples/StoreApp $(EXAMPLES_SCRATCH) --build-tests
	./scripts/timed.sh storeapp-tests $(SWIFT) test --package-path Examples/StoreApp $(EXAMPLES_SCRATCH) --skip-build

## The parity walk's long run (`make test` walks 200 of 5 moves): thousands of seeded random walks of
## what a tester does, every front end compared after every move, a scenario's expect lines after each
## walk's last (Tests/StorefrontCLITests/ParityWalkTests.swift). PARITY_WALKS, PARITY_STEPS and
## PARITY_SEED set it; PARITY_SCENARIOS=each runs the expect lines after every move too (some four
## times slower). A failing walk prints the seed that replays it. 2,000 walks of 12 take about half an
## hour on this machine's two cores.
PARITY_WALKS ?= 2000
PARITY_STEPS ?= 12
PARITY_SCENARIOS ?= last
parity: deps commit
	$(SWIFT) build --build-tests
	STOREFRONT_PARITY_WALKS=$(PARITY_WALKS) STOREFRONT_PARITY_STEPS=$(PARITY_STEPS) STOREFRONT_PARITY_SCENARIOS=$(PARITY_SCENARIOS) \
		$(if $(PARITY_SEED),STOREFRONT_PARITY_SEED=$(PARITY_SEED)) $(SWIFT) test --skip-build --filter ParityWalkTests

test-clock:
	@./scripts/timed.sh --start

build: deps commit
	$(SWIFT) build

## Write the generated docs again: docs/command-line.md from the command table, and the
## paywall's pictures (docs/pictures/*.svg) from its renderer. `make test` fails while one is stale.
docs: deps commit
	$(SWIFT) build --build-tests
	STOREFRONT_WRITE_DOCS=1 $(SWIFT) test --skip-build --filter 'DocsTests|DocsPictureTests'

## The commit `storefront --version` names (.build/storefront-commit.h, rewritten only when it changes).
commit:
	@./scripts/commit-header.sh

# The Swift runtime and Foundation linked into the binary, not loaded from ~20 shared libraries:
# a process starts in 8 ms of CPU where it took 13, and touches 7 MB less (docs/performance.md).
# Linked by lld with packed relative relocations (DT_RELR, glibc 2.36): the 1.8 MB table of
# ~77,000 relocations the loader reads at every start is 14 KB, and the paywall peaks 4 MB lower.
# The functions the paywall runs side by side (scripts/link-order.sh wrote the list): 6 MB less.
STATIC = --static-swift-stdlib -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld \
	-Xlinker -z -Xlinker pack-relative-relocs \
	-Xlinker --symbol-ordering-file=$(CURDIR)/scripts/link-order.txt -Xlinker --no-warn-symbol-ordering

## The release binary that install and deb ship.
release: deps commit
	$(SWIFT) build -c release --product storefront $(STATIC)

## Install the release build: PREFIX/bin (the Swift runtime linked in), man page, completions.
install: release
	@./scripts/install-deps.sh package
	./scripts/install.sh .build/release/storefront "$(DESTDIR)" "$(PREFIX)"

uninstall:
	./scripts/install.sh --uninstall .build/release/storefront "$(DESTDIR)" "$(PREFIX)"

## A Debian package of the release build: .build/deb/storefront_VERSION_ARCH.deb.
deb: release
	@./scripts/install-deps.sh package
	./scripts/build-deb.sh

## Install the package in a fresh Debian (no Swift toolchain) and run it there.
check-deb: deb
	@./scripts/install-deps.sh check-deb
	./scripts/check-deb.sh

## The reliability suite: crashes, concurrency, damaged files, fuzzing, hostile text,
## terminals, tampering. One line per part with its figures, then "N passed, N failed".
stress: build fuzz-build
	./.build/debug/storefront-stress --storefront .build/debug/storefront --catalog products.json \
		--fuzzer Fuzz/.build/debug/catalog-fuzz --corpus Tests/Fuzz/corpus $(STRESS_FLAGS)

fuzz-build: deps
	$(SWIFT) build --package-path Fuzz $(FUZZ_FLAGS)

## Measure speed beside baselines run now on this machine (docs/performance.md).
## A release build, synthetic data made on the spot, dialog as the terminal baseline.
bench: deps commit
	@./scripts/install-deps.sh bench
	$(SWIFT) build -c release $(STATIC)
	./.build/release/storefront-bench --storefront .build/release/storefront --work .build/bench

## Install the Debian packages the project needs, when missing.
deps:
	@./scripts/install-deps.sh

## The tests' independent oracle: Apple's App Store Server Library for Python, in a
## virtual environment under .build/ (python3-venv from Debian when venv needs it).
oracle:
	@./scripts/install-deps.sh oracle

clean:
	rm -rf .build Fuzz/.build Examples/.build Examples/StoreApp/.build
