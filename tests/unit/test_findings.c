// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Limit-bound findings on synthetic block statistics over the fixture disks
 * (tests/fixtures/sysfs): each case builds the histograms a known workload produces
 * and checks the kind, the share and the sentence. Runs from the repository root;
 * BLKTRACE_BENCH_FIXTURES overrides where the trees are.
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

#include <cmocka.h>

#include "base/diag.h"
#include "analysis/findings.h"
#include "output/report_json.h"
#include "output/report_text.h"
#include "testutil.h"

static char fixtures[PATH_MAX];

static int find_fixtures(void **state)
{
	(void)state;
	return test_find_fixtures(fixtures, sizeof(fixtures));
}

/* struct device and struct block_stats are large: keep them off the stack. */
static struct device *fixture_dev(const char *fixture, const char *spec)
{
	struct device *dev = test_calloc(1, sizeof(*dev));
	char root[PATH_MAX + 64];
	struct diag d = {};

	assert_non_null(dev);
	snprintf(root, sizeof(root), "%s/%s", fixtures, fixture);
	if (device__resolve(root, spec, dev, &d))
		fail_msg("%s in %s: %s", spec, fixture, d.msg);
	return dev;
}

/* xvda of fixture, with what the xenstore fake xs says of its backend. */
static struct device *xen_dev(const char *fixture, const char *xs)
{
	struct device *dev = test_calloc(1, sizeof(*dev));
	char root[PATH_MAX + 64], file[PATH_MAX + 64];
	const struct device_env env = {
		.sysfs_root = root,
		.xenstore = test_xenstore_fixture(file, sizeof(file), fixtures, xs),
	};
	struct diag d = {};

	assert_non_null(dev);
	snprintf(root, sizeof(root), "%s/%s", fixtures, fixture);
	if (device__resolve_env(&env, "xvda", dev, &d))
		fail_msg("xvda in %s: %s", fixture, d.msg);
	assert_int_not_equal(dev->xen.segments_reason, XEN_SEGMENTS_UNKNOWN);
	return dev;
}

static struct block_stats *new_stats(void)
{
	struct block_stats *b = test_calloc(1, sizeof(*b));

	assert_non_null(b);
	return b;
}

/* n requests of op, each bytes long in segs physical segments, as blkio.bpf.c counts them. */
static void add_requests(struct block_stats *b, enum blkio_op op, uint64_t bytes, unsigned int segs,
			 uint64_t n)
{
	enum blkio_size_kind sk = op == BLKIO_OP_READ ? BLKIO_SIZE_READ : BLKIO_SIZE_WRITE;

	b->c.requests[op] += n;
	b->c.bytes[op] += n * bytes;
	b->size[sk][hist_size_index(bytes)] += n;
	b->count[BLKIO_COUNT_SEGMENTS][hist_count_index(segs)] += n;
	b->size[BLKIO_SIZE_SEGMENT][hist_size_index(bytes / segs)] += n;
	b->c.sum_segments += n * segs;
	b->c.data_requests += n;
	if (bytes > b->max.bytes)
		b->max.bytes = bytes;
	if (segs > b->max.segments)
		b->max.segments = segs;
}

static int compute(const struct device *dev, const struct block_stats *b, struct finding *f)
{
	memset(f, 0, FINDINGS_MAX * sizeof(*f));
	return findings__compute(dev, b, NULL, f, FINDINGS_MAX);
}

/* The same for a run of the built-in workload: rw, bs, direct or buffered. */
static int compute_job(const struct device *dev, const struct block_stats *b, const char *rw,
		       uint64_t bs, bool direct, struct finding *f)
{
	struct job_params p = { .bs = bs, .direct = direct };

	snprintf(p.rw, sizeof(p.rw), "%s", rw);
	memset(f, 0, FINDINGS_MAX * sizeof(*f));
	return findings__compute(dev, b, &p, f, FINDINGS_MAX);
}

/* n of the requests of op were read-ahead (REQ_RAHEAD), each bytes long. */
static void add_read_ahead(struct block_stats *b, uint64_t bytes, uint64_t n)
{
	b->c.ra_requests += n;
	b->c.ra_bytes += n * bytes;
}

