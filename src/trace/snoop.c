// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Snoop mode: one record per completed request, from the BPF ring buffer to a file.
 * A thread of its own drains the ring buffer, so the command or the sleep of the
 * main thread never delays it. See snoop.h for the file layout.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "base/clock.h"
#include "base/diag.h"
#include "files/infile.h"
#include "trace/ringbuf_drain.h"
#include "trace/snoop.h"
#include "result/run.h"
#include "base/text.h"

/* 20 ms at 150k IOPS is ~220 KB of the 4 MiB ring buffer. */
#define SNOOP_TICK_MS 20

/*
 * The depths. A record comes at completion and carries its issue time (ts_ns -
 * device_ns); the depth at a request's issue is the requests of its disk issued by then
 * and not yet completed, itself included: a sweep over the issues and completions in
 * time order, a count per disk. The programs do not read the disk's in-flight counts
 * at each issue for it (lines the completing CPUs write: doc/performance.md).
 *
 * A sweep up to time W must know every request issued before W. Those completed have
 * their record in the ring (the programs send it before they free the slot); those in
 * flight hold a slot with their issue time. So before each drain, W is the oldest issue
 * time in the slots (the map, mapped read-only), and at most SWEEP_MARGIN_NS before now
 * (an issue whose program read the clock and has not yet written its slot); after the
 * drain, the events before W are swept and the records completed before W written, in
 * completion order. A slot whose completion the kernel never reported (6.18 now and
 * then) holds W until its tag is issued again: past HOLD_MAX records held, the oldest
 * are written as if W had passed them, and a record that comes for a time already swept
 * is written with depth 0, counted late. Written by hand: no library sweeps this.
 */
#define SWEEP_MARGIN_NS (4 * 1000000ULL)
#define HOLD_MAX 8192

struct held {
	struct blkio_event e;
	uint64_t issue;
	uint32_t disk; /* its disk's in-flight count: snoop.disks[disk] */
	bool issued;   /* its issue swept (or late: never counted) */
	bool late;
};

/* An issue or a completion of a held record. */
struct sweep_event {
	uint64_t t;
	uint32_t i;
	uint32_t done; /* 0: issue, 1: completion */
};

/* The requests of a disk in flight (of those whose records came in time). */
struct disk_count {
	uint32_t dev;
	uint32_t n;
};

struct snoop {
	struct ringbuf_drain *drain;
	FILE *f;
	int err;
	unsigned long long records, late;
	const struct blkio_slot *slots;
	size_t nr_slots, map_len;
	uint64_t w;	/* this tick's sweep limit */
	uint64_t swept; /* every event before it is swept */
	struct held *h;
	size_t n, cap;
	struct sweep_event *ev;
	size_t ev_cap;
	struct disk_count *disks;
	size_t nr_disks, disks_cap;
};

