# wallet-orders: the two commands are `make demo` and `make test`.
# `make demo` installs what the build and the demo need, `make test` that and the tools the tests
# use (via .ci/setup: apt-get and pip, only what is missing).
#
# One build, compiled once (.build-release: optimized): `make demo`, `make serve-local`,
# `make test`, `make test-fast`, `make release`, `make install`, `make image` and every benchmark
# run on it, so `make demo` then `make test` compiles only the tests, and `make install` after
# either compiles nothing again. The binaries find the Swift runtime libraries beside themselves
# ($ORIGIN; links into the toolchain in the build folder, copies in PREFIX/lib/wallet-orders once
# installed), never through a path into the toolchain, so an installed wallet-orders runs without a
# Swift toolchain. (A static Swift runtime is not an option for the one build: the toolchain ships
# the test libraries only as shared libraries, and a second, static build of the whole stack cost
# CI 20 minutes.) Every build goes through .ci/swift-build, which fails on a compiler warning in our
# own files. The sanitizer and fuzzing builds have scratch paths of their own.

SWIFT ?= swift
SWIFT_BUILD_FLAGS ?=
TEST_WIDTH ?= 6
SWIFT_BUILD = SWIFT="$(SWIFT)" bash .ci/swift-build

## `wallet-orders --version` names the commit: build-commit writes it (git describe) into a file
## that is not in git, rewritten only when it changes, and -DWALLET_ORDERS_BUILD_COMMIT compiles it
## in. Other builds (a plain `swift build`) say "unknown commit".
BUILD_COMMIT_FILE = Sources/wallet-orders/BuildCommit+Generated.swift
BUILD_COMMIT_FLAGS = -Xswiftc -DWALLET_ORDERS_BUILD_COMMIT

## The build's flags. Every target's imports are checked against the dependencies it declares
## (--explicit-target-dependency-import-check): an undeclared import fails the build. The runtime
## search path is $ORIGIN (SwiftPM's) and $ORIGIN/../lib/wallet-orders (the installed layout);
## -no-toolchain-stdlib-rpath leaves the toolchain's folder out, so a binary never picks up another
## toolchain's runtime on the machine it is installed on.
SCRATCH = .build-release
BIN = $(CURDIR)/$(SCRATCH)/release
RUNTIME_LIBRARIES = lib/wallet-orders
BUILD_FLAGS = -c release --scratch-path $(SCRATCH) --explicit-target-dependency-import-check error \
	-Xswiftc -no-toolchain-stdlib-rpath -Xlinker '-rpath=$$ORIGIN/../$(RUNTIME_LIBRARIES)' \
	$(BUILD_COMMIT_FLAGS) $(SWIFT_BUILD_FLAGS)
## After each build: links to the toolchain's runtime libraries next to the binaries (.ci/runtime).
LINK_RUNTIME = bash .ci/runtime link "$(BIN)"

PREFIX ?= /usr/local

.PHONY: setup setup-test build build-tests build-commit release release-static install install-files image demo serve-local test test-fast test-loaded lint format test-sanitizers test-asan test-tsan bench bench-smoke bench-batch bench-pass-batch bench-serve bench-serve-pg \
	schemas resources reference-data clean fuzz-build fuzz-seeds fuzz fuzz-smoke screenshots

setup:
	@bash .ci/setup build

setup-test:
	@bash .ci/setup test

build-commit:
	@commit=$$(git describe --always --dirty --abbrev=12 2>/dev/null) && value="\"$$commit\"" || value=nil; \
	printf '// Written by `make build-commit`; not in git. See VersionInformation.commit.\n#if WALLET_ORDERS_BUILD_COMMIT\nlet generatedBuildCommit: String? = %s\n#endif\n' "$$value" \
		> "$(BUILD_COMMIT_FILE).tmp"; \
	if cmp -s "$(BUILD_COMMIT_FILE).tmp" "$(BUILD_COMMIT_FILE)"; then rm "$(BUILD_COMMIT_FILE).tmp"; \
	else mv "$(BUILD_COMMIT_FILE).tmp" "$(BUILD_COMMIT_FILE)"; fi

