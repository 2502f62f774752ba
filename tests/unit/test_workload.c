// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The workload driver and its engines against files in a private temporary
 * directory (tmpfs when there is one). Offsets are checked through a wrapper
 * engine that sees every unit the driver submits and, for reads, compares the
 * data against files whose every 8-byte word holds its own file offset.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "workload/engine.h"
#include "workload/workload.h"

#define KIB 1024ULL
#define MIB (1024ULL * KIB)

static char tmpdir[64];

static int group_setup(void **state)
{
	static const char *const bases[] = { "/dev/shm", "/tmp" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		snprintf(tmpdir, sizeof(tmpdir), "%s/test_workload.XXXXXX", bases[i]);
		if (mkdtemp(tmpdir))
			return 0;
	}
	return -1;
}

/* A failed assertion skips a test's own unlink: sweep whatever is left. */
static int group_teardown(void **state)
{
	struct dirent *de;
	DIR *dir;

	(void)state;
	dir = opendir(tmpdir);
	if (dir) {
		while ((de = readdir(dir)))
			if (de->d_type == DT_REG)
				unlinkat(dirfd(dir), de->d_name, 0);
		closedir(dir);
	}
	return rmdir(tmpdir);
}

static void tmp_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

static struct job_params job(const char *rw, uint64_t bs, uint64_t size, const char *engine,
			     unsigned int iodepth)
{
	struct job_params p = { .bs = bs, .size = size, .iodepth = iodepth };

	snprintf(p.rw, sizeof(p.rw), "%s", rw);
	snprintf(p.engine, sizeof(p.engine), "%s", engine);
	return p;
}

static uint64_t hist_total(const struct app_stats *s)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < HIST_LAT_BUCKETS; i++)
		n += s->lat[i];
	return n;
}

/* The invariants of every run's stats, whatever the job. */
static void assert_stats_consistent(const struct app_stats *s, uint64_t bs)
{
	assert_int_equal(hist_total(s), s->ios);
	assert_int_equal(s->bytes, s->ios * bs);
	assert_true(s->lat_max_ns <= s->ns);
	assert_true(s->lat_sum_ns <= s->ios * s->lat_max_ns);
	if (s->ios)
		assert_true(s->lat_max_ns > 0);
}

/* A file of size bytes whose 8-byte word at offset x holds x. */
static void write_stamped_file(const char *path, uint64_t size)
{
	uint64_t *buf = malloc(64 * KIB), off, n, k;
	int fd;

	assert_non_null(buf);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	for (off = 0; off < size; off += n) {
		n = size - off < 64 * KIB ? size - off : 64 * KIB;
		for (k = 0; k < 64 * KIB / 8; k++)
			buf[k] = off + k * 8;
		assert_int_equal(pwrite(fd, buf, n, off), (ssize_t)n);
	}
	assert_int_equal(close(fd), 0);
	free(buf);
}

static void *read_whole_file(const char *path, uint64_t *size)
{
	struct stat st;
	void *buf;
	int fd;

	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	*size = st.st_size;
	buf = malloc(st.st_size + 1);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, st.st_size, 0), st.st_size);
	close(fd);
	return buf;
}

/* Every bs block of the file at path is the start of the workload pattern. */
static void assert_pattern_blocks(const char *path, uint64_t bs, uint64_t expect_size)
{
	uint64_t size, off;
	char *data = read_whole_file(path, &size), *pattern = malloc(bs);

	assert_non_null(pattern);
	assert_int_equal(size, expect_size);
	workload__fill_pattern(pattern, bs);
	for (off = 0; off < size; off += bs)
		assert_memory_equal(data + off, pattern, bs);
	free(pattern);
	free(data);
}

/*
 * The wrapper engine: forwards to chk.base and records what the driver does.
 * Its state is one static struct, reset by check_reset() at the start of a test.
 */
static struct {
	const struct engine_ops *base;
	uint64_t region, bs;
	bool verify_stamps;  /* reads: the buffer must hold its own offsets */
	bool halve;	     /* first attempts move only half their bytes */
	uint64_t stop_after; /* set *stop after this many completions; 0: never */
	volatile sig_atomic_t *stop;
	uint64_t offsets[4096];
	size_t nr_offsets;
	unsigned int inflight, max_inflight;
	uint64_t completions;
	unsigned int bad_offsets, bad_stamps, retries;
} chk;

