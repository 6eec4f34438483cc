# crossrun: `make` builds the runner and the lanes into build/.
# `make quick` runs the quick matrix, `make test` the tests, `make bench`
# the benchmark. SANITIZE=1 builds everything with ASan and UBSan.

CC ?= cc
UNAME_S := $(shell uname -s)
# CROSS=x86_64-w64-mingw32: a Windows build from Linux with mingw-w64, into
# build-win/, against static libraries (make windows-check, which builds
# them with ci/windows-deps and sets PKG_CONFIG_LIBDIR to them).
CROSS ?=
ifneq ($(CROSS),)
  PLATFORM := windows
  CC := $(CROSS)-gcc
  AR := $(CROSS)-ar
  PKG_CONFIG ?= pkg-config --static
else ifeq ($(UNAME_S),Darwin)
  PLATFORM := macos
  BREW := $(shell brew --prefix 2>/dev/null)
  export PKG_CONFIG_PATH := $(BREW)/opt/libarchive/lib/pkgconfig:$(BREW)/opt/openssl@3/lib/pkgconfig:$(PKG_CONFIG_PATH)
else ifneq (,$(findstring MINGW,$(UNAME_S))$(findstring MSYS,$(UNAME_S)))
  PLATFORM := windows
else
  PLATFORM := linux
endif

PKG_CONFIG ?= pkg-config
ifeq ($(PLATFORM),windows)
  EXE := .exe
endif
PKGS := libuv yaml-0.1 json-c libarchive openssl libpcre2-8
# Missing dependencies are installed by ci/deps before anything is built, so
# a fresh machine needs only `make quick` and `make test` (a cross build's
# are ci/windows-deps', which make windows-check runs).
DEPS_OK := $(shell $(PKG_CONFIG) --exists $(PKGS) 2>/dev/null && echo yes)
ifneq ($(DEPS_OK),yes)
  ifeq (,$(filter clean help,$(MAKECMDGOALS)))
    ifneq ($(CROSS),)
      $(error the $(CROSS) libraries are missing: make windows-check builds them)
    endif
    $(info ci/deps: dependencies missing, installing them)
    DEPS_RC := $(shell ./ci/deps >&2; echo $$?)
    ifneq ($(DEPS_RC),0)
      $(error ci/deps failed; install $(PKGS) and retry)
    endif
  endif
endif

PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
ifeq ($(PLATFORM),windows)
  PKG_LIBS += -lws2_32
endif
UV_CFLAGS := $(shell $(PKG_CONFIG) --cflags libuv 2>/dev/null)
UV_LIBS := $(shell $(PKG_CONFIG) --libs libuv 2>/dev/null)
# The C lane's TLS transport (lanes/c/tls.c).
SSL_LIBS := $(shell $(PKG_CONFIG) --libs openssl 2>/dev/null)

OPT ?= -O2
# Messages are bounded buffers on purpose: a cut message is not an error.
WARN := -Wall -Wextra -Werror -Wno-unused-parameter -Wno-format-truncation
CFLAGS_ALL := -std=c11 -D_GNU_SOURCE $(OPT) -g $(WARN) -I. $(CFLAGS)
LDFLAGS_ALL := $(LDFLAGS)
# %zu and %lld: mingw-w64's own printf, not the C runtime's older one.
# GCC for mingw still checks format(printf) attributes against the older
# one, so the formats are checked by the other platforms' builds.
ifeq ($(PLATFORM),windows)
  CFLAGS_ALL += -D__USE_MINGW_ANSI_STDIO=1 -Wno-format
endif
ifneq ($(CROSS),)
  # Programs that run without the toolchain's DLLs (zlib, winpthread).
  LDFLAGS_ALL += -static
  BUILD := build-win
else ifeq ($(SANITIZE),1)
  CFLAGS_ALL += -fsanitize=address,undefined -fno-omit-frame-pointer \
                -fno-sanitize-recover=undefined
  LDFLAGS_ALL += -fsanitize=address,undefined
  BUILD := build-sanitize
else
  BUILD := build
endif

PROTOCOL_SRC := $(wildcard protocol/*.c)
RUNNER_SRC := $(filter-out runner/main.c,$(wildcard runner/*.c))
EVIDENCE_SRC := $(wildcard evidence/*/*.c)
PLATFORM_SRC := platforms/$(PLATFORM).c
ifneq ($(PLATFORM),windows)
  PLATFORM_SRC += platforms/posix.c $(wildcard platforms/$(PLATFORM)_*.c)
else
  PLATFORM_SRC += $(wildcard platforms/windows_*.c)