static void assert_share(double got, double want)
{
	if (got < want - 1e-9 || got > want + 1e-9)
		fail_msg("share %.6f, expected %.6f", got, want);
}

static void assert_has(const char *text, const char *part)
{
	if (!strstr(text, part))
		fail_msg("\"%s\" not in \"%s\"", part, text);
}

static void assert_no_newline(const struct finding *f, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		assert_null(strchr(f[i].text, '\n'));
		assert_true(strlen(f[i].text) < sizeof(f[i].text) - 1); /* not cut */
	}
}

/* xen-blkfront, 11 segments: 1 MiB writes arrive as 44 KiB requests in 11 segments. */
static void test_xen_seg11(void **state)
{
	struct device *dev = fixture_dev("xen-seg11", "xvda");
	struct block_stats *b = new_stats();
	struct finding f[FINDINGS_MAX];
	int n;

	(void)state;
	add_requests(b, BLKIO_OP_WRITE, 44 * 1024, 11, 2300);
	n = compute(dev, b, f);
	assert_int_equal(n, 2);
	assert_no_newline(f, n);
	assert_string_equal(f[0].kind, "max_segments");
	assert_share(f[0].share, 1.0);
	assert_has(f[0].text, "indirect descriptors are off: 11 segments cap requests at 44 KiB");
	assert_has(f[0].text, "reached by 100.0% of requests");
	assert_has(f[0].text, "xen_blkfront.max_indirect_segments=32 (the default) turns them on");
	assert_string_equal(f[1].kind, "xen_indirect");
	assert_share(f[1].share, 0);
	assert_has(f[1].text, "No request used indirect descriptors");
	test_free(b);
	test_free(dev);
}

/* The default 32 segments: 128 KiB requests, most of them needing indirect descriptors. */
static void test_xen_seg32(void **state)
{
	struct device *dev = fixture_dev("xen-seg32", "xvda");
	struct block_stats *b = new_stats();
	struct finding f[FINDINGS_MAX];
	int n;

	(void)state;
	add_requests(b, BLKIO_OP_WRITE, 128 * 1024, 32, 80);
	add_requests(b, BLKIO_OP_READ, 64 * 1024, 16, 10);
	add_requests(b, BLKIO_OP_READ, 4096, 1, 10);
	n = compute(dev, b, f);
	assert_int_equal(n, 3);
	assert_no_newline(f, n);
	assert_string_equal(f[0].kind, "max_segments");
	assert_share(f[0].share, 0.8);
	assert_has(f[0].text, "32 indirect segments: 128 KiB, reached by 80.0% of requests");
	assert_has(f[0].text, "xen_blkfront.max_indirect_segments=32 now");
	assert_string_equal(f[1].kind, "uncapped");
	assert_share(f[1].share, 0.2);
	/* 80 with 32 segments and 10 with 16: more than 11. */
	assert_string_equal(f[2].kind, "xen_indirect");
	assert_share(f[2].share, 0.9);
	assert_has(f[2].text, "90.0% of requests needed indirect descriptors (more than 11 "
			      "segments)");
	test_free(b);
	test_free(dev);
}

static void test_xen_backend_limited(void **state)
{
	struct device *dev = fixture_dev("xen-backend-limited", "xvda");
	struct block_stats *b = new_stats();
	struct finding f[FINDINGS_MAX];
	int n;

	(void)state;
	add_requests(b, BLKIO_OP_WRITE, 44 * 1024, 11, 97);
	add_requests(b, BLKIO_OP_WRITE, 4096, 1, 3);
	n = compute(dev, b, f);
	/* 3% below the cap is not worth a finding. */
	assert_int_equal(n, 2);
	assert_string_equal(f[0].kind, "max_segments");
	assert_share(f[0].share, 0.97);
	assert_has(f[0].text, "indirect descriptors are off: 11 segments");
	assert_has(f[0].text, "the module asks for 32 but the backend limits it to 11");
	assert_string_equal(f[1].kind, "xen_indirect");
	test_free(b);
	test_free(dev);
}

