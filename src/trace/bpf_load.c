// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Probing, flavour choice and loading for both BPF loaders. See bpf_load.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include "trace/bpf_load.h"
#include "trace/bpf_members.h"
#include "base/diag.h"

struct btf *bpf_load__vmlinux(struct diag *d)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();

	if (!vmlinux) {
		diag__fail(d, -EOPNOTSUPP,
			   "kernel BTF (/sys/kernel/btf/vmlinux) is missing: "
			   "CO-RE tracing needs CONFIG_DEBUG_INFO_BTF=y");
		return NULL;
	}
	if (!bpf_load__tp_proto(vmlinux, "block_rq_issue")) {
		diag__fail(d, -EOPNOTSUPP, "tracepoint block_rq_issue not found in kernel BTF");
		btf__free(vmlinux);
		return NULL;
	}
	return vmlinux;
}

const struct btf_type *bpf_load__tp_proto(const struct btf *btf, const char *name)
{
	char tname[128];
	const struct btf_type *t;
	int id;

	snprintf(tname, sizeof(tname), "btf_trace_%s", name);
	id = btf__find_by_name_kind(btf, tname, BTF_KIND_TYPEDEF);
	if (id < 0)
		return NULL;
	t = btf__type_by_id(btf, id);
	t = btf__type_by_id(btf, t->type); /* pointer */
	if (!t || !btf_is_ptr(t))
		return NULL;
	t = btf__type_by_id(btf, t->type); /* func proto */
	return t && btf_is_func_proto(t) ? t : NULL;
}

bool bpf_load__param_is(const struct btf *btf, const struct btf_type *proto, unsigned int i,
			const char *type)
{
	const struct btf_type *t;

	if (btf_vlen(proto) <= i)
		return false;
	t = btf__type_by_id(btf, btf_params(proto)[i].type);
	return t && !strcmp(btf__name_by_offset(btf, t->name_off), type);
}

/* Does the tracepoint still take the request_queue first (before v5.11)? */
static bool tp_takes_queue(const struct btf *btf, const struct btf_type *proto)
{
	const struct btf_type *t;

	if (btf_vlen(proto) < 2)
		return false;
	t = btf__type_by_id(btf, btf_params(proto)[1].type);
	if (!t || !btf_is_ptr(t))
		return false;
	t = btf__type_by_id(btf, t->type);
	return t && btf_is_struct(t) &&
	       !strcmp(btf__name_by_offset(btf, t->name_off), "request_queue");
}

void bpf_load__choose(const struct btf *vmlinux, const struct bpf_prog_choice *c, size_t n,
		      bool btf_flavour, volatile bool *old_args)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct btf_type *proto = bpf_load__tp_proto(vmlinux, c[i].tp);
		bool load = proto && c[i].want;

		if (proto && c[i].form >= 0)
			old_args[c[i].form] = tp_takes_queue(vmlinux, proto);
		bpf_program__set_autoload(c[i].btf_prog, load && btf_flavour);
		bpf_program__set_autoload(c[i].raw_prog, load && !btf_flavour);
	}
}

/*
 * Does this process hold what loading needs? CAP_BPF and CAP_PERFMON (v5.8), or
 * CAP_SYS_ADMIN, which covers both on every kernel. Only then is an EPERM a
 * matter of privileges rather than of the verifier.
 */
static bool has_bpf_caps(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data))
		return geteuid() == 0;
#define HAS_CAP(c) (data[(c) / 32].effective & (1u << ((c) % 32)))
	return HAS_CAP(CAP_SYS_ADMIN) || (HAS_CAP(CAP_BPF) && HAS_CAP(CAP_PERFMON));
#undef HAS_CAP
}

static int libbpf_verbose;
static FILE *libbpf_notes; /* libbpf's print callback is process-wide */
/* libbpf names the program it could not load: "prog 'NAME': BPF program load failed". */
static char failed_prog[64];

/*
 * libbpf speaks only with -v (warnings and info; -vv adds debug, the verifier's
 * log among it): without it, the caller reports a failure in one line. Either way
 * we note which program failed to load.
 */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_WARN && strstr(fmt, "BPF program load failed")) {
		va_list copy;
		char line[256];

		va_copy(copy, args);
		vsnprintf(line, sizeof(line), fmt, copy);
		va_end(copy);
		if (sscanf(line, "prog '%63[^']'", failed_prog) != 1)
			failed_prog[0] = '\0';
	}
	if (!libbpf_notes || !libbpf_verbose || (level == LIBBPF_DEBUG && libbpf_verbose < 2))
		return 0;
	return vfprintf(libbpf_notes, fmt, args);
}

