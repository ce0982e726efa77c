# wallet-orders: the two commands are `make demo` and `make test`.
# Both install what the build needs (via .ci/setup: apt-get, only when something is missing).

SWIFT ?= swift
SWIFT_BUILD_FLAGS ?=

.PHONY: setup build release demo test bench bench-smoke bench-batch bench-serve schemas reference-data clean \
	fuzz-build fuzz-seeds fuzz fuzz-smoke

setup:
	@bash .ci/setup

build: setup
	$(SWIFT) build $(SWIFT_BUILD_FLAGS)

release: setup
	$(SWIFT) build -c release $(SWIFT_BUILD_FLAGS)

## Build in release mode and run the whole pipeline on the samples with TEST-ONLY certificates.
demo: release
	$(SWIFT) run -c release --skip-build wallet-orders demo --samples Samples

## Build and run every test.
test: setup
	$(SWIFT) build --build-tests $(SWIFT_BUILD_FLAGS)
	$(SWIFT) test --skip-build $(SWIFT_BUILD_FLAGS)

## Time `wallet-orders build --batch` end to end (release): ORDERS orders, --jobs 1 vs 2, peak memory.
ORDERS ?= 10000
bench-batch: setup
	bash Benchmarks/batch-cli.sh $(ORDERS)

## The web service under load (wrk on loopback): cached and fresh GETs, the changed-orders list, uploads and
## build-and-sign saves, each next to a bare Hummingbird route and `openssl speed rsa2048` from the same run.
bench-serve: setup
	python3 Benchmarks/serve.py

## Fuzzing (Tests/Fuzz): libFuzzer with AddressSanitizer, one target per input the package reads
## (zip json schema strings der identity validate store), each for FUZZ_SECONDS, one after the
## other. Crashes, hangs (FUZZ_TIMEOUT seconds for one input) and leaks fail it; the input is in
## $(FUZZ_WORK)/crashes/TARGET/. What libFuzzer finds stays in $(FUZZ_WORK)/corpus/TARGET/.
FUZZ_SECONDS ?= 60
FUZZ_TIMEOUT ?= 10
FUZZ_TARGETS ?= zip json schema strings der identity validate store
FUZZ_BUILD ?= .build-fuzz
FUZZ_WORK ?= $(FUZZ_BUILD)/work
FUZZ_BINARY = $(FUZZ_BUILD)/debug/wallet-orders-fuzz

## Build the fuzzing driver (debug, -sanitize=fuzzer,address) in $(FUZZ_BUILD).
fuzz-build: setup
	$(SWIFT) build --scratch-path $(FUZZ_BUILD) -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
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

## Refresh the library's bundled copies of Schemas/*.json (a test fails when they differ).
schemas:
	rm -f Sources/WalletOrders/Resources/Schemas/*.json
	cp Schemas/*.schema.json Sources/WalletOrders/Resources/Schemas/

## Regenerate the ISO 4217/3166/639/15924 tables from Debian's iso-codes and ICU.
reference-data: setup
	$(SWIFT) Sources/WalletOrders/Validation/ReferenceData/Generator/generate-reference-data.swift \
		/usr/share/iso-codes/json > Sources/WalletOrders/Validation/ReferenceData/ReferenceData+Generated.swift

## Benchmarks (ordo-one/benchmark, Benchmarks/): build+sign, validate and verify one archive, for the
## shipped sample and a large order, on one core, each next to `openssl speed rsa2048` from the same
## run; the store benchmarks; then the CLI end to end on a batch of $(ORDERS) orders (bench-batch).
bench: setup
	cd Benchmarks && $(SWIFT) build -c release $(SWIFT_BUILD_FLAGS)
	python3 Benchmarks/report.py
	bash Benchmarks/batch-cli.sh $(ORDERS)

## The same benchmarks, a few iterations each (CI: checks they build and run; figures are rough).
bench-smoke: setup
	cd Benchmarks && $(SWIFT) build -c release $(SWIFT_BUILD_FLAGS)
	python3 Benchmarks/report.py --smoke

clean:
	rm -rf .build $(FUZZ_BUILD) Benchmarks/.build
