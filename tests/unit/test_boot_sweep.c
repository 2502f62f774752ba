// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A sweep across reboots (src/workload/boot_sweep.c, boot_config.c, boot_knob.c) on a scratch
 * system: the module's parameter is a plain file the test sets as a reboot would, the
 * boot id another, the initramfs tool a script that logs how it was run. The steps of a
 * sweep of 0, 32 and 256 from 32 in force: what is measured in which boot, the
 * modprobe.d file each boot is set with, the refusals (another driver, a built-in
 * module, a setting the sweep cannot override, a second sweep, a resume before the
 * reboot, a value the reboot did not bring), the runs of every boot in one result in
 * the order of the values, and the original back at the end or on --abort.
 */
#include <errno.h>
#include <fcntl.h>
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

#include <cmocka.h>

#include "workload/boot_sweep.h"
#include "base/diag.h"
#include "testutil.h"

static char scratch[PATH_MAX];
static char sys[PATH_MAX + 8], cmdline[PATH_MAX + 16], etc[PATH_MAX + 32], lib[PATH_MAX + 32],
	plan_dir[PATH_MAX + 16], boot[PATH_MAX + 8], tool[PATH_MAX + 32], tool_log[PATH_MAX + 32],
	tool_cmd[PATH_MAX * 2];
static const char *dirs[3], *cmds[2];
static struct boot_sweep_env env;
static struct device dev;
static char *const values[] = { "0", "32", "256" };
static char *argv[] = { "blktrace-bench", "--trace", "xvda", "--rw", "read", NULL };

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void get(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	size_t n = 0;

	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

static bool exists(const char *dir, const char *name)
{
	char path[PATH_MAX * 2];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !lstat(path, &st);
}

/* What a boot of the guest leaves: the parameter in force, and a boot id. */
static void booted(const char *param, const char *id)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/module/xen_blkfront/parameters/max_indirect_segments",
		 sys);
	put(path, param);
	put(boot, id);
}

static int setup(void **state)
{
	char path[PATH_MAX * 4];

	(void)state;
	snprintf(scratch, sizeof(scratch), "/tmp/bb-test-boot.XXXXXX");
	assert_non_null(mkdtemp(scratch));
	snprintf(sys, sizeof(sys), "%s/sys", scratch);
	snprintf(path, sizeof(path), "mkdir -p %s/module/xen_blkfront/parameters %s/etc %s/lib",
		 sys, scratch, scratch);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/module/xen_blkfront/initstate", sys);
	put(path, "live\n");
	snprintf(cmdline, sizeof(cmdline), "%s/cmdline", scratch);
	put(cmdline, "root=/dev/xvda1 ro quiet\n");
	snprintf(etc, sizeof(etc), "%s/etc", scratch);
	snprintf(lib, sizeof(lib), "%s/lib", scratch);
	snprintf(plan_dir, sizeof(plan_dir), "%s/state", scratch);
	snprintf(boot, sizeof(boot), "%s/boot_id", scratch);
	snprintf(tool, sizeof(tool), "%s/update-initramfs", scratch);
	snprintf(tool_log, sizeof(tool_log), "%s/initramfs.log", scratch);
	snprintf(path, sizeof(path), "#!/bin/sh\necho \"$*\" >> %s\n", tool_log);
	put(tool, path);
	assert_int_equal(chmod(tool, 0755), 0);
	snprintf(tool_cmd, sizeof(tool_cmd), "%s -u -k {r}", tool);
	dirs[0] = etc;
	dirs[1] = lib;
	dirs[2] = NULL;
	cmds[0] = tool_cmd;
	cmds[1] = NULL;
	env = (struct boot_sweep_env){ .config = { .sysfs_root = sys,
						   .cmdline = cmdline,
						   .modprobe_dirs = dirs,
						   .conf_dir = etc,
						   .initramfs_cmds = cmds,
						   .kernel_release = "6.1.0-57-cloud-amd64" },
				       .plan_dir = plan_dir,
				       .boot_id = boot };
	memset(&dev, 0, sizeof(dev));
	snprintf(dev.name, sizeof(dev.name), "xvda");
	snprintf(dev.driver, sizeof(dev.driver), "vbd");
	dev.major = 202;
	booted("32\n", "boot-1\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	test_remove_tree(scratch);
	return 0;
}

/* This boot's runs of the values bs measures now: one a value, labelled with it. */
static void measure(const struct boot_sweep *bs, struct result *res)
{
	int i;

	for (i = 0; i < bs->nr_now; i++) {
		struct run *r = result__add_run(res, true, true);

		assert_non_null(r);
		snprintf(r->params.rw, sizeof(r->params.rw), "read");
		r->params.bs = 1 << 20;
		snprintf(r->params.set_knob, sizeof(r->params.set_knob), "%s", bs->knob->name);
		snprintf(r->params.set_value, sizeof(r->params.set_value), "%s", bs->now[i]);
		r->has_limits = true;
		r->limits = dev.limits;
		snprintf(r->label, sizeof(r->label), "%s=%s", bs->knob->name, bs->now[i]);
	}
}

static void new_result(struct result *res)
{
	memset(res, 0, sizeof(*res));
	res->device = dev;
	res->has_device = true;
	memset(&res->device.limits, 0xff, offsetof(struct queue_limits, scheduler));
}

/* One resume: loaded, ready (want), measured and stepped; the step's outcome. */
static int resume(int want_ready, struct result *res)
{
	struct boot_sweep bs;
	struct diag d = {};
	int ret;

	ret = boot_sweep__load(&bs, &env, &d);
	if (!ret)
		ret = boot_sweep__ready(&bs, &dev, &d);
	if (ret != want_ready)
		fail_msg("resume: %d, not %d: %s", ret, want_ready, d.msg);
	if (ret == 1) {
		measure(&bs, res);
		ret = boot_sweep__step(&bs, res, &d);
		if (ret < 0)
			fail_msg("step: %s", d.msg);
	} else {
		ret = -1;
	}
	boot_sweep__close(&bs);
	return ret;
}

static void conf(char *buf, size_t len)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", etc, BOOT_CONFIG_FILE);
	get(path, buf, len);
}