/* The last lines of the verifier's log, indented, for the error message. */
static void log_tail(const char *log, char *out, size_t len, int lines)
{
	const char *end = log + strlen(log), *p = end;
	size_t used = 0;

	while (p > log && (p[-1] == '\n' || p[-1] == ' '))
		p--;
	end = p;
	while (p > log && lines > 0) {
		p--;
		if (*p == '\n')
			lines--;
	}
	if (*p == '\n')
		p++;
	out[0] = '\0';
	while (p < end && used + 8 < len) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		used += snprintf(out + used, len - used, "\n    %.*s", (int)n, p);
		p += n + (nl ? 1 : 0);
	}
}

/* The members into the opened skeleton, the programs chosen, the maps sized. */
static int prepare(const struct bpf_load_ops *ops, void *ctx, const struct bpf_load_args *args,
		   const struct bpf_load_skel *skel, bool btf, struct member_set *ms,
		   struct diag *d)
{
	struct btf *vmlinux;
	int err;

	err = bpf_members__set(skel->filter, ms, args->devs, args->nr_devs, d);
	if (err)
		return err;
	vmlinux = bpf_load__vmlinux(d);
	if (!vmlinux)
		return -EOPNOTSUPP;
	err = ops->configure(ctx, vmlinux, btf, ms, d);
	btf__free(vmlinux);
	return err;
}

/* After the load: the members beyond the read-only arrays into the member map. */
static int fill_members(const struct bpf_load_skel *skel, const struct member_set *ms,
			struct diag *d)
{
	struct bpf_map *map = bpf_object__find_map_by_name(skel->obj, "member_map");
	int err = map ? bpf_members__fill_map(ms, bpf_map__fd(map)) : -ENOENT;

	return err ? diag__fail(d, err, "cannot fill the member map: %s", strerror(-err)) : 0;
}

/* A load that failed: which program, the verifier's last lines (all of them with -v). */
static void note_failure(const char *log, bool btf, const struct bpf_load_args *args, int err,
			 struct bpf_load_failure *why)
{
	why->err = err;
	snprintf(why->prog, sizeof(why->prog), "%s", failed_prog);
	log_tail(log, why->log_tail, sizeof(why->log_tail), 4);
	/* libbpf prints the log only into a buffer of its own: print ours. */
	if (args->verbose && args->notes && log[0])
		fprintf(args->notes, "-- verifier log of %s (%s flavour) --\n%s-- end of log --\n",
			why->prog[0] ? why->prog : "a program", btf ? "tp_btf" : "raw_tp", log);
}

/*
 * Open, configure and load one flavour. The verifier's log goes to a buffer of ours
 * (libbpf asks for it only after a failure), so a rejection can be reported precisely.
 */
static int load_flavour(const struct bpf_load_ops *ops, void *ctx, const struct bpf_load_args *args,
			bool btf, struct bpf_load_failure *why, struct diag *d)
{
	/* libbpf's own default (BPF_LOG_BUF_SIZE); untouched pages cost nothing. */
	size_t log_size = UINT32_MAX >> 8;
	char *log = calloc(1, log_size);
	LIBBPF_OPTS(bpf_object_open_opts, oo, .kernel_log_buf = log, .kernel_log_size = log_size);
	struct member_set *ms = calloc(1, sizeof(*ms));
	struct bpf_load_skel skel = {};
	int err;

	if (!log || !ms) {
		err = diag__fail(d, -ENOMEM, "out of memory");
		goto cleanup;
	}
	err = ops->open(ctx, &oo, &skel);
	if (err) {
		diag__fail(d, err, "cannot open the BPF object: %s", strerror(-err));
		goto cleanup;
	}
	err = prepare(ops, ctx, args, &skel, btf, ms, d);
	if (err)
		goto cleanup;
	failed_prog[0] = '\0';
	err = bpf_object__load_skeleton(skel.skeleton);
	if (!err)
		err = fill_members(&skel, ms, d);
	else
		note_failure(log, btf, args, err, why);
cleanup:
	if (err)
		ops->destroy(ctx);
	free(ms);
	free(log);
	return err;
}

const char *bpf_load__resource_hint(int err)
{
	if (err == -EMFILE || err == -ENFILE)
		return "each BPF map, program and link takes a file descriptor: raise the open "
		       "file limit (ulimit -n; systemd: LimitNOFILE=)";
	if (err == -ENOMEM)
		return "the kernel had no memory for the BPF maps and programs (before Linux "
		       "5.11 they count against the locked memory limit: ulimit -l; systemd: "
		       "LimitMEMLOCK=)";
	return NULL;
}