static int grow(void **p, size_t *cap, size_t want, size_t size)
{
	size_t n = *cap ? *cap : 256;
	void *q;

	if (want <= *cap)
		return 0;
	while (n < want)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* DEV's in-flight count (found once a record, kept in it), or -ENOMEM. */
static int disk_of(struct snoop *s, uint32_t dev, uint32_t *disk)
{
	size_t i;

	for (i = 0; i < s->nr_disks; i++)
		if (s->disks[i].dev == dev)
			break;
	if (i == s->nr_disks) {
		if (grow((void **)&s->disks, &s->disks_cap, i + 1, sizeof(*s->disks)))
			return -ENOMEM;
		s->disks[s->nr_disks++] = (struct disk_count){ dev, 0 };
	}
	*disk = (uint32_t)i;
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct sweep_event *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	/* At one time a completion first (it is not in flight), then by record. */
	if (x->done != y->done)
		return x->done > y->done ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static void count_issue(struct snoop *s, struct held *h)
{
	uint32_t c = ++s->disks[h->disk].n;

	h->issued = true;
	h->e.depth = c > UINT16_MAX ? UINT16_MAX : (__u16)c;
}

/* Every event before W, in time order; the records completed before W written. */
static int sweep(struct snoop *s, uint64_t w)
{
	size_t i, k = 0, kept = 0;
	int err = 0;

	if (grow((void **)&s->ev, &s->ev_cap, 2 * s->n, sizeof(*s->ev)))
		return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		if (!s->h[i].issued && s->h[i].issue < w)
			s->ev[k++] = (struct sweep_event){ s->h[i].issue, (uint32_t)i, 0 };
		if (s->h[i].e.ts_ns < w)
			s->ev[k++] = (struct sweep_event){ s->h[i].e.ts_ns, (uint32_t)i, 1 };
	}
	if (k)
		qsort(s->ev, k, sizeof(*s->ev), by_time);
	for (i = 0; i < k && !err; i++) {
		struct held *h = &s->h[s->ev[i].i];

		if (!h->issued) /* issued and completed at one time: the issue first */
			count_issue(s, h);
		if (!s->ev[i].done)
			continue;
		if (!h->late)
			s->disks[h->disk].n--;
		if (fwrite(&h->e, sizeof(h->e), 1, s->f) != 1)
			err = -errno ?: -EIO;
		s->records++;
	}
	/* The records not written, in their order. */
	for (i = 0; i < s->n; i++)
		if (s->h[i].e.ts_ns >= w)
			s->h[kept++] = s->h[i];
	s->n = kept;
	if (w > s->swept)
		s->swept = w;
	return err;
}

static int ts_order(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Past HOLD_MAX records held: the oldest written, as if W had passed them. */
static int bound(struct snoop *s)
{
	uint64_t *ts;
	size_t i;
	int err;

	if (s->n <= HOLD_MAX)
		return 0;
	ts = malloc(s->n * sizeof(*ts));
	if (!ts)
		return -ENOMEM;
	for (i = 0; i < s->n; i++)
		ts[i] = s->h[i].e.ts_ns;
	qsort(ts, s->n, sizeof(*ts), ts_order);
	err = sweep(s, ts[s->n - HOLD_MAX] + 1);
	free(ts);
	return err;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct snoop *s = ctx;
	struct held *h;

	if (size < sizeof(struct blkio_event))
		return 0;
	if (grow((void **)&s->h, &s->cap, s->n + 1, sizeof(*s->h)) ||
	    disk_of(s, ((const struct blkio_event *)data)->dev, &s->h[s->n].disk)) {
		s->err = -ENOMEM;
		return s->err; /* stops ring_buffer__poll */
	}
	h = &s->h[s->n++];
	memcpy(&h->e, data, sizeof(h->e));
	h->issue = h->e.ts_ns - h->e.device_ns;
	h->issued = h->late = h->issue < s->swept;
	h->e.depth = 0;
	s->late += h->late;
	return 0;
}

/* Before a drain, the sweep's limit from the slots; after it, the sweep. */
static int on_tick(void *ctx, bool before)
{
	struct snoop *s = ctx;
	uint64_t w;
	size_t i;
	int err;

	if (!before) {
		err = sweep(s, s->w);
		err = err ?: bound(s);
		if (err && !s->err)
			s->err = err;
		return s->err;
	}
	w = clock__ns() - SWEEP_MARGIN_NS;
	for (i = 0; i < s->nr_slots; i++) {
		uint64_t t = __atomic_load_n(&s->slots[i].issued, __ATOMIC_RELAXED);

		if (t && t < w)
			w = t;
	}
	/* The slots read before the ring: a free slot's record is in the ring by then. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	s->w = w;
	return 0;
}

static void free_snoop(struct snoop *s)
{
	if (s->slots)
		munmap((void *)s->slots, s->map_len);
	free(s->h);
	free(s->ev);
	free(s->disks);
	free(s);
}

int snoop__start(int ringbuf_fd, int slots_fd, size_t nr_slots, FILE *f, struct snoop **out)
{
	struct snoop_header h = { .magic = SNOOP_MAGIC,
				  .version = SNOOP_VERSION,
				  .record_size = sizeof(struct blkio_event) };
	long page = sysconf(_SC_PAGESIZE);
	struct snoop *s;
	void *m;
	int err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->f = f;
	s->nr_slots = nr_slots;
	s->map_len = (nr_slots * sizeof(struct blkio_slot) + page - 1) / page * page;
	m = mmap(NULL, s->map_len, PROT_READ, MAP_SHARED, slots_fd, 0);
	if (m == MAP_FAILED) {
		err = -errno;
		goto cleanup;
	}
	s->slots = m;
	if (fwrite(&h, sizeof(h), 1, s->f) != 1) {
		err = -errno ?: -EIO;
		goto cleanup;
	}
	err = ringbuf_drain__start_ticked(ringbuf_fd, on_event, on_tick, s, SNOOP_TICK_MS,
					  &s->drain);
	if (err)
		goto cleanup;
	*out = s;
	return 0;
cleanup:
	free_snoop(s);
	return err;
}

int snoop__stop(struct snoop *s, unsigned long long *records, unsigned long long *late)
{
	int err;

	if (!s)
		return 0;
	err = ringbuf_drain__stop(s->drain);
	/* Every request whose record came is complete: all of them, in order. */
	if (!err && !s->err)
		s->err = sweep(s, UINT64_MAX);
	if (s->err) /* our own error first: it is what stopped the draining */
		err = s->err;
	if (records)
		*records = s->records;
	if (late)
		*late = s->late;
	free_snoop(s);
	return err;
}

/* Process names are another process's bytes: escaped (text.h), never raw. */
static void print_record(FILE *out, const struct blkio_event *e)
{
	char comm[4 * sizeof(e->comm) + 1], sector[24] = "-";

	if (e->sector != SNOOP_NO_SECTOR)
		snprintf(sector, sizeof(sector), "%llu", (unsigned long long)e->sector);
	text__escape(comm, sizeof(comm), e->comm, sizeof(e->comm));
	fprintf(out, "%-18.9f %-7u %-16s %3u:%-4u %-5s %12s %8u %5u %5u %10.1f %10.1f %s\n",
		e->ts_ns / 1e9, e->pid, comm[0] ? comm : "?", e->dev >> 20, e->dev & 0xfffff,
		e->op < BLKIO_NR_OPS ? blkio_op_names[e->op] : "?", sector, e->bytes, e->segments,
		e->depth, e->queue_ns / 1e3, e->device_ns / 1e3, e->error ? "error" : "");
}

int snoop__print_stream(FILE *f, const char *name, FILE *out, struct diag *d)
{
	struct snoop_header h;
	struct blkio_event e;
	unsigned long long n = 0;
	size_t got;

	if (fread(&h, sizeof(h), 1, f) != 1 || memcmp(h.magic, SNOOP_MAGIC, sizeof(h.magic)))
		return diag__usage(d, "%s: not a blktrace-bench snoop file", name);
	if (h.version != SNOOP_VERSION || h.record_size != sizeof(e))
		return diag__usage(d,
				   "%s: snoop format %u with %u-byte records; this build reads "
				   "format %u with %zu-byte records",
				   name, h.version, h.record_size, SNOOP_VERSION, sizeof(e));
	fprintf(out, "%-18s %-7s %-16s %-8s %-5s %12s %8s %5s %5s %10s %10s %s\n", "TIME(s)", "PID",
		"COMM", "DEV", "OP", "SECTOR", "BYTES", "SEGS", "QD", "QUEUE(us)", "DEVICE(us)",
		"ERR");
	/* Bytes, not positions: a pipe has no ftell, and a part of a record is a cut. */
	while ((got = fread(&e, 1, sizeof(e), f)) == sizeof(e)) {
		print_record(out, &e);
		n++;
	}
	if (ferror(f))
		return diag__fail(d, -EIO, "%s: read error: %s", name, strerror(errno));
	if (got)
		return diag__usage(d, "%s: truncated after %llu records", name, n);
	return 0;
}

int snoop__print_text(const char *path, FILE *out, struct diag *d)
{
	const char *name = strcmp(path, "-") ? path : "stdin";
	FILE *f;
	int ret;

	ret = infile__open(path, true, &f, d);
	if (ret)
		return ret;
	ret = snoop__print_stream(f, name, out, d);
	infile__close(f);
	return ret;
}
