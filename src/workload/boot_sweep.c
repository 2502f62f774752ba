// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A sweep across reboots (boot_sweep.h). The plan, boot-sweep.json in the state
 * directory:
 *   {"schema": "blktrace-bench/boot-sweep/1", "knob": K, "values": [...],
 *    "measured": [...], "disk": {"name", "major", "minor"}, "original": N,
 *    "command": [argv...], "started": "ISO time",
 *    "next": null | {"value": V, "boot": ID, "armed": bool, "initramfs": "what ran"}}
 * and the runs so far, boot-sweep.runs.json, a result document like --json's. "next"
 * is written before the setting is (armed false), and armed once the modprobe.d file is
 * written and the initramfs rebuilt; next null with every value measured is a sweep
 * setting its original back.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include "workload/boot_sweep.h"
#include "base/diag.h"
#include "files/infile.h"
#include "files/outfile.h"
#include "analysis/report.h"
#include "output/report_json.h"
#include "store/result_read.h"
#include "files/state_dir.h"
#include "base/text.h"

#define SCHEMA "blktrace-bench/boot-sweep/1"
#define PLAN "boot-sweep.json"
#define RUNS "boot-sweep.runs.json"
#define LAST "boot-sweep.last.json" /* the runs of the last sweep, once it ended */
#define LAST_TMP "boot-sweep.last.json.new"
#define MAX_FILE (64 << 20)

void boot_sweep__system(struct boot_sweep_env *env, const char *sysfs_root)
{
	boot_config__system(&env->config, sysfs_root);
	env->plan_dir = "/var/lib/blktrace-bench";
	env->boot_id = "/proc/sys/kernel/random/boot_id";
}

/* The plan directory, opened, checked and locked against a second tool at work on it. */
static int open_dir(struct boot_sweep *bs, const struct boot_sweep_env *env, bool create,
		    struct diag *d)
{
	memset(bs, 0, sizeof(*bs));
	bs->env = env;
	bs->dirfd = state_dir__open(env->plan_dir, create, d);
	if (bs->dirfd < 0)
		return bs->dirfd == -ENOENT && !create
			       ? diag__usage_err(d, -ENOENT, "no sweep across reboots is under way")
			       : bs->dirfd;
	if (flock(bs->dirfd, LOCK_EX | LOCK_NB))
		return diag__usage_err(d, -EBUSY,
				       "another blktrace-bench is working on the sweep across "
				       "reboots in %s",
				       env->plan_dir);
	if (infile__boot_id(env->boot_id, bs->boot, sizeof(bs->boot)))
		return diag__fail(d, -EIO, "cannot read the boot id from %s", env->boot_id);
	return 0;
}

static int save_json_at(int dirfd, const char *name, json_t *doc, const char *shown, struct diag *d)
{
	struct outfile of = {};
	int err = outfile__open_at(&of, "the sweep's plan", dirfd, name, shown, d);

	if (!err)
		err = outfile__put_json(&of, doc, JSON_INDENT(1) | JSON_REAL_PRECISION(10), d);
	outfile__abort(&of);
	return err;
}

static int save_plan(struct boot_sweep *bs, struct diag *d)
{
	char shown[512];

	snprintf(shown, sizeof(shown), "%s/%s", bs->env->plan_dir, PLAN);
	return save_json_at(bs->dirfd, PLAN, bs->plan, shown, d);
}

static bool is_measured(const struct boot_sweep *bs, const char *value)
{
	json_t *m = json_object_get(bs->plan, "measured"), *v;
	size_t i;

	json_array_foreach(m, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), value))
			return true;
	return false;
}

/* The values not measured yet whose setting is the one in force: bs->now. */
static void values_in_force(struct boot_sweep *bs)
{
	json_t *vals = json_object_get(bs->plan, "values"), *v;
	int64_t n;
	size_t i;

	bs->nr_now = 0;
	json_array_foreach(vals, i, v) {
		const char *s = json_string_value(v);

		if (s && !is_measured(bs, s) && !boot_knob__parse(bs->knob, s, &n, NULL) &&
		    boot_knob__effective(bs->knob, n) == bs->in_force &&
		    bs->nr_now < BOOT_SWEEP_MAX_VALUES)
			bs->now[bs->nr_now++] = s;
	}
}