static void test_xen_old_max(void **state)
{
	struct device *dev = fixture_dev("xen-old-max", "xvda");
	struct block_stats *b = new_stats();
	struct finding f[FINDINGS_MAX];
	int n;

	(void)state;
	add_requests(b, BLKIO_OP_READ, 128 * 1024, 32, 10);
	n = compute(dev, b, f);
	assert_int_equal(n, 2);
	assert_has(f[0].text, "32 indirect segments: 128 KiB");
	assert_has(f[0].text, "xen_blkfront.max=32 now");
	test_free(b);
	test_free(dev);
}

/* The segments finding's sentence for requests of kib KiB in segs segments on dev. */
static void xen_sentence(struct device *dev, unsigned int kib, unsigned int segs, char *out,
			 size_t len)
{
	struct block_stats *b = new_stats();
	struct finding f[FINDINGS_MAX];
	int n;

	add_requests(b, BLKIO_OP_WRITE, kib * 1024, segs, 100);
	n = compute(dev, b, f);
	assert_true(n >= 1);
	assert_no_newline(f, n);
	assert_string_equal(f[0].kind, "max_segments");
	assert_share(f[0].share, 1.0);
	snprintf(out, len, "%s", f[0].text);
	test_free(b);
	test_free(dev);
}

/* Where xenstore says what the backend offers, the advice never goes beyond it. */
static void test_xen_backend_offer(void **state)
{
	char t[400];

	(void)state;
	/* blkback offers 256, the guest turned indirect descriptors off. */
	xen_sentence(xen_dev("xen-seg11", "blkback"), 44, 11, t, sizeof(t));
	assert_has(t, "indirect descriptors are off: 11 segments cap requests at 44 KiB");
	assert_has(t, "max_indirect_segments=11 turns indirect descriptors off (as any value up "
		      "to 11 does; the backend offers 256); xen_blkfront.max_indirect_segments=32 "
		      "(the default) turns them on.");
	/* The guest's 32 of blkback's 256. */
	xen_sentence(xen_dev("xen-seg32", "blkback"), 128, 32, t, sizeof(t));
	assert_has(t, "32 indirect segments: 128 KiB, reached by 100.0% of requests; "
		      "xen_blkfront.max_indirect_segments=32 now, a larger value raises it up to "
		      "the 256 the backend offers.");
	/* 512 asked, 256 had: nothing in the guest raises it. */
	xen_sentence(xen_dev("xen-seg512", "blkback"), 1024, 256, t, sizeof(t));
	assert_has(t, "256 indirect segments: 1 MiB");
	assert_has(t, "the backend caps the 512 asked at 256: only the host can raise it, no "
		      "guest parameter.");
	assert_null(strstr(t, "a larger value"));
	/* tapdisk: no indirect descriptors at all, whatever the guest asks. */
	xen_sentence(xen_dev("xen-backend-limited", "tapdisk"), 44, 11, t, sizeof(t));
	assert_has(t, "indirect descriptors are off: 11 segments cap requests at 44 KiB");
	assert_has(t, "the backend offers no indirect descriptors (as XCP-ng's tapdisk does): "
		      "only the host can raise it, no guest parameter.");
	assert_null(strstr(t, "turns them on"));
}

/* The I/O window of b: first issue at 1 s, last completion seconds later. */
static void io_window(struct block_stats *b, double seconds)
{
	b->max.first_issue_inv = ~(__u64)1000000000;
	b->max.last_complete = 1000000000 + (__u64)(seconds * 1e9);
}

/*
 * Where the ring was probed: what went on it with indirect descriptors, not what the
 * segments would have; a ring full a good share of the time is a finding of its own,
 * whose advice stays within what the backend offers.
 */
