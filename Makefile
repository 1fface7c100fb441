# tarn's entry points. Every target that builds runs scripts/bootstrap.sh first, which installs
# missing Debian and npm packages (quietly does nothing when all are present).
#
#   make demo    build (Release) and run the walk-through (scripts/demo.sh)
#   make test    everything CI runs (scripts/test.sh): Release + all suites, ASan+UBSan + unit
#                suite, libFuzzer build + a short fuzz run
#   make build   Release build in build/ (the executable is build/tarn)
#   make debug   Debug build in build-debug/
#   make asan    ASan+UBSan build in build-asan/
#   make fuzz    libFuzzer build in build-fuzz/, then FUZZ_SECONDS (default 60) per target
#   make bench   Release build, then bench/run.sh (tarn beside DuckDB; not a test)
#   make format  clang-format every C++ file in place (make format-check only reports)
#   make clean   remove the preset build directories
#
# JOBS (default 2) sets the parallel compile jobs.

JOBS ?= 2
FUZZ_SECONDS ?= 60
CLANG_FORMAT ?= clang-format
CXX_SOURCES = $(shell find src include bench fuzz tests -path tests/interop/node_modules -prune \
                -o \( -name '*.cc' -o -name '*.h' \) -print 2>/dev/null)

.DEFAULT_GOAL := build
.PHONY: bootstrap build debug asan fuzz bench demo test format format-check clean

bootstrap:
	@scripts/bootstrap.sh

build: bootstrap
	@cmake --preset release >/dev/null
	cmake --build build -j $(JOBS)

debug: bootstrap
	@cmake --preset debug >/dev/null
	cmake --build build-debug -j $(JOBS)

asan: bootstrap
	@cmake --preset asan >/dev/null
	cmake --build build-asan -j $(JOBS)

fuzz: bootstrap
	@cmake --preset fuzz >/dev/null
	cmake --build build-fuzz -j $(JOBS) --target tarn_fuzz
	scripts/fuzz.sh $(FUZZ_SECONDS)

bench: build
	bench/run.sh

demo: bootstrap
	@cmake --preset release >/dev/null
	cmake --build build -j $(JOBS) --target tarn
	@scripts/demo.sh

test:
	@TARN_JOBS=$(JOBS) scripts/test.sh

format:
	$(CLANG_FORMAT) -i $(CXX_SOURCES)

format-check:
	$(CLANG_FORMAT) --dry-run --Werror $(CXX_SOURCES)

clean:
	rm -rf build build-debug build-asan build-fuzz
