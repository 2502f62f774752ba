// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Reading blktrace files and turning their events into block statistics: the kernel's
 * own trace (tests/fixtures/blktrace, against the guest's /proc/diskstats of the same
 * interval), then hand-made event sequences whose every figure is known: pairing,
 * merges, splits, requeues, partial completions, flushes, bio-based devices; streams in
 * either byte order, sorted by time; files that are no trace or are cut short in their
 * first record; and a trace stopped mid-write, read as blkparse reads it; the files of
 * a set listed before they are read; what is held in flight bounded.
 */
#include <byteswap.h>
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "blktrace/btrace_read.h"
#include "blktrace/btrace_stats.h"
#include "result/btrace_summary.h"
#include "base/diag.h"
#include "testutil.h"

#define DEV ((7u << 20) | 2)
#define R BLK_TC_ACT(BLK_TC_READ)
#define W BLK_TC_ACT(BLK_TC_WRITE)
#define FS BLK_TC_ACT(BLK_TC_FS)

static struct block_stats b;
static double seconds;
static bool bio_based;

static struct btrace_record ev(uint32_t action, uint64_t sector, uint32_t bytes, uint64_t time)
{
	struct btrace_record r = { .t = {
					   .magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION,
					   .time = time,
					   .sector = sector,
					   .bytes = bytes,
					   .action = action,
					   .device = DEV,
				   } };

	return r;
}

/* Feed events (terminated by one with magic 0) and keep what they add up to. */
static void feed(const struct btrace_record *evs)
{
	struct btrace_stats *s;

	assert_int_equal(btrace_stats__new(&s), 0);
	for (; evs->t.magic; evs++)
		assert_int_equal(btrace_stats__add(s, evs), 0);
	btrace_stats__result(s, &b, &seconds, &bio_based);
	btrace_stats__free(s);
}

#define END ((struct btrace_record){ .t = { .magic = 0 } })
#define Q(dir, s, n, t) ev(BLK_TA_QUEUE | (dir), s, n, t)
#define G(dir, s, n, t) ev(BLK_TA_GETRQ | (dir), s, n, t)
#define D(dir, s, n, t) ev(BLK_TA_ISSUE | FS | (dir), s, n, t)
#define C(dir, s, n, t) ev(BLK_TA_COMPLETE | FS | (dir), s, n, t)

static void test_one_request(void **state)
{
	const struct btrace_record evs[] = {
		Q(W, 100, 4096, 1000),
		G(W, 100, 4096, 1500),
		D(W, 100, 4096, 3000),
		C(W, 100, 4096, 53000),
		END,
	};

	(void)state;
	feed(evs);
	assert_false(bio_based);
	assert_int_equal(b.c.requests[BLKIO_OP_WRITE], 1);
	assert_int_equal(b.c.bytes[BLKIO_OP_WRITE], 4096);
	assert_int_equal(b.c.completed, 1);
	/* Q2D, D2C and Q2C exactly, from Q at 1000, D at 3000, C at 53000. */
	assert_int_equal(b.c.sum_ns[BLKIO_LAT_QUEUE], 2000);
	assert_int_equal(b.c.sum_ns[BLKIO_LAT_DEVICE], 50000);
	assert_int_equal(b.c.sum_ns[BLKIO_LAT_TOTAL], 52000);
	assert_int_equal(b.size[BLKIO_SIZE_WRITE][hist_size_index(4096)], 1);
	assert_int_equal(b.count[BLKIO_COUNT_DEPTH][1], 1);
	assert_true(seconds > 51.9e-6 && seconds < 52.1e-6);
}

/*
 * Two requests in flight at once (depth 1 then 2), completed out of order; a read and a
 * write of one sector are two requests.
 */