endif
LANE_C_COMMON := $(filter-out lanes/c/client.c lanes/c/server.c,$(wildcard lanes/c/*.c))
TEST_SRC := $(wildcard tests/test_*.c)
# Helpers the test programs share (tests/lib_*.c), in one archive from
# which each program links the helpers it uses and only those.
TEST_LIB_SRC := $(wildcard tests/lib_*.c)
TEST_LIB := $(BUILD)/tests/libtests.a
# The fixture's OS layer is one of tests/fixture_os_{posix,windows}.c.
FIXTURE_SRC := tests/fixture.c $(filter-out tests/fixture_os_%.c,\
    $(wildcard tests/fixture_*.c)) \
    tests/fixture_os_$(if $(filter windows,$(PLATFORM)),windows,posix).c
FIXTURE_LIBS := $(if $(filter windows,$(PLATFORM)),-static -lws2_32)
FIXTURE_CFLAGS := $(if $(filter windows,$(PLATFORM)),\
    -D__USE_MINGW_ANSI_STDIO=1 -Wno-format)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

CORE_OBJ := $(call obj,$(PROTOCOL_SRC) $(RUNNER_SRC) $(EVIDENCE_SRC) $(PLATFORM_SRC))
TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%$(EXE),$(TEST_SRC))

TARGETS := $(BUILD)/crossrun$(EXE) $(BUILD)/lanes/c/client$(EXE) \
    $(BUILD)/lanes/c/server$(EXE)
# The raw baseline uses POSIX sockets directly; bench's figures, posix_spawn
# and wait4.
ifneq ($(PLATFORM),windows)
  TARGETS += $(BUILD)/bench/baseline $(BUILD)/bench/figures
endif
# The test suite and its misbehaving peers use Linux's interfaces (the
# runner's orphan and memory checks are tested where they are complete).
ifeq ($(PLATFORM),linux)
  TARGETS += $(BUILD)/tests/fixture $(BUILD)/crossrun-spawn
endif
# The fixture's peers on Windows (tests/fixture_os_windows.c), for the
# runner's tests under wine.
ifeq ($(PLATFORM),windows)
  TARGETS += $(BUILD)/tests/fixture$(EXE)
endif

.PHONY: all quick test bench clean style check-style help c-lane baseline \
    fuzz fuzz-smoke fuzz-build windows-check
# Objects are kept between builds (no intermediate-file deletion).
.SECONDARY:
all: $(TARGETS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/crossrun$(EXE): $(call obj,runner/main.c) $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS) -lm

$(BUILD)/lanes/c/%$(EXE): $(call obj,lanes/c/%.c $(LANE_C_COMMON) $(PROTOCOL_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(UV_LIBS) $(SSL_LIBS)

# The fixture is never sanitized: its memory figures are what the runner's
# tests compare against (ASan's shadow would add an eighth and more).
$(BUILD)/tests/fixture$(EXE): $(FIXTURE_SRC) $(wildcard tests/fixture*.h) \
    $(PROTOCOL_SRC) protocol/codec.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE $(OPT) -g $(WARN) $(FIXTURE_CFLAGS) -I. \
	  $(CFLAGS) -o $@ $(FIXTURE_SRC) $(PROTOCOL_SRC) $(FIXTURE_LIBS)

# The spawn helper between the runner and a measured peer: static, no
# sanitizer, so that its own small footprint stays below any peer's (see
# platforms/spawner/crossrun-spawn.c).
$(BUILD)/crossrun-spawn: platforms/spawner/crossrun-spawn.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -Os $(WARN) -static -o $@ $<

# The baseline over tls (bench/baseline_tls.c) is OpenSSL's.
BASELINE_LIBS := $(shell $(PKG_CONFIG) --libs openssl 2>/dev/null)
$(BUILD)/bench/baseline: $(call obj,$(wildcard bench/*.c) $(PROTOCOL_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(BASELINE_LIBS)

$(BUILD)/bench/figures: $(call obj,bench/figures/figures.c) $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS) -lm

$(TEST_LIB): $(call obj,$(TEST_LIB_SRC))
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

# Tests of the protocol and the lanes (test_codec*, test_lane_c*) link the
# codec only, so the helpers they use may use nothing more; the runner's
# tests (test_runner_*, test_evidence_*, test_platform_*) link the whole
# core.
CODEC_TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%$(EXE),\
    $(wildcard tests/test_codec*.c tests/test_lane_c*.c))
$(CODEC_TESTS): $(BUILD)/tests/test_%$(EXE): $(call obj,tests/test_%.c) \
    $(TEST_LIB) $(call obj,$(PROTOCOL_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS) -lm
# The lane's tests also check its result line's writer alone, and make
# their TLS material as the runner does.
$(filter $(BUILD)/tests/test_lane_c%,$(CODEC_TESTS)): \
    $(call obj,lanes/c/result.c runner/tls_material.c)

$(BUILD)/tests/test_%$(EXE): $(call obj,tests/test_%.c) $(TEST_LIB) $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS) -lm

# The build commands matrix.yaml gives for the C runtime and the baseline.
c-lane: $(BUILD)/lanes/c/client$(EXE) $(BUILD)/lanes/c/server$(EXE)
baseline: $(BUILD)/bench/baseline

# The lanes, and side by side with them every available runtime against
# the scripted peer's smoke subset (crossrun conform --quick), whose table
# follows the lanes'; either failing fails quick. Neither makes performance
# claims, so they may share the CPU; a runtime's build is locked (its
# matrix file), so the second run to reach it finds it built. An interrupt
# stops both.
quick: all
	@./$(BUILD)/crossrun conform --quick --out crossrun-conform-quick.json \
	  >$(BUILD)/conform-quick.out 2>&1 & conform=$$!; \
	  trap 'kill $$conform 2>/dev/null; wait $$conform; exit 130' INT TERM; \
	  echo "./$(BUILD)/crossrun conform --quick (side by side; its table follows)"; \
	  echo "./$(BUILD)/crossrun quick"; \
	  ./$(BUILD)/crossrun quick; lanes=$$?; \
	  wait $$conform; conform=$$?; cat $(BUILD)/conform-quick.out; \
	  rm -f $(BUILD)/conform-quick.out; \
	  [ $$lanes -eq 0 ] && [ $$conform -eq 0 ]

test: all $(TESTS)
	BUILD=$(BUILD) ./tests/run

bench: all
	BUILD=$(BUILD) ./bench/run

# libFuzzer harnesses (tests/fuzz/fuzz_*.c), one per parser of untrusted
# input, built with clang into build-fuzz/ and run by tests/fuzz/run for
# FUZZ_SECONDS each (and at most FUZZ_RUNS inputs when given).
FUZZ_CC ?= clang
FUZZ_BUILD := build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?=
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -O1 -g $(WARN) -Wno-unknown-warning-option \
    -DFUZZ_SOURCE_ROOT='"$(CURDIR)"' \
    -I. -fno-omit-frame-pointer -fsanitize=address,undefined \
    -fno-sanitize-recover=undefined $(PKG_CFLAGS)
FUZZ_HARNESSES := $(patsubst tests/fuzz/%.c,%,$(filter-out \
    tests/fuzz/fuzz_common.c,$(wildcard tests/fuzz/fuzz_*.c)))
fuzz_obj = $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(1))

$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

# An archive: a harness that includes a file of the core (fuzz_peer includes
# runner/sample.c) does not pull that file's object in twice.
$(FUZZ_BUILD)/libcore.a: $(call fuzz_obj,$(PROTOCOL_SRC) $(RUNNER_SRC) \
    $(EVIDENCE_SRC) $(PLATFORM_SRC))
	rm -f $@
	ar rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: $(call fuzz_obj,tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.c) \
    $(FUZZ_BUILD)/libcore.a
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $^ $(PKG_LIBS) -lm

# Seeds made from the protocol's vectors at build time (not committed).
$(FUZZ_BUILD)/seeds.stamp: tests/fuzz/seeds.c $(wildcard protocol/vectors/*.json)
	@mkdir -p $(FUZZ_BUILD)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 $(WARN) -I. $(PKG_CFLAGS) \
	  -o $(FUZZ_BUILD)/make-seeds tests/fuzz/seeds.c $(PKG_LIBS)
	./$(FUZZ_BUILD)/make-seeds protocol/vectors $(FUZZ_BUILD)/seeds
	touch $@

fuzz-build: $(patsubst %,$(FUZZ_BUILD)/%,$(FUZZ_HARNESSES)) $(FUZZ_BUILD)/seeds.stamp

fuzz: fuzz-build
	FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_RUNS=$(FUZZ_RUNS) \
	  ./tests/fuzz/run $(FUZZ_HARNESSES)

# The short bounded pass of CI (.ci/run): about 100 s for the runs.
fuzz-smoke:
	$(MAKE) fuzz FUZZ_SECONDS=8

# The file lists, the tools and their pinned versions are in ci/style.sh.
style:
	./ci/style.sh fix

check-style:
	./ci/style.sh check

# The Windows build proven under wine: ci/windows-check (the libraries are
# cross-built once into build-win/deps; the evidence goes to build-win/).
windows-check:
	./ci/windows-check

clean:
	rm -rf build build-sanitize build-fuzz build-win/obj build-win/tests \
	  build-win/lanes build-win/*.exe

help:
	@echo "make          build the runner and the lanes into build/"
	@echo "make quick    run the quick smoke matrix"
	@echo "make test     run the tests (SANITIZE=1: under ASan and UBSan)"
	@echo "make bench    run the full workload against the raw baseline"
	@echo "make style    format the C sources with clang-format"
	@echo "make check-style  check the formatting; lint scripts, workflows, lanes"
	@echo "make fuzz     build the fuzz harnesses with clang and run each for"
	@echo "              FUZZ_SECONDS (60; make fuzz-smoke: 8)"
	@echo "make windows-check  cross-build for Windows, run it under wine"
	@echo "make clean    remove build outputs"

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
-include $(shell find $(FUZZ_BUILD)/obj -name '*.d' 2>/dev/null)
