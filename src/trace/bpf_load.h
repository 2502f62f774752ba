/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What both BPF loaders need (tracer.c, the aggregate; btrace.c, the per-event records):
 * the tracepoints' prototypes from kernel BTF, the choice of program flavour (tp_btf, or
 * the raw_tp twins) and of each tracepoint's argument form, loading with a fallback to
 * the other flavour, and the message when the kernel refuses both.
 */
#ifndef BLKTRACE_BENCH_BPF_LOAD_H
#define BLKTRACE_BENCH_BPF_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "blkio.h"
#include "disk/device.h"

struct diag;

/* vmlinux BTF with the block tracepoints; NULL with the reason in d (a runtime failure). */
struct btf *bpf_load__vmlinux(struct diag *d);
/*
 * The BTF prototype of tracepoint NAME (btf_trace_NAME: a pointer to a function whose
 * first parameter is the probe's void *__data), or NULL when the kernel has none.
 */
const struct btf_type *bpf_load__tp_proto(const struct btf *btf, const char *name);
/* Is parameter I of proto (0: the probe's __data) a TYPE, by name ("blk_status_t")? */
bool bpf_load__param_is(const struct btf *btf, const struct btf_type *proto, unsigned int i,
			const char *type);

/* One tracepoint's two programs, and whether this load wants them. */
struct bpf_prog_choice {
	const char *tp;
	int form; /* enum blkio_tp: where its argument form is noted; -1 none */
	struct bpf_program *btf_prog, *raw_prog;
	bool want;
};

/*
 * Autoload the wanted programs of one flavour, where the kernel has the tracepoint, and
 * note in old_args[form] whether it still takes a leading request_queue (before v5.11;
 * stable kernels took that change piecemeal, so each tracepoint's own prototype decides).
 */
void bpf_load__choose(const struct btf *vmlinux, const struct bpf_prog_choice *c, size_t n,
		      bool btf_flavour, volatile bool *old_args);

struct member_set;

/* What bpf_load__any needs of an opened skeleton. */
struct bpf_load_skel {
	struct bpf_object *obj;		      /* its object (the member map is found by name) */
	volatile struct blkio_filter *filter; /* its disk filter, in its read-only data */
	struct bpf_object_skeleton *skeleton; /* what libbpf loads it through */
};

/* A loader's skeleton, driven by bpf_load__any. Each returns 0 or -errno. */
struct bpf_load_ops {
	/* Open the skeleton with oo (nothing said: bpf_load__any says it). */
	int (*open)(void *ctx, const struct bpf_object_open_opts *oo, struct bpf_load_skel *out);
	/*
	 * The members in the filter: choose the programs of the flavour, size the maps (d);
	 * it may set how the members' depths are sampled (bpf_members__sample_per_cpu).
	 */
	int (*configure)(void *ctx, const struct btf *vmlinux, bool btf_flavour,
			 struct member_set *ms, struct diag *d);
	/* Destroy the skeleton, if any; safe twice. */
	void (*destroy)(void *ctx);
};

/* What to load for. */
struct bpf_load_args {
	const struct device *const *devs; /* the traced devices, each a stats element */
	unsigned int nr_devs;
	bool force_raw_tp;
	int verbose; /* 1 lets libbpf speak, 2 its debug output too (the verifier's log) */
	FILE *notes; /* where -v's output goes; NULL: nowhere */
};

/*
 * Open, set the members (bpf_members.c), configure and load: tp_btf first unless
 * force_raw_tp, then the raw_tp twins when that fails for any reason (an older verifier
 * may refuse one and take the other). 0 with *btf_flavour set, or -errno with the
 * reason in d.
 */
int bpf_load__any(const struct bpf_load_ops *ops, void *ctx, const struct bpf_load_args *args,
		  bool *btf_flavour, struct diag *d);

/* Why one program flavour failed to load: which program, and the verifier's last lines. */
struct bpf_load_failure {
	int err; /* -errno of the load; 0: this flavour was not tried */
	char prog[64];
	char log_tail[1024]; /* "\n    line" per line */
};

/*
 * The message for a load that failed in every flavour tried (f[0] tp_btf, f[1] raw_tp):
 * out of a resource (EMFILE, ENFILE, ENOMEM) in either, that resource and how to raise
 * it; "needs root" only when the process lacks the capabilities (has_caps false) and the
 * kernel said EPERM/EACCES; otherwise the verifier's rejection, named per program, to
 * be reported as a bug.
 */
void bpf_load__error(char *buf, size_t len, const struct bpf_load_failure f[2], bool has_caps,
		     const char *release);
/* What to do about err when it is the lack of a resource (EMFILE, ENFILE, ENOMEM); else NULL. */
const char *bpf_load__resource_hint(int err);

/* Bytes of map memory an object holds, as the kernel accounts it (for --verbose). */
size_t bpf_load__map_bytes(const struct bpf_object *obj);
/*
 * A per-CPU map's value at KEY, its first WORDS 64-bit words summed over NCPUS CPUs into
 * OUT. BUF takes the lookup: NCPUS values of the map's value size rounded up to 8 bytes,
 * as the kernel copies them. 0 or -errno.
 */
int bpf_load__sum_percpu(const struct bpf_map *map, __u32 key, int ncpus, void *buf, __u64 *out,
			 size_t words);
/*
 * A program's info from the kernel (run counts, recursion misses): 1, 0 when it is not
 * loaded (*info zeroed), or -errno.
 */
int bpf_load__prog_info(const struct bpf_program *prog, struct bpf_prog_info *info);
/* The runs of obj's programs the kernel skipped (recursion_misses), added to *n. 0 or -errno. */
int bpf_load__skipped(const struct bpf_object *obj, uint64_t *n);

#endif /* BLKTRACE_BENCH_BPF_LOAD_H */
