// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The driver loop behind every engine, and the application-side accounting.
 *
 * Clock reads: one per reap batch. The stamp taken after a batch completes is the
 * end of every I/O in it and the start of every I/O submitted right after, so
 * psync reads the clock once per I/O and io_uring once per wakeup. The time the
 * loop itself spends between stamps lands in the next I/O's latency; it is tens
 * of nanoseconds against microseconds of I/O.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/clock.h"
#include "workload/engine.h"
#include "workload/workload.h"

#define WL_ALIGN 4096
#define WL_HUGE (2UL << 20) /* an x86-64 PMD page; transparent huge pages come in these */
#define WL_DEFAULT_SEED 0x626c6b7472616365ULL /* "blktrace" */
#define WL_PATTERN_SEED 0x5061747465726e21ULL /* "Pattern!" */
#define WL_FILL_CHUNK (4U << 20)

static uint64_t wl_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void workload__fill_pattern(void *buf, size_t len)
{
	uint64_t state = WL_PATTERN_SEED, v;
	unsigned char *p = buf;
	size_t n;

	while (len) {
		v = wl_splitmix64(&state);
		n = len < sizeof(v) ? len : sizeof(v);
		memcpy(p, &v, n);
		p += n;
		len -= n;
	}
}

/* The job, checked and reduced to what the loop needs. */
struct wl_job {
	bool write, random;
	uint32_t bs;
	uint64_t region;     /* bytes addressed, a multiple of bs */
	uint64_t nblocks;    /* region / bs */
	uint64_t total;	     /* I/Os to issue; UINT64_MAX when time-based */
	uint64_t runtime_ns; /* 0: none */
	unsigned int depth;
	uint64_t next; /* sequential: the next offset */
	uint64_t rng;  /* random: splitmix64 state */
};

static int wl_job_init(struct wl_job *j, const struct job_params *p, uint64_t file_size,
		       const struct engine_ops *ops, uint64_t seed)
{
	uint64_t region;

	memset(j, 0, sizeof(*j));
	if (!strcmp(p->rw, "read")) {
	} else if (!strcmp(p->rw, "write")) {
		j->write = true;
	} else if (!strcmp(p->rw, "randread")) {
		j->random = true;
	} else if (!strcmp(p->rw, "randwrite")) {
		j->write = j->random = true;
	} else {
		return -EINVAL;
	}
	if (!p->bs || p->bs > WORKLOAD_MAX_BS || p->size % p->bs)
		return -EINVAL;
	if (!(p->runtime >= 0) || !isfinite(p->runtime))
		return -EINVAL;
	if (p->iodepth > WORKLOAD_MAX_DEPTH)
		return -EINVAL;
	j->bs = p->bs;

	if (p->size && file_size)
		region = p->size < file_size ? p->size : file_size;
	else
		region = p->size ? p->size : file_size;
	region -= region % p->bs;
	if (!region)
		return -EINVAL;
	j->region = region;
	j->nblocks = region / p->bs;

	if (p->runtime > 0) {
		/* Capped at about 292 years, where a double stops mattering anyway. */
		j->runtime_ns = p->runtime >= 9.2e9 ? INT64_MAX : (uint64_t)(p->runtime * 1e9);
		if (!j->runtime_ns)
			j->runtime_ns = 1;
		j->total = UINT64_MAX;
	} else {
		j->total = (p->size ? p->size : region) / p->bs;
	}

	/* Synchronous engines serve one I/O at a time whatever the depth, as in fio. */
	j->depth = p->iodepth ? p->iodepth : 1;
	if (j->depth > ops->max_depth)
		j->depth = ops->max_depth;
	if (j->depth > j->total)
		j->depth = j->total;
	j->rng = seed ? seed : WL_DEFAULT_SEED;
	return 0;
}

static uint64_t wl_next_offset(struct wl_job *j)
{
	uint64_t off;

	if (j->random) {
		/* Lemire's multiply-shift: uniform in [0, nblocks) without a division. */
		off = (unsigned __int128)wl_splitmix64(&j->rng) * j->nblocks >> 64;
		return off * j->bs;
	}
	off = j->next;
	j->next += j->bs;
	if (j->next >= j->region)
		j->next = 0;
	return off;
}