static void test_xen_ring(void **state)
{
	struct device *dev = xen_dev("xen-seg32", "blkback");
	struct block_stats *b = new_stats();
	struct finding f[FINDINGS_MAX];
	int n, i;

	(void)state;
	add_requests(b, BLKIO_OP_READ, 128 * 1024, 32, 100);
	b->lat[BLKIO_LAT_QUEUE][hist_lat_index(1200000)] = 100;
	b->c.sum_ns[BLKIO_LAT_QUEUE] = 100 * 1200000ULL;
	io_window(b, 2);
	b->ring.direct = 10;
	b->ring.indirect = 90;
	b->ring.fulls = 5;
	b->ring.full_ns = 500000000; /* 0.5 s of 2 */
	n = compute(dev, b, f);
	for (i = 0; i < n && strcmp(f[i].kind, "xen_ring_full"); i++)
		;
	assert_true(i < n);
	assert_share(f[i].share, 0.25);
	assert_has(f[i].text, "The xen-blkfront ring was full 25% of the time (32 slots): "
			      "requests waited in the guest for a slot (1.2 ms on average from "
			      "allocation to issue): a larger ring");
	/* blkback offers rings of up to 16 pages: a larger ring is the advice. */
	assert_has(f[i].text, "xen_blkfront.max_ring_page_order, the backend offers up to 4");
	assert_string_equal(f[n - 1].kind, "xen_indirect");
	assert_share(f[n - 1].share, 0.9);
	assert_has(f[n - 1].text, "90.0% of requests went on the ring with indirect descriptors "
				  "(90 of 100)");
	/* Full 10% of the time: not a finding. */
	b->ring.full_ns = 200000000;
	n = compute(dev, b, f);
	for (i = 0; i < n; i++)
		assert_string_not_equal(f[i].kind, "xen_ring_full");
	/* The ring at the backend's largest: nothing to raise, and the text says so. */
	b->ring.full_ns = 1000000000;
	dev->xen.ring_pages = 16;
	dev->xen.queues = 2;
	n = compute(dev, b, f);
	for (i = 0; i < n && strcmp(f[i].kind, "xen_ring_full"); i++)
		;
	assert_true(i < n);
	assert_has(f[i].text, "the backend offers no larger ring nor more queues to use");
	test_free(b);
	test_free(dev);
}

/* On xen, a max_sectors_kb lowered below the segments is the cap, not the segments. */
static void test_xen_lowered_max_sectors(void **state)
{
	struct device *dev = fixture_dev("xen-seg32", "xvda");
	struct block_stats *b = new_stats();
	struct finding f[FINDINGS_MAX];
	int n;

	(void)state;
	dev->limits.max_sectors_kb = 64;
	add_requests(b, BLKIO_OP_WRITE, 64 * 1024, 16, 50);
	n = compute(dev, b, f);
	assert_int_equal(n, 2);
	assert_string_equal(f[0].kind, "max_sectors_kb");
	assert_share(f[0].share, 1.0);
	assert_has(f[0].text, "capped at 64 KiB by max_sectors_kb=64; max_hw_sectors_kb=128 "
			      "would allow 128 KiB (2.0x)");
	assert_string_equal(f[1].kind, "xen_indirect");
	assert_share(f[1].share, 1.0);
	test_free(b);
	test_free(dev);
}

/* The xen-blkfront 11-segment emulation on loop: a 1 MiB O_DIRECT write is 23 x 44 KiB
 * and a 12 KiB tail. */
static void test_loop_max_sectors_44(void **state)
{
	struct device *dev = fixture_dev("loop", "loop0");
	struct block_stats *b = new_stats();
	struct finding f[FINDINGS_MAX];
	int n;

	(void)state;
	dev->limits.max_sectors_kb = 44;
	add_requests(b, BLKIO_OP_WRITE, 44 * 1024, 11, 23 * 16);
	add_requests(b, BLKIO_OP_WRITE, 12 * 1024, 3, 16);
	n = compute(dev, b, f);
	assert_int_equal(n, 1);
	assert_no_newline(f, n);
	assert_string_equal(f[0].kind, "max_sectors_kb");
	assert_share(f[0].share, 23.0 / 24);
	assert_has(f[0].text, "95.8% of requests were capped at 44 KiB by max_sectors_kb=44");
	assert_has(f[0].text, "max_hw_sectors_kb=1280 would allow 1280 KiB (29.1x)");
	test_free(b);
	test_free(dev);
}