static struct engine_ops check_ops;

static void check_reset(const struct engine_ops *base, uint64_t region, uint64_t bs)
{
	memset(&chk, 0, sizeof(chk));
	check_ops.max_depth = base->max_depth;
	chk.base = base;
	chk.region = region;
	chk.bs = bs;
}

static int check_init(struct engine *e)
{
	return chk.base->init(e);
}

static int check_submit(struct engine *e, struct io_unit **units, unsigned int nr)
{
	uint32_t saved[WORKLOAD_MAX_DEPTH];
	unsigned int i;
	int err;

	for (i = 0; i < nr; i++) {
		struct io_unit *u = units[i];

		saved[i] = u->len;
		if (u->done) {
			chk.retries++;
			continue;
		}
		if (u->offset % chk.bs || u->offset + u->len > chk.region)
			chk.bad_offsets++;
		if (chk.nr_offsets < sizeof(chk.offsets) / sizeof(chk.offsets[0]))
			chk.offsets[chk.nr_offsets++] = u->offset;
		/* Both engines read len at submit time, so a shorter len is a short I/O. */
		if (chk.halve)
			u->len = u->len / 2;
	}
	err = chk.base->submit(e, units, nr);
	for (i = 0; i < nr; i++)
		units[i]->len = saved[i];
	if (!err) {
		chk.inflight += nr;
		if (chk.inflight > chk.max_inflight)
			chk.max_inflight = chk.inflight;
	}
	return err;
}

static void check_stamps(const struct io_unit *u)
{
	const uint64_t *w = u->buf;
	uint32_t k;

	for (k = 0; k < u->len / 8; k++) {
		if (w[k] != u->offset + k * 8ULL) {
			chk.bad_stamps++;
			return;
		}
	}
}

static int check_reap(struct engine *e, unsigned int min, struct io_unit **done, unsigned int max)
{
	int n = chk.base->reap(e, min, done, max), i;

	for (i = 0; i < n; i++) {
		struct io_unit *u = done[i];

		chk.inflight--;
		if (u->res != u->len - u->done)
			continue;
		chk.completions++;
		if (chk.verify_stamps)
			check_stamps(u);
		if (chk.stop_after && chk.completions == chk.stop_after)
			*chk.stop = 1;
	}
	return n;
}

static void check_cleanup(struct engine *e)
{
	chk.base->cleanup(e);
}

static struct engine_ops check_ops = {
	.name = "check",
	.max_depth = WORKLOAD_MAX_DEPTH,
	.init = check_init,
	.submit = check_submit,
	.reap = check_reap,
	.cleanup = check_cleanup,
};

/* io_uring may be disabled by sysctl or seccomp: skip, saying why, rather than fail. */
static void skip_without_uring(int err)
{
	if (err == -EPERM || err == -ENOSYS || err == -EACCES) {
		print_message("io_uring unavailable (%s): skipping\n", strerror(-err));
		skip();
	}
}

static void test_engine_find(void **state)
{
	(void)state;
	assert_ptr_equal(engine__find("psync"), &engine_psync_ops);
	assert_ptr_equal(engine__find("io_uring"), &engine_uring_ops);
	assert_null(engine__find("libaio"));
	assert_null(engine__find(""));
}

static void test_psync_write_exact(void **state)
{
	struct job_params p = job("write", 4 * KIB, 1 * MIB, "psync", 1);
	struct app_stats s;
	char path[128];
	int fd;

	(void)state;
	tmp_path(path, sizeof(path), "write");
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	p.fsync = true;
	assert_int_equal(workload__run(&p, fd, 0, &s, NULL), 0);
	close(fd);
	assert_int_equal(s.ios, 256);
	assert_int_equal(s.bytes, 1 * MIB);
	assert_true(s.ns > 0);
	assert_stats_consistent(&s, p.bs);
	assert_pattern_blocks(path, p.bs, 1 * MIB);
	unlink(path);
}