static void test_depth_and_pairing(void **state)
{
	const struct btrace_record evs[] = {
		D(R, 8, 512, 100),
		D(W, 8, 1024, 200),
		C(W, 8, 1024, 1200), /* the write first: 1000 ns */
		C(R, 8, 512, 2100),  /* then the read: 2000 ns */
		D(R, 16, 512, 3000),
		C(R, 16, 512, 3500),
		END,
	};

	(void)state;
	feed(evs);
	assert_int_equal(b.c.requests[BLKIO_OP_READ], 2);
	assert_int_equal(b.c.requests[BLKIO_OP_WRITE], 1);
	assert_int_equal(b.count[BLKIO_COUNT_DEPTH][1], 2);
	assert_int_equal(b.count[BLKIO_COUNT_DEPTH][2], 1);
	assert_int_equal(b.max.depth, 2);
	assert_int_equal(b.c.sum_ns[BLKIO_LAT_DEVICE], 2000 + 1000 + 500);
	/* Paired by sector alone, first in first out, the longest would be 1900. */
	assert_int_equal(b.max.ns[BLKIO_LAT_DEVICE], 2000);
	assert_int_equal(b.c.nr_ns[BLKIO_LAT_QUEUE], 0); /* no Q: no Q2D */
	assert_int_equal(b.c.untracked, 0);
}

/* Back and front merges of bios; a request merged into another (M at its start). */
static void test_merges(void **state)
{
	const struct btrace_record evs[] = {
		Q(W, 0, 4096, 10),
		G(W, 0, 4096, 11),
		Q(W, 8, 4096, 20),
		ev(BLK_TA_BACKMERGE | W, 8, 4096, 21), /* bio at 8 onto the request at 0 */
		Q(W, 64, 4096, 30),
		G(W, 64, 4096, 31),
		Q(W, 56, 4096, 40),
		ev(BLK_TA_FRONTMERGE | W, 56, 4096, 41), /* the request at 64 now starts at 56 */
		ev(BLK_TA_BACKMERGE | FS | W, 56, 8192, 45), /* it is merged into the one at 0 */
		D(W, 0, 8192 + 8192, 50),
		C(W, 0, 16384, 150),
		END,
	};

	(void)state;
	feed(evs);
	assert_int_equal(b.c.merges, 2);
	assert_int_equal(b.c.merges_op[BLKIO_OP_WRITE], 2); /* by the bio's operation */
	assert_int_equal(b.c.merges_op[BLKIO_OP_READ], 0);
	assert_int_equal(b.c.rq_merges, 1);
	assert_int_equal(b.c.requests[BLKIO_OP_WRITE], 1);
	assert_int_equal(b.c.completed, 1);
	assert_int_equal(b.c.sum_ns[BLKIO_LAT_QUEUE], 40); /* from the first bio's Q */
	assert_int_equal(b.c.sum_ns[BLKIO_LAT_TOTAL], 140);
}

/* A split bio: each part a request, the remainder keeping the bio's Q. */
static void test_split(void **state)
{
	struct btrace_record evs[] = {
		Q(W, 0, 8192, 100),
		ev(BLK_TA_SPLIT | W, 0, 4096, 110),
		G(W, 0, 4096, 120),
		G(W, 8, 4096, 130),
		D(W, 0, 4096, 200),
		D(W, 8, 4096, 210),
		C(W, 0, 4096, 300),
		C(W, 8, 4096, 320),
		END,
	};
	uint64_t rest = htobe64(8);

	(void)state;
	evs[1].t.pdu_len = sizeof(rest);
	memcpy(evs[1].pdu, &rest, sizeof(rest));
	feed(evs);
	assert_int_equal(b.c.splits, 1);
	assert_int_equal(b.c.requests[BLKIO_OP_WRITE], 2);
	assert_int_equal(b.c.nr_ns[BLKIO_LAT_QUEUE], 2);
	assert_int_equal(b.c.sum_ns[BLKIO_LAT_QUEUE], 100 + 110);
	assert_int_equal(b.c.sum_ns[BLKIO_LAT_TOTAL], 200 + 220);
}