void bpf_load__error(char *buf, size_t len, const struct bpf_load_failure f[2], bool has_caps,
		     const char *release)
{
	static const char *const names[] = { "tp_btf", "raw_tp" };
	size_t used = 0;
	int i, first = f[0].err ? 0 : 1;

	/* Out of a resource, the verifier's log is of programs that verified fine. */
	for (i = first; i < 2; i++) {
		if (!f[i].err || !bpf_load__resource_hint(f[i].err))
			continue;
		snprintf(buf, len, "cannot load the BPF programs: %s: %s", strerror(-f[i].err),
			 bpf_load__resource_hint(f[i].err));
		return;
	}
	if ((f[first].err == -EPERM || f[first].err == -EACCES) && !has_caps) {
		snprintf(buf, len,
			 "loading BPF programs needs root (CAP_BPF and CAP_PERFMON, or "
			 "CAP_SYS_ADMIN): %s",
			 strerror(-f[first].err));
		return;
	}
	used += snprintf(buf, len,
			 "the kernel (%s) refused the BPF programs; this is a bug, "
			 "please report it with the output of -vv",
			 release);
	for (i = 0; i < 2; i++) {
		if (!f[i].err || used >= len)
			continue;
		used += snprintf(buf + used, len - used, "\n  %s flavour: %s%s%s%s", names[i],
				 f[i].prog[0] ? "program " : "", f[i].prog,
				 f[i].prog[0] ? ": " : "", strerror(-f[i].err));
		if (used < len && f[i].log_tail[0])
			used += snprintf(buf + used, len - used, "; the verifier said:%s",
					 f[i].log_tail);
	}
}

int bpf_load__any(const struct bpf_load_ops *ops, void *ctx, const struct bpf_load_args *args,
		  bool *btf_flavour, struct diag *d)
{
	struct bpf_load_failure fail[2] = {};
	char msg[DIAG_MSG_MAX];
	struct utsname u = {};
	int err = -EINVAL, i;

	libbpf_verbose = args->verbose;
	libbpf_notes = args->notes;
	libbpf_set_print(libbpf_print);
	for (i = args->force_raw_tp ? 1 : 0; i < 2; i++) {
		*btf_flavour = i == 0;
		err = load_flavour(ops, ctx, args, i == 0, &fail[i], d);
		if (!err || !fail[i].err) /* loaded, or failed before loading: final */
			return err;
		if (i == 0 && args->verbose)
			diag__note(args->notes,
				   "the tp_btf flavour failed to load (%s); trying raw_tp",
				   strerror(-err));
	}
	uname(&u);
	bpf_load__error(msg, sizeof(msg), fail, has_bpf_caps(), u.release);
	return diag__fail(d, err, "%s", msg);
}

/* The kernel's own account of a map's memory: "memlock:" in /proc/self/fdinfo. */
static size_t map_memlock(int fd)
{
	char path[64], line[128];
	size_t bytes = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %zu", &bytes) == 1)
			break;
	fclose(f);
	return bytes;
}

size_t bpf_load__map_bytes(const struct bpf_object *obj)
{
	struct bpf_map *map;
	size_t total = 0;

	bpf_object__for_each_map(map, obj)
		if (bpf_map__fd(map) >= 0)
			total += map_memlock(bpf_map__fd(map));
	return total;
}

int bpf_load__sum_percpu(const struct bpf_map *map, __u32 key, int ncpus, void *buf, __u64 *out,
			 size_t words)
{
	size_t stride = (bpf_map__value_size(map) + 7) / 8, i;
	const __u64 *v = buf;
	int cpu;

	if (bpf_map_lookup_elem(bpf_map__fd(map), &key, buf))
		return -errno;
	memset(out, 0, words * sizeof(*out));
	for (cpu = 0; cpu < ncpus; cpu++)
		for (i = 0; i < words; i++)
			out[i] += v[cpu * stride + i];
	return 0;
}

int bpf_load__skipped(const struct bpf_object *obj, uint64_t *n)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info;
		int err = bpf_load__prog_info(prog, &info); /* zeroed when not loaded */

		if (err < 0)
			return err;
		*n += info.recursion_misses;
	}
	return 0;
}

int bpf_load__prog_info(const struct bpf_program *prog, struct bpf_prog_info *info)
{
	__u32 len = sizeof(*info);
	int fd = bpf_program__fd(prog);

	memset(info, 0, sizeof(*info));
	if (fd < 0) /* not loaded */
		return 0;
	return bpf_obj_get_info_by_fd(fd, info, &len) ? -errno : 1;
}
