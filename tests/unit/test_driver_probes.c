// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Detection of the optional xen-blkfront driver probes against scratch trees: a fake
 * kallsyms, BTF written with libbpf (vmlinux base + xen_blkfront split), a kprobe PMU
 * file. Our machines have neither Xen nor kprobes, so this is the only way the
 * "available" paths run at all.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <ftw.h>
#include <bpf/btf.h>

#include <cmocka.h>

#include "disk/driver_probes.h"
#include "testutil.h"

static char scratch[64];
static char kallsyms[128];

static void put(const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", scratch, rel);
	/* mkdir -p of the parents below scratch. */
	slash = strchr(path + strlen(scratch) + 1, '/');
	for (; slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void put_text(const char *rel, const char *text)
{
	put(rel, text, strlen(text));
}

static void rm(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", scratch, rel);
	unlink(path);
}

static void put_btf(const char *rel, const struct btf *btf)
{
	__u32 size;
	const void *raw = btf__raw_data(btf, &size);

	assert_non_null(raw);
	put(rel, raw, size);
}

/* kernel/btf/vmlinux with an int (and optionally the functions, as if built in), and
 * kernel/btf/xen_blkfront split on top of it with both functions. */
static void write_btf(bool builtin)
{
	struct btf *base = btf__new_empty(), *split;
	int int_id, proto;

	assert_non_null(base);
	int_id = btf__add_int(base, "int", 4, BTF_INT_SIGNED);
	assert_true(int_id > 0);
	if (builtin) {
		proto = btf__add_func_proto(base, int_id);
		assert_true(proto > 0);
		assert_true(btf__add_func(base, "blkif_queue_rq", BTF_FUNC_STATIC, proto) > 0);
		assert_true(btf__add_func(base, "blkif_interrupt", BTF_FUNC_STATIC, proto) > 0);
	}
	put_btf("kernel/btf/vmlinux", base);
	split = btf__new_empty_split(base);
	assert_non_null(split);
	proto = btf__add_func_proto(split, int_id);
	assert_true(proto > 0);
	assert_true(btf__add_func(split, "blkif_queue_rq", BTF_FUNC_STATIC, proto) > 0);
	assert_true(btf__add_func(split, "blkif_interrupt", BTF_FUNC_STATIC, proto) > 0);
	put_btf("kernel/btf/xen_blkfront", split);
	btf__free(split);
	btf__free(base);
}

static const char no_xen[] = "ffffffff81000000 T _stext\n"
			     "ffffffff81498820 T register_ftrace_direct\n"
			     "ffffffffc0001000 t loop_queue_rq\t[loop]\n";

static const char xen_module[] = "ffffffff81000000 T _stext\n"
				 "ffffffffc0002000 t blkif_queue_rq\t[xen_blkfront]\n"
				 "ffffffffc0003000 t blkif_interrupt\t[xen_blkfront]\n";

static int make_scratch(void **state)
{
	(void)state;
	snprintf(scratch, sizeof(scratch), "/tmp/blktrace-bench-probes.XXXXXX");
	if (!mkdtemp(scratch))
		return -1;
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", scratch);
	return 0;
}

static int remove_scratch(void **state)
{
	(void)state;
	return test_remove_tree(scratch);
}

static void detect(struct xen_probe_support *s)
{
	const struct driver_probe_env env = { .kallsyms = kallsyms, .sysfs_root = scratch };

	memset(s, 0xa5, sizeof(*s));
	assert_int_equal(driver_probes__detect_xen(&env, s), 0);
}

/* This machine's case: no xen_blkfront, no kprobes, trampolines but nothing to attach to. */
static void test_not_loaded(void **state)
{
	struct xen_probe_support s;
	char want[256];

	(void)state;
	put_text("kallsyms", no_xen);
	detect(&s);
	assert_false(s.queue_rq);
	assert_false(s.interrupt);
	assert_false(s.btf);
	assert_false(s.kprobes);
	assert_true(s.fentry);
	assert_false(s.available);
	assert_string_equal(s.how, "");
	snprintf(want, sizeof(want),
		 "blkif_queue_rq and blkif_interrupt not in %s; no kprobes, "
		 "and no xen_blkfront BTF for fentry",
		 kallsyms);
	assert_string_equal(s.reason, want);
}

static void test_kprobe(void **state)
{
	struct xen_probe_support s;

	(void)state;
	put_text("kallsyms", xen_module);
	put_text("bus/event_source/devices/kprobe/type", "6\n");
	detect(&s);
	assert_true(s.queue_rq);
	assert_true(s.interrupt);
	assert_true(s.in_module);
	assert_true(s.kprobes);
	assert_false(s.fentry);
	assert_false(s.btf);
	assert_true(s.available);
	assert_string_equal(s.how, "kprobe");
	assert_string_equal(s.reason, "");
	rm("bus/event_source/devices/kprobe/type");

	/* tracefs' kprobe_events says the same. */
	put_text("kernel/tracing/kprobe_events", "");
	detect(&s);
	assert_true(s.kprobes);
	assert_true(s.available);
	rm("kernel/tracing/kprobe_events");
}

static void test_fentry_module_btf(void **state)
{
	struct xen_probe_support s;
	char syms[512];

	(void)state;
	snprintf(syms, sizeof(syms), "%sffffffff81498820 T register_ftrace_direct\n", xen_module);
	put_text("kallsyms", syms);
	detect(&s);
	/* The functions but no BTF, and no kprobes: nothing can attach. */
	assert_true(s.fentry);
	assert_false(s.btf);
	assert_false(s.available);
	assert_string_equal(s.reason, "no kprobes, and no xen_blkfront BTF for fentry");

	write_btf(false);
	detect(&s);
	assert_true(s.in_module);
	assert_true(s.btf);
	assert_true(s.available);
	assert_string_equal(s.how, "fentry");

	/* Module BTF without vmlinux BTF cannot be read. */
	rm("kernel/btf/vmlinux");
	detect(&s);
	assert_false(s.btf);
	assert_false(s.available);
	rm("kernel/btf/xen_blkfront");
}

/* Built in, and a compiler clone of one function ("name.isra.0"). */
static void test_fentry_builtin(void **state)
{
	struct xen_probe_support s;

	(void)state;
	put_text("kallsyms", "ffffffff81000000 T _stext\n"
			     "ffffffff81400000 t blkif_queue_rq.isra.0\n"
			     "ffffffff81400800 t blkif_interrupt\n"
			     "ffffffff81498820 T register_ftrace_direct\n");
	write_btf(true);
	detect(&s);
	assert_true(s.queue_rq);
	assert_true(s.interrupt);
	assert_false(s.in_module);
	assert_true(s.btf);
	assert_true(s.available);
	assert_string_equal(s.how, "fentry");
	rm("kernel/btf/vmlinux");
	rm("kernel/btf/xen_blkfront");
}

static void test_reasons(void **state)
{
	struct xen_probe_support s;
	char want[256];

	(void)state;
	put_text("kallsyms", "ffffffff81000000 T _stext\n"
			     "ffffffffc0003000 t blkif_interrupt\t[xen_blkfront]\n");
	detect(&s);
	snprintf(want, sizeof(want),
		 "blkif_queue_rq not in %s; the kernel has neither kprobes nor fentry", kallsyms);
	assert_string_equal(s.reason, want);

	/* A prefix is not the function. */
	put_text("kallsyms", "ffffffffc0002000 t blkif_queue_rq_done\t[xen_blkfront]\n"
			     "ffffffffc0003000 t blkif_interrupt\t[xen_blkfront]\n");
	detect(&s);
	assert_false(s.queue_rq);

	rm("kallsyms");
	detect(&s);
	snprintf(want, sizeof(want),
		 "cannot read %s: No such file or directory; the kernel has "
		 "neither kprobes nor fentry",
		 kallsyms);
	assert_string_equal(s.reason, want);
	assert_false(s.available);
	assert_int_equal(driver_probes__detect_xen(NULL, NULL), -EINVAL);
}

/* Only the places given are read: no default, no environment behind a missing one. */
static void test_env(void **state)
{
	struct driver_probe_env env = { .kallsyms = kallsyms, .sysfs_root = scratch };
	struct xen_probe_support s;

	(void)state;
	put_text("kallsyms", xen_module);
	put_text("bus/event_source/devices/kprobe/type", "6\n");
	assert_int_equal(driver_probes__detect_xen(&env, &s), 0);
	assert_true(s.available);
	assert_string_equal(s.how, "kprobe");
	rm("bus/event_source/devices/kprobe/type");
	assert_int_equal(driver_probes__detect_xen(NULL, &s), -EINVAL);
	env.sysfs_root = NULL;
	assert_int_equal(driver_probes__detect_xen(&env, &s), -EINVAL);
	env = (struct driver_probe_env){ .kallsyms = NULL, .sysfs_root = scratch };
	assert_int_equal(driver_probes__detect_xen(&env, &s), -EINVAL);
}

/* Said once per process, and only for xen-blkfront disks. */
static void test_notice_once(void **state)
{
	const struct driver_probe_env env = { .kallsyms = kallsyms, .sysfs_root = scratch };
	struct device *dev = test_calloc(1, sizeof(*dev));
	char *buf = NULL, want[512];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(dev);
	assert_non_null(f);
	put_text("kallsyms", no_xen);
	assert_false(driver_probes__notice(&env, dev, f)); /* not xen */
	dev->xen.present = true;
	assert_false(driver_probes__notice(NULL, dev, f)); /* nowhere to look */
	assert_true(driver_probes__notice(&env, dev, f));
	assert_false(driver_probes__notice(&env, dev, f));
	fclose(f);
	snprintf(want, sizeof(want),
		 "blktrace-bench: xen-blkfront driver probes not available "
		 "(blkif_queue_rq and blkif_interrupt not in %s; no kprobes, and no xen_blkfront "
		 "BTF for fentry); showing the block-layer view\n",
		 kallsyms);
	assert_string_equal(buf, want);
	free(buf);
	test_free(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_loaded),	  cmocka_unit_test(test_kprobe),
		cmocka_unit_test(test_fentry_module_btf), cmocka_unit_test(test_fentry_builtin),
		cmocka_unit_test(test_reasons),		  cmocka_unit_test(test_env),
		cmocka_unit_test(test_notice_once),
	};

	return cmocka_run_group_tests(tests, make_scratch, remove_scratch);
}