/* Refusals that need no plan: the disk, the module, a setting this tool cannot override. */
static int check_knob(const struct boot_sweep *bs, const struct device *dev, struct diag *d)
{
	const struct boot_knob *k = bs->knob;
	char where[512], value[64];
	int ret;

	if (strcmp(dev->driver, k->driver))
		return diag__usage(d, "--set %s is for %s disks: %s's driver is %s", k->name,
				   k->module, dev->name, dev->driver[0] ? dev->driver : "unknown");
	if (boot_knob__builtin(k, bs->env->config.sysfs_root))
		return diag__usage(d,
				   "--set %s: %s is built into this kernel, where no modprobe.d "
				   "file reaches it: only the kernel command line sets it (%s=N)",
				   k->name, k->module, k->name);
	ret = boot_config__other_setting(&bs->env->config, k, where, sizeof(where), value,
					 sizeof(value));
	if (ret < 0)
		return diag__fail(d, ret, "cannot read the modprobe.d files: %s", strerror(-ret));
	if (ret)
		return diag__usage(d,
				   "--set %s: %s sets it (%s), which the sweep cannot override: "
				   "remove that setting first",
				   k->name, where, value);
	return 0;
}

/* The plan of a new sweep, this boot's values in force to be measured first. */
static int new_plan(struct boot_sweep *bs, char *const *values, int nr, const struct device *dev,
		    int argc, char **argv, struct diag *d)
{
	json_t *vals = json_array(), *cmd = json_array();
	char started[32], cwd[PATH_MAX];
	time_t now = time(NULL);
	int64_t v;
	int i, k;

	for (i = 0; i < nr; i++) {
		if (boot_knob__parse(bs->knob, values[i], &v, d))
			goto bad;
		for (k = 0; k < i; k++)
			if (!strcmp(values[k], values[i])) {
				diag__usage(d, "--set %s: %s is given twice", bs->knob->name,
					    values[i]);
				goto bad;
			}
		json_array_append_new(vals, json_string(values[i]));
	}
	for (i = 0; i < argc; i++)
		json_array_append_new(cmd, text__json(argv[i]));
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	/* The command's relative paths (--json, --file, the default target) are its
	 * directory's: resume goes back there. */
	if (!getcwd(cwd, sizeof(cwd))) {
		diag__fail(d, -errno, "cannot tell the working directory: %s", strerror(errno));
		goto bad;
	}
	bs->plan = json_pack("{s:s, s:s, s:o, s:[], s:{s:s, s:i, s:i}, s:I, s:o, s:o, s:s, s:n}",
			     "schema", SCHEMA, "knob", bs->knob->name, "values", vals, "measured",
			     "disk", "name", dev->name, "major", (int)dev->major, "minor",
			     (int)dev->minor, "original", (json_int_t)bs->in_force, "command", cmd,
			     "cwd", text__json(cwd), "started", started, "next");
	return bs->plan ? 0 : diag__fail(d, -ENOMEM, "out of memory");
bad:
	json_decref(vals);
	json_decref(cmd);
	return -EINVAL;
}

/*
 * What a sweep whose end a crash cut short left: its modprobe.d file (the initramfs rebuilt
 * without it), its runs (kept in LAST already).
 */
static int clear_stale(struct boot_sweep *bs, struct diag *d)
{
	char how[256];
	int err = boot_config__remove(&bs->env->config, d);

	if (err > 0)
		err = boot_config__update_initramfs(&bs->env->config, how, sizeof(how), d);
	unlinkat(bs->dirfd, RUNS, 0);
	return err < 0 ? err : 0;
}

