// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Can programs attach to xen-blkfront's own functions here? Answered from files, so the
 * answer is the same for a fixture tree as for a real system, and costs no BPF load:
 *  - the functions: /proc/kallsyms names blkif_queue_rq and blkif_interrupt (static
 *    functions, so a compiler clone "name.isra.0" counts too), "[xen_blkfront]" when
 *    they live in the module;
 *  - kprobes: the perf "kprobe" PMU libbpf attaches through (v4.17), or tracefs'
 *    kprobe_events, exist only with CONFIG_KPROBES;
 *  - fentry: BPF trampolines (v5.5) attach to ftrace-managed functions through
 *    register_ftrace_direct(), which exists only with
 *    CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS; and they need BTF of the function, in
 *    kernel/btf/vmlinux when built in, kernel/btf/xen_blkfront for the module.
 * An attach could still be refused (lockdown, an LSM): whoever attaches must handle that.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "disk/driver_probes.h"

#define XEN_MODULE "xen_blkfront"

static const char *const xen_funcs[] = { "blkif_queue_rq", "blkif_interrupt" };

static bool exists(const char *root, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/%s", root, rel) >= (int)sizeof(path))
		return false;
	return !stat(path, &st);
}

/* "name" or a compiler clone of it: "name.isra.0", "name.constprop.0". */
static bool sym_is(const char *sym, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(sym, name, n) && (sym[n] == '\0' || sym[n] == '.');
}

/* One pass over kallsyms: "ADDR TYPE NAME[\t[MODULE]]" per line. */
static int scan_kallsyms(const char *path, struct xen_probe_support *out)
{
	char *line = NULL, name[256], module[64];
	size_t cap = 0;
	FILE *f;
	int err = 0;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		int n;

		module[0] = '\0';
		n = sscanf(line, "%*s %*s %255s [%63[^]]]", name, module);
		if (n < 1)
			continue;
		if (sym_is(name, xen_funcs[0]) || sym_is(name, xen_funcs[1])) {
			if (sym_is(name, xen_funcs[0]))
				out->queue_rq = true;
			else
				out->interrupt = true;
			out->in_module = !strcmp(module, XEN_MODULE);
		} else if (!strcmp(name, "register_ftrace_direct")) {
			out->fentry = true;
		}
	}
	if (ferror(f))
		err = -EIO;
	free(line);
	fclose(f);
	return err;
}

static bool btf_has_funcs(const struct btf *btf)
{
	size_t i;

	for (i = 0; i < sizeof(xen_funcs) / sizeof(xen_funcs[0]); i++)
		if (btf__find_by_name_kind(btf, xen_funcs[i], BTF_KIND_FUNC) < 0)
			return false;
	return true;
}

/* Module BTF is split BTF on top of vmlinux's. */
static bool find_btf(const char *root, bool in_module)
{
	char vmlinux[PATH_MAX], mod[PATH_MAX];
	struct btf *base = NULL, *split = NULL;
	bool found = false;

	if (snprintf(vmlinux, sizeof(vmlinux), "%s/kernel/btf/vmlinux", root) >=
		    (int)sizeof(vmlinux) ||
	    snprintf(mod, sizeof(mod), "%s/kernel/btf/" XEN_MODULE, root) >= (int)sizeof(mod))
		return false;
	if (!exists(root, "kernel/btf/vmlinux") ||
	    (in_module && !exists(root, "kernel/btf/" XEN_MODULE)))
		return false;
	base = btf__parse(vmlinux, NULL);
	if (libbpf_get_error(base)) {
		base = NULL;
		goto cleanup;
	}
	if (!in_module) {
		found = btf_has_funcs(base);
		goto cleanup;
	}
	split = btf__parse_split(mod, base);
	if (libbpf_get_error(split)) {
		split = NULL;
		goto cleanup;
	}
	found = btf_has_funcs(split);
cleanup:
	btf__free(split);
	btf__free(base);
	return found;
}

static void add_reason(struct xen_probe_support *out, const char *text)
{
	size_t used = strlen(out->reason);

	snprintf(out->reason + used, sizeof(out->reason) - used, "%s%s", used ? "; " : "", text);
}

int driver_probes__detect_xen(const struct driver_probe_env *env, struct xen_probe_support *out)
{
	const char *kallsyms, *root;
	char msg[192];
	int err;

	if (!env || !env->kallsyms || !env->sysfs_root || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	kallsyms = env->kallsyms;
	root = env->sysfs_root;

	err = scan_kallsyms(kallsyms, out);
	out->kprobes = exists(root, "bus/event_source/devices/kprobe/type") ||
		       exists(root, "kernel/tracing/kprobe_events") ||
		       exists(root, "kernel/debug/tracing/kprobe_events");
	if (out->queue_rq && out->interrupt)
		out->btf = find_btf(root, out->in_module);

	if (err) {
		snprintf(msg, sizeof(msg), "cannot read %s: %s", kallsyms, strerror(-err));
		add_reason(out, msg);
	} else if (!out->queue_rq || !out->interrupt) {
		snprintf(msg, sizeof(msg), "%s%s%s not in %s", out->queue_rq ? "" : xen_funcs[0],
			 !out->queue_rq && !out->interrupt ? " and " : "",
			 out->interrupt ? "" : xen_funcs[1], kallsyms);
		add_reason(out, msg);
	}
	if (!out->kprobes && !out->fentry)
		add_reason(out, "the kernel has neither kprobes nor fentry");
	else if (!out->kprobes && !out->btf)
		add_reason(out, "no kprobes, and no " XEN_MODULE " BTF for fentry");
	out->available = !out->reason[0];
	if (out->available)
		snprintf(out->how, sizeof(out->how), "%s",
			 out->fentry && out->btf ? "fentry" : "kprobe");
	return 0;
}

static bool said;

bool driver_probes__say(const char *why, FILE *f)
{
	if (said || !why || !why[0])
		return false;
	said = true;
	fprintf(f,
		"blktrace-bench: xen-blkfront driver probes not available (%s); "
		"showing the block-layer view\n",
		why);
	return true;
}

bool driver_probes__notice(const struct driver_probe_env *env, const struct device *dev, FILE *f)
{
	struct xen_probe_support s;

	if (said || !dev || !dev->xen.present)
		return false;
	if (driver_probes__detect_xen(env, &s) || s.available)
		return false;
	return driver_probes__say(s.reason, f);
}
