# blktrace-bench. `make` builds ./blktrace-bench; `make check` installs what is
# missing and runs every test; `make demo` tells the story on a loop disk; `make
# deb` builds the Debian package in build/deb/; `make install` honours PREFIX and
# DESTDIR. V=1 shows the full commands. CC, CFLAGS, CPPFLAGS and LDFLAGS are the
# user's (dpkg-buildflags sets them for the package). `make ARCH=arm64` (and `make deb
# ARCH=arm64`) on an x86-64 machine cross-builds build/arm64/blktrace-bench with
# Debian's cross compiler and the :arm64 libraries (tools/deps.sh arm64 installs them);
# `make vmtest ARCH=arm64` and `make xentest ARCH=arm64` run that build in arm64 guests
# under QEMU.
#
# Nothing here installs packages: tools/deps.sh does, called by check, demo, bench,
# deb and vmtest before they build.

# make's own default CC is cc, so `CC ?= gcc` never applied: CC is left to make,
# the environment or the command line (make CC=clang).
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)

# Only architectures with a committed vmlinux/ARCH/vmlinux.h: CO-RE needs one per
# architecture (pt_regs and friends differ), and a missing one would only show up
# as a confusing clang error. ARCH=arm64 or ARCH_NAME=aarch64 (debian/rules passes
# it) cross-builds when it is not the machine's.
ARCH_NAME ?= $(shell uname -m)
ARCH_x86_64 := x86
ARCH_aarch64 := arm64
ARCH_riscv64 := riscv
ARCH_s390x := s390
ARCH_ppc64le := powerpc
ARCH := $(ARCH_$(ARCH_NAME))
BUILD_ARCH := $(ARCH_$(shell uname -m))
TRIPLET_x86 := x86_64-linux-gnu
TRIPLET_arm64 := aarch64-linux-gnu
# Debian's names, for the guests of make vmtest (tests/vm/vmtest.sh's VMTEST_ARCH).
DEB_ARCH_x86 := amd64
DEB_ARCH_arm64 := arm64
ifeq ($(ARCH),$(BUILD_ARCH))
OUT := build
BIN := blktrace-bench
else
# A cross build: its own build directory and binary, Debian's cross compiler and the
# pkg-config that reads the :arm64 libraries' .pc files, unless given.
OUT := build/$(ARCH)
BIN := $(OUT)/blktrace-bench
ifeq ($(TRIPLET_$(ARCH)),)
$(error no cross build to $(ARCH) from $(BUILD_ARCH): add TRIPLET_$(ARCH))
endif
ifeq ($(origin CC),default)
CC := $(TRIPLET_$(ARCH))-gcc
endif
PKG_CONFIG ?= $(TRIPLET_$(ARCH))-pkg-config
DEPS_GROUP := $(ARCH)
# What runs what it builds runs it here: refused for another architecture. vmtest and
# xentest are not: their guests are of ARCH.
RUNS_HERE := check check-unit check-loaded unit json-keys e2e demo bench bench-smoke bench-soak \
	fuzz fuzz-build
ifneq ($(filter $(RUNS_HERE),$(MAKECMDGOALS)),)
$(error make $(filter $(RUNS_HERE),$(MAKECMDGOALS)) runs what it builds on this $(BUILD_ARCH) machine, not with ARCH=$(ARCH): make ARCH=$(ARCH) and make deb ARCH=$(ARCH) cross-build)
endif
endif
PKG_CONFIG ?= pkg-config
DEPS_GROUP ?= build
VMLINUX_DIR := vmlinux/$(ARCH)
ifeq ($(ARCH),)
$(error unsupported architecture $(ARCH_NAME): add it to the ARCH map, then run tools/gen-vmlinux.sh ARCH on such a machine and commit vmlinux/ARCH/vmlinux.h)
endif
ifeq ($(wildcard $(VMLINUX_DIR)/vmlinux.h),)
$(error no $(VMLINUX_DIR)/vmlinux.h: run tools/gen-vmlinux.sh $(ARCH) with a kernel of $(ARCH) with BTF and commit it)
endif