/* Requeued: out of the depth until issued again, counted at each issue; partial ends. */
static void test_requeue_and_partial(void **state)
{
	const struct btrace_record evs[] = {
		D(R, 0, 8192, 100),  ev(BLK_TA_REQUEUE | FS | R, 0, 8192, 150),
		D(R, 0, 8192, 200),  C(R, 0, 4096, 300), /* the first half: not the end */
		D(R, 100, 512, 350), C(R, 8, 4096, 400),
		C(R, 100, 512, 500), END,
	};

	(void)state;
	feed(evs);
	assert_int_equal(b.c.requeues, 1);
	assert_int_equal(b.c.requests[BLKIO_OP_READ], 3);
	assert_int_equal(b.c.completed, 2);
	assert_int_equal(b.c.nr_ns[BLKIO_LAT_DEVICE], 2); /* one latency per request ended */
	assert_int_equal(b.count[BLKIO_COUNT_DEPTH][1], 2);
	assert_int_equal(b.count[BLKIO_COUNT_DEPTH][2], 1);
	assert_int_equal(b.c.sum_ns[BLKIO_LAT_DEVICE], 200 + 150);
}

/*
 * An fsync: the empty preflush write never issued, a flush request (FN) in its place;
 * the write's completion is no untracked request. An error is counted.
 */
static void test_flush_and_error(void **state)
{
	const uint32_t fws = W | BLK_TC_ACT(BLK_TC_FLUSH) | BLK_TC_ACT(BLK_TC_SYNC);
	const uint32_t fn = R | BLK_TC_ACT(BLK_TC_FLUSH);
	struct btrace_record evs[] = {
		Q(fws, 0, 0, 10),
		G(fws, 0, 0, 11),
		D(fn, 0, 0, 20),
		C(fn, 0, 0, 30),
		C(W | BLK_TC_ACT(BLK_TC_SYNC), 0, 0, 31),
		D(R, 40, 512, 40),
		C(R, 40, 512, 50),
		END,
	};

	(void)state;
	evs[6].t.error = (uint16_t)-EIO;
	feed(evs);
	assert_int_equal(b.c.requests[BLKIO_OP_FLUSH], 1);
	assert_int_equal(b.c.requests[BLKIO_OP_WRITE], 0);
	assert_int_equal(b.c.completed, 2);
	assert_int_equal(b.c.untracked, 0);
	assert_int_equal(b.c.errors, 1);
}

/* A device without D (dm, md): bios from Q to C, as the aggregate counts them. */
static void test_bio_based(void **state)
{
	const struct btrace_record evs[] = {
		Q(R, 0, 65536, 100),
		Q(R, 128, 65536, 110),
		C(R, 128, 65536, 1110), /* the second first: 1000 ns */
		C(R, 0, 65536, 2100),	/* then the first: 2000 ns */
		END,
	};

	(void)state;
	feed(evs);
	assert_true(bio_based);
	assert_int_equal(b.c.requests[BLKIO_OP_READ], 2);
	assert_int_equal(b.c.completed, 2);
	assert_int_equal(b.max.depth, 2);
	assert_int_equal(b.c.sum_ns[BLKIO_LAT_DEVICE], 1000 + 2000);
	assert_int_equal(b.c.sum_ns[BLKIO_LAT_TOTAL], 1000 + 2000);
	assert_int_equal(b.max.ns[BLKIO_LAT_TOTAL], 2000); /* paired in arrival order: 1990 */
}

/* A completion of a request issued before the trace began. */
static void test_untracked(void **state)
{
	const struct btrace_record evs[] = { D(R, 0, 512, 10), C(R, 0, 512, 20), C(R, 64, 512, 30),
					     END };

	(void)state;
	feed(evs);
	assert_int_equal(b.c.completed, 1);
	assert_int_equal(b.c.untracked, 1);
}