static void test_knob(void **state)
{
	const struct boot_knob *k = boot_knob__find("xen_blkfront.max_indirect_segments");
	int64_t v;

	(void)state;
	assert_non_null(k);
	assert_null(boot_knob__find("max_indirect_segments"));
	assert_int_equal(boot_knob__parse(k, "0", &v, NULL), 0);
	assert_int_equal(v, 0);
	assert_int_equal(boot_knob__effective(k, 0), 11);
	assert_int_equal(boot_knob__effective(k, 12), 12);
	assert_int_equal(boot_knob__parse(k, "4097", &v, NULL), -EINVAL);
	assert_int_equal(boot_knob__parse(k, "-1", &v, NULL), -EINVAL);
	assert_int_equal(boot_knob__parse(k, "12abc", &v, NULL), -EINVAL);
	assert_int_equal(boot_knob__read(k, sys, &v), 0);
	assert_int_equal(v, 32);
	assert_false(boot_knob__builtin(k, sys));
}

/* What else sets the parameter: the kernel command line, a modprobe.d file, by either
 * spelling of the module, by the parameter's old name; never the tool's own file. */
static void test_other_settings(void **state)
{
	const struct boot_knob *k = boot_knob__find("xen_blkfront.max_indirect_segments");
	char where[PATH_MAX * 2], value[32], path[PATH_MAX * 2];

	(void)state;
	assert_int_equal(boot_config__other_setting(&env.config, k, where, sizeof(where), value,
						    sizeof(value)),
			 0);
	snprintf(path, sizeof(path), "%s/%s", etc, BOOT_CONFIG_FILE);
	put(path, "options xen_blkfront max_indirect_segments=8\n");
	assert_int_equal(boot_config__other_setting(&env.config, k, where, sizeof(where), value,
						    sizeof(value)),
			 0);
	unlink(path);
	snprintf(path, sizeof(path), "%s/local.conf", lib);
	put(path, "# mine\noptions xen-blkfront foo=1 max=64 # old name\n");
	assert_int_equal(boot_config__other_setting(&env.config, k, where, sizeof(where), value,
						    sizeof(value)),
			 1);
	assert_string_equal(where, path);
	assert_string_equal(value, "64");
	unlink(path);
	put(cmdline, "ro xen-blkfront.max_indirect_segments=16 quiet\n");
	assert_int_equal(boot_config__other_setting(&env.config, k, where, sizeof(where), value,
						    sizeof(value)),
			 1);
	assert_string_equal(where, "the kernel command line");
	assert_string_equal(value, "16");
}