ifeq ($(V),1)
Q :=
msg =
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# Libraries through pkg-config, each with the Debian package that provides its .pc.
# Looked up once, and only when a recipe needs them: `make clean`, `make check` and
# `make deb` must get as far as tools/deps.sh on a machine that has none of them.
PC_libbpf := libbpf-dev
PC_libelf := libelf-dev
PC_zlib := zlib1g-dev
PC_liburing := liburing-dev
PC_jansson := libjansson-dev
PC_cmocka := libcmocka-dev
PC_libmicrohttpd := libmicrohttpd-dev
PC_xenstore := libxen-dev
# $(call pc_in,PKG-CONFIG,SUFFIX,GROUP,FLAGS,MODULES): pkg-config's FLAGS for MODULES, or
# an error naming the package to install (SUFFIX: its :ARCH) and tools/deps.sh's GROUP.
pc_need = $(if $(shell $(2) --exists $(1) && echo y),,$(error $(2) finds no $(1).pc: install $(PC_$(1))$(3) (tools/deps.sh $(4) does)))
pc_in = $(if $(shell command -v $(1) 2>/dev/null),,$(error $(1) not found: install pkg-config$(2) (tools/deps.sh $(3) does)))$(foreach m,$(5),$(call pc_need,$(m),$(1),$(2),$(3)))$(shell $(1) $(4) $(5))
pc = $(call pc_in,$(PKG_CONFIG),$(if $(filter-out build,$(DEPS_GROUP)),:$(ARCH)),$(DEPS_GROUP),$(1),$(2))
# $(call lazy,VAR,VALUE): VAR is VALUE, computed on first use and then remembered.
lazy = $(eval $(1) = $$(eval $(1) := $(2))$$($(1)))
LIBS_PC := libbpf libelf zlib liburing jansson
# libmicrohttpd and libxenstore: their headers only; serve opens the one
# (src/serve/http_metrics.c), info and traces of xen-blkfront disks the other
# (src/disk/xen_store.c). xenstore's headers are the machine's own libxen-dev's (they
# are the same for every architecture, and libxen-dev is not installable for two).
pc_native = $(call pc_in,pkg-config,,build,$(1),$(2))
$(call lazy,LIB_CFLAGS,$$(call pc,--cflags,$(LIBS_PC) libmicrohttpd) $$(call pc_native,--cflags,xenstore))
$(call lazy,LIB_LDLIBS,$$(call pc,--libs,$(LIBS_PC)))
$(call lazy,CMOCKA_CFLAGS,$$(call pc,--cflags,cmocka))
$(call lazy,CMOCKA_LDLIBS,$$(call pc,--libs,cmocka))

VERSION := 0.1.0
GIT_REV := $(shell git rev-parse --short HEAD 2>/dev/null)
WARN := -Wall -Wextra -Werror
CFLAGS ?= -O2 -g
override CFLAGS += -std=gnu11 $(WARN) -D_GNU_SOURCE -pthread -MMD -MP -I$(OUT) -Ibpf -Isrc \
	-DBLKTRACE_BENCH_VERSION='"$(VERSION)$(if $(GIT_REV),-$(GIT_REV))"' $(LIB_CFLAGS)
# --as-needed: libelf and zlib are libbpf's, not ours; no NEEDED entry for them.
override LDFLAGS += -Wl,--as-needed
LDLIBS = $(LIB_LDLIBS) -lm -pthread
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) $(WARN) \
	-Wno-unused-function -I$(VMLINUX_DIR) -Ibpf -MMD -MP
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

# make install: PREFIX=/usr for a system install (the package), DESTDIR to stage.
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/blktrace-bench
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
INSTALL ?= install
# serve's systemd unit, Prometheus scrape configuration and alerting rule, as examples.
CONTRIB := contrib/blktrace-bench.service contrib/prometheus.yml contrib/blktrace-bench.rules.yml
# The user docs the package carries, side by side in its doc directory.
DOCS := README.md doc/guide.md doc/json.md doc/json-keys.md