## The tools (wallet-orders, apns-stand-in), or the products RELEASE_PRODUCTS names. It needs the
## C libraries (glibc, libstdc++/libgcc, libcrypto, libzip, libsqlite3, libzint, zlib; see
## README.md, "Install") and the Swift runtime libraries `make install` puts beside it, not a Swift
## toolchain.
RELEASE_PRODUCTS ?= wallet-orders apns-stand-in
build release: setup build-commit
	@for product in $(RELEASE_PRODUCTS); do \
		echo "build: $$product"; $(SWIFT_BUILD) --product $$product $(BUILD_FLAGS) || exit 1; \
	done
	@$(LINK_RUNTIME)

## The old name of `make release`.
release-static: release

## `make install PREFIX=/usr/local`: the binary, stripped, in PREFIX/bin; the Swift runtime
## libraries it links (from the toolchain, stripped) in PREFIX/lib/wallet-orders; its man page and
## bash/zsh/fish completions. It runs without a Swift toolchain; it needs only the C libraries
## above. install-files alone installs without building: BINARY=path installs another build
## (stripped too); INSTALL_STRIP= keeps the symbols (for a distribution's debug packages).
BINARY ?= $(BIN)/wallet-orders
INSTALL_STRIP ?= -s
install: release
	$(MAKE) install-files PREFIX="$(PREFIX)" BINARY="$(BINARY)"

install-files:
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/share/man/man1" \
		"$(DESTDIR)$(PREFIX)/share/bash-completion/completions" "$(DESTDIR)$(PREFIX)/share/zsh/site-functions" \
		"$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d"
	install -m 0755 $(INSTALL_STRIP) "$(BINARY)" "$(DESTDIR)$(PREFIX)/bin/wallet-orders"
	INSTALL_STRIP="$(INSTALL_STRIP)" bash .ci/runtime copy "$(BINARY)" "$(DESTDIR)$(PREFIX)/$(RUNTIME_LIBRARIES)"
	python3 .ci/man-page.py "$(BINARY)" > "$(DESTDIR)$(PREFIX)/share/man/man1/wallet-orders.1"
	"$(BINARY)" --generate-completion-script bash > "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/wallet-orders"
	"$(BINARY)" --generate-completion-script zsh > "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_wallet-orders"
	"$(BINARY)" --generate-completion-script fish > "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/wallet-orders.fish"
	@echo "installed $(DESTDIR)$(PREFIX)/bin/wallet-orders, its runtime libraries in $(DESTDIR)$(PREFIX)/$(RUNTIME_LIBRARIES), its man page and bash/zsh/fish completions"

## `make image`: the OCI image of `wallet-orders serve` (IMAGE, .build-image/wallet-orders.oci.tar),
## built here from Debian 12's packages (debootstrap), the binary and its runtime libraries,
## committed by buildah: no Docker engine, no registry. The Dockerfile's runtime stage, file for
## file. Root. `podman load -i` or `skopeo copy oci-archive:…` takes it from there.
IMAGE ?= $(CURDIR)/.build-image/wallet-orders.oci.tar
image: release
	@bash .ci/setup image
	bash .ci/image "$(BINARY)" "$(IMAGE)"

## Run the whole pipeline on the samples with TEST-ONLY certificates.
demo: build
	"$(BIN)/wallet-orders" demo --samples Samples
	BIN="$(BIN)" bash Tests/Demo/web-service.sh

## The service for development: serve on 127.0.0.1:8080 with a development signing identity and a
## local APNs stand-in; everything it makes stays in .local/ for the next run (LOCAL_DIR, ORDER_TYPE
## and LISTEN change that). TEST-ONLY keys; Ctrl-C stops it.
serve-local: build
	BIN="$(BIN)" bash Tests/Demo/serve-local.sh

