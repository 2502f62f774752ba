// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The layers of a stack in one run; see layers.h. A node is the top (-1) or a layer
 * (its index in res->layers); its statistics are run->block[node + 1].
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/fmt.h"
#include "base/histogram.h"
#include "analysis/layers.h"
#include "analysis/block_summary.h"

static const struct block_stats *node_stats(const struct run *run, int node)
{
	return &run->block[node + 1];
}

static const struct device *node_dev(const struct result *res, int node)
{
	return node < 0 ? &res->device : &res->layers[node].dev;
}

/* A layer's limits in this run: a --set sweep of a layer records them per run. */
static const struct queue_limits *layer_limits(const struct result *res, const struct run *run,
					       size_t i)
{
	return run->layer_limits ? &run->layer_limits[i] : &res->layers[i].dev.limits;
}

/* The upper node's limits in this run. */
static const struct queue_limits *node_limits(const struct result *res, const struct run *run,
					      int node)
{
	if (node >= 0)
		return layer_limits(res, run, (size_t)node);
	return run->has_limits ? &run->limits : &res->device.limits;
}

static uint64_t data_bytes(const struct block_stats *b)
{
	return b->c.bytes[BLKIO_OP_READ] + b->c.bytes[BLKIO_OP_WRITE];
}

static uint64_t data_requests(const struct block_stats *b)
{
	return b->c.requests[BLKIO_OP_READ] + b->c.requests[BLKIO_OP_WRITE];
}

int layers__summarize(const struct result *res, const struct run *run, struct layer_summary **out)
{
	struct layer_summary *ls;
	size_t i;

	*out = NULL;
	if (!res->nr_layers || !run->has_block)
		return 0;
	ls = calloc(res->nr_layers, sizeof(*ls));
	if (!ls)
		return -ENOMEM;
	for (i = 0; i < res->nr_layers; i++) {
		const struct layer *l = &res->layers[i];
		const struct block_stats *b = node_stats(run, (int)i),
					 *up = node_stats(run, l->above);

		ls[i].layer = l;
		ls[i].b = b;
		ls[i].block = malloc(sizeof(*ls[i].block));
		if (!ls[i].block) {
			layers__free(ls, res->nr_layers);
			return -ENOMEM;
		}
		block_summary__compute(b, layer_limits(res, run, i), ls[i].block);
		if (data_bytes(up))
			ls[i].bytes_per_above = (double)data_bytes(b) / data_bytes(up);
		if (data_requests(up))
			ls[i].requests_per_above = (double)data_requests(b) / data_requests(up);
	}
	*out = ls;
	return 0;
}

void layers__free(struct layer_summary *ls, size_t n)
{
	size_t i;

	if (!ls)
		return;
	for (i = 0; i < n; i++)
		free(ls[i].block);
	free(ls);
}

/* The layers right under NODE and their sums for one op. */
struct below {
	int child[STACK_MAX_LAYERS];
	size_t n;
	uint64_t bytes, requests;
	bool all_bios; /* every layer under it is bio-based: its counts are bios */
	char names[256];
};

static void below_of(const struct result *res, const struct run *run, int node, unsigned int op,
		     struct below *bl)
{
	size_t i, used = 0;

	memset(bl, 0, sizeof(*bl));
	bl->all_bios = true;
	for (i = 0; i < res->nr_layers; i++) {
		const struct block_stats *b = node_stats(run, (int)i);

		if (res->layers[i].above != node)
			continue;
		bl->all_bios &= res->layers[i].dev.bio_based;
		bl->child[bl->n++] = (int)i;
		bl->bytes += b->c.bytes[op];
		bl->requests += b->c.requests[op];
		if (used < sizeof(bl->names))
			used += snprintf(bl->names + used, sizeof(bl->names) - used, "%s%s",
					 used ? ", " : "", res->layers[i].dev.name);
	}
}

struct out {
	struct finding *f;
	size_t max, n;
};