static void test_psync_read_sequential(void **state)
{
	/* Asked for registered buffers, which psync has no use for: it says so. */
	struct workload_opts o = { .engine = &check_ops, .fixed_bufs = true };
	struct job_params p = job("read", 64 * KIB, 1 * MIB, "psync", 1);
	struct app_stats s;
	char path[128];
	uint64_t i;
	int fd;

	(void)state;
	tmp_path(path, sizeof(path), "seqread");
	write_stamped_file(path, 1 * MIB);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	check_reset(&engine_psync_ops, 1 * MIB, p.bs);
	chk.verify_stamps = true;
	assert_int_equal(workload__run_opts(&p, fd, 1 * MIB, &o, &s, NULL), 0);
	close(fd);
	unlink(path);
	assert_int_equal(s.ios, 16);
	assert_false(s.registered_bufs);
	assert_stats_consistent(&s, p.bs);
	assert_int_equal(chk.nr_offsets, 16);
	for (i = 0; i < 16; i++)
		assert_int_equal(chk.offsets[i], i * p.bs);
	assert_int_equal(chk.bad_stamps, 0);
	assert_int_equal(chk.max_inflight, 1);
}

/* A size beyond the file wraps at the file's end: 40 I/Os over 16 blocks. */
static void test_sequential_wraps_at_file_size(void **state)
{
	struct workload_opts o = { .engine = &check_ops };
	struct job_params p = job("read", 4 * KIB, 40 * 4 * KIB, "psync", 1);
	struct app_stats s;
	char path[128];
	uint64_t i;
	int fd;

	(void)state;
	tmp_path(path, sizeof(path), "wrap");
	write_stamped_file(path, 16 * 4 * KIB);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	check_reset(&engine_psync_ops, 16 * 4 * KIB, p.bs);
	chk.verify_stamps = true;
	assert_int_equal(workload__run_opts(&p, fd, 16 * 4 * KIB, &o, &s, NULL), 0);
	close(fd);
	unlink(path);
	assert_int_equal(s.ios, 40);
	assert_stats_consistent(&s, p.bs);
	for (i = 0; i < 40; i++)
		assert_int_equal(chk.offsets[i], (i % 16) * p.bs);
	assert_int_equal(chk.bad_stamps, 0);
}

static size_t count_distinct(const uint64_t *v, size_t n)
{
	uint64_t *s = malloc(n * sizeof(*s));
	size_t i, j, d = 0;

	assert_non_null(s);
	for (i = 0; i < n; i++) {
		for (j = 0; j < d && s[j] != v[i]; j++)
			;
		if (j == d)
			s[d++] = v[i];
	}
	free(s);
	return d;
}

/* Random offsets stay bs-aligned inside size (not the larger file) and repeat per seed. */
static void test_randread_offsets(void **state)
{
	struct workload_opts o = { .engine = &check_ops };
	struct job_params p = job("randread", 4 * KIB, 2 * MIB, "psync", 1);
	uint64_t first[512];
	struct app_stats s;
	char path[128];
	int fd;

	(void)state;
	tmp_path(path, sizeof(path), "randread");
	write_stamped_file(path, 4 * MIB);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);

	check_reset(&engine_psync_ops, 2 * MIB, p.bs);
	chk.verify_stamps = true;
	assert_int_equal(workload__run_opts(&p, fd, 4 * MIB, &o, &s, NULL), 0);
	assert_int_equal(s.ios, 512);
	assert_stats_consistent(&s, p.bs);
	assert_int_equal(chk.nr_offsets, 512);
	assert_int_equal(chk.bad_offsets, 0);
	assert_int_equal(chk.bad_stamps, 0);
	/* 512 uniform draws from 512 blocks hit about 512 (1 - 1/e) = 324 distinct ones. */
	assert_true(count_distinct(chk.offsets, 512) > 280);
	memcpy(first, chk.offsets, sizeof(first));

	check_reset(&engine_psync_ops, 2 * MIB, p.bs);
	assert_int_equal(workload__run_opts(&p, fd, 4 * MIB, &o, &s, NULL), 0);
	assert_memory_equal(first, chk.offsets, sizeof(first));

	o.seed = 42;
	check_reset(&engine_psync_ops, 2 * MIB, p.bs);
	assert_int_equal(workload__run_opts(&p, fd, 4 * MIB, &o, &s, NULL), 0);
	assert_memory_not_equal(first, chk.offsets, sizeof(first));
	assert_int_equal(chk.bad_offsets, 0);
	close(fd);
	unlink(path);
}