## Samples/screenshots/: every sample as `wallet-orders preview --png` renders it (headless
## Chromium, 390 px wide at 2x), light and dark; shown in the README.
screenshots: setup-test build
	mkdir -p Samples/screenshots
	for sample in $$(ls Samples/*/order.json | xargs -n1 dirname | xargs -n1 basename); do \
		for appearance in light dark; do \
			"$(BIN)/wallet-orders" preview "Samples/$$sample" --appearance $$appearance \
				--png "Samples/screenshots/$$sample-$$appearance.png" || exit 1; \
		done; \
	done

## Build and run every test. The test process serves, as `wallet-orders serve` does, so it takes
## the open-file limit a server takes (the soft limit raised to the hard one): in-process servers,
## their clients and the stores of tests running side by side hold over a thousand descriptors at
## their peak, past the usual soft limit of 1,024. .ci/swift-test keeps the whole output in
## .build-release/test-output.txt, runs at most TEST_WIDTH tests at once (6; 0 for no limit) and,
## when the run fails, ends with a short list of what failed.
test: setup-test lint build-tests
	ulimit -Sn "$$(ulimit -Hn)" 2>/dev/null || true; SWIFT="$(SWIFT)" TEST_WIDTH="$(TEST_WIDTH)" TEST_OUTPUT=$(SCRATCH)/test-output.txt \
		bash .ci/swift-test --skip-build $(BUILD_FLAGS)

## The build with the tests (every target: the tools, the benchmarks, the tests).
build-tests: setup-test build-commit
	$(SWIFT_BUILD) --build-tests $(BUILD_FLAGS)
	@$(LINK_RUNTIME)

## The loop for editing: the tests that need no server, browser or database, on the same build:
## the library, the interop layer, the intake, the fuzzing regressions, the SQLite store and the
## preview's HTML, with the PostgreSQL cases left out. `make test` still runs everything.
FAST_FILTER = --filter '^(WalletOrdersTests|WalletOrdersInteropTests|WalletOrdersIntakeTests|WalletOrdersFuzzTests|WalletOrdersStoreTests|WalletOrdersPreviewTests)\.' \
	--skip 'Postgres|Browser'
test-fast: build-tests
	ulimit -Sn "$$(ulimit -Hn)" 2>/dev/null || true; WALLET_ORDERS_TEST_POSTGRES=off SWIFT="$(SWIFT)" TEST_WIDTH="$(TEST_WIDTH)" \
		TEST_OUTPUT=$(SCRATCH)/test-fast-output.txt bash .ci/swift-test --skip-build $(BUILD_FLAGS) $(FAST_FILTER)

## The proof that the suite holds on a busy machine: the whole suite LOADED_RUNS times (3) while
## stress-ng keeps every core busy; each run's time and result is printed (.ci/test-loaded).
LOADED_RUNS ?= 3
test-loaded: build-tests
	SWIFT="$(SWIFT)" TEST_WIDTH="$(TEST_WIDTH)" SCRATCH=$(SCRATCH) LOADED_RUNS=$(LOADED_RUNS) bash .ci/test-loaded $(BUILD_FLAGS)

## The toolchain's formatter in lint mode (.swift-format: 4 spaces, 150 columns), every finding an
## error; generated files are left out. `make format` rewrites the files the way lint wants them.
## Then .ci/check-imports: every module a target imports is one its dependencies name.
SWIFT_FILES = git ls-files -z '*.swift' | grep -zv -e '+Generated\.swift$$'
lint:
	@$(SWIFT_FILES) | xargs -0 $(SWIFT) format lint --strict --parallel --configuration .swift-format
	@echo "lint: swift format found nothing to change"
	@python3 .ci/check-imports

format:
	@$(SWIFT_FILES) | xargs -0 $(SWIFT) format format --in-place --parallel --configuration .swift-format

## Build and run every test under AddressSanitizer (with LeakSanitizer), then under
## ThreadSanitizer, each in its own scratch path (.build-asan, .build-tsan). The tests run the
## wallet-orders binary built next to the test bundle, so the CLI runs sanitized too.
## Suppressions (code we don't own, each with its reason) are in .ci/sanitizers/.
## `ulimit -s 65536`: the deepest test (a recursive schema applied 500 levels deep; the JSON
## parser's limit is 512) needs 6-8 MB of thread stack in a plain debug build, 8-12 MB sanitized.
## The sanitized tool runs ~3 (ASan) and ~10 (TSan) times slower: WALLET_ORDERS_TIME_SCALE=4 and
## 10 stretch the tests' kill windows and timeouts; under TSan the SIGKILL crash test makes 10
## kills instead of 20.
SANITIZERS_DIR = $(CURDIR)/.ci/sanitizers
ASAN_ENV = ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1 \
	LSAN_OPTIONS=suppressions=$(SANITIZERS_DIR)/lsan.supp:print_suppressions=0 WALLET_ORDERS_TIME_SCALE=4
TSAN_ENV = TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$(SANITIZERS_DIR)/tsan.supp \
	WALLET_ORDERS_TIME_SCALE=10 WALLET_ORDERS_CRASH_ROUNDS=10
test-sanitizers:
	$(MAKE) test-asan
	$(MAKE) test-tsan

test-asan: setup-test
	$(SWIFT_BUILD) --build-tests --sanitize=address --scratch-path .build-asan $(SWIFT_BUILD_FLAGS)
	ulimit -s 65536 && $(ASAN_ENV) SWIFT="$(SWIFT)" TEST_WIDTH="$(TEST_WIDTH)" TEST_OUTPUT=.build-asan/test-output.txt \
		bash .ci/swift-test --skip-build --sanitize=address --scratch-path .build-asan $(SWIFT_BUILD_FLAGS)

test-tsan: setup-test
	$(SWIFT_BUILD) --build-tests --sanitize=thread --scratch-path .build-tsan $(SWIFT_BUILD_FLAGS)
	ulimit -s 65536 && $(TSAN_ENV) SWIFT="$(SWIFT)" TEST_WIDTH="$(TEST_WIDTH)" TEST_OUTPUT=.build-tsan/test-output.txt \
		bash .ci/swift-test --skip-build --sanitize=thread --scratch-path .build-tsan $(SWIFT_BUILD_FLAGS)

## Time `wallet-orders build --batch` end to end (the release build): ORDERS orders, --jobs 1 vs 2, peak memory.
ORDERS ?= 10000
bench-batch: setup-test
	bash Benchmarks/batch-cli.sh $(ORDERS)

## The same for passes: $(ORDERS) tickets from Samples/event-ticket-pass, built, signed and validated.
bench-pass-batch: setup-test
	KIND=pass bash Benchmarks/batch-cli.sh $(ORDERS)

## The web service under load (wrk on loopback): cached and fresh GETs, the changed-orders list, uploads and
## build-and-sign saves, each next to a bare Hummingbird route and `openssl speed rsa2048` from the same run.
## `make bench-serve STORE=postgres` (or bench-serve-pg): the cached GETs on a throwaway PostgreSQL cluster
## (default durability), one and two instances, next to the bare route and one instance on SQLite.
STORE ?= sqlite
bench-serve: setup-test
	python3 Benchmarks/serve.py --store $(STORE)

bench-serve-pg:
	$(MAKE) bench-serve STORE=postgres

## Fuzzing (Tests/Fuzz): libFuzzer with AddressSanitizer, one target per input the package reads
## (zip json schema strings der identity validate store), each for FUZZ_SECONDS, one after the
## other. Crashes, hangs (FUZZ_TIMEOUT seconds for one input) and leaks fail it; the input is in
## $(FUZZ_WORK)/crashes/TARGET/. What libFuzzer finds stays in $(FUZZ_WORK)/corpus/TARGET/.
FUZZ_SECONDS ?= 60
FUZZ_TIMEOUT ?= 10
FUZZ_TARGETS ?= zip json schema strings der identity validate store pass pass-json pkpasses pass-strings
FUZZ_BUILD ?= .build-fuzz
FUZZ_WORK ?= $(FUZZ_BUILD)/work
FUZZ_BINARY = $(FUZZ_BUILD)/debug/wallet-orders-fuzz

## Build the fuzzing driver (debug, -sanitize=fuzzer,address) in $(FUZZ_BUILD).
fuzz-build: setup-test
	$(SWIFT_BUILD) --scratch-path $(FUZZ_BUILD) -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
		--product wallet-orders-fuzz $(SWIFT_BUILD_FLAGS)

## Write the seed corpora (samples, fixtures, conformance suites, archives signed with a fresh development PKI).
fuzz-seeds: fuzz-build
	rm -rf $(FUZZ_WORK)/seeds
	SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 $(FUZZ_BINARY) --make-seeds=$(FUZZ_WORK)/seeds

## Run every fuzz target for FUZZ_SECONDS (default 60) each.
fuzz: fuzz-seeds
	bash Tests/Fuzz/run-fuzzers.sh $(FUZZ_BINARY) $(FUZZ_WORK) $(FUZZ_SECONDS) $(FUZZ_TIMEOUT) $(FUZZ_TARGETS)

## A short pass of every fuzz target (CI, after `make test`): 20 s each.
fuzz-smoke:
	$(MAKE) fuzz FUZZ_SECONDS=20

## Regenerate the files compiled into the library (Schemas/*.schema.json and Apple's certificates,
## as Swift string literals; a test fails when they are not current). `schemas` is the old name.
resources schemas:
	sh Sources/WalletArchives/Resources/generate-embedded-resources.sh > Sources/WalletArchives/Resources/EmbeddedResources+Generated.swift.tmp
	mv Sources/WalletArchives/Resources/EmbeddedResources+Generated.swift.tmp Sources/WalletArchives/Resources/EmbeddedResources+Generated.swift

## Regenerate the ISO 4217/3166/639/15924 tables from Debian's iso-codes and ICU.
reference-data: setup-test
	$(SWIFT) Sources/WalletOrders/Validation/ReferenceData/Generator/generate-reference-data.swift \
		/usr/share/iso-codes/json > Sources/WalletOrders/Validation/ReferenceData/ReferenceData+Generated.swift

## Benchmarks (Benchmarks/): build+sign, validate and verify one archive, for the shipped sample
## and a large order, on one core, each next to `openssl speed rsa2048` from the same run; the
## store benchmarks on SQLite and on a throwaway PostgreSQL cluster with default durability
## (report.py starts it with Benchmarks/pgcluster.py; without PostgreSQL's binaries it warns and
## skips only those figures); then the CLI end to end on a batch of $(ORDERS) orders (bench-batch).
## All on the release build.
BENCH_PRODUCTS = wallet-orders wallet-orders-archive-benchmarks wallet-orders-store-benchmarks wallet-orders-profile
bench: setup-test
	$(MAKE) --no-print-directory release RELEASE_PRODUCTS="$(BENCH_PRODUCTS)"
	python3 Benchmarks/report.py
	SKIP_BUILD=1 bash Benchmarks/batch-cli.sh $(ORDERS)

## The same benchmarks, a few iterations each, on a 2,000-order store (CI: checks they build and run,
## PostgreSQL's too; figures are rough).
bench-smoke: setup-test
	$(MAKE) --no-print-directory release RELEASE_PRODUCTS="$(BENCH_PRODUCTS)"
	python3 Benchmarks/report.py --smoke

clean:
	rm -rf .build $(SCRATCH) .build-asan .build-tsan $(FUZZ_BUILD)