static void add(struct out *o, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add(struct out *o, const char *kind, const char *fmt, ...)
{
	struct finding *f;
	va_list ap;

	if (o->n >= o->max)
		return;
	f = &o->f[o->n++];
	snprintf(f->kind, sizeof(f->kind), "%s", kind);
	f->share = 1;
	va_start(ap, fmt);
	vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
}

/* RAID1 reads: how they were spread over the mirrors ("50.0% to vdc, 50.0% to vdd"). */
static void mirror_shares(const struct result *res, const struct run *run, const struct below *bl,
			  unsigned int op, char *buf, size_t len)
{
	size_t i, used = 0;
	char s[16];

	buf[0] = '\0';
	for (i = 0; i < bl->n && bl->requests && used < len; i++) {
		const struct block_stats *b = node_stats(run, bl->child[i]);

		used += snprintf(buf + used, len - used, "%s%s to %s",
				 i ? ", " : "; requests went ",
				 fmt__share(s, sizeof(s), (double)b->c.requests[op] / bl->requests),
				 res->layers[bl->child[i]].dev.name);
	}
}

/* Requests of op on node of at least bytes: where a queue limit caps them. */
static uint64_t at_least(const struct run *run, int node, unsigned int op, int64_t bytes)
{
	const struct block_stats *b = node_stats(run, node);

	if (bytes <= 0)
		return 0;
	return hist_count_at_least(
		HIST_KIND_SIZE, b->size[op == BLKIO_OP_READ ? BLKIO_SIZE_READ : BLKIO_SIZE_WRITE],
		(uint64_t)bytes);
}

/*
 * The queue limit most requests below reached, if any: the child's own max_sectors_kb,
 * or the upper device's (dm and md take theirs from the disks under them and split bios
 * to it). ", at vdc's max_sectors_kb (128)" or "".
 */
static void limit_clause(const struct result *res, const struct run *run, int node, unsigned int op,
			 const struct below *bl, char *buf, size_t len)
{
	int64_t up_kb = node_limits(res, run, node)->max_sectors_kb, own_kb = 0;
	uint64_t own = 0, upper = 0;
	const char *who = NULL;
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < bl->n; i++) {
		int64_t kb = layer_limits(res, run, (size_t)bl->child[i])->max_sectors_kb;
		uint64_t n = at_least(run, bl->child[i], op, kb * 1024);

		if (n > own) {
			own = n;
			own_kb = kb;
			who = res->layers[bl->child[i]].dev.name;
		}
		upper += at_least(run, bl->child[i], op, up_kb * 1024);
	}
	if (who && 2 * own >= bl->requests)
		snprintf(buf, len, ", at %s's max_sectors_kb (%lld)", who, (long long)own_kb);
	else if (2 * upper >= bl->requests && up_kb > 0)
		snprintf(buf, len,
			 ", at %s's own max_sectors_kb (%lld), which it takes from the "
			 "disks under it",
			 node_dev(res, node)->name, (long long)up_kb);
}

static const char *const op_words[] = { "reads", "writes" };

/* One sentence: what NODE's reads or writes became on the layers right under it. */
static void node_op_finding(const struct result *res, const struct run *run, int node,
			    unsigned int op, struct out *o)
{
	const struct block_stats *up = node_stats(run, node);
	const struct device *d = node_dev(res, node);
	const char *unit = d->bio_based ? "bio" : "request";
	char a[32], b[32], c[32], e[32], lim[160] = "", share[160] = "", via[256] = "";
	char pieces[DEVICE_NAME_MAX + 64] = "";
	struct below bl;

	below_of(res, run, node, op, &bl);
	if (!bl.n || !up->c.requests[op])
		return;
	if (!bl.requests) {
		add(o, op ? "layer_write" : "layer_read",
		    "%s's %s (%s) never reached %s: none were issued there while it ran.", d->name,
		    op_words[op], fmt__bytes(a, sizeof(a), up->c.bytes[op]), bl.names);
		return;
	}
	limit_clause(res, run, node, op, &bl, lim, sizeof(lim));
	/*
	 * dm and md split a bio at target or chunk boundaries, or to their own size limits.
	 * Splits are not counted per operation: said once, with the operation most bios had.
	 */
	if (d->bio_based && up->c.splits && up->c.requests[op] >= up->c.requests[!op])
		snprintf(pieces, sizeof(pieces), " (%s split bios %llu times)", d->name,
			 (unsigned long long)up->c.splits);
	if (d->md_level[0] && !strncmp(d->md_level, "raid1", 5) && bl.n > 1 && op == BLKIO_OP_READ)
		mirror_shares(res, run, &bl, op, share, sizeof(share));
	if (bl.n == 1 && res->layers[bl.child[0]].link == LAYER_BACKING_FILE) {
		const char *under = res->layers[bl.child[0]].dev.name;

		snprintf(via, sizeof(via),
			 " (%s holds its backing file: read-ahead there is %lld "
			 "KiB, and any other I/O on %s counts too)",
			 under,
			 (long long)layer_limits(res, run, (size_t)bl.child[0])->read_ahead_kb,
			 under);
	}
	add(o, op ? "layer_write" : "layer_read",
	    "%s %s: %s in %llu %ss of %s%s became %s (%.2fx) in %llu %s of %s on %s "
	    "(%.2f per %s)%s%s%s.",
	    d->name, op_words[op], fmt__bytes(a, sizeof(a), up->c.bytes[op]),
	    (unsigned long long)up->c.requests[op], unit,
	    fmt__size(b, sizeof(b), (double)up->c.bytes[op] / up->c.requests[op]), pieces,
	    fmt__bytes(c, sizeof(c), bl.bytes), (double)bl.bytes / up->c.bytes[op],
	    (unsigned long long)bl.requests, bl.all_bios ? "bios" : "requests",
	    fmt__size(e, sizeof(e), (double)bl.bytes / bl.requests), bl.names,
	    (double)bl.requests / up->c.requests[op], unit, lim, share, via);
}

int layers__findings(const struct result *res, const struct run *run, struct finding *out,
		     size_t max)
{
	struct out o = { out, max, 0 };
	int node;
	unsigned int op;

	if (!res->nr_layers || !run->has_block)
		return 0;
	for (node = -1; node < (int)res->nr_layers; node++)
		for (op = BLKIO_OP_READ; op <= BLKIO_OP_WRITE; op++)
			node_op_finding(res, run, node, op, &o);
	return (int)o.n;
}
