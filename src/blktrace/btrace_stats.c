// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * blktrace events to block statistics. See btrace_stats.h.
 *
 * Bios and requests are found again by where they are: (device, sector, kind), kind
 * being the direction, discard and zero-length bits, so that a flush at sector 0 and a
 * read there, or a read and a write of one sector, are told apart. Several of one key at
 * once (flushes) queue in order. The tables are glibc's balanced trees (tsearch): no
 * hash table of our own, O(log n) per event, and n is what is in flight.
 */
#include <endian.h>
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include "blktrace/btrace_stats.h"
#include "hist.h"

#define SECTOR_SHIFT 9
#define KIND_ZERO (1u << 31) /* no bytes: a flush, or a request with no data */

struct key {
	uint32_t dev, kind;
	uint64_t sector;
};

/* A bio (Q) or a request (G, D) on its way; queued per key, oldest first. */
struct tracked {
	bool has_q;
	uint64_t q, d;	/* Q and D times */
	uint32_t bytes; /* in flight: what is left to complete */
	struct tracked *next;
};

struct node {
	struct key key;
	struct tracked *head, *tail;
};

struct table {
	void *root;
	size_t n; /* entries held */
};

struct btrace_stats {
	struct block_stats rq;	/* request-based: requests from D to C */
	struct block_stats bio; /* bio-based: bios from Q to C, until a D is seen */
	bool seen_issue;
	int64_t in_flight[2]; /* [0] requests, [1] bios */
	/*
	 * Q'd bios: until the first D, waiting for their C (bio-based) or their G, M or F
	 * (request-based); after it, only the latter.
	 */
	struct table queued;
	struct table pending; /* requests from G (or R) to D */
	struct table issued;  /* requests from D to C */
	bool any;
	uint64_t first, last;
};

static int cmp_node(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->sector < y->sector ? -1 : x->sector > y->sector;
}

static int push(struct table *t, const struct key *k, struct tracked *e)
{
	struct node *n = malloc(sizeof(*n)), **found;

	if (!n)
		return -ENOMEM;
	n->key = *k;
	n->head = n->tail = NULL;
	found = tsearch(n, &t->root, cmp_node);
	if (!found) {
		free(n);
		return -ENOMEM;
	}
	if (*found != n)
		free(n);
	n = *found;
	e->next = NULL;
	if (n->tail)
		n->tail->next = e;
	else
		n->head = e;
	n->tail = e;
	t->n++;
	return 0;
}

/* The oldest entry of k, taken out (peek: left in); NULL when there is none. */
static struct tracked *take(struct table *t, const struct key *k, bool peek)
{
	struct node **found = tfind(k, &t->root, cmp_node), *n;
	struct tracked *e;

	if (!found)
		return NULL;
	n = *found;
	e = n->head;
	if (peek)
		return e;
	t->n--;
	n->head = e->next;
	if (!n->head) {
		tdelete(k, &t->root, cmp_node);
		free(n);
	}
	return e;
}

static void free_node(void *p)
{
	struct node *n = p;
	struct tracked *e, *next;

	for (e = n->head; e; e = next) {
		next = e->next;
		free(e);
	}
	free(n);
}

static void table_free(struct table *t)
{
	tdestroy(t->root, free_node);
	t->root = NULL;
	t->n = 0;
}

static struct key key_of(const struct blk_io_trace *t, uint64_t sector, uint32_t bytes)
{
	uint32_t cat = t->action >> BLK_TC_SHIFT;

	return (struct key){ t->device,
			     (cat & (BLK_TC_WRITE | BLK_TC_DISCARD)) | (bytes ? 0 : KIND_ZERO),
			     sector };
}

static struct key key_at(const struct blk_io_trace *t)
{
	return key_of(t, t->sector, t->bytes);
}

/* The aggregate tracer's op classes (op_class in bpf/blkio.bpf.c), from the categories. */
static unsigned int op_of(const struct blk_io_trace *t)
{
	uint32_t cat = t->action >> BLK_TC_SHIFT;

	if (cat & BLK_TC_PC)
		return BLKIO_OP_OTHER;
	if (cat & BLK_TC_DISCARD)
		return BLKIO_OP_DISCARD;
	if (cat & BLK_TC_WRITE)
		return BLKIO_OP_WRITE;
	if (!t->bytes)
		return cat & BLK_TC_FLUSH ? BLKIO_OP_FLUSH : BLKIO_OP_OTHER;
	return BLKIO_OP_READ;
}