int boot_sweep__begin(struct boot_sweep *bs, const struct boot_sweep_env *env,
		      const struct boot_knob *knob, char *const *values, int nr,
		      const struct device *dev, int argc, char **argv, struct diag *d)
{
	struct stat st;
	int err;

	bs->dirfd = -1;
	bs->plan = NULL;
	if (nr > BOOT_SWEEP_MAX_VALUES)
		return diag__usage(d, "--set %s: at most %d values (a reboot each)", knob->name,
				   BOOT_SWEEP_MAX_VALUES);
	err = open_dir(bs, env, true, d);
	if (err)
		return err;
	bs->knob = knob;
	if (!fstatat(bs->dirfd, PLAN, &st, AT_SYMLINK_NOFOLLOW))
		return diag__usage_err(
			d, -EBUSY,
			"a sweep across reboots is under way (%s/%s): `blktrace-bench "
			"resume` goes on with it, `resume --abort` gives it up",
			env->plan_dir, PLAN);
	err = check_knob(bs, dev, d);
	if (err)
		return err;
	err = boot_knob__read(knob, env->config.sysfs_root, &bs->in_force);
	if (err)
		return diag__fail(d, err, "cannot read %s in force: %s", knob->name,
				  strerror(-err));
	err = new_plan(bs, values, nr, dev, argc, argv, d);
	if (!err)
		err = clear_stale(bs, d);
	if (err)
		return err;
	values_in_force(bs);
	return save_plan(bs, d);
}

int boot_sweep__load(struct boot_sweep *bs, const struct boot_sweep_env *env, struct diag *d)
{
	json_error_t je;
	char *text = NULL;
	size_t len;
	int err = open_dir(bs, env, false, d);

	if (err)
		return err;
	err = infile__read_at(bs->dirfd, PLAN, MAX_FILE, &text, &len);
	if (err == -ENOENT)
		return diag__usage_err(d, err, "no sweep across reboots is under way");
	if (err)
		return diag__fail(d, err, "cannot read %s/%s: %s", env->plan_dir, PLAN,
				  strerror(-err));
	bs->plan = json_loadb(text, len, 0, &je);
	free(text);
	if (!bs->plan || !json_is_object(bs->plan) ||
	    strcmp(json_string_value(json_object_get(bs->plan, "schema")) ?: "", SCHEMA) ||
	    !(bs->knob = boot_knob__find(json_string_value(json_object_get(bs->plan, "knob")))))
		return diag__usage_err(d, -EBADMSG,
				       "%s/%s is not a plan of this tool's: `resume --abort` "
				       "removes it",
				       env->plan_dir, PLAN);
	return 0;
}

int boot_sweep__command(const struct boot_sweep *bs, int *argc, char ***argv, struct diag *d)
{
	json_t *cmd = json_object_get(bs->plan, "command"), *v;
	const char *cwd = json_string_value(json_object_get(bs->plan, "cwd"));
	size_t i;

	if (!cwd || chdir(cwd))
		return diag__usage_err(d, cwd ? -errno : -EINVAL,
				       "the sweep across reboots ran in %s, which %s: `resume "
				       "--abort` gives it up",
				       cwd ? cwd : "a directory its plan does not name",
				       cwd ? strerror(errno) : "is unknown");

	*argv = calloc(json_array_size(cmd) + 1, sizeof(**argv));
	if (!*argv)
		return diag__fail(d, -ENOMEM, "out of memory");
	json_array_foreach(cmd, i, v) {
		if (!json_is_string(v)) {
			free(*argv);
			return diag__usage(d, "the sweep's plan has no command to resume");
		}
		(*argv)[i] = (char *)json_string_value(v);
	}
	*argc = (int)json_array_size(cmd);
	return *argc ? 0 : diag__usage(d, "the sweep's plan has no command to resume");
}

/* The number of values measured, and of all. */
static void progress(const struct boot_sweep *bs, size_t *done, size_t *all)
{
	*done = json_array_size(json_object_get(bs->plan, "measured"));
	*all = json_array_size(json_object_get(bs->plan, "values"));
}

/* The first value not measured yet, or NULL. */
static const char *next_value(const struct boot_sweep *bs)
{
	json_t *vals = json_object_get(bs->plan, "values"), *v;
	size_t i;

	json_array_foreach(vals, i, v)
		if (json_is_string(v) && !is_measured(bs, json_string_value(v)))
			return json_string_value(v);
	return NULL;
}