static void test_refusals(void **state)
{
	const struct boot_knob *k = boot_knob__find("xen_blkfront.max_indirect_segments");
	struct boot_sweep bs;
	struct device other = dev;
	char path[PATH_MAX * 2];
	struct diag d = {};

	(void)state;
	snprintf(other.driver, sizeof(other.driver), "virtio_blk");
	assert_int_equal(boot_sweep__begin(&bs, &env, k, values, 3, &other, 5, argv, &d), -EINVAL);
	assert_true(d.usage);
	assert_non_null(strstr(d.msg, "xen_blkfront disks: xvda's driver is virtio_blk"));
	boot_sweep__close(&bs);

	snprintf(path, sizeof(path), "%s/module/xen_blkfront/initstate", sys);
	unlink(path);
	memset(&d, 0, sizeof(d));
	assert_int_equal(boot_sweep__begin(&bs, &env, k, values, 3, &dev, 5, argv, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "built into this kernel"));
	boot_sweep__close(&bs);
	put(path, "live\n");

	put(cmdline, "xen_blkfront.max_indirect_segments=64\n");
	memset(&d, 0, sizeof(d));
	assert_int_equal(boot_sweep__begin(&bs, &env, k, values, 3, &dev, 5, argv, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "the kernel command line sets it (64)"));
	boot_sweep__close(&bs);
	put(cmdline, "ro\n");

	{
		char *twice[] = { "32", "0", "32" };

		memset(&d, 0, sizeof(d));
		assert_int_equal(boot_sweep__begin(&bs, &env, k, twice, 3, &dev, 5, argv, &d),
				 -EINVAL);
		assert_non_null(strstr(d.msg, "32 is given twice"));
		boot_sweep__close(&bs);
	}
	memset(&d, 0, sizeof(d));
	assert_int_equal(boot_sweep__load(&bs, &env, &d), -ENOENT);
	assert_string_equal(d.msg, "no sweep across reboots is under way");
	boot_sweep__close(&bs);
}

/* 0, 32, 256 from 32 in force: three boots, the original back after the last. */
static void test_sweep(void **state)
{
	const struct boot_knob *k = boot_knob__find("xen_blkfront.max_indirect_segments");
	struct boot_sweep bs;
	struct result res;
	struct diag d = {};
	char text[4096];
	size_t i;

	(void)state;
	new_result(&res);
	assert_int_equal(boot_sweep__begin(&bs, &env, k, values, 3, &dev, 5, argv, &d), 0);
	assert_int_equal(bs.nr_now, 1);
	assert_string_equal(bs.now[0], "32");
	measure(&bs, &res);
	assert_int_equal(boot_sweep__step(&bs, &res, &d), 1);
	boot_sweep__close(&bs);
	result__free(&res);
	conf(text, sizeof(text));
	assert_non_null(strstr(text, "\noptions xen_blkfront max_indirect_segments=0\n"));
	get(tool_log, text, sizeof(text));
	assert_string_equal(text, "-u -k 6.1.0-57-cloud-amd64\n");

	/* A second sweep while this one is under way; a resume before the reboot. */
	memset(&d, 0, sizeof(d));
	assert_int_equal(boot_sweep__begin(&bs, &env, k, values, 3, &dev, 5, argv, &d), -EBUSY);
	assert_non_null(strstr(d.msg, "a sweep across reboots is under way"));
	boot_sweep__close(&bs);
	assert_int_equal(resume(0, &res), -1);

	/* The reboot did not bring the value: refused, the plan kept. */
	booted("32\n", "boot-2\n");
	assert_int_equal(boot_sweep__load(&bs, &env, &d), 0);
	memset(&d, 0, sizeof(d));
	assert_int_equal(boot_sweep__ready(&bs, &dev, &d), -EIO);
	assert_non_null(strstr(d.msg, "after the reboot xen_blkfront.max_indirect_segments is 32, "
				      "not the 0 the sweep set"));
	boot_sweep__close(&bs);

	booted("11\n", "boot-3\n");
	new_result(&res);
	assert_int_equal(resume(1, &res), 1);
	result__free(&res);
	conf(text, sizeof(text));
	assert_non_null(strstr(text, "\noptions xen_blkfront max_indirect_segments=256\n"));

	booted("256\n", "boot-4\n");
	new_result(&res);
	assert_int_equal(resume(1, &res), 0);
	/* Every boot's runs, in the order of the values. */
	assert_int_equal(res.nr_runs, 3);
	for (i = 0; i < 3; i++)
		assert_string_equal(res.runs[i].params.set_value, values[i]);
	result__free(&res);
	assert_false(exists(etc, BOOT_CONFIG_FILE));
	assert_false(exists(plan_dir, "boot-sweep.json"));
	assert_true(exists(plan_dir, "boot-sweep.last.json"));
	get(tool_log, text, sizeof(text));
	assert_string_equal(text, "-u -k 6.1.0-57-cloud-amd64\n-u -k 6.1.0-57-cloud-amd64\n"
				  "-u -k 6.1.0-57-cloud-amd64\n");
}