static void test_uring_write_depth8(void **state)
{
	struct workload_opts o = { .engine = &check_ops };
	struct job_params p = job("write", 4 * KIB, 1 * MIB, "io_uring", 8);
	struct app_stats s;
	char path[128];
	int fd, err;

	(void)state;
	tmp_path(path, sizeof(path), "uring_write");
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	check_reset(&engine_uring_ops, 1 * MIB, p.bs);
	p.fdatasync = true;
	err = workload__run_opts(&p, fd, 0, &o, &s, NULL);
	close(fd);
	if (err)
		unlink(path);
	skip_without_uring(err);
	assert_int_equal(err, 0);
	assert_int_equal(s.ios, 256);
	assert_int_equal(s.bytes, 1 * MIB);
	assert_stats_consistent(&s, p.bs);
	assert_int_equal(chk.max_inflight, 8);
	assert_int_equal(chk.bad_offsets, 0);
	assert_pattern_blocks(path, p.bs, 1 * MIB);
	unlink(path);
}

static void uring_randread(bool fixed_bufs, bool direct)
{
	struct workload_opts o = { .engine = &check_ops, .fixed_bufs = fixed_bufs };
	struct job_params p = job("randread", 4 * KIB, 4 * MIB, "io_uring", 8);
	struct app_stats s;
	char path[128];
	int fd, err;

	tmp_path(path, sizeof(path), "uring_read");
	write_stamped_file(path, 1 * MIB);
	fd = open(path, O_RDONLY | (direct ? O_DIRECT : 0));
	if (fd < 0 && direct) {
		unlink(path);
		print_message("O_DIRECT refused in %s: skipping\n", tmpdir);
		skip();
	}
	assert_true(fd >= 0);
	check_reset(&engine_uring_ops, 1 * MIB, p.bs);
	chk.verify_stamps = true;
	err = workload__run_opts(&p, fd, 1 * MIB, &o, &s, NULL);
	close(fd);
	unlink(path);
	skip_without_uring(err);
	assert_int_equal(err, 0);
	/* Registration may be refused (RLIMIT_MEMLOCK) unless we may lock memory. */
	if (!fixed_bufs)
		assert_false(s.registered_bufs);
	else if (geteuid() == 0)
		assert_true(s.registered_bufs);
	/* 4 MiB over a 1 MiB file: the region is the file, the count is the size. */
	assert_int_equal(s.ios, 1024);
	assert_stats_consistent(&s, p.bs);
	assert_int_equal(chk.completions, 1024);
	assert_int_equal(chk.max_inflight, 8);
	assert_int_equal(chk.bad_offsets, 0);
	assert_int_equal(chk.bad_stamps, 0);
}

static void test_uring_randread_depth8(void **state)
{
	(void)state;
	uring_randread(false, false);
}

static void test_uring_randread_fixed_bufs(void **state)
{
	(void)state;
	uring_randread(true, false);
}

static void test_uring_randread_direct(void **state)
{
	(void)state;
	uring_randread(true, true);
}

static void test_invalid_jobs(void **state)
{
	struct job_params p = job("read", 4 * KIB, 4 * KIB * 10 + 512, "psync", 1);
	struct app_stats s;

	(void)state;
	memset(&s, 0xff, sizeof(s));
	/* fd -1: every one of these must be refused before any I/O. */
	assert_int_equal(workload__run(&p, -1, 1 * MIB, &s, NULL), -EINVAL);
	assert_int_equal(s.ios, 0);
	assert_int_equal(hist_total(&s), 0);

	p = job("read", 0, 1 * MIB, "psync", 1);
	assert_int_equal(workload__run(&p, -1, 1 * MIB, &s, NULL), -EINVAL);
	p = job("read", 2 * WORKLOAD_MAX_BS, 2 * WORKLOAD_MAX_BS, "psync", 1);
	assert_int_equal(workload__run(&p, -1, 0, &s, NULL), -EINVAL);
	p = job("readwrite", 4 * KIB, 1 * MIB, "psync", 1);
	assert_int_equal(workload__run(&p, -1, 1 * MIB, &s, NULL), -EINVAL);
	p = job("read", 4 * KIB, 1 * MIB, "libaio", 1);
	assert_int_equal(workload__run(&p, -1, 1 * MIB, &s, NULL), -EINVAL);
	p = job("read", 4 * KIB, 0, "psync", 1);
	assert_int_equal(workload__run(&p, -1, 0, &s, NULL), -EINVAL);
	p = job("read", 4 * KIB, 0, "psync", 1);
	assert_int_equal(workload__run(&p, -1, 2 * KIB, &s, NULL), -EINVAL);
	p = job("read", 4 * KIB, 1 * MIB, "psync", 1);
	p.runtime = -1;
	assert_int_equal(workload__run(&p, -1, 1 * MIB, &s, NULL), -EINVAL);
	p = job("read", 4 * KIB, 1 * MIB, "io_uring", WORKLOAD_MAX_DEPTH + 1);
	assert_int_equal(workload__run(&p, -1, 1 * MIB, &s, NULL), -EINVAL);
}