/* The setting of the next boot: for value, or the original (NULL): 0 or -errno + d. */
static int set_next_boot(struct boot_sweep *bs, const char *value, char *how, size_t len,
			 struct diag *d)
{
	const struct boot_config_env *c = &bs->env->config;
	int64_t v;
	int err;

	if (value) {
		err = boot_knob__parse(bs->knob, value, &v, d);
		if (!err)
			err = boot_config__write(c, bs->knob, v, d);
	} else {
		err = boot_config__remove(c, d);
		err = err < 0 ? err : 0;
	}
	if (!err)
		err = boot_config__update_initramfs(c, how, len, d);
	return err < 0 ? err : 0;
}

/*
 * Arm the plan's next step for the next boot: said, then written, then marked done.
 * value may be the plan's own string, which the new step replaces: it is copied first.
 */
static int arm(struct boot_sweep *bs, const char *plan_value, struct diag *d)
{
	json_t *next;
	char how[256] = "", file[512], value[64];
	size_t done, all;
	int err;

	text__copy(value, sizeof(value), plan_value);
	next = json_pack("{s:s, s:s, s:b, s:n}", "value", value, "boot", bs->boot, "armed", 0,
			 "initramfs");
	if (!next || json_object_set_new(bs->plan, "next", next))
		return diag__fail(d, -ENOMEM, "out of memory");
	err = save_plan(bs, d);
	if (!err)
		err = set_next_boot(bs, value, how, sizeof(how), d);
	if (err)
		return err;
	json_object_set_new(next, "armed", json_true());
	json_object_set_new(next, "initramfs", json_string(how));
	err = save_plan(bs, d);
	if (err)
		return err;
	progress(bs, &done, &all);
	snprintf(file, sizeof(file), "%s/%s", bs->env->config.conf_dir, BOOT_CONFIG_FILE);
	diag__note(
		stderr,
		"%s=%s is set for the next boot (%s; initramfs: %s); %zu of %zu values measured: "
		"reboot, then run `blktrace-bench resume`",
		bs->knob->name, value, file, how, done, all);
	return 0;
}

/* Is dev the disk the sweep is of? 0, or -EINVAL with d. */
static int check_disk(const struct boot_sweep *bs, const struct device *dev, struct diag *d)
{
	json_t *disk = json_object_get(bs->plan, "disk");
	const char *name = json_string_value(json_object_get(disk, "name"));

	if (!name || strcmp(name, dev->name) ||
	    json_integer_value(json_object_get(disk, "major")) != dev->major ||
	    json_integer_value(json_object_get(disk, "minor")) != dev->minor)
		return diag__usage(d, "the sweep across reboots is of %s, which is not %s now",
				   name ? name : "?", dev->name);
	return 0;
}

int boot_sweep__ready(struct boot_sweep *bs, const struct device *dev, struct diag *d)
{
	json_t *next = json_object_get(bs->plan, "next");
	const char *value = json_string_value(json_object_get(next, "value")),
		   *boot = json_string_value(json_object_get(next, "boot"));
	int64_t v;
	int err = check_disk(bs, dev, d);

	if (err)
		return err;
	err = boot_knob__read(bs->knob, bs->env->config.sysfs_root, &bs->in_force);
	if (err)
		return diag__fail(d, err, "cannot read %s in force: %s", bs->knob->name,
				  strerror(-err));
	/* A step the last boot did not complete (a crash, a refused write): complete it. */
	if (value && !json_is_true(json_object_get(next, "armed")))
		return arm(bs, value, d) ? -EIO : 0;
	if (value && boot && !strcmp(boot, bs->boot)) {
		diag__note(stderr,
			   "%s=%s takes effect at the next boot: reboot, then run `blktrace-bench "
			   "resume`",
			   bs->knob->name, value);
		return 0;
	}
	if (value && (boot_knob__parse(bs->knob, value, &v, d) ||
		      boot_knob__effective(bs->knob, v) != bs->in_force))
		return diag__fail(
			d, -EIO,
			"after the reboot %s is %lld, not the %s the sweep set in %s/%s "
			"(initramfs: %s): `blktrace-bench resume --abort` gives the sweep "
			"up",
			bs->knob->name, (long long)bs->in_force, value, bs->env->config.conf_dir,
			BOOT_CONFIG_FILE,
			json_string_value(json_object_get(next, "initramfs")) ?: "?");
	values_in_force(bs);
	/* Nothing of the plan in force (cut short before its first step): set the next. */
	if (!bs->nr_now && next_value(bs))
		return arm(bs, next_value(bs), d) ? -EIO : 0;
	return 1;
}