/* Records as a file holds them: the header, then the payload. */
static size_t put(unsigned char *buf, size_t at, struct btrace_record r, bool swap)
{
	uint16_t pdu_len = r.t.pdu_len;

	if (swap) {
		r.t.magic = bswap_32(r.t.magic);
		r.t.time = bswap_64(r.t.time);
		r.t.sector = bswap_64(r.t.sector);
		r.t.bytes = bswap_32(r.t.bytes);
		r.t.action = bswap_32(r.t.action);
		r.t.device = bswap_32(r.t.device);
		r.t.cpu = bswap_32(r.t.cpu);
		r.t.pdu_len = bswap_16(r.t.pdu_len);
	}
	memcpy(buf + at, &r.t, sizeof(r.t));
	memcpy(buf + at + sizeof(r.t), r.pdu, pdu_len);
	return at + sizeof(r.t) + pdu_len;
}

static int read_stream(const unsigned char *buf, size_t len, struct btrace_record *out, int max,
		       struct diag *d)
{
	/* fmemopen takes no empty buffer: an empty file then. */
	FILE *f = len ? fmemopen((void *)buf, len, "rb") : tmpfile();
	struct btrace_reader *r = NULL;
	int n = 0, ret;

	assert_non_null(f);
	ret = btrace_read__open_stream(f, "t.bin", &r, d);
	if (!ret)
		while (n < max && (ret = btrace_read__next(r, &out[n], d)) > 0)
			n++;
	btrace_read__close(r);
	fclose(f);
	return ret < 0 ? ret : n;
}

/* Either byte order; a process note's name kept; records sorted by time. */
static void test_stream_orders(void **state)
{
	unsigned char buf[1024];
	struct btrace_record out[4], note = ev(BLK_TN_PROCESS, 0, 0, 50);
	struct diag d = {};
	size_t len;
	int swap;

	(void)state;
	note.t.pdu_len = 16;
	memcpy(note.pdu, "dd", 3);
	for (swap = 0; swap < 2; swap++) {
		len = put(buf, 0, D(R, 8, 512, 300), swap);
		len = put(buf, len, note, swap);
		len = put(buf, len, C(R, 8, 512, 900), swap);
		memset(&d, 0, sizeof(d));
		assert_int_equal(read_stream(buf, len, out, 4, &d), 3);
		assert_int_equal(out[0].t.time, 50);
		assert_string_equal((char *)out[0].pdu, "dd");
		assert_int_equal(out[1].t.time, 300);
		assert_int_equal(out[1].t.sector, 8);
		assert_int_equal(out[2].t.action, BLK_TA_COMPLETE | FS | R);
	}
}

/* What is not a trace, or is cut short in its first record, is bad input naming the fault. */
static void test_malformed(void **state)
{
	unsigned char buf[256];
	struct btrace_record out[4], r = D(R, 8, 512, 300);
	struct diag d = {};
	size_t len;

	(void)state;
	len = put(buf, 0, r, false);
	assert_int_equal(read_stream(buf, len - 1, out, 4, &d), -EINVAL);
	assert_true(d.usage);
	assert_non_null(strstr(d.msg, "truncated after 0 records"));

	memset(&d, 0, sizeof(d));
	r.t.pdu_len = 8;
	len = put(buf, 0, r, false);
	assert_int_equal(read_stream(buf, len - 4, out, 4, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "truncated"));

	memset(&d, 0, sizeof(d));
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(read_stream(buf, sizeof(buf), out, 4, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "not a blktrace file"));

	memset(&d, 0, sizeof(d));
	r = D(R, 8, 512, 300);
	r.t.magic = BLK_IO_TRACE_MAGIC | 6;
	len = put(buf, 0, r, false);
	assert_int_equal(read_stream(buf, len, out, 4, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "version 6"));

	memset(&d, 0, sizeof(d));
	r = D(R, 8, 512, 300);
	r.t.cpu = BTRACE_MAX_CPUS;
	len = put(buf, 0, r, false);
	assert_int_equal(read_stream(buf, len, out, 4, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "out of range"));

	memset(&d, 0, sizeof(d));
	assert_int_equal(read_stream(buf, 0, out, 4, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "empty"));
}