/* A step a crash cut short (said, not armed) is completed by the next resume; --abort. */
static void test_crash_and_abort(void **state)
{
	const struct boot_knob *k = boot_knob__find("xen_blkfront.max_indirect_segments");
	char path[PATH_MAX * 2], text[4096];
	struct boot_sweep bs;
	struct result res;
	struct diag d = {};

	(void)state;
	booted("32\n", "boot-1\n");
	new_result(&res);
	assert_int_equal(boot_sweep__begin(&bs, &env, k, values, 3, &dev, 5, argv, &d), 0);
	boot_sweep__close(&bs);
	/* Killed while measuring: nothing measured, nothing set. The next boot measures. */
	assert_false(exists(etc, BOOT_CONFIG_FILE));
	booted("32\n", "boot-2\n");
	assert_int_equal(resume(1, &res), 1);
	result__free(&res);
	/* The plan says 0 is about to be set, and was not: the next resume sets it. */
	snprintf(path, sizeof(path), "%s/%s", etc, BOOT_CONFIG_FILE);
	unlink(path);
	snprintf(path, sizeof(path), "sed -i 's/\"armed\": true/\"armed\": false/' %s/%s", plan_dir,
		 "boot-sweep.json");
	assert_int_equal(system(path), 0);
	booted("32\n", "boot-3\n");
	assert_int_equal(resume(0, &res), -1);
	conf(text, sizeof(text));
	assert_non_null(strstr(text, "max_indirect_segments=0\n"));

	memset(&d, 0, sizeof(d));
	assert_int_equal(boot_sweep__abort(&env, &d), 0);
	assert_false(exists(etc, BOOT_CONFIG_FILE));
	assert_false(exists(plan_dir, "boot-sweep.json"));
	memset(&d, 0, sizeof(d));
	assert_int_equal(boot_sweep__abort(&env, &d), -ENOENT);
}

/* Someone else's file of the tool's name is left alone, not replaced, and said. */
static void test_foreign_file(void **state)
{
	char path[PATH_MAX * 2], text[256];
	struct diag d = {};

	(void)state;
	snprintf(path, sizeof(path), "%s/%s", etc, BOOT_CONFIG_FILE);
	put(path, "options xen_blkfront max_indirect_segments=64\n");
	assert_int_equal(boot_config__remove(&env.config, &d), -EEXIST);
	assert_non_null(strstr(d.msg, "is not the file this tool wrote: left alone"));
	memset(&d, 0, sizeof(d));
	assert_int_equal(boot_config__write(&env.config,
					    boot_knob__find("xen_blkfront.max_indirect_segments"),
					    256, &d),
			 -EEXIST);
	assert_true(exists(etc, BOOT_CONFIG_FILE));
	get(path, text, sizeof(text));
	assert_string_equal(text, "options xen_blkfront max_indirect_segments=64\n");
}

/* A step cut short after it saved its runs, before the plan said so: the value is measured
 * again, its runs counted once. */