static void test_max_sectors_at_hw(void **state)
{
	struct device *dev = fixture_dev("loop", "loop0");
	struct block_stats *b = new_stats();
	struct finding f[FINDINGS_MAX];

	(void)state;
	add_requests(b, BLKIO_OP_WRITE, 1280 * 1024, 20, 40);
	assert_int_equal(compute(dev, b, f), 1);
	assert_string_equal(f[0].kind, "max_sectors_kb");
	assert_has(f[0].text, "capped at 1280 KiB by max_sectors_kb=1280, which is "
			      "max_hw_sectors_kb: the driver takes no more");
	test_free(b);
	test_free(dev);
}

/*
 * The guide's rule: "a limit under 5% is left out". 5 of 100 requests at max_sectors_kb
 * are a finding of their own (exactly 5%), 4 of 100 are not, nor 49 of 1000 (4.9%).
 */
static void test_min_share(void **state)
{
	struct device *dev = fixture_dev("loop", "loop0");
	struct block_stats *b = new_stats();
	struct finding f[FINDINGS_MAX];

	(void)state;
	add_requests(b, BLKIO_OP_WRITE, 1280 * 1024, 20, 5);
	add_requests(b, BLKIO_OP_WRITE, 64 * 1024, 16, 95);
	assert_int_equal(compute(dev, b, f), 2);
	assert_string_equal(f[0].kind, "uncapped");
	assert_share(f[0].share, 0.95);
	assert_string_equal(f[1].kind, "max_sectors_kb");
	assert_share(f[1].share, 0.05);
	assert_has(f[1].text, "5.0% of requests were capped at 1280 KiB by max_sectors_kb=1280");

	memset(b, 0, sizeof(*b));
	add_requests(b, BLKIO_OP_WRITE, 1280 * 1024, 20, 4);
	add_requests(b, BLKIO_OP_WRITE, 64 * 1024, 16, 96);
	assert_int_equal(compute(dev, b, f), 1);
	assert_string_equal(f[0].kind, "uncapped");
	assert_share(f[0].share, 0.96);

	memset(b, 0, sizeof(*b));
	add_requests(b, BLKIO_OP_WRITE, 1280 * 1024, 20, 49);
	add_requests(b, BLKIO_OP_WRITE, 64 * 1024, 16, 951);
	assert_int_equal(compute(dev, b, f), 1);
	assert_string_equal(f[0].kind, "uncapped");
	test_free(b);
	test_free(dev);
}

/* dd bs=64k: every request is what the application wrote; nothing capped it. */
static void test_uncapped_app_block_size(void **state)
{
	struct device *dev = fixture_dev("loop", "loop0");
	struct block_stats *b = new_stats();
	struct finding f[FINDINGS_MAX];

	(void)state;
	add_requests(b, BLKIO_OP_WRITE, 64 * 1024, 16, 256);
	b->c.requests[BLKIO_OP_FLUSH] = 3; /* no payload: not counted */
	assert_int_equal(compute_job(dev, b, "write", 64 * 1024, true, f), 1);
	assert_string_equal(f[0].kind, "uncapped");
	assert_share(f[0].share, 1.0);
	assert_string_equal(f[0].text,
			    "100.0% of requests stayed below every limit (the disk "
			    "accepts 1280 KiB, set by max_sectors_kb): the application's "
			    "I/O size (64 KiB) decided, 64 KiB per request at the median.");
	/* Command mode: the application's I/O size is not known, so not claimed. */
	assert_int_equal(compute(dev, b, f), 1);
	assert_has(f[0].text, ": what the application or the page cache submitted decided, "
			      "64 KiB per request at the median.");

	/* Buffered 4 KiB writes merged into 256 KiB requests: writeback and merging decided. */
	memset(b, 0, sizeof(*b));
	add_requests(b, BLKIO_OP_WRITE, 256 * 1024, 4, 100);
	b->c.merges = b->c.merges_op[BLKIO_OP_WRITE] = 6300;
	assert_int_equal(compute_job(dev, b, "write", 4096, false, f), 1);
	assert_string_equal(f[0].kind, "uncapped");
	assert_has(f[0].text, ": the page cache's writeback and merging (6300 bios merged into "
			      "writes) decided, not the application's 4 KiB writes, 256 KiB per "
			      "request at the median.");
	test_free(b);
	test_free(dev);
}