#define SET_MAX(field, v)                                                                          \
	do {                                                                                       \
		if ((v) > (field))                                                                 \
			(field) = (v);                                                             \
	} while (0)

static void lat_add(struct block_stats *b, unsigned int kind, uint64_t ns)
{
	b->c.sum_ns[kind] += ns;
	b->c.nr_ns[kind]++;
	SET_MAX(b->max.ns[kind], ns);
	b->lat[kind][hist_lat_index(ns)]++;
}

/* A request (or bio) counted where the aggregate counts it: op, bytes, size, depth. */
static void count_request(struct block_stats *b, const struct blk_io_trace *t, uint64_t depth)
{
	unsigned int op = op_of(t);

	b->c.requests[op]++;
	b->c.bytes[op] += t->bytes;
	b->c.sum_depth += depth;
	SET_MAX(b->max.depth, depth);
	b->count[BLKIO_COUNT_DEPTH][hist_count_index(depth)]++;
	if (op == BLKIO_OP_FLUSH || !t->bytes)
		return;
	SET_MAX(b->max.bytes, t->bytes);
	b->size[op < BLKIO_OP_FLUSH ? op : BLKIO_SIZE_OTHER][hist_size_index(t->bytes)]++;
}

static struct tracked *new_tracked(void)
{
	return calloc(1, sizeof(struct tracked));
}

/* Q: a bio queued; counted as a bio-based device's request until a D is seen. */
static int on_queue(struct btrace_stats *s, const struct blk_io_trace *t)
{
	struct key k = key_at(t);
	struct tracked *e = new_tracked();

	if (!e)
		return -ENOMEM;
	e->has_q = true;
	e->q = t->time;
	if (!s->seen_issue)
		count_request(&s->bio, t, ++s->in_flight[1]);
	return push(&s->queued, &k, e);
}

/* G: the bio became a request; it keeps the bio's Q. */
static int on_getrq(struct btrace_stats *s, const struct blk_io_trace *t)
{
	struct key k = key_at(t);
	struct tracked *e = take(&s->queued, &k, false);

	if (!e && !(e = new_tracked()))
		return -ENOMEM;
	return push(&s->pending, &k, e);
}

/* M, F: a bio merged, or (M at a waiting request's start) a request merged away. */
static int on_merge(struct btrace_stats *s, const struct blk_io_trace *t, bool front)
{
	struct key k = key_at(t), to;
	struct tracked *e;

	if (!front && take(&s->pending, &k, true)) {
		s->rq.c.rq_merges++;
		free(take(&s->pending, &k, false));
		return 0;
	}
	s->rq.c.merges++;
	s->rq.c.merges_op[op_of(t)]++;
	s->bio.c.merges++;
	s->bio.c.merges_op[op_of(t)]++;
	free(take(&s->queued, &k, false));
	if (!front)
		return 0;
	/* The request that started where the bio ends now starts at the bio. */
	to = key_of(t, t->sector + (t->bytes >> SECTOR_SHIFT), 1);
	e = take(&s->pending, &to, false);
	to.sector = t->sector;
	return e ? push(&s->pending, &to, e) : 0;
}

/* X: the rest of the bio, from the sector in the payload on, keeps the bio's Q. */
static int on_split(struct btrace_stats *s, const struct btrace_record *rec)
{
	struct key k = key_at(&rec->t);
	struct tracked *q = take(&s->queued, &k, true), *e;
	uint64_t rest;

	s->rq.c.splits++;
	s->bio.c.splits++;
	if (!q || rec->t.pdu_len < sizeof(rest))
		return 0;
	e = new_tracked();
	if (!e)
		return -ENOMEM;
	memcpy(&rest, rec->pdu, sizeof(rest));
	*e = *q;
	k.sector = be64toh(rest);
	return push(&s->queued, &k, e);
}