/* The stop flag ends a run after the I/O in progress, with the stats so far. */
static void test_stop_flag_psync(void **state)
{
	struct workload_opts o = { .engine = &check_ops };
	struct job_params p = job("read", 4 * KIB, 1 * MIB, "psync", 1);
	volatile sig_atomic_t stop = 0;
	struct app_stats s;
	char path[128];
	int fd;

	(void)state;
	tmp_path(path, sizeof(path), "stop");
	write_stamped_file(path, 1 * MIB);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	check_reset(&engine_psync_ops, 1 * MIB, p.bs);
	chk.stop_after = 100;
	chk.stop = &stop;
	assert_int_equal(workload__run_opts(&p, fd, 1 * MIB, &o, &s, &stop), -EINTR);
	assert_int_equal(s.ios, 100);
	assert_int_equal(s.bytes, 100 * p.bs);
	assert_true(s.ns > 0);
	assert_stats_consistent(&s, p.bs);

	/* Already set: nothing is issued at all. */
	assert_int_equal(workload__run(&p, fd, 1 * MIB, &s, &stop), -EINTR);
	assert_int_equal(s.ios, 0);
	close(fd);
	unlink(path);
}

static void *stop_later(void *arg)
{
	struct timespec ts = { .tv_nsec = 50 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	*(volatile sig_atomic_t *)arg = 1;
	return NULL;
}

/* Time-based io_uring run cut short from another thread, as a signal handler would. */
static void test_stop_flag_uring(void **state)
{
	struct job_params p = job("randread", 4 * KIB, 1 * MIB, "io_uring", 8);
	volatile sig_atomic_t stop = 0;
	struct app_stats s;
	pthread_t thread;
	char path[128];
	int fd, err;

	(void)state;
	tmp_path(path, sizeof(path), "stop_uring");
	write_stamped_file(path, 1 * MIB);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	p.runtime = 60;
	assert_int_equal(pthread_create(&thread, NULL, stop_later, (void *)&stop), 0);
	err = workload__run(&p, fd, 1 * MIB, &s, &stop);
	pthread_join(thread, NULL);
	close(fd);
	unlink(path);
	skip_without_uring(err);
	assert_int_equal(err, -EINTR);
	assert_true(s.ios > 0);
	assert_true(s.ns < 10ULL * 1000 * 1000 * 1000);
	assert_stats_consistent(&s, p.bs);
}

/* With a runtime, a small size wraps until the time is up. */
static void test_runtime_wraps(void **state)
{
	struct job_params p = job("read", 4 * KIB, 64 * KIB, "psync", 1);
	struct app_stats s;
	char path[128];
	int fd;

	(void)state;
	tmp_path(path, sizeof(path), "runtime");
	write_stamped_file(path, 64 * KIB);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	p.runtime = 0.1;
	assert_int_equal(workload__run(&p, fd, 64 * KIB, &s, NULL), 0);
	close(fd);
	unlink(path);
	assert_true(s.ios > 16);
	assert_true(s.ns >= 100ULL * 1000 * 1000);
	assert_true(s.ns < 5ULL * 1000 * 1000 * 1000);
	assert_stats_consistent(&s, p.bs);
}

/* Short transfers are continued, not counted as I/Os of their own. */
static void short_io(const struct engine_ops *base, unsigned int depth)
{
	struct workload_opts o = { .engine = &check_ops };
	struct job_params p = job("read", 16 * KIB, 1 * MIB, "psync", depth);
	struct app_stats s;
	char path[128];
	int fd, err;

	tmp_path(path, sizeof(path), "short");
	write_stamped_file(path, 1 * MIB);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	check_reset(base, 1 * MIB, p.bs);
	chk.verify_stamps = true;
	chk.halve = true;
	err = workload__run_opts(&p, fd, 1 * MIB, &o, &s, NULL);
	close(fd);
	unlink(path);
	skip_without_uring(err);
	assert_int_equal(err, 0);
	assert_int_equal(s.ios, 64);
	assert_stats_consistent(&s, p.bs);
	assert_int_equal(chk.retries, 64);
	assert_int_equal(chk.bad_stamps, 0);
}

static void test_short_io_psync(void **state)
{
	(void)state;
	short_io(&engine_psync_ops, 1);
}

static void test_short_io_uring(void **state)
{
	(void)state;
	short_io(&engine_uring_ops, 4);
}

/* A region larger than the file: the read at end of file is -EIO, not a hang. */
static void test_read_past_eof(void **state)
{
	struct job_params p = job("read", 4 * KIB, 11 * 4 * KIB, "psync", 1);
	struct app_stats s;
	char path[128];
	int fd, err;

	(void)state;
	tmp_path(path, sizeof(path), "eof");
	write_stamped_file(path, 10 * 4 * KIB + 2 * KIB);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(workload__run(&p, fd, 11 * 4 * KIB, &s, NULL), -EIO);
	assert_int_equal(s.ios, 10);
	assert_stats_consistent(&s, p.bs);
	p = job("read", 4 * KIB, 11 * 4 * KIB, "io_uring", 4);
	err = workload__run(&p, fd, 11 * 4 * KIB, &s, NULL);
	close(fd);
	unlink(path);
	skip_without_uring(err);
	assert_int_equal(err, -EIO);
	assert_int_equal(s.ios, 10);
}

static void test_fill_fd(void **state)
{
	volatile sig_atomic_t stop = 1;
	uint64_t size = 0;
	char path[128], *data, *pattern;
	int fd;

	(void)state;
	tmp_path(path, sizeof(path), "filled");
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(workload__fill_fd(fd, 5 * MIB + 512, NULL), 0);
	assert_int_equal(workload__file_size(fd, &size), 0);
	assert_int_equal(size, 5 * MIB + 512);
	close(fd);
	data = read_whole_file(path, &size);
	assert_int_equal(size, 5 * MIB + 512);
	/* Written in 4 MiB chunks of the pattern. */
	pattern = malloc(4 * MIB);
	assert_non_null(pattern);
	workload__fill_pattern(pattern, 4 * MIB);
	assert_memory_equal(data, pattern, 4 * MIB);
	assert_memory_equal(data + 4 * MIB, pattern, 1 * MIB + 512);
	free(pattern);
	free(data);

	/* Stopped before the first write: nothing written, -EINTR. */
	fd = open(path, O_RDWR | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(workload__fill_fd(fd, 1 * MIB, &stop), -EINTR);
	assert_int_equal(workload__file_size(fd, &size), 0);
	assert_int_equal(size, 0);
	close(fd);
	unlink(path);

	fd = open(tmpdir, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_int_equal(workload__file_size(fd, &size), -EINVAL);
	close(fd);
}

static void test_fill_pattern_not_zero(void **state)
{
	unsigned char buf[4096];
	size_t i, zeros = 0;

	(void)state;
	workload__fill_pattern(buf, sizeof(buf));
	for (i = 0; i < sizeof(buf); i++)
		zeros += !buf[i];
	/* Random bytes: about 16 zeros in 4096. */
	assert_true(zeros < 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_engine_find),
		cmocka_unit_test(test_psync_write_exact),
		cmocka_unit_test(test_psync_read_sequential),
		cmocka_unit_test(test_sequential_wraps_at_file_size),
		cmocka_unit_test(test_randread_offsets),
		cmocka_unit_test(test_uring_write_depth8),
		cmocka_unit_test(test_uring_randread_depth8),
		cmocka_unit_test(test_uring_randread_fixed_bufs),
		cmocka_unit_test(test_uring_randread_direct),
		cmocka_unit_test(test_invalid_jobs),
		cmocka_unit_test(test_stop_flag_psync),
		cmocka_unit_test(test_stop_flag_uring),
		cmocka_unit_test(test_runtime_wraps),
		cmocka_unit_test(test_short_io_psync),
		cmocka_unit_test(test_short_io_uring),
		cmocka_unit_test(test_read_past_eof),
		cmocka_unit_test(test_fill_fd),
		cmocka_unit_test(test_fill_pattern_not_zero),
	};

	/* A lost completion shows up as a wait that never ends: fail it, do not hang. */
	alarm(120);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