/*
 * dd bs=512 through the page cache: every request is read-ahead, sized by read_ahead_kb
 * (the fixture's 128), not by the application. Known in workload mode and in command
 * mode alike: REQ_RAHEAD is the kernel's own mark.
 */
static void test_read_ahead(void **state)
{
	struct device *dev = fixture_dev("loop", "loop0");
	struct block_stats *b = new_stats();
	struct finding f[FINDINGS_MAX];

	(void)state;
	add_requests(b, BLKIO_OP_READ, 128 * 1024, 2, 2048);
	add_read_ahead(b, 128 * 1024, 2048);
	assert_int_equal(compute_job(dev, b, "read", 512, false, f), 1);
	assert_string_equal(f[0].kind, "read_ahead");
	assert_share(f[0].share, 1.0);
	assert_string_equal(f[0].text, "100.0% of requests were read-ahead (read_ahead_kb=128): "
				       "the page cache sized them, not the application's 512 B "
				       "reads; 128 KiB per read request at the median.");
	assert_int_equal(compute(dev, b, f), 1);
	assert_string_equal(f[0].kind, "read_ahead");
	assert_has(f[0].text, "the page cache sized them, not the application; 128 KiB");

	/* The value in effect during the run (a --set sweep changes it). */
	dev->limits.read_ahead_kb = 1024;
	assert_int_equal(compute(dev, b, f), 1);
	assert_has(f[0].text, "read-ahead (read_ahead_kb=1024)");
	test_free(b);
	test_free(dev);
}

/* read_ahead_kb=4096: a 4 MiB window, most of it capped at max_sectors_kb; both are said. */
static void test_read_ahead_capped(void **state)
{
	struct device *dev = fixture_dev("loop", "loop0");
	struct block_stats *b = new_stats();
	struct finding f[FINDINGS_MAX];

	(void)state;
	dev->limits.read_ahead_kb = 4096;
	add_requests(b, BLKIO_OP_READ, 1280 * 1024, 20, 74);
	add_requests(b, BLKIO_OP_READ, 256 * 1024, 4, 26);
	add_read_ahead(b, 1280 * 1024, 74);
	add_read_ahead(b, 256 * 1024, 26);
	assert_int_equal(compute_job(dev, b, "read", 512, false, f), 2);
	assert_string_equal(f[0].kind, "read_ahead");
	assert_share(f[0].share, 1.0);
	assert_true(findings__is_limit(&f[1]));
	assert_string_equal(f[1].kind, "max_sectors_kb");
	assert_share(f[1].share, 0.74);
	assert_false(findings__is_limit(&f[0]));

	/* A few read-ahead requests among direct writes: the rest is the application's. */
	memset(b, 0, sizeof(*b));
	add_requests(b, BLKIO_OP_WRITE, 64 * 1024, 16, 90);
	add_requests(b, BLKIO_OP_READ, 128 * 1024, 2, 10);
	add_read_ahead(b, 128 * 1024, 10);
	b->c.merges = b->c.merges_op[BLKIO_OP_WRITE] = 10;
	assert_int_equal(compute(dev, b, f), 2);
	assert_string_equal(f[0].kind, "uncapped");
	assert_share(f[0].share, 0.9);
	/* The merges were into writes (a journal's), not credited to reads. */
	assert_has(f[0].text, "merging (10 bios merged into writes)");
	assert_string_equal(f[1].kind, "read_ahead");
	assert_share(f[1].share, 0.1);
	test_free(b);
	test_free(dev);
}

