// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The xen-blkfront probes' loader on a host without Xen: with kallsyms and sysfs that say
 * the kprobe flavour can attach, the programs must pass this kernel's verifier (the
 * module's structures by their fallback layout: it has no xen_blkfront BTF); attaching
 * then fails, as there is no blkif_queue_rq to attach to, and says so. Without kprobes
 * nor BTF, nothing is loaded and the reason is the detection's. Root only (BPF).
 */
#include <errno.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/libbpf.h>
#include "trace/blkfront_probes.h"
#include "testutil.h"

static char scratch[64], kallsyms[96];

static void put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", scratch, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static int make_scratch(void **state)
{
	char dir[160];

	(void)state;
	libbpf_set_print(NULL); /* the attach's failure is expected, and asserted */
	snprintf(scratch, sizeof(scratch), "/tmp/blktrace-bench-blkfront.XXXXXX");
	if (!mkdtemp(scratch))
		return -1;
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", scratch);
	snprintf(dir, sizeof(dir), "mkdir -p %s/bus/event_source/devices/kprobe", scratch);
	return system(dir) ? -1 : 0;
}

static int remove_scratch(void **state)
{
	(void)state;
	return test_remove_tree(scratch);
}

/* A xen-blkfront disk to count for: its numbers matter to the filter only. */
static struct device *xen_disk(void)
{
	struct device *dev = test_calloc(1, sizeof(*dev));

	assert_non_null(dev);
	strcpy(dev->name, "xvda");
	dev->major = 202;
	dev->xen.present = true;
	return dev;
}

static void test_kprobes_load_and_refuse_to_attach(void **state)
{
	const struct driver_probe_env env = { kallsyms, scratch };
	struct device *dev = xen_disk();
	const struct device *devs[1] = { dev };
	struct blkfront_probes_opts o = { devs, 1, &env, 0, NULL, false };
	struct blkfront_probes *p = NULL;
	struct blkfront_counts c;
	char why[256];
	int err;

	(void)state;
	if (geteuid()) {
		test_free(dev);
		skip();
	}
	assert_true(blkfront_probes__wanted(devs, 1));
	put("kallsyms", "ffffffffc0002000 t blkif_queue_rq\t[xen_blkfront]\n"
			"ffffffffc0003000 t blkif_interrupt\t[xen_blkfront]\n");
	put("bus/event_source/devices/kprobe/type", "6\n");
	err = blkfront_probes__open(&o, &p, why, sizeof(why));
	if (err)
		fail_msg("open: %s (%s)", strerror(-err), why);
	assert_string_equal(blkfront_probes__how(p), "kprobe");
	assert_int_equal(blkfront_probes__read(p, 0, &c), 0);
	assert_int_equal(c.requests, 0);
	assert_int_equal(blkfront_probes__read(p, 1, &c), -EINVAL);
	/* No such function here: the attach fails, and nothing stays attached. */
	assert_int_not_equal(blkfront_probes__start(p), 0);
	blkfront_probes__close(p);
	test_free(dev);
}

static void test_not_available(void **state)
{
	const struct driver_probe_env env = { kallsyms, scratch };
	struct device *dev = xen_disk();
	const struct device *devs[1] = { dev };
	struct blkfront_probes_opts o = { devs, 1, &env, 0, NULL, false };
	struct blkfront_probes *p = (void *)1;
	char why[256];

	(void)state;
	put("kallsyms", "ffffffff81000000 T _stext\n");
	assert_int_equal(blkfront_probes__open(&o, &p, why, sizeof(why)), -EOPNOTSUPP);
	assert_null(p);
	assert_non_null(strstr(why, "blkif_queue_rq and blkif_interrupt not in"));
	dev->xen.present = false;
	assert_false(blkfront_probes__wanted(devs, 1));
	test_free(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kprobes_load_and_refuse_to_attach),
		cmocka_unit_test(test_not_available),
	};

	return cmocka_run_group_tests(tests, make_scratch, remove_scratch);
}
