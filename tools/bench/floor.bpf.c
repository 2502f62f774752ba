// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The floor under any block tracer on this machine: two tp_btf programs on
 * block_rq_issue and block_rq_complete, the tracepoints blktrace-bench needs at
 * least, doing as little as a tracer can. `make bench` runs them as calibration
 * rows so that a tracer's cost can be read against what merely being called costs.
 *
 *   mode 0 (empty): return at once.
 *   mode 1 (clock): read the clock once per program, as any tracer that times the
 *                   device must, and keep it (a per-CPU sink, so it is not optimised
 *                   away).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 mode = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sink SEC(".maps");

static __always_inline int floor_body(__u64 *ctx)
{
	__u32 zero = 0;
	__u64 *v;

	(void)ctx; /* neither mode reads the arguments */
	if (mode == 0)
		return 0;
	v = bpf_map_lookup_elem(&sink, &zero);
	if (v)
		*v = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/block_rq_issue")
int floor_issue(__u64 *ctx)
{
	return floor_body(ctx);
}

SEC("tp_btf/block_rq_complete")
int floor_complete(__u64 *ctx)
{
	return floor_body(ctx);
}