/* Scattered 4 KiB pages: 128 segments stop a request at 512 KiB, below 1280 KiB. */
static void test_max_segments(void **state)
{
	struct device *dev = fixture_dev("loop", "loop0");
	struct block_stats *b = new_stats();
	struct finding f[FINDINGS_MAX];

	(void)state;
	add_requests(b, BLKIO_OP_WRITE, 512 * 1024, 128, 256);
	add_requests(b, BLKIO_OP_WRITE, 508 * 1024, 127, 256);
	assert_int_equal(compute(dev, b, f), 2);
	assert_string_equal(f[0].kind, "max_segments");
	assert_share(f[0].share, 0.5);
	assert_has(f[0].text, "50.0% of requests stopped at max_segments=128 with 4 KiB per "
			      "segment on average, below max_sectors_kb=1280.");
	assert_string_equal(f[1].kind, "uncapped");
	assert_share(f[1].share, 0.5);
	test_free(b);
	test_free(dev);
}

/* The README's sample report, the dd: each 1 MiB write split at 128 segments into 516 KiB and 508
 * KiB. */
static void test_split_remainders(void **state)
{
	struct device *dev = fixture_dev("loop", "loop0");
	struct block_stats *b = new_stats();
	struct finding f[FINDINGS_MAX];

	(void)state;
	add_requests(b, BLKIO_OP_WRITE, 516 * 1024, 128, 256);
	add_requests(b, BLKIO_OP_WRITE, 508 * 1024, 127, 256);
	b->c.splits = 256;
	assert_int_equal(compute(dev, b, f), 2);
	/* Equal shares keep the cause first. */
	assert_string_equal(f[0].kind, "max_segments");
	assert_share(f[0].share, 0.5);
	assert_string_equal(f[1].kind, "uncapped");
	assert_share(f[1].share, 0.5);
	assert_string_equal(f[1].text, "50.0% of requests stayed below every limit (the disk "
				       "accepts 1280 KiB, set by max_sectors_kb), 508 KiB per "
				       "request at the median: the remainders of 256 bio splits, "
				       "or what the application or the page cache submitted.");
	test_free(b);
	test_free(dev);
}

/* Full segments: 16 x 64 KiB = 1 MiB is below max_sectors_kb=1280. */
static void test_max_segment_size(void **state)
{
	struct device *dev = fixture_dev("loop", "loop0");
	struct block_stats *b = new_stats();
	struct finding f[FINDINGS_MAX];

	(void)state;
	dev->limits.max_segments = 16;
	add_requests(b, BLKIO_OP_READ, 1024 * 1024, 16, 100);
	assert_int_equal(compute(dev, b, f), 1);
	assert_string_equal(f[0].kind, "max_segment_size");
	assert_share(f[0].share, 1.0);
	assert_has(f[0].text, "100.0% of requests filled all max_segments=16 segments to "
			      "max_segment_size=64 KiB: 1 MiB, below max_sectors_kb=1280.");
	test_free(b);
	test_free(dev);
}

static void test_bio_based(void **state)
{
	struct device *dev = fixture_dev("dm", "dm-0");
	struct block_stats *b = new_stats();
	struct finding f[FINDINGS_MAX];

	(void)state;
	assert_int_equal(compute(dev, b, f), 1);
	assert_string_equal(f[0].kind, "bio_based");
	assert_share(f[0].share, 0);
	assert_string_equal(f[0].text, "dm-0 is bio-based: its figures are the bios submitted to "
				       "it, as the file system or application sized them; its "
				       "requests are issued on the disks underneath (vda2, vdb), "
				       "traced with it.");
	/* Bios at max_sectors_kb are not capped by it: queue limits act below, per layer. */
	add_requests(b, BLKIO_OP_READ, (uint64_t)dev->limits.max_sectors_kb * 1024, 1, 100);
	assert_int_equal(compute(dev, b, f), 1);
	assert_string_equal(f[0].kind, "bio_based");
	test_free(dev);

	dev = fixture_dev("loop", "zram0");
	assert_int_equal(compute(dev, b, f), 1);
	assert_has(f[0].text, "zram0 is bio-based: its figures are the bios submitted to it; it "
			      "has no disks underneath");
	test_free(b);
	test_free(dev);
}