static void wl_account(struct app_stats *out, const struct io_unit *u, uint64_t now)
{
	uint64_t lat = now - u->start_ns;

	out->lat[hist_lat_index(lat)]++;
	out->lat_sum_ns += lat;
	if (lat > out->lat_max_ns)
		out->lat_max_ns = lat;
	out->bytes += u->len;
	out->ios++;
}

/* The unit arrays of one run: idle units, the batch to submit, completions, retries. */
struct wl_units {
	struct io_unit *units;
	void *bufs;
	size_t huge_len; /* bufs is an mmap of this many bytes; 0: malloc'd */
	struct io_unit **idle, **batch, **done, **retry;
};

/*
 * The kernel's word on whether [addr, addr + len) is backed by huge pages:
 * AnonHugePages of its mapping in /proc/self/smaps.
 */
static bool wl_is_huge(const void *addr, size_t len)
{
	unsigned long lo, hi, kb;
	bool in = false, huge = false;
	char line[256];
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			in = lo <= (unsigned long)addr && (unsigned long)addr < hi;
		else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			huge = kb * 1024 >= len;
	}
	fclose(f);
	return huge;
}

/*
 * Buffers in transparent huge pages: an anonymous mapping aligned to, and a multiple
 * of, the huge page size, advised MADV_HUGEPAGE. Physically contiguous memory makes a
 * 1 MiB buffer one segment instead of 256, so the disk's own limits shape the
 * requests. There is no library for this; mmap and madvise are the interface.
 */