/* Where value stands among the plan's values (the order of the result's runs). */
static size_t value_index(const struct boot_sweep *bs, const char *value)
{
	json_t *vals = json_object_get(bs->plan, "values"), *v;
	size_t i;

	json_array_foreach(vals, i, v)
		if (!strcmp(json_string_value(v) ?: "", value))
			return i;
	return SIZE_MAX;
}

/* The runs in the order of the plan's values, each value's in the order they ran. */
static void sort_runs(const struct boot_sweep *bs, struct result *res)
{
	size_t i, k;
	struct run r;

	for (i = 1; i < res->nr_runs; i++) {
		r = res->runs[i];
		for (k = i; k > 0 && value_index(bs, res->runs[k - 1].params.set_value) >
					     value_index(bs, r.params.set_value);
		     k--)
			res->runs[k] = res->runs[k - 1];
		res->runs[k] = r;
	}
}

/* The runs of earlier boots in front of this boot's, res the first boot's disk. */
static int join_earlier(struct boot_sweep *bs, struct result *res, struct diag *d)
{
	struct saved_result sr;
	char *text = NULL, shown[512];
	size_t len, i, k;
	int err;

	snprintf(shown, sizeof(shown), "%s/%s", bs->env->plan_dir, RUNS);
	err = infile__read_at(bs->dirfd, RUNS, MAX_FILE, &text, &len);
	/* Values measured and no runs: an end cut short once they were kept as LAST. */
	if (err == -ENOENT && json_array_size(json_object_get(bs->plan, "measured"))) {
		snprintf(shown, sizeof(shown), "%s/%s", bs->env->plan_dir, LAST);
		err = infile__read_at(bs->dirfd, LAST, MAX_FILE, &text, &len);
	}
	if (err == -ENOENT)
		return 0;
	if (err)
		return diag__fail(d, err, "cannot read %s: %s", shown, strerror(-err));
	err = result_read__buffer(shown, text, len, &sr, d);
	free(text);
	if (err)
		return err;
	/* Runs of a value the plan does not call measured: a step cut short after it saved
	 * them, whose value this boot measures again. */
	for (i = k = 0; i < sr.res.nr_runs; i++)
		if (is_measured(bs, sr.res.runs[i].params.set_value))
			sr.res.runs[k++] = sr.res.runs[i];
		else
			run__free(&sr.res.runs[i]);
	sr.res.nr_runs = k;
	err = result__move_runs(&sr.res, res);
	if (!err) {
		err = result__move_runs(res, &sr.res);
		res->device = sr.res.device;
		if (sr.res.has_skipped && res->has_skipped)
			res->tracer_skipped += sr.res.tracer_skipped;
	}
	result_read__free(&sr);
	return err ? diag__fail(d, err, "cannot join the runs of earlier boots: %s", strerror(-err))
		   : 0;
}

static int save_runs(struct boot_sweep *bs, const struct result *res, struct diag *d)
{
	struct report rep;
	char shown[512];
	json_t *doc;
	int err;

	snprintf(shown, sizeof(shown), "%s/%s", bs->env->plan_dir, RUNS);
	if (report__build(&rep, res, false))
		return diag__fail(d, -ENOMEM, "out of memory");
	doc = report_json__doc(&rep);
	err = doc ? save_json_at(bs->dirfd, RUNS, doc, shown, d)
		  : diag__fail(d, -ENOMEM, "out of memory");
	json_decref(doc);
	report__free(&rep);
	return err;
}

