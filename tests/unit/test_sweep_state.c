// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Sweep locks and state files (src/disk/sweep_state.c) in a scratch directory, against a
 * scratch sysfs disk whose queue files are plain files: the lock names its holder,
 * the state written before a change is what the next run puts back, and state about
 * another disk, a re-attached one or an earlier boot is discarded, not applied.
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

#include "base/diag.h"
#include "disk/knob.h"
#include "disk/sweep_state.h"
#include "testutil.h"

static char scratch[PATH_MAX];
static char sys[PATH_MAX + 8], run[PATH_MAX + 8], boot[PATH_MAX + 8];
static char state_path[PATH_MAX * 2], lock_path[PATH_MAX * 2];
static struct sweep_env env;

static void put(const char *base, const char *rel, const char *text)
{
	char path[PATH_MAX * 2], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	for (slash = strchr(path + strlen(base) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			fail_msg("mkdir %s: %s", path, strerror(errno));
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void get(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	if (!fgets(buf, len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static void msk(char *buf, size_t len)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/devices/virtual/block/tst/queue/max_sectors_kb", sys);
	get(path, buf, len);
}

static int setup(void **state)
{
	char path[PATH_MAX * 2];

	(void)state;
	snprintf(scratch, sizeof(scratch), "/tmp/blktrace-bench-state.XXXXXX");
	if (!mkdtemp(scratch))
		return -1;
	snprintf(sys, sizeof(sys), "%s/sys", scratch);
	snprintf(run, sizeof(run), "%s/run", scratch);
	snprintf(boot, sizeof(boot), "%s/boot_id", scratch);
	snprintf(state_path, sizeof(state_path), "%s/tst.state", run);
	snprintf(lock_path, sizeof(lock_path), "%s/tst.lock", run);
	if (mkdir(sys, 0755))
		return -1;
	put(sys, "devices/virtual/block/tst/dev", "7:9\n");
	put(sys, "devices/virtual/block/tst/size", "8\n");
	put(sys, "devices/virtual/block/tst/diskseq", "17\n");
	put(sys, "devices/virtual/block/tst/queue/max_sectors_kb", "1280\n");
	put(sys, "devices/virtual/block/tst/queue/scheduler", "none [mq-deadline]\n");
	put(sys, "class/block/.keep", "");
	snprintf(path, sizeof(path), "%s/class/block/tst", sys);
	if (symlink("../../devices/virtual/block/tst", path))
		return -1;
	put(scratch, "boot_id", "boot-one\n");
	env = (struct sweep_env){ .dir = run, .boot_id = boot };
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	test_remove_tree(scratch);
	return 0;
}

static struct device *resolve(void)
{
	struct device *d = test_calloc(1, sizeof(*d));
	struct diag dg = {};

	assert_non_null(d);
	if (device__resolve(sys, "tst", d, &dg))
		fail_msg("tst: %s", dg.msg);
	return d;
}

/* recover into a memory stream: the count, and what it said in said. */
static int recover(struct sweep_state *s, char *said, size_t len, struct diag *dg)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	int ret;

	assert_non_null(f);
	ret = sweep_state__recover(s, f, dg);
	fclose(f);
	snprintf(said, len, "%s", buf ? buf : "");
	free(buf);
	return ret;
}

/* A run that saved max_sectors_kb=1280, changed it to 64, and died (no clear). */
static void die_mid_sweep(struct device *d)
{
	struct sweep_state *s;
	struct diag dg = {};

	assert_int_equal(sweep_state__lock(&env, d, &s, &dg), 0);
	assert_int_equal(sweep_state__save(s, "max_sectors_kb", "1280"), 0);
	assert_int_equal(sweep_state__put(s, "max_sectors_kb", "64"), 0);
	/* The kernel drops a dead holder's flock; its files stay. */
	sweep_state__unlock(s);
	assert_int_equal(access(state_path, F_OK), 0);
}

static void test_lock_names_holder(void **state)
{
	struct device *d = resolve();
	struct sweep_state *a, *b;
	char text[64], want[64];
	struct diag dg = {};

	(void)state;
	assert_int_equal(sweep_state__lock(&env, d, &a, &dg), 0);
	get(lock_path, text, sizeof(text));
	snprintf(want, sizeof(want), "%d", (int)getpid());
	assert_string_equal(text, want);
	/* flock() is per open file: a second lock conflicts even in this process. */
	assert_int_equal(sweep_state__lock(&env, d, &b, &dg), -EBUSY);
	assert_null(b);
	snprintf(want, sizeof(want), "tst is being swept by PID %d", (int)getpid());
	assert_true(dg.usage); /* a disk another sweep holds is refused: exit 2 */
	if (!strstr(dg.msg, want))
		fail_msg("got '%s'", dg.msg);
	sweep_state__unlock(a);
	assert_int_equal(access(lock_path, F_OK), -1);
	assert_int_equal(sweep_state__lock(&env, d, &b, &dg), 0);
	sweep_state__unlock(b);
	sweep_state__unlock(NULL);
	test_free(d);
}

static void test_state_written_before_change(void **state)
{
	struct device *d = resolve();
	struct sweep_state *s;
	char text[4096];
	struct diag dg = {};
	FILE *f;
	size_t n;

	(void)state;
	assert_int_equal(sweep_state__lock(&env, d, &s, &dg), 0);
	assert_int_equal(sweep_state__save(s, "max_sectors_kb", "1280"), 0);
	/* A later "original" of the same knob is not the original. */
	assert_int_equal(sweep_state__save(s, "max_sectors_kb", "64"), 0);
	/* What the run writes is on record before it is written, with what it replaces. */
	assert_int_equal(sweep_state__put(s, "max_sectors_kb", "64"), 0);
	assert_int_equal(sweep_state__put(s, "max_sectors_kb", "128"), 0);
	assert_int_equal(sweep_state__put(s, "read_ahead_kb", "4"), -EINVAL); /* not saved */
	f = fopen(state_path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	assert_non_null(strstr(text, "blktrace-bench sweep state 2\n"));
	assert_non_null(strstr(text, "disk tst 7:9\n"));
	assert_non_null(strstr(text, "diskseq 17\n"));
	assert_non_null(strstr(text, "boot boot-one\n"));
	assert_non_null(strstr(text, "set max_sectors_kb 1280\n"));
	assert_null(strstr(text, "set max_sectors_kb 64"));
	assert_non_null(strstr(text, "wrote max_sectors_kb 128\n"));
	put(sys, "devices/virtual/block/tst/queue/max_sectors_kb", "1280\n");
	/* All restored: the state goes, so does the lock file. */
	assert_int_equal(sweep_state__clear(s), 0);
	assert_int_equal(access(state_path, F_OK), -1);
	sweep_state__unlock(s);
	test_free(d);
}

/*
 * The end of a run: not everything back, the state file stays and the notes say how to
 * use it; everything back, it goes, and nothing is said.
 */
static void test_release(void **state)
{
	struct device *d = resolve();
	struct sweep_state *s;
	struct diag dg = {};
	char *buf = NULL;
	size_t n = 0;
	FILE *f;

	(void)state;
	assert_int_equal(sweep_state__lock(&env, d, &s, &dg), 0);
	assert_int_equal(sweep_state__save(s, "max_sectors_kb", "1280"), 0);
	assert_int_equal(sweep_state__put(s, "max_sectors_kb", "64"), 0);
	f = open_memstream(&buf, &n);
	assert_non_null(f);
	sweep_state__release(s, false, f);
	fclose(f);
	assert_string_equal(buf, "blktrace-bench: `blktrace-bench restore tst` tries again\n");
	free(buf);
	assert_int_equal(access(state_path, F_OK), 0);

	/* The next run puts the original back (said nowhere), then ends with all back. */
	assert_int_equal(sweep_state__lock(&env, d, &s, &dg), 0);
	assert_int_equal(sweep_state__recover(s, NULL, &dg), 1);
	assert_int_equal(sweep_state__save(s, "max_sectors_kb", "1280"), 0);
	buf = NULL;
	f = open_memstream(&buf, &n);
	assert_non_null(f);
	sweep_state__release(s, true, f);
	fclose(f);
	assert_string_equal(buf, "");
	free(buf);
	assert_int_equal(access(state_path, F_OK), -1);
	sweep_state__release(NULL, false, stderr); /* nothing held: nothing to say */
	test_free(d);
}

static void test_next_run_restores(void **state)
{
	struct device *d = resolve();
	struct sweep_state *s;
	char said[512], v[32];
	struct diag dg = {};

	(void)state;
	die_mid_sweep(d);
	assert_int_equal(sweep_state__lock(&env, d, &s, &dg), 0);
	assert_int_equal(recover(s, said, sizeof(said), &dg), 1);
	msk(v, sizeof(v));
	assert_string_equal(v, "1280");
	if (!strstr(said, "restored max_sectors_kb=1280 on tst, left changed by PID"))
		fail_msg("said '%s'", said);
	assert_int_equal(access(state_path, F_OK), -1);
	/* Nothing left: nothing said. */
	assert_int_equal(recover(s, said, sizeof(said), &dg), 0);
	assert_string_equal(said, "");
	sweep_state__unlock(s);

	/* A run that changes nothing itself recovers too, unless a live sweep holds it. */
	die_mid_sweep(d);
	assert_int_equal(sweep_state__lock(&env, d, &s, &dg), 0);
	assert_int_equal(sweep_state__recover_idle(&env, d, stderr, &dg), 0);
	msk(v, sizeof(v));
	assert_string_equal(v, "64");
	sweep_state__unlock(s);
	assert_int_equal(sweep_state__recover_idle(&env, d, stderr, &dg), 1);
	msk(v, sizeof(v));
	assert_string_equal(v, "1280");
	assert_int_equal(access(state_path, F_OK), -1);
	test_free(d);
}

static void test_stale_state_discarded(void **state)
{
	struct device *d = resolve();
	struct sweep_state *s;
	char said[512], v[32];
	struct diag dg = {};

	(void)state;
	/* The loop device was detached and attached again: diskseq moved on. */
	die_mid_sweep(d);
	put(sys, "devices/virtual/block/tst/diskseq", "18\n");
	assert_int_equal(sweep_state__lock(&env, d, &s, &dg), 0);
	assert_int_equal(recover(s, said, sizeof(said), &dg), 0);
	assert_non_null(strstr(said, "re-attached or replaced since (diskseq 17, now 18)"));
	msk(v, sizeof(v));
	assert_string_equal(v, "64");
	assert_int_equal(access(state_path, F_OK), -1);
	sweep_state__unlock(s);
	put(sys, "devices/virtual/block/tst/diskseq", "17\n");

	/* Another boot. */
	die_mid_sweep(d);
	put(scratch, "boot_id", "boot-two\n");
	assert_int_equal(sweep_state__lock(&env, d, &s, &dg), 0);
	assert_int_equal(recover(s, said, sizeof(said), &dg), 0);
	assert_non_null(strstr(said, "before the last reboot"));
	sweep_state__unlock(s);
	put(scratch, "boot_id", "boot-one\n");
	put(sys, "devices/virtual/block/tst/queue/max_sectors_kb", "1280\n");
	test_free(d);
}

static void test_bad_state_not_applied(void **state)
{
	struct device *d = resolve();
	struct sweep_state *s;
	char said[512];
	struct diag dg = {};

	(void)state;
	assert_int_equal(sweep_state__lock(&env, d, &s, &dg), 0);
	/* Only the settings a sweep changes: the file must not steer other writes. */
	put(run, "tst.state",
	    "blktrace-bench sweep state 2\npid 1\ndisk tst 7:9\n"
	    "diskseq 17\nboot boot-one\nset ../../dev 1:1\nwrote ../../dev 2:2\n");
	assert_int_equal(recover(s, said, sizeof(said), &dg), -EINVAL);
	assert_non_null(strstr(dg.msg, "not a setting this tool changes"));
	assert_false(dg.usage); /* a state file not ours: the system's state, exit 1 */
	put(run, "tst.state", "something else\n");
	assert_int_equal(recover(s, said, sizeof(said), &dg), -EINVAL);
	assert_non_null(strstr(dg.msg, "is not a state file of this tool"));
	/* Numbers are read strictly (parse.h): "12abc" is no PID, "7:0x" no MAJ:MIN. */
	put(run, "tst.state",
	    "blktrace-bench sweep state 2\npid 12abc\ndisk tst 7:9\ndiskseq 17\nboot boot-one\n");
	assert_int_equal(recover(s, said, sizeof(said), &dg), -EINVAL);
	put(run, "tst.state",
	    "blktrace-bench sweep state 2\npid 1\ndisk tst 7:9x\ndiskseq 17\nboot boot-one\n");
	assert_int_equal(recover(s, said, sizeof(said), &dg), -EINVAL);
	assert_non_null(strstr(dg.msg, "is not a state file of this tool"));
	assert_int_equal(access(state_path, F_OK), 0);
	/* A state file this run did not write is not its to clear. */
	assert_int_equal(sweep_state__clear(s), 0);
	assert_int_equal(access(state_path, F_OK), 0);
	unlink(state_path);
	sweep_state__unlock(s);
	test_free(d);
}

static void test_untrusted_dir(void **state)
{
	struct device *d = resolve();
	struct sweep_state *s;
	struct diag dg = {};

	(void)state;
	assert_int_equal(mkdir(run, 0755) && errno != EEXIST, 0);
	assert_int_equal(chmod(run, 0777), 0);
	assert_int_equal(sweep_state__lock(&env, d, &s, &dg), -EPERM);
	assert_non_null(strstr(dg.msg, "writable by others"));
	assert_true(dg.usage); /* a --state-dir refused: exit 2 */
	assert_int_equal(chmod(run, 0755), 0);
	test_free(d);
}

/* The file a run that died wrote, with what is written into it, for the tests below. */
static void state_file(const char *text)
{
	put(run, "tst.state", text);
}

/*
 * A file that does not name the disk's diskseq and the boot is no proof it is about
 * this disk now: refused, nothing written (an older version's, "state 1", included).
 */
static void test_state_needs_disk_and_boot(void **state)
{
	struct device *d = resolve();
	struct sweep_state *s;
	char said[512], v[32];
	struct diag dg = {};

	(void)state;
	put(sys, "devices/virtual/block/tst/queue/max_sectors_kb", "64\n");
	assert_int_equal(sweep_state__lock(&env, d, &s, &dg), 0);
	state_file("blktrace-bench sweep state 1\npid 1\ndisk tst 7:9\nset max_sectors_kb 8\n");
	assert_int_equal(recover(s, said, sizeof(said), &dg), -EINVAL);
	assert_non_null(strstr(dg.msg, "is not a state file of this tool"));
	state_file("blktrace-bench sweep state 2\npid 1\ndisk tst 7:9\nboot boot-one\n"
		   "set max_sectors_kb 8\nwrote max_sectors_kb 64\n");
	assert_int_equal(recover(s, said, sizeof(said), &dg), -EINVAL);
	state_file("blktrace-bench sweep state 2\npid 1\ndisk tst 7:9\ndiskseq 17\n"
		   "set max_sectors_kb 8\nwrote max_sectors_kb 64\n");
	assert_int_equal(recover(s, said, sizeof(said), &dg), -EINVAL);
	msk(v, sizeof(v));
	assert_string_equal(v, "64");
	assert_int_equal(access(state_path, F_OK), 0);
	/* "-": written where the kernel has no diskseq; this disk has one: not about it. */
	state_file("blktrace-bench sweep state 2\npid 1\ndisk tst 7:9\ndiskseq -\nboot boot-one\n"
		   "set max_sectors_kb 8\nwrote max_sectors_kb 64\n");
	assert_int_equal(recover(s, said, sizeof(said), &dg), 0);
	assert_non_null(strstr(said, "re-attached or replaced since (diskseq -, now 17)"));
	msk(v, sizeof(v));
	assert_string_equal(v, "64");
	sweep_state__unlock(s);
	put(sys, "devices/virtual/block/tst/queue/max_sectors_kb", "1280\n");
	test_free(d);
}

/* Only a value the dead run wrote is replaced: one set since stays, said so. */
static void test_changed_since_left(void **state)
{
	struct device *d = resolve();
	struct sweep_state *s;
	char said[512], v[32];
	struct diag dg = {};

	(void)state;
	die_mid_sweep(d);
	put(sys, "devices/virtual/block/tst/queue/max_sectors_kb", "128\n"); /* an admin */
	assert_int_equal(sweep_state__lock(&env, d, &s, &dg), 0);
	assert_int_equal(recover(s, said, sizeof(said), &dg), 0);
	msk(v, sizeof(v));
	assert_string_equal(v, "128");
	if (!strstr(said, "left max_sectors_kb=128 on tst as it is: not what PID ") ||
	    !strstr(said, " (it wrote 64) left, so it was set since; before PID ") ||
	    !strstr(said, "changed it, it was 1280\n"))
		fail_msg("said '%s'", said);
	assert_int_equal(access(state_path, F_OK), -1);
	/* Killed between recording 256 and writing it: the 64 before it is the run's too. */
	state_file("blktrace-bench sweep state 2\npid 1\ndisk tst 7:9\ndiskseq 17\n"
		   "boot boot-one\nset max_sectors_kb 1280\nwrote max_sectors_kb 256 64\n");
	put(sys, "devices/virtual/block/tst/queue/max_sectors_kb", "64\n");
	assert_int_equal(recover(s, said, sizeof(said), &dg), 1);
	msk(v, sizeof(v));
	assert_string_equal(v, "1280");
	sweep_state__unlock(s);
	test_free(d);
}

/*
 * DIR is used through the descriptor the checks were made on: a directory put in its
 * place afterwards (what a user who may write DIR's parent can do) is never read.
 */
static void test_dir_swapped_after_check(void **state)
{
	struct device *d = resolve();
	struct sweep_state *s;
	char moved[PATH_MAX + 16], said[512], v[32];
	struct diag dg = {};

	(void)state;
	snprintf(moved, sizeof(moved), "%s.moved", run);
	assert_int_equal(sweep_state__lock(&env, d, &s, &dg), 0);
	assert_int_equal(rename(run, moved), 0);
	assert_int_equal(mkdir(run, 0755), 0);
	state_file("blktrace-bench sweep state 2\npid 1\ndisk tst 7:9\ndiskseq 17\n"
		   "boot boot-one\nset max_sectors_kb 8\nwrote max_sectors_kb 1280\n");
	assert_int_equal(recover(s, said, sizeof(said), &dg), 0);
	msk(v, sizeof(v));
	assert_string_equal(v, "1280");
	sweep_state__unlock(s);
	assert_int_equal(unlink(state_path), 0);
	assert_int_equal(rmdir(run), 0);
	assert_int_equal(rename(moved, run), 0);
	test_free(d);
}

/* A link is refused, not followed; a FIFO as the state file neither blocks nor counts. */
static void test_link_and_fifo(void **state)
{
	struct device *d = resolve();
	struct sweep_env linked = env;
	char link[PATH_MAX + 16], said[512];
	struct sweep_state *s;
	struct diag dg = {};

	(void)state;
	snprintf(link, sizeof(link), "%s.link", run);
	assert_int_equal(mkdir(run, 0755) && errno != EEXIST, 0);
	assert_int_equal(symlink(run, link), 0);
	linked.dir = link;
	assert_int_equal(sweep_state__lock(&linked, d, &s, &dg), -ELOOP);
	assert_true(dg.usage);
	assert_non_null(strstr(dg.msg, "is a symbolic link"));
	unlink(link);
	assert_int_equal(sweep_state__lock(&env, d, &s, &dg), 0);
	assert_int_equal(mkfifo(state_path, 0644), 0);
	alarm(10); /* the old way, fopen(), waited for a writer for ever */
	assert_int_equal(recover(s, said, sizeof(said), &dg), -EINVAL);
	alarm(0);
	assert_non_null(strstr(dg.msg, "is not a state file of this tool"));
	unlink(state_path);
	sweep_state__unlock(s);
	test_free(d);
}

/* A restore through a knob that has the state is on record too: the state says what the
 * run leaves in force after it (here nothing of its own; after a scheduler's restore, the
 * nr_requests it reset), not the value it wrote before. */
static void test_restore_recorded(void **state)
{
	struct device *d = resolve();
	struct sweep_state *s;
	struct knob k;
	char text[4096];
	struct diag dg = {};
	FILE *f;
	size_t n;

	(void)state;
	assert_int_equal(sweep_state__lock(&env, d, &s, &dg), 0);
	assert_int_equal(knob__prepare(&k, d, "max_sectors_kb", NULL, 0, &dg), 0);
	assert_int_equal(sweep_state__save(s, "max_sectors_kb", k.original), 0);
	k.state = s;
	assert_int_equal(knob__apply(&k, "64", &dg), 0);
	assert_int_equal(knob__restore(&k), 0);
	f = fopen(state_path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	if (strstr(text, "wrote max_sectors_kb"))
		fail_msg("the restore is not on record: %s", text);
	assert_int_equal(sweep_state__clear(s), 0);
	sweep_state__unlock(s);
	test_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lock_names_holder),
		cmocka_unit_test(test_state_written_before_change),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_next_run_restores),
		cmocka_unit_test(test_stale_state_discarded),
		cmocka_unit_test(test_bad_state_not_applied),
		cmocka_unit_test(test_untrusted_dir),
		cmocka_unit_test(test_state_needs_disk_and_boot),
		cmocka_unit_test(test_changed_since_left),
		cmocka_unit_test(test_dir_swapped_after_check),
		cmocka_unit_test(test_link_and_fifo),
		cmocka_unit_test(test_restore_recorded),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
