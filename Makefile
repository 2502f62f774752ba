# blktrace-bench. `make` builds ./blktrace-bench; `make check` installs what is
# missing and runs every test; `make demo` tells the story on a loop disk.
# V=1 shows the full commands.

OUT := build
CC ?= gcc
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)

ARCH_NAME := $(shell uname -m)
ARCH_x86_64 := x86
ARCH_aarch64 := arm64
ARCH_riscv64 := riscv
ARCH_s390x := s390
ARCH_ppc64le := powerpc
ARCH := $(ARCH_$(ARCH_NAME))
ifeq ($(ARCH),)
$(error unsupported architecture $(ARCH_NAME): add it to the ARCH map and vmlinux/)
endif
VMLINUX_DIR := vmlinux/$(ARCH)

ifeq ($(V),1)
Q :=
msg =
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

VERSION := 0.1.0
GIT_REV := $(shell git rev-parse --short HEAD 2>/dev/null)
WARN := -Wall -Wextra -Werror
CFLAGS ?= -O2 -g
override CFLAGS += -std=gnu11 $(WARN) -D_GNU_SOURCE -MMD -MP -I$(OUT) -Ibpf -Isrc \
	-DBLKTRACE_BENCH_VERSION='"$(VERSION)$(if $(GIT_REV),-$(GIT_REV))"'
LDLIBS := -lbpf -lelf -lz -ljansson -luring -lm
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) $(WARN) \
	-Wno-unused-function -I$(VMLINUX_DIR) -Ibpf -MMD -MP
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

SRCS := $(wildcard src/*.c)
OBJS := $(SRCS:src/%.c=$(OUT)/%.o)
LIB_OBJS := $(filter-out $(OUT)/main.o,$(OBJS))
SAN_OBJS := $(LIB_OBJS:$(OUT)/%.o=$(OUT)/san/%.o)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(OUT)/unit/%)
SAN_BINS := $(UNIT_SRCS:tests/unit/%.c=$(OUT)/san/unit/%)
SKEL := $(OUT)/blkio.skel.h

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
.SECONDARY: $(SAN_OBJS) $(FUZZ_OBJS)
.PHONY: all deps check unit e2e vmtest demo bench bench-smoke clean format fuzz fuzz-build

all: blktrace-bench $(OUT)/bench-floor

deps:
	$(Q)tools/deps.sh

$(OUT) $(OUT)/san $(OUT)/unit $(OUT)/san/unit $(OUT)/fuzz:
	$(Q)mkdir -p $@

$(OUT)/blkio.bpf.o: bpf/blkio.bpf.c | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(SKEL): $(OUT)/blkio.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name blkio_bpf > $@

# The bench's calibration programs (tools/bench/floor.*): a skeleton of their own.
$(OUT)/floor.bpf.o: tools/bench/floor.bpf.c | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(OUT)/floor.skel.h: $(OUT)/floor.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name floor_bpf > $@

$(OUT)/bench-floor: tools/bench/floor.c $(OUT)/floor.skel.h
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $< -lbpf -lelf -lz -o $@

# Every object may include the skeleton; -MMD records who really does.
$(OUT)/%.o: src/%.c | $(SKEL)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(OUT)/san/%.o: src/%.c | $(SKEL) $(OUT)/san
	$(call msg,CC-SAN,$@)
	$(Q)$(CC) $(CFLAGS) $(SAN) -c $< -o $@

blktrace-bench: $(OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

$(OUT)/unit/%: tests/unit/%.c $(LIB_OBJS) | $(OUT)/unit
	$(call msg,CC-TEST,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LIB_OBJS) $(LDLIBS) -lcmocka -o $@

$(OUT)/san/unit/%: tests/unit/%.c $(SAN_OBJS) | $(OUT)/san/unit
	$(call msg,CC-TEST,$@)
	$(Q)$(CC) $(CFLAGS) $(SAN) $< $(SAN_OBJS) $(LDLIBS) -lcmocka -o $@

unit: $(UNIT_BINS) $(SAN_BINS)

$(OUT)/fuzz/%.o: src/%.c | $(SKEL) $(OUT)/fuzz
	$(call msg,CC-FUZZ,$@)
	$(Q)$(FUZZ_CC) $(CFLAGS) -O1 $(FUZZ_SAN) -c $< -o $@

$(OUT)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJS) | $(OUT)/fuzz
	$(call msg,LD-FUZZ,$@)
	$(Q)$(FUZZ_CC) $(CFLAGS) -O1 $(FUZZ_SAN) -fsanitize=fuzzer $< $(FUZZ_OBJS) $(LDLIBS) -o $@

fuzz-build: $(FUZZ_BINS)

# One target after the other (2 cores); new inputs go to build/fuzz/corpus/NAME, the
# committed seeds stay as they are. -close_fd_mask=3: the parsers' own messages are
# noise here (libFuzzer keeps its reports).
fuzz: fuzz-build
	$(Q)set -e; for n in $(FUZZ_NAMES); do \
		mkdir -p $(OUT)/fuzz/corpus/$$n; \
		echo "  FUZZ     $$n for $(FUZZ_SECONDS) s"; \
		$(OUT)/fuzz/fuzz_$$n -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
			-close_fd_mask=3 -print_final_stats=1 \
			-artifact_prefix=$(OUT)/fuzz/crash-$$n- \
			$(OUT)/fuzz/corpus/$$n tests/fuzz/corpus/$$n 2> $(OUT)/fuzz/$$n.log || \
			{ tail -40 $(OUT)/fuzz/$$n.log; \
			  echo "fuzz $$n: FAILED (log: $(OUT)/fuzz/$$n.log)"; \
			  exit 1; }; \
		sed -n "s/^stat::number_of_executed_units: */  fuzz $$n: 0 crashes, runs /p" \
			$(OUT)/fuzz/$$n.log; \
	done

check:
	$(Q)tools/deps.sh
	$(Q)$(MAKE) --no-print-directory all unit
	$(Q)tests/run.sh

e2e: all
	$(Q)tests/run.sh --e2e-only

# Debian's 5.10, 6.1, 6.12 and newest cloud kernels in QEMU guests with real disks
# (tests/vm/vmtest.sh); KERNELS="6.1" for fewer.
vmtest:
	$(Q)tools/deps.sh vm
	$(Q)$(MAKE) --no-print-directory blktrace-bench
	$(Q)tests/vm/vmtest.sh $(KERNELS)

demo:
	$(Q)tools/deps.sh
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/demo.sh

bench:
	$(Q)tools/deps.sh
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/bench/bench.sh

# Seconds: one short round per configuration, to keep the bench from rotting.
bench-smoke:
	$(Q)tools/deps.sh
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/bench/bench.sh --smoke

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf $(OUT) blktrace-bench

format:
	$(Q)clang-format -i bpf/*.h bpf/*.c src/*.c src/*.h tests/unit/*.c

-include $(wildcard $(OUT)/*.d $(OUT)/san/*.d $(OUT)/unit/*.d $(OUT)/san/unit/*.d $(OUT)/fuzz/*.d)