static void test_cut_after_runs(void **state)
{
	const struct boot_knob *k = boot_knob__find("xen_blkfront.max_indirect_segments");
	char path[PATH_MAX * 7];
	struct boot_sweep bs;
	struct result res;
	struct diag d = {};
	size_t i;

	(void)state;
	new_result(&res);
	assert_int_equal(boot_sweep__begin(&bs, &env, k, values, 3, &dev, 5, argv, &d), 0);
	measure(&bs, &res);
	assert_int_equal(boot_sweep__step(&bs, &res, &d), 1);
	boot_sweep__close(&bs);
	result__free(&res);
	/* As the plan was before the step: 32 not measured, nothing set for the next boot. */
	snprintf(path, sizeof(path),
		 "jq '.measured = [] | .next = null' %s/boot-sweep.json > %s/p && mv %s/p "
		 "%s/boot-sweep.json && rm %s/%s",
		 plan_dir, plan_dir, plan_dir, plan_dir, etc, BOOT_CONFIG_FILE);
	assert_int_equal(system(path), 0);
	booted("32\n", "boot-2\n");
	new_result(&res);
	assert_int_equal(resume(1, &res), 1);
	assert_int_equal(res.nr_runs, 1);
	result__free(&res);
	booted("11\n", "boot-3\n");
	new_result(&res);
	assert_int_equal(resume(1, &res), 1);
	result__free(&res);
	booted("256\n", "boot-4\n");
	new_result(&res);
	assert_int_equal(resume(1, &res), 0);
	assert_int_equal(res.nr_runs, 3);
	for (i = 0; i < 3; i++)
		assert_string_equal(res.runs[i].params.set_value, values[i]);
	result__free(&res);
}

/* The end cut short after the runs were kept, before the plan went: the next resume ends
 * the sweep again, with every run (it lost them all, the kept ones too). */
static void test_cut_at_the_end(void **state)
{
	const struct boot_knob *k = boot_knob__find("xen_blkfront.max_indirect_segments");
	char *const one[] = { "32" };
	char path[PATH_MAX * 5];
	struct boot_sweep bs;
	struct result res;
	struct diag d = {};

	(void)state;
	new_result(&res);
	assert_int_equal(boot_sweep__begin(&bs, &env, k, one, 1, &dev, 5, argv, &d), 0);
	snprintf(path, sizeof(path), "cp %s/boot-sweep.json %s/plan.copy", plan_dir, scratch);
	assert_int_equal(system(path), 0);
	measure(&bs, &res);
	assert_int_equal(boot_sweep__step(&bs, &res, &d), 0);
	boot_sweep__close(&bs);
	result__free(&res);
	assert_false(exists(plan_dir, "boot-sweep.json"));
	/* Put back what a crash before the plan's removal leaves: the plan, every value
	 * measured, the runs kept (and, before the plan, gone where they were). */
	snprintf(path, sizeof(path), "jq '.measured = [\"32\"]' %s/plan.copy > %s/boot-sweep.json",
		 scratch, plan_dir);
	assert_int_equal(system(path), 0);
	new_result(&res);
	assert_int_equal(resume(1, &res), 0);
	assert_int_equal(res.nr_runs, 1);
	result__free(&res);
	snprintf(path, sizeof(path), "test \"$(jq '.runs | length' %s/boot-sweep.last.json)\" = 1",
		 plan_dir);
	assert_int_equal(system(path), 0);
	assert_false(exists(plan_dir, "boot-sweep.runs.json"));
}

/* resume goes back to the directory the sweep was started in; gone, it is refused. */
static void test_working_directory(void **state)
{
	const struct boot_knob *k = boot_knob__find("xen_blkfront.max_indirect_segments");
	char here[PATH_MAX + 8], was[PATH_MAX], now[PATH_MAX + 16], **cmd;
	struct boot_sweep bs;
	struct diag d = {};
	int n;

	(void)state;
	assert_non_null(getcwd(was, sizeof(was)));
	snprintf(here, sizeof(here), "%s/here", scratch);
	assert_int_equal(mkdir(here, 0755), 0);
	assert_int_equal(chdir(here), 0);
	assert_int_equal(boot_sweep__begin(&bs, &env, k, values, 3, &dev, 5, argv, &d), 0);
	boot_sweep__close(&bs);
	assert_int_equal(chdir("/"), 0);
	assert_int_equal(boot_sweep__load(&bs, &env, &d), 0);
	assert_int_equal(boot_sweep__command(&bs, &n, &cmd, &d), 0);
	assert_int_equal(n, 5);
	assert_string_equal(cmd[2], "xvda");
	free(cmd);
	assert_string_equal(getcwd(now, sizeof(now)), here);
	assert_int_equal(chdir("/"), 0);
	assert_int_equal(rmdir(here), 0);
	assert_int_equal(boot_sweep__command(&bs, &n, &cmd, &d), -ENOENT);
	assert_true(d.usage);
	assert_non_null(strstr(d.msg, "here, which No such file or directory"));
	boot_sweep__close(&bs);
	assert_int_equal(chdir(was), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_knob, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_settings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash_and_abort, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_after_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_at_the_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_working_directory, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