/* D: a request issued, counted with its depth and its Q2D. */
static int on_issue(struct btrace_stats *s, const struct blk_io_trace *t)
{
	struct key k = key_at(t);
	struct tracked *e = take(&s->pending, &k, false);

	s->seen_issue = true; /* request-based: bios no longer count on their own */
	if (!e)
		e = take(&s->queued, &k, false); /* a trace without G */
	if (!e && !(e = new_tracked()))
		return -ENOMEM;
	count_request(&s->rq, t, ++s->in_flight[0]);
	if (e->has_q)
		lat_add(&s->rq, BLKIO_LAT_QUEUE, t->time > e->q ? t->time - e->q : 0);
	e->d = t->time;
	e->bytes = t->bytes;
	return push(&s->issued, &k, e);
}

static void complete(struct block_stats *b, const struct tracked *e, const struct blk_io_trace *t,
		     bool bio)
{
	uint64_t from = bio ? e->q : e->d;

	b->c.completed++;
	lat_add(b, BLKIO_LAT_DEVICE, t->time > from ? t->time - from : 0);
	if (e->has_q)
		lat_add(b, BLKIO_LAT_TOTAL, t->time > e->q ? t->time - e->q : 0);
}

/* C: a request (or a bio-based device's bio) done; a partial completion advances it. */
static int on_complete(struct btrace_stats *s, const struct blk_io_trace *t)
{
	struct key k = key_at(t);
	struct block_stats *b = s->seen_issue ? &s->rq : &s->bio;
	struct tracked *e = take(s->seen_issue ? &s->issued : &s->queued, &k, false);

	if (t->error)
		b->c.errors++;
	if (!e && s->seen_issue && !t->bytes)
		return 0; /* a data request's empty completion: not its end */
	if (!e) {
		b->c.untracked++; /* issued before the trace began */
		return 0;
	}
	if (s->seen_issue && t->bytes && t->bytes < e->bytes) {
		e->bytes -= t->bytes;
		k.sector += t->bytes >> SECTOR_SHIFT;
		return push(&s->issued, &k, e);
	}
	s->in_flight[!s->seen_issue]--;
	complete(b, e, t, !s->seen_issue);
	free(e);
	return 0;
}

/* R: back to the queue, to be issued (and counted) again. */
static int on_requeue(struct btrace_stats *s, const struct blk_io_trace *t)
{
	struct key k = key_at(t);
	struct tracked *e = take(&s->issued, &k, false);

	s->rq.c.requeues++;
	if (!e)
		return 0;
	s->in_flight[0]--;
	return push(&s->pending, &k, e);
}

/* One record, dispatched by its action. */
static int add(struct btrace_stats *s, const struct btrace_record *rec)
{
	const struct blk_io_trace *t = &rec->t;

	if (t->action & BLK_TC_ACT(BLK_TC_NOTIFY))
		return 0;
	if (!s->any || t->time < s->first)
		s->first = t->time;
	if (!s->any || t->time > s->last)
		s->last = t->time;
	s->any = true;
	switch (t->action & 0xffff) {
	case __BLK_TA_QUEUE:
		return on_queue(s, t);
	case __BLK_TA_GETRQ:
		return on_getrq(s, t);
	case __BLK_TA_BACKMERGE:
	case __BLK_TA_FRONTMERGE:
		return on_merge(s, t, (t->action & 0xffff) == __BLK_TA_FRONTMERGE);
	case __BLK_TA_SPLIT:
		return on_split(s, rec);
	case __BLK_TA_ISSUE:
		return on_issue(s, t);
	case __BLK_TA_COMPLETE:
		return on_complete(s, t);
	case __BLK_TA_REQUEUE:
		return on_requeue(s, t);
	}
	return 0;
}

int btrace_stats__add(struct btrace_stats *s, const struct btrace_record *rec)
{
	int err = add(s, rec);

	if (!err && s->queued.n + s->pending.n + s->issued.n > BTRACE_STATS_MAX_IN_FLIGHT)
		return -EOVERFLOW;
	return err;
}

int btrace_stats__new(struct btrace_stats **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void btrace_stats__result(const struct btrace_stats *s, struct block_stats *out, double *seconds,
			  bool *bio_based)
{
	*bio_based = !s->seen_issue;
	*out = s->seen_issue ? s->rq : s->bio;
	*seconds = s->any ? (s->last - s->first) / 1e9 : 0;
}

void btrace_stats__free(struct btrace_stats *s)
{
	if (!s)
		return;
	table_free(&s->queued);
	table_free(&s->pending);
	table_free(&s->issued);
	free(s);
}