# src/ holds a folder per layer (doc/ARCHITECTURE.md), engines one deeper.
SRCS := $(wildcard src/*/*.c src/*/*/*.c)
OBJS := $(SRCS:src/%.c=$(OUT)/%.o)
LIB_OBJS := $(filter-out $(OUT)/cli/main.o,$(OBJS))
SAN_OBJS := $(LIB_OBJS:$(OUT)/%.o=$(OUT)/san/%.o)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(OUT)/unit/%)
SAN_BINS := $(UNIT_SRCS:tests/unit/%.c=$(OUT)/san/unit/%)
SKEL := $(OUT)/blkio.skel.h $(OUT)/blktrace.skel.h $(OUT)/blkfront.skel.h

# make fuzz: libFuzzer targets (tests/fuzz/fuzz_*.c) over the parsers of untrusted input,
# each run for FUZZ_SECONDS from the seeds in tests/fuzz/corpus/NAME; a crash, a leak or a
# sanitizer report fails. What they find goes to build/fuzz/ (crash-NAME-*).
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(FUZZ_NAMES:%=$(OUT)/fuzz/fuzz_%)
FUZZ_OBJS := $(LIB_OBJS:$(OUT)/%.o=$(OUT)/fuzz/%.o)

.DELETE_ON_ERROR:
.SECONDARY: $(SAN_OBJS) $(FUZZ_OBJS) $(SKEL) $(SKEL:.skel.h=.bpf.o)
.PHONY: all deps check check-layers check-unit unit json-keys e2e check-loaded vmtest xentest demo bench bench-smoke bench-soak deb \
	install uninstall clean format format-check fuzz fuzz-build

all: $(BIN)

deps:
	$(Q)tools/deps.sh

$(OUT) $(OUT)/san $(OUT)/unit $(OUT)/san/unit $(OUT)/fuzz:
	$(Q)mkdir -p $@

# bpf/NAME.bpf.c -> build/NAME.skel.h (skeleton NAME_bpf): blkio, the aggregate;
# blktrace, the per-event records of --blktrace; blkfront, the xen-blkfront probes.
$(OUT)/%.bpf.o: bpf/%.bpf.c | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

# The bench's calibration programs (tools/bench/floor.*): a skeleton of their own,
# built by make bench (and make check, whose bench smoke test runs them) only.
$(OUT)/floor.bpf.o: tools/bench/floor.bpf.c | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(OUT)/floor.skel.h: $(OUT)/floor.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name floor_bpf > $@

$(OUT)/bench-floor: tools/bench/floor.c $(OUT)/floor.skel.h
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< $(LDLIBS) -o $@

# Every object may include the skeleton; -MMD records who really does.
$(OUT)/%.o: src/%.c | $(SKEL)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(OUT)/san/%.o: src/%.c | $(SKEL) $(OUT)/san
	$(call msg,CC-SAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(SAN) -c $< -o $@

$(BIN): $(OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(OUT)/unit/%: tests/unit/%.c $(LIB_OBJS) | $(OUT)/unit
	$(call msg,CC-TEST,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(CMOCKA_CFLAGS) $(LDFLAGS) $< $(LIB_OBJS) $(LDLIBS) \
		$(CMOCKA_LDLIBS) -o $@

$(OUT)/san/unit/%: tests/unit/%.c $(SAN_OBJS) | $(OUT)/san/unit
	$(call msg,CC-TEST,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(CMOCKA_CFLAGS) $(SAN) $(LDFLAGS) $< $(SAN_OBJS) \
		$(LDLIBS) $(CMOCKA_LDLIBS) -o $@

unit: $(UNIT_BINS) $(SAN_BINS) $(OUT)/json-keys

# doc/json-keys.md comes from the counter table (bpf/blkio_counters.h) by tools/json-keys.c:
# make json-keys writes it; tests/shell/test_json_keys.sh fails when it differs.
$(OUT)/json-keys: tools/json-keys.c | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@

json-keys: $(OUT)/json-keys
	$(call msg,GEN,doc/json-keys.md)
	$(Q)$(OUT)/json-keys > doc/json-keys.md.tmp && mv doc/json-keys.md.tmp doc/json-keys.md

$(OUT)/fuzz/%.o: src/%.c | $(SKEL) $(OUT)/fuzz
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(CFLAGS) -O1 $(FUZZ_SAN) -c $< -o $@

$(OUT)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJS) | $(OUT)/fuzz
	$(call msg,LD-FUZZ,$@)
	$(Q)$(FUZZ_CC) $(CFLAGS) -O1 $(FUZZ_SAN) -fsanitize=fuzzer $< $(FUZZ_OBJS) $(LDLIBS) -o $@

fuzz-build: $(FUZZ_BINS)

# A run per target (fuzz-run-NAME, never a file: not .PHONY, which would skip the pattern
# rule), so `make -j2 fuzz` runs two at once on two cores; new inputs go to
# build/fuzz/corpus/NAME, the committed seeds stay as they are. -close_fd_mask=3: the
# parsers' own messages are noise here (libFuzzer keeps its reports).
fuzz: $(FUZZ_NAMES:%=fuzz-run-%)

fuzz-run-%: $(OUT)/fuzz/fuzz_%
	$(Q)mkdir -p $(OUT)/fuzz/corpus/$*
	$(Q)echo "  FUZZ     $* for $(FUZZ_SECONDS) s"
	$(Q)$< -max_total_time=$(FUZZ_SECONDS) -timeout=10 -close_fd_mask=3 -print_final_stats=1 \
		-artifact_prefix=$(OUT)/fuzz/crash-$*- \
		$(OUT)/fuzz/corpus/$* tests/fuzz/corpus/$* 2> $(OUT)/fuzz/$*.log || \
		{ tail -40 $(OUT)/fuzz/$*.log; echo "fuzz $*: FAILED (log: $(OUT)/fuzz/$*.log)"; exit 1; }
	$(Q)sed -n "s/^stat::number_of_executed_units: */  fuzz $*: 0 crashes, runs /p" \
		$(OUT)/fuzz/$*.log

check:
	$(Q)tools/deps.sh
	$(Q)$(MAKE) --no-print-directory format-check check-layers all unit $(OUT)/bench-floor
	$(Q)tests/run.sh

# src/ keeps its layers: no include goes up a folder of tools/check-layers.sh's list, no
# two modules include each other (doc/ARCHITECTURE.md draws the layers).
check-layers:
	$(Q)tools/check-layers.sh

# The package build's test step (debian/rules): unit tests without sanitizers and
# the no-root shell tests; no root, no apt, no loop disks.
check-unit: all $(UNIT_BINS) $(OUT)/json-keys
	$(Q)tests/run.sh --no-e2e

e2e: all $(OUT)/bench-floor
	$(Q)tests/run.sh --e2e-only

# The e2e suite ROUNDS times (default 5) while fio loads another loop disk: flakes show here.
check-loaded:
	$(Q)tools/deps.sh test
	$(Q)$(MAKE) --no-print-directory all $(OUT)/bench-floor
	$(Q)tests/loaded.sh $(ROUNDS)

# Debian's 5.10, 6.1, 6.12 and newest cloud kernels in QEMU guests with real disks
# (tests/vm/vmtest.sh); KERNELS="6.1" for fewer. ARCH=arm64: the arm64 build in
# Debian's arm64 cloud kernels (qemu-system-aarch64, tools/deps.sh vm-arm64).
vmtest:
	$(Q)tools/deps.sh vm$(if $(filter-out $(BUILD_ARCH),$(ARCH)), $(ARCH) vm-$(ARCH))
	$(Q)$(MAKE) --no-print-directory $(BIN)
	$(Q)VMTEST_ARCH=$(DEB_ARCH_$(ARCH)) tests/vm/vmtest.sh $(KERNELS)

# Xen 4.17 under QEMU, a PV dom0, and PV guests of Debian's 5.10, 6.1, 6.12 and newest
# cloud kernels whose disks are xen-blkfront over blkback (tests/xen/xentest.sh).
# ARCH=arm64: Xen on Arm (qemu-system-aarch64's virt) and Debian's arm64 kernels.
# The host's own build reads the guests' results (tests/xen/dom0-checks.sh: compare).
xentest:
	$(Q)tools/deps.sh xen$(if $(filter-out $(BUILD_ARCH),$(ARCH)), $(ARCH) vm-$(ARCH))
	$(Q)$(MAKE) --no-print-directory $(BIN)
	$(if $(filter-out $(BUILD_ARCH),$(ARCH)),$(Q)$(MAKE) --no-print-directory ARCH=$(BUILD_ARCH) blktrace-bench)
	$(Q)VMTEST_ARCH=$(DEB_ARCH_$(ARCH)) tests/xen/xentest.sh $(KERNELS)

demo:
	$(Q)tools/deps.sh test
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/demo.sh

bench:
	$(Q)tools/deps.sh bench
	$(Q)$(MAKE) --no-print-directory all $(OUT)/bench-floor
	$(Q)tools/bench/bench.sh
	$(Q)tools/bench/fleet.sh

# Seconds: one short round per configuration, to keep the bench from rotting.
bench-smoke:
	$(Q)tools/deps.sh bench
	$(Q)$(MAKE) --no-print-directory all $(OUT)/bench-floor
	$(Q)tools/bench/bench.sh --smoke
	$(Q)tools/bench/fleet.sh --smoke

# Ten minutes of passive tracing under fio: is the tracer's memory constant?
bench-soak:
	$(Q)tools/deps.sh bench
	$(Q)$(MAKE) --no-print-directory all $(OUT)/bench-floor
	$(Q)tools/bench/bench.sh --parts soak

# dpkg-buildpackage in a copy of the tree (build/deb/blktrace-bench-VERSION), so the
# tree stays clean; the .deb and lintian's verdict land in build/deb/.
deb:
	$(Q)tools/deps.sh deb$(if $(filter-out $(BUILD_ARCH),$(ARCH)), $(ARCH))
	$(Q)tools/deb.sh $(ARCH)

install: $(BIN)
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(DOCDIR)/contrib $(DESTDIR)$(BASHCOMPDIR)
	$(Q)$(INSTALL) -m 0755 $(BIN) $(DESTDIR)$(SBINDIR)/blktrace-bench
	$(Q)$(INSTALL) -m 0644 doc/blktrace-bench.8 $(DESTDIR)$(MANDIR)/man8/blktrace-bench.8
	$(Q)$(INSTALL) -m 0644 $(DOCS) $(DESTDIR)$(DOCDIR)/
	$(Q)$(INSTALL) -m 0644 $(CONTRIB) $(DESTDIR)$(DOCDIR)/contrib/
	$(Q)$(INSTALL) -m 0644 completion/blktrace-bench.bash \
		$(DESTDIR)$(BASHCOMPDIR)/blktrace-bench

# The files install wrote, and the directories that are ours alone.
uninstall:
	$(call msg,RM,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(DESTDIR)$(SBINDIR)/blktrace-bench $(DESTDIR)$(MANDIR)/man8/blktrace-bench.8 \
		$(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOCS))) $(DESTDIR)$(BASHCOMPDIR)/blktrace-bench \
		$(CONTRIB:contrib/%=$(DESTDIR)$(DOCDIR)/contrib/%)
	$(Q)rmdir $(DESTDIR)$(DOCDIR)/contrib $(DESTDIR)$(DOCDIR) 2>/dev/null || true

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf $(OUT) blktrace-bench

# The sources .clang-format (clang-format 14) keeps in shape, the BPF programs among
# them. tools/ joins (here, and so in make check) once it has been formatted.
CLANG_FORMAT ?= clang-format
FORMAT_SRCS = $(wildcard src/*/*.[ch] src/*/*/*.[ch] bpf/*.[ch] tests/unit/*.c tests/unit/*.h \
	tests/fuzz/*.c)
format:
	$(Q)$(CLANG_FORMAT) -i $(FORMAT_SRCS)

# Fails on any file clang-format would change; make check runs it first.
format-check:
	$(call msg,FORMAT,check)
	$(Q)$(CLANG_FORMAT) --dry-run -Werror $(FORMAT_SRCS)

-include $(shell find $(OUT) -name '*.d' 2>/dev/null)