static void *wl_huge_alloc(size_t len, size_t *mapped)
{
	size_t want = (len + WL_HUGE - 1) & ~(WL_HUGE - 1);
	char *p = mmap(NULL, want + WL_HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	char *aligned;

	if (p == MAP_FAILED)
		return NULL;
	aligned = (char *)(((uintptr_t)p + WL_HUGE - 1) & ~(uintptr_t)(WL_HUGE - 1));
	/* Keep only the aligned part: the mapping is then exactly the buffer. */
	if (aligned > p)
		munmap(p, aligned - p);
	if (aligned + want < p + want + WL_HUGE)
		munmap(aligned + want, p + want + WL_HUGE - (aligned + want));
	madvise(aligned, want, MADV_HUGEPAGE);
	*mapped = want;
	return aligned;
}

static void wl_units_free(struct wl_units *w)
{
	free(w->units);
	if (w->huge_len)
		munmap(w->bufs, w->huge_len);
	else
		free(w->bufs);
	free(w->idle);
	free(w->batch);
	free(w->done);
	free(w->retry);
}

static int wl_units_alloc(struct wl_units *w, const struct wl_job *j, bool huge)
{
	size_t buflen = ((size_t)j->bs + WL_ALIGN - 1) & ~(size_t)(WL_ALIGN - 1);
	unsigned int i;

	memset(w, 0, sizeof(*w));
	if (huge) {
		w->bufs = wl_huge_alloc(buflen * j->depth, &w->huge_len);
		if (!w->bufs)
			return -ENOMEM;
	} else if (posix_memalign(&w->bufs, WL_ALIGN, buflen * j->depth)) {
		w->bufs = NULL;
		return -ENOMEM;
	}
	w->units = calloc(j->depth, sizeof(*w->units));
	w->idle = calloc(j->depth, sizeof(*w->idle));
	w->batch = calloc(j->depth, sizeof(*w->batch));
	w->done = calloc(j->depth, sizeof(*w->done));
	w->retry = calloc(j->depth, sizeof(*w->retry));
	if (!w->units || !w->idle || !w->batch || !w->done || !w->retry)
		return -ENOMEM;
	for (i = 0; i < j->depth; i++) {
		w->units[i].buf = (char *)w->bufs + i * buflen;
		w->units[i].len = j->bs;
		w->units[i].index = i;
		/* Touch every page now, so that no page fault lands in the timed loop. */
		if (j->write)
			workload__fill_pattern(w->units[i].buf, buflen);
		else
			memset(w->units[i].buf, 0, buflen);
	}
	return 0;
}

/* Sort out one finished attempt: complete it, queue its remainder again, or fail. */
static int wl_complete(struct app_stats *out, struct io_unit *u, uint64_t now,
		       struct io_unit **retry, unsigned int *nr_retry, bool *finished)
{
	int64_t left = u->len - u->done;

	*finished = false;
	if (u->res == left) {
		wl_account(out, u, now);
		*finished = true;
		return 0;
	}
	if (u->res > 0 && u->res < left) {
		u->done += u->res;
		retry[(*nr_retry)++] = u;
		return 0;
	}
	if (u->res == -EINTR || u->res == -EAGAIN) {
		retry[(*nr_retry)++] = u;
		return 0;
	}
	*finished = true;
	/* No progress at all: for a read that is end of file, the region lied. */
	return u->res < 0 ? (int)u->res : -EIO;
}

/* The driver loop's state between batches. */
struct wl_loop {
	struct engine e;
	struct wl_job j;
	struct wl_units w;
	unsigned int nr_idle, nr_retry, inflight;
	uint64_t issued;
	uint64_t now;  /* the stamp of the last batch */
	bool stopping; /* submit nothing new, reap what is in flight */
	int err;       /* the run's outcome so far */
};

/* The next batch: remainders first, then new I/Os; nothing once stopping. */
static unsigned int wl_next_batch(struct wl_loop *l)
{
	unsigned int nr = 0;

	if (l->stopping) {
		/* A remainder not yet resubmitted is abandoned, like a new I/O. */
		while (l->nr_retry)
			l->w.idle[l->nr_idle++] = l->w.retry[--l->nr_retry];
		return 0;
	}
	while (l->nr_retry)
		l->w.batch[nr++] = l->w.retry[--l->nr_retry];
	while (l->nr_idle && l->issued < l->j.total) {
		struct io_unit *u = l->w.idle[--l->nr_idle];

		u->offset = wl_next_offset(&l->j);
		u->done = 0;
		u->start_ns = l->now;
		l->w.batch[nr++] = u;
		l->issued++;
	}
	return nr;
}

static void wl_submit_batch(struct wl_loop *l, unsigned int nr)
{
	unsigned int i;
	int ret;

	if (!nr)
		return;
	ret = l->e.ops->submit(&l->e, l->w.batch, nr);
	if (!ret) {
		l->inflight += nr;
		return;
	}
	for (i = 0; i < nr; i++)
		l->w.idle[l->nr_idle++] = l->w.batch[i];
	l->stopping = true;
	if (!l->err)
		l->err = ret;
}

/*
 * Wait for completions and sort them out. -errno when the engine lost track of its
 * I/Os: the caller's cleanup then tears the engine down (io_uring cancels what is
 * left) before the buffers go.
 */
static int wl_reap_batch(struct wl_loop *l, struct app_stats *out)
{
	int ret = l->e.ops->reap(&l->e, 1, l->w.done, l->j.depth);
	unsigned int i, nr;
	bool finished;

	l->now = clock__ns();
	if (ret < 0) {
		l->err = ret;
		return ret;
	}
	nr = ret;
	for (i = 0; i < nr; i++) {
		struct io_unit *u = l->w.done[i];

		l->inflight--;
		ret = wl_complete(out, u, l->now, l->w.retry, &l->nr_retry, &finished);
		if (finished)
			l->w.idle[l->nr_idle++] = u;
		if (ret) {
			l->stopping = true;
			if (!l->err || l->err == -EINTR)
				l->err = ret;
		}
	}
	return 0;
}

/* Submit and reap until nothing is left to do or in flight: the timed part of a run. */
static void wl_drive(struct wl_loop *l, struct app_stats *out, volatile sig_atomic_t *stop)
{
	uint64_t deadline = l->j.runtime_ns ? l->now + l->j.runtime_ns : UINT64_MAX;

	for (;;) {
		if (l->now >= deadline)
			l->stopping = true;
		if (stop && *stop && !l->stopping) {
			l->stopping = true;
			if (!l->err)
				l->err = -EINTR;
		}
		wl_submit_batch(l, wl_next_batch(l));
		if (!l->inflight || wl_reap_batch(l, out))
			break;
	}
}

/* Units, idle list and engine for a run of l->j; out learns about the buffers. */
static int wl_loop_init(struct wl_loop *l, const struct engine_ops *ops,
			const struct workload_opts *opts, struct app_stats *out)
{
	int err = wl_units_alloc(&l->w, &l->j, opts && opts->hugepages);

	if (err)
		return err;
	/* After the first touch (in wl_units_alloc): only then are pages, huge or not, there. */
	out->huge_bufs = l->w.huge_len && wl_is_huge(l->w.bufs, l->w.huge_len);
	for (l->nr_idle = 0; l->nr_idle < l->j.depth; l->nr_idle++)
		l->w.idle[l->nr_idle] = &l->w.units[l->j.depth - 1 - l->nr_idle];
	l->e.ops = ops;
	l->e.write = l->j.write;
	l->e.fixed_bufs = opts && opts->fixed_bufs;
	l->e.depth = l->j.depth;
	l->e.units = l->w.units;
	return ops->init(&l->e);
}

int workload__run_opts(const struct job_params *p, int fd, uint64_t file_size,
		       const struct workload_opts *opts, struct app_stats *out,
		       volatile sig_atomic_t *stop)
{
	const struct engine_ops *ops = opts && opts->engine ? opts->engine : NULL;
	struct wl_loop l = { .e = { .fd = fd } };
	uint64_t t0;
	int err;

	memset(out, 0, sizeof(*out));
	if (!ops)
		ops = engine__find(p->engine);
	if (!ops)
		return -EINVAL;
	err = wl_job_init(&l.j, p, file_size, ops, opts ? opts->seed : 0);
	if (err)
		return err;
	err = wl_loop_init(&l, ops, opts, out);
	if (err) {
		l.e.ops = NULL; /* not up: nothing to clean up */
		goto cleanup;
	}
	out->registered_bufs = l.e.fixed_bufs;
	l.now = t0 = clock__ns();
	wl_drive(&l, out, stop);
	err = l.err;
	if (!err && (p->fsync || p->fdatasync)) {
		if (p->fsync ? fsync(fd) : fdatasync(fd))
			err = -errno;
		l.now = clock__ns();
	}
	out->ns = l.now - t0;
cleanup:
	if (l.e.ops)
		ops->cleanup(&l.e);
	wl_units_free(&l.w);
	return err;
}

int workload__run(const struct job_params *p, int fd, uint64_t file_size, struct app_stats *out,
		  volatile sig_atomic_t *stop)
{
	return workload__run_opts(p, fd, file_size, NULL, out, stop);
}

int workload__fill_fd(int fd, uint64_t size, volatile sig_atomic_t *stop)
{
	void *buf = NULL;
	uint64_t off = 0;
	ssize_t ret;
	size_t n;
	int err;

	if (posix_memalign(&buf, WL_ALIGN, WL_FILL_CHUNK))
		return -ENOMEM;
	workload__fill_pattern(buf, WL_FILL_CHUNK);
	while (off < size) {
		if (stop && *stop) {
			err = -EINTR;
			goto cleanup;
		}
		n = size - off < WL_FILL_CHUNK ? size - off : WL_FILL_CHUNK;
		ret = pwrite(fd, buf, n, off);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret <= 0) {
			err = ret < 0 ? -errno : -EIO;
			goto cleanup;
		}
		off += ret;
	}
	if (fsync(fd)) {
		err = -errno;
		goto cleanup;
	}
	/* The blocks are on disk now; a cached copy would only hide them from a read job. */
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	err = 0;
cleanup:
	free(buf);
	return err;
}

int workload__file_size(int fd, uint64_t *size)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISBLK(st.st_mode))
		return ioctl(fd, BLKGETSIZE64, size) ? -errno : 0;
	if (S_ISREG(st.st_mode)) {
		*size = st.st_size;
		return 0;
	}
	return -EINVAL;
}