/* A file of records, NAME.blktrace.CPU in dir. */
static void write_file(const char *dir, unsigned int cpu, const unsigned char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/vda.blktrace.%u", dir, cpu);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* What r left out, one per line. */
static void left_out(const struct btrace_reader *r, char *left, size_t len)
{
	char one[PATH_MAX + 160];
	unsigned int i;

	left[0] = '\0';
	for (i = 0; btrace_read__left_out(r, i, one, sizeof(one)); i++)
		snprintf(left + strlen(left), len - strlen(left), "%s\n", one);
}

/* The records of the set in dir, in time order (their number), and what was left out. */
static int read_set(const char *dir, struct btrace_record *out, int max, char *left, size_t len)
{
	struct btrace_reader *r;
	struct diag d = {};
	int n = 0, ret = 0;

	assert_int_equal(btrace_read__open(dir, &r, &d), 0);
	while (n < max && (ret = btrace_read__next(r, &out[n], &d)) > 0)
		n++;
	assert_int_equal(ret, 0);
	left_out(r, left, len);
	btrace_read__close(r);
	return n;
}

/*
 * A trace stopped mid-write: after a good record, a file ends at the first record that
 * is none (cut short, or never written), and a per-CPU file's record of another CPU is
 * skipped, as blkparse reads them; each said. Before any good record, it is bad input.
 */
static void test_stopped_mid_write(void **state)
{
	char dir[] = "/tmp/bb-btrace.XXXXXX", left[512], want[PATH_MAX + 160];
	struct btrace_record out[8], r1[] = { D(R, 64, 512, 210), {}, C(R, 64, 512, 310) };
	struct btrace_record other = C(R, 8, 512, 250);
	struct btrace_reader *r;
	unsigned char buf[1024];
	struct diag d = {};
	size_t len;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* CPU 0: a D, a record of CPU 1, a C, then a D cut short. */
	other.t.cpu = 1;
	len = put(buf, 0, D(R, 8, 512, 200), false);
	len = put(buf, len, other, false);
	len = put(buf, len, C(R, 8, 512, 300), false);
	write_file(dir, 0, buf, put(buf, len, D(R, 16, 512, 400), false) - 20);
	/* CPU 1: a D, a record the kernel reserved and never wrote (zeros), then a C. */
	r1[0].t.cpu = r1[2].t.cpu = 1;
	len = put(buf, 0, r1[0], false);
	len = put(buf, len, r1[1], false);
	write_file(dir, 1, buf, put(buf, len, r1[2], false));

	assert_int_equal(read_set(dir, out, 8, left, sizeof(left)), 3);
	assert_int_equal(out[0].t.time, 200);
	assert_int_equal(out[1].t.time, 210);
	assert_int_equal(out[2].t.time, 300);
	snprintf(want, sizeof(want),
		 "%s/vda.blktrace.0: cut short in record 4 (byte 144 on: 28 bytes unread)\n"
		 "%s/vda.blktrace.0: 1 record of another CPU\n%s/vda.blktrace.1: bad magic "
		 "0x00000000 in record 2 (byte 48 on: 96 bytes unread)\n",
		 dir, dir, dir);
	assert_string_equal(left, want);

	/* One stream, either byte order: a D, then a C cut short (no file: no byte count). */
	for (int swap = 0; swap < 2; swap++) {
		FILE *f;

		len = put(buf, 0, D(R, 8, 512, 200), swap);
		len = put(buf, len, C(R, 8, 512, 300), swap) - 1;
		f = fmemopen(buf, len, "rb");
		assert_non_null(f);
		assert_int_equal(btrace_read__open_stream(f, "t.bin", &r, &d), 0);
		assert_int_equal(btrace_read__next(r, &out[0], &d), 1);
		assert_int_equal(out[0].t.sector, 8);
		assert_int_equal(btrace_read__next(r, &out[1], &d), 0);
		left_out(r, left, sizeof(left));
		assert_string_equal(left, "t.bin: cut short in record 2\n");
		btrace_read__close(r);
		fclose(f);
	}

	/* Cut inside its first record, a file is no trace. */
	write_file(dir, 1, buf, 20);
	assert_int_equal(btrace_read__open(dir, &r, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "vda.blktrace.1: truncated after 0 records"));
	snprintf(want, sizeof(want), "rm -rf %s", dir);
	assert_int_equal(system(want), 0);
}

/*
 * The files a set consists of are listed before any is read (import
 * refuses an output onto one), and a name that would join the set is told from others;
 * a stream is one file, stdin none.
 */
static void test_set_files(void **state)
{
	char dir[] = "/tmp/bb-btrace.XXXXXX", path[PATH_MAX], other[] = "/tmp/bb-btrace.XXXXXX";
	struct btrace_reader *r;
	unsigned char buf[64];
	struct diag d = {};

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_non_null(mkdtemp(other));
	write_file(dir, 0, buf, put(buf, 0, D(R, 8, 512, 200), false));
	write_file(dir, 1, buf, put(buf, 0, C(R, 8, 512, 300), false));
	snprintf(path, sizeof(path), "%s/vda.blktrace.1", dir);
	assert_int_equal(btrace_read__resolve(path, &r, &d), 0);
	snprintf(path, sizeof(path), "%s/vda.blktrace.0", dir);
	assert_string_equal(btrace_read__file(r, 0), path);
	snprintf(path, sizeof(path), "%s/vda.blktrace.1", dir);
	assert_string_equal(btrace_read__file(r, 1), path);
	assert_null(btrace_read__file(r, 2));
	assert_true(btrace_read__of_set(r, path));
	snprintf(path, sizeof(path), "%s/./vda.blktrace.7", dir); /* not there yet */
	assert_true(btrace_read__of_set(r, path));
	snprintf(path, sizeof(path), "%s/sdb.blktrace.0", dir);
	assert_false(btrace_read__of_set(r, path));
	snprintf(path, sizeof(path), "%s/vda.blktrace.0", other);
	assert_false(btrace_read__of_set(r, path));
	snprintf(path, sizeof(path), "%s/vda.json", dir);
	assert_false(btrace_read__of_set(r, path));
	/* nothing was read yet: start reads the first record of each */
	assert_int_equal(btrace_read__start(r, &d), 0);
	btrace_read__close(r);
	assert_int_equal(btrace_read__resolve("-", &r, &d), 0);
	assert_null(btrace_read__file(r, 0));
	assert_false(btrace_read__of_set(r, path));
	btrace_read__close(r);
	snprintf(path, sizeof(path), "rm -rf %s %s", dir, other);
	assert_int_equal(system(path), 0);
}

/*
 * What is held in flight is bounded: 1 Mi bios queued and never completed
 * are held, one more is refused (it grew with the file, 4x its size).
 */
static void test_in_flight_bound(void **state)
{
	struct btrace_record q;
	struct btrace_stats *s;
	uint32_t i;

	(void)state;
	assert_int_equal(btrace_stats__new(&s), 0);
	for (i = 0; i < BTRACE_STATS_MAX_IN_FLIGHT; i++) {
		q = Q(R, (uint64_t)i * 8, 4096, 100 + i);
		assert_int_equal(btrace_stats__add(s, &q), 0);
	}
	q = Q(R, (uint64_t)i * 8, 4096, 100 + i);
	assert_int_equal(btrace_stats__add(s, &q), -EOVERFLOW);
	btrace_stats__free(s);
	/* completions make room: a Q and its C, over and over, never near the bound */
	assert_int_equal(btrace_stats__new(&s), 0);
	for (i = 0; i < 3 * BTRACE_STATS_MAX_IN_FLIGHT; i++) {
		q = Q(R, 8, 4096, 100 + 2 * (uint64_t)i);
		assert_int_equal(btrace_stats__add(s, &q), 0);
		q = C(R, 8, 4096, 101 + 2 * (uint64_t)i);
		assert_int_equal(btrace_stats__add(s, &q), 0);
	}
	btrace_stats__free(s);
}

/* The kernel's trace of the fixture against the guest's diskstats (its README). */
static void test_kernel_trace(void **state)
{
	char sysfs[PATH_MAX], dir[PATH_MAX + 32];
	struct btrace_set_summary sum = {};
	struct btrace_reader *r;
	struct btrace_stats *s;
	struct btrace_record rec;
	struct diag d = {};
	int ret;

	(void)state;
	assert_int_equal(test_find_fixtures(sysfs, sizeof(sysfs)), 0);
	snprintf(dir, sizeof(dir), "%s/../blktrace/kernel-6.1", sysfs);
	assert_int_equal(btrace_read__open(dir, &r, &d), 0);
	assert_string_equal(btrace_read__name(r), "vda");
	assert_int_equal(btrace_stats__new(&s), 0);
	while ((ret = btrace_read__next(r, &rec, &d)) > 0) {
		assert_int_equal(btrace_summary__add(&sum, &rec.t), 0);
		assert_int_equal(btrace_stats__add(s, &rec), 0);
	}
	assert_int_equal(ret, 0);
	btrace_stats__result(s, &b, &seconds, &bio_based);
	btrace_stats__free(s);
	btrace_read__close(r);

	/* 32 reads, 1024 sectors; 22 writes of 2560 sectors, one the empty preflush write. */
	assert_int_equal(b.c.requests[BLKIO_OP_READ], 32);
	assert_int_equal(b.c.bytes[BLKIO_OP_READ], 1024 * 512);
	assert_int_equal(b.c.requests[BLKIO_OP_WRITE], 22 - 1);
	assert_int_equal(b.c.bytes[BLKIO_OP_WRITE], 2560 * 512);
	assert_int_equal(b.c.requests[BLKIO_OP_FLUSH], 1);
	/* Four 256 KiB writes at max_sectors_kb=64: three splits each, 64 KiB requests. */
	assert_int_equal(b.c.splits, 4 * 3);
	assert_int_equal(b.max.bytes, 65536);
	assert_int_equal(b.c.completed, 32 + 21 + 1);
	assert_int_equal(b.c.nr_ns[BLKIO_LAT_DEVICE], b.c.completed);
	assert_int_equal(b.c.untracked, 0);
	assert_false(bio_based);
	assert_int_equal(sum.nr_cpus, 2);
	assert_int_equal(sum.total.n[BTRACE_IO_COMPLETED][1], 22);
	free(sum.cpu);
}

/* The events the kernel skipped our programs for: in all, and per action in blkparse's letters. */
static void test_skipped(void **state)
{
	struct btrace_summary sum = {};
	char buf[64], tiny[8];

	(void)state;
	assert_int_equal(btrace_summary__skipped(&sum, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	sum.skipped[__BLK_TA_COMPLETE] = 7;
	sum.skipped[__BLK_TA_BACKMERGE] = 502;
	assert_int_equal(btrace_summary__skipped(&sum, buf, sizeof(buf)), 509);
	assert_string_equal(buf, "M 502, C 7");
	/* A short buffer: the total is whole, the text cut. */
	assert_int_equal(btrace_summary__skipped(&sum, tiny, sizeof(tiny)), 509);
	assert_string_equal(tiny, "M 502, ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_request),
		cmocka_unit_test(test_depth_and_pairing),
		cmocka_unit_test(test_merges),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_requeue_and_partial),
		cmocka_unit_test(test_flush_and_error),
		cmocka_unit_test(test_bio_based),
		cmocka_unit_test(test_untracked),
		cmocka_unit_test(test_stream_orders),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_stopped_mid_write),
		cmocka_unit_test(test_kernel_trace),
		cmocka_unit_test(test_set_files),
		cmocka_unit_test(test_in_flight_bound),
		cmocka_unit_test(test_skipped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