static void test_nothing_to_explain(void **state)
{
	struct device *dev = fixture_dev("nvme", "nvme0n1");
	struct block_stats *b = new_stats();
	struct finding f[FINDINGS_MAX];

	(void)state;
	assert_int_equal(compute(dev, b, f), 0);
	b->c.requests[BLKIO_OP_FLUSH] = 10;
	assert_int_equal(compute(dev, b, f), 0);
	assert_int_equal(findings__compute(NULL, b, NULL, f, FINDINGS_MAX), -EINVAL);
	assert_int_equal(findings__compute(dev, NULL, NULL, f, FINDINGS_MAX), -EINVAL);
	assert_int_equal(findings__compute(dev, b, NULL, NULL, 1), -EINVAL);
	/* Room for one: the largest. */
	add_requests(b, BLKIO_OP_WRITE, 1280 * 1024, 10, 9);
	add_requests(b, BLKIO_OP_WRITE, 4096, 1, 1);
	assert_int_equal(findings__compute(dev, b, NULL, f, 1), 1);
	assert_string_equal(f[0].kind, "max_sectors_kb");
	assert_share(f[0].share, 0.9);
	assert_has(f[0].text, "max_hw_sectors_kb=2048 would allow 2 MiB (1.6x)");
	test_free(b);
	test_free(dev);
}

/* Both reports end with the findings; JSON carries kind, share and text. */
static void test_reports(void **state)
{
	struct device *dev = fixture_dev("xen-seg11", "xvda");
	struct result *res = test_calloc(1, sizeof(*res));
	json_t *doc, *run, *arr, *first;
	struct report rep;
	struct run *r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	res->device = *dev;
	res->has_device = true;
	r = result__add_run(res, true, false);
	assert_non_null(r);
	snprintf(r->label, sizeof(r->label), "dd");
	add_requests(r->block, BLKIO_OP_WRITE, 44 * 1024, 11, 100);

	assert_int_equal(report__build(&rep, res, false), 0);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	report_text__print(f, &rep, false);
	fclose(f);
	assert_has(buf, "\n  findings:\n    indirect descriptors are off: 11 segments cap "
			"requests at 44 KiB");
	/* The existing limit-bound line is still there. */
	assert_has(buf, "limit-bound: 100.0% of data requests reached max_sectors_kb=44");
	free(buf);

	doc = report_json__doc(&rep);
	assert_non_null(doc);
	run = json_array_get(json_object_get(doc, "runs"), 0);
	assert_non_null(run);
	arr = json_object_get(run, "findings");
	assert_true(json_is_array(arr));
	assert_int_equal(json_array_size(arr), 2);
	first = json_array_get(arr, 0);
	assert_string_equal(json_string_value(json_object_get(first, "kind")), "max_segments");
	assert_true(json_real_value(json_object_get(first, "share")) == 1.0);
	assert_has(json_string_value(json_object_get(first, "text")), "indirect descriptors");
	assert_string_equal(json_string_value(json_object_get(json_array_get(arr, 1), "kind")),
			    "xen_indirect");
	json_decref(doc);
	report__free(&rep);
	result__free(res);
	test_free(res);
	test_free(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xen_seg11),
		cmocka_unit_test(test_xen_seg32),
		cmocka_unit_test(test_xen_backend_limited),
		cmocka_unit_test(test_xen_old_max),
		cmocka_unit_test(test_xen_backend_offer),
		cmocka_unit_test(test_xen_ring),
		cmocka_unit_test(test_xen_lowered_max_sectors),
		cmocka_unit_test(test_loop_max_sectors_44),
		cmocka_unit_test(test_max_sectors_at_hw),
		cmocka_unit_test(test_min_share),
		cmocka_unit_test(test_uncapped_app_block_size),
		cmocka_unit_test(test_read_ahead),
		cmocka_unit_test(test_read_ahead_capped),
		cmocka_unit_test(test_max_segments),
		cmocka_unit_test(test_split_remainders),
		cmocka_unit_test(test_max_segment_size),
		cmocka_unit_test(test_bio_based),
		cmocka_unit_test(test_nothing_to_explain),
		cmocka_unit_test(test_reports),
	};

	return cmocka_run_group_tests(tests, find_fixtures, NULL);
}