/*
 * The runs so far as LAST, RUNS staying until the plan is gone: a crash in between leaves
 * both, and the next resume ends the sweep again with every run (a link, then a rename
 * over the older LAST). 0 also when there are none.
 */
static int keep_runs(struct boot_sweep *bs, struct diag *d)
{
	unlinkat(bs->dirfd, LAST_TMP, 0);
	if (linkat(bs->dirfd, RUNS, bs->dirfd, LAST_TMP, 0))
		return errno == ENOENT ? 0
				       : diag__fail(d, -errno, "cannot keep %s/%s: %s",
						    bs->env->plan_dir, RUNS, strerror(errno));
	if (renameat(bs->dirfd, LAST_TMP, bs->dirfd, LAST))
		return diag__fail(d, -errno, "cannot keep %s/%s: %s", bs->env->plan_dir, RUNS,
				  strerror(errno));
	return 0;
}

/* Every value measured: the original set back, the plan gone, the runs kept as LAST. */
static int finish(struct boot_sweep *bs, struct diag *d)
{
	char how[256] = "";
	int err;

	json_object_set_new(bs->plan, "next", json_null());
	err = save_plan(bs, d);
	if (!err)
		err = set_next_boot(bs, NULL, how, sizeof(how), d);
	if (err)
		return err;
	err = keep_runs(bs, d);
	if (err)
		return err;
	if (unlinkat(bs->dirfd, PLAN, 0))
		return diag__fail(d, -errno, "cannot remove %s/%s: %s", bs->env->plan_dir, PLAN,
				  strerror(errno));
	unlinkat(bs->dirfd, RUNS, 0);
	diag__note(stderr,
		   "every value of %s measured; its original (%lld) is set back for the next boot "
		   "(initramfs: %s)",
		   bs->knob->name,
		   (long long)json_integer_value(json_object_get(bs->plan, "original")), how);
	return 0;
}

int boot_sweep__step(struct boot_sweep *bs, struct result *res, struct diag *d)
{
	const char *next;
	int i, err;

	/* Earlier boots' runs first, by the plan as it was: then this boot's values count. */
	err = join_earlier(bs, res, d);
	for (i = 0; !err && i < bs->nr_now; i++)
		json_array_append_new(json_object_get(bs->plan, "measured"),
				      json_string(bs->now[i]));
	if (!err) {
		sort_runs(bs, res);
		err = save_runs(bs, res, d);
	}
	if (!err)
		err = save_plan(bs, d);
	if (err)
		return err;
	next = next_value(bs);
	if (!next)
		return finish(bs, d);
	return arm(bs, next, d) ? -EIO : 1;
}

int boot_sweep__abort(const struct boot_sweep_env *env, struct diag *d)
{
	struct boot_sweep bs;
	char how[256] = "";
	int err = boot_sweep__load(&bs, env, d);

	/* A plan this tool cannot read is removed all the same: it is in its directory. */
	if (err == -EBADMSG)
		err = 0;
	if (!err)
		err = set_next_boot(&bs, NULL, how, sizeof(how), d);
	if (!err)
		err = keep_runs(&bs, d);
	if (!err && unlinkat(bs.dirfd, PLAN, 0))
		err = diag__fail(d, -errno, "cannot remove %s/%s: %s", env->plan_dir, PLAN,
				 strerror(errno));
	if (!err)
		unlinkat(bs.dirfd, RUNS, 0);
	if (!err)
		diag__note(stderr,
			   "the sweep across reboots is given up: the original setting is back for "
			   "the next boot (initramfs: %s); the runs so far are in %s/%s",
			   how, env->plan_dir, LAST);
	boot_sweep__close(&bs);
	return err;
}

void boot_sweep__close(struct boot_sweep *bs)
{
	if (bs->dirfd >= 0)
		close(bs->dirfd);
	bs->dirfd = -1;
	json_decref(bs->plan);
	bs->plan = NULL;
}
