// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * --blktrace DIR: blktrace's files from the per-event tracer's records. See btrace_out.h.
 */
#include <errno.h>
#include <limits.h>
#include <search.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>
#include "blktrace.h"
#include "blktrace/btrace_out.h"
#include "base/clock.h"
#include "base/diag.h"
#include "disk/fleet.h" /* fleet__name: a set is named as its disk is everywhere */
#include "trace/ringbuf_drain.h"

/*
 * The drain's period. The ring buffer holds 3 of them at 150k requests a second per CPU
 * (a record of 184 bytes each, BTRACE_REC_SHORT): 2 MiB on 2 CPUs. Its pages count twice
 * in the process's RSS (the ring is mapped twice, for records that wrap).
 */
#define BTRACE_TICK_MS 10
#define RING_RATE_PER_CPU 150000ULL
#define RING_TICKS 3
#define RING_MAX (64U << 20)
/* stdio's buffer per file: fewer, larger writes from the drain thread. */
#define FILE_BUFFER (256 << 10)
/*
 * Events are held back until their epoch is complete (blktrace.h), at most this many
 * epochs (~2.1 s) and this many events (7 MiB): past either, the oldest epoch is
 * written, and an event of it that comes later is written late (counted: `late`). An
 * epoch is judged once the programs' counts were read EPOCH_MARGIN_NS after its end, and
 * after a read at which each CPU had no program between its clock read and its count
 * (quiet_ended): no record begins in it after that.
 */
#define EPOCH_MARGIN_NS (4 * 1000000)
#define QUIET_LAG_MAX 16
/*
 * A bio's Q and G that wait in a CPU's cache this many epochs (~34 ms) are written from
 * the programs' state read at a tick (adopted), not left to hold their epoch until that
 * CPU issues again (it may never: the task moved, the bio ended early). Their record,
 * when it comes, is known by its first event and not written twice.
 */
#define ADOPT_AGE 8
#define ADOPTED_MAX 256
#define HOLD_EPOCHS 512
#define HOLD_EVENTS (128U << 10)
/*
 * A few epochs are held at a time: the arrays of written ones are kept for the next
 * (their memory stays that of the few, not of all BTRACE_EPOCHS buckets).
 */
#define SPARE_BUCKETS 2
#define SPARE_MAX (16U << 10) /* events: a larger array (a burst) is freed */

/* One traced device's files. */
struct out_set {
	uint32_t dev;	       /* written in every record */
	char **paths;	       /* per CPU: DIR/NAME.blktrace.CPU */
	struct outfile *files; /* per CPU */
	uint32_t *seq;	       /* per CPU: the last sequence number written */
	uint32_t *last_pid;    /* per CPU: 1 + the pid of the last event written; 0: none */
	void *noted;	       /* tsearch tree of the tasks whose name was written */
};

/* An event, held until its epoch is written. */
struct held_event {
	struct btrace_step st; /* as the programs sent it: its time is CLOCK_MONOTONIC */
	uint16_t device, pdu_len;
	uint8_t pdu[BTRACE_PDU_MAX];
};

/* The held events of one epoch. */
struct bucket {
	uint32_t epoch;
	size_t n, cap;
	struct held_event *ev;
};

struct btrace_out {
	const char *dir;
	bool made_dir;
	unsigned int ncpus;
	unsigned int n;
	struct out_set *sets;
	struct btrace_summary sum; /* sets parallel to ours */
	struct btrace *bt;
	struct ringbuf_drain *drain;
	uint64_t t0; /* CLOCK_MONOTONIC when tracing started */
	int err;     /* the drain thread's first write error */
	/* The hold: see "The order of the files" below. */
	struct bucket buckets[BTRACE_EPOCHS];
	uint32_t next_epoch; /* every event of an earlier epoch is written */
	uint32_t ended;	     /* the last epoch no record can still begin in (on_tick) */
	uint64_t margin;     /* EPOCH_MARGIN_NS; 0 in tests (btrace_opts.stall_every) */
	uint64_t *quiet;     /* each CPU's: the last read it had no program counting, when */
	/* Counts modulo 2^32, by epoch modulo BTRACE_EPOCHS. */
	uint32_t opened[BTRACE_EPOCHS], dropped[BTRACE_EPOCHS]; /* the programs', then */
	uint32_t closed[BTRACE_EPOCHS];	    /* records read, of epochs not yet written */
	uint32_t debt[BTRACE_EPOCHS];	    /* records of epochs written before they came */
	size_t held;			    /* events in the buckets */
	struct bucket spare[SPARE_BUCKETS]; /* arrays of written epochs, to reuse */
	unsigned int nr_spare;
	uint32_t *sort; /* sort_bucket's: 2 x sort_cap indices */
	size_t sort_cap;
	uint64_t late;
	/* The first event of each adopted record, and which of its events were written. */
	struct {
		struct btrace_step first;
		uint16_t steps;
	} adopted[ADOPTED_MAX];
	unsigned int nr_adopted;
	void *tasks; /* tsearch tree of struct task_name: the tasks' names */
};

static uint32_t set_dev(const struct device *dev)
{
	return dev->part_name[0] ? (dev->part_major << 20 | dev->part_minor)
				 : (dev->major << 20 | dev->minor);
}

/* DIR exists and is a directory, or is made. 0, or -errno with d. */
static int make_dir(struct btrace_out *o, struct diag *d)
{
	struct stat st;

	if (!strcmp(o->dir, "-"))
		return diag__usage(d, "--blktrace -: blktrace's records are files, one per CPU: "
				      "give a directory");
	if (!stat(o->dir, &st)) {
		if (!S_ISDIR(st.st_mode))
			return diag__usage_err(d, -ENOTDIR, "--blktrace %s: not a directory",
					       o->dir);
		return 0;
	}
	if (errno != ENOENT)
		return diag__fail(d, -errno, "--blktrace %s: %s", o->dir, strerror(errno));
	if (mkdir(o->dir, 0755))
		return diag__fail(d, -errno, "cannot create --blktrace directory %s: %s", o->dir,
				  strerror(errno));
	o->made_dir = true;
	return 0;
}

static int open_set(struct btrace_out *o, struct out_set *s, const char *name,
		    const struct outfile_input *inputs, size_t nr_inputs, struct diag *d)
{
	unsigned int c;
	int err;

	s->paths = calloc(o->ncpus, sizeof(*s->paths));
	s->files = calloc(o->ncpus, sizeof(*s->files));
	s->seq = calloc(o->ncpus, sizeof(*s->seq));
	s->last_pid = calloc(o->ncpus, sizeof(*s->last_pid));
	if (!s->paths || !s->files || !s->seq || !s->last_pid)
		return diag__fail(d, -ENOMEM, "out of memory");
	for (c = 0; c < o->ncpus; c++) {
		if (asprintf(&s->paths[c], "%s/%s.blktrace.%u", o->dir, name, c) < 0) {
			s->paths[c] = NULL;
			return diag__fail(d, -ENOMEM, "out of memory");
		}
		err = outfile__open(&s->files[c], "--blktrace", s->paths[c], inputs, nr_inputs, d);
		if (err)
			return err;
		setvbuf(s->files[c].f, NULL, _IOFBF, FILE_BUFFER);
	}
	return 0;
}

int btrace_out__open(struct btrace_out **out, const char *dir, const struct device *const *devs,
		     unsigned int n, const struct outfile_input *inputs, size_t nr_inputs,
		     struct diag *d)
{
	struct btrace_out *o = calloc(1, sizeof(*o));
	int ncpus = libbpf_num_possible_cpus(), err;
	unsigned int i;

	*out = NULL;
	if (!o)
		return diag__fail(d, -ENOMEM, "out of memory");
	o->dir = dir;
	o->ncpus = ncpus > 0 ? ncpus : 1;
	o->sets = calloc(n, sizeof(*o->sets));
	o->sum.sets = calloc(n, sizeof(*o->sum.sets));
	if (!o->sets || !o->sum.sets) {
		free(o->sets);
		free(o->sum.sets);
		free(o);
		return diag__fail(d, -ENOMEM, "out of memory");
	}
	o->n = o->sum.nr_sets = n;
	err = make_dir(o, d);
	for (i = 0; i < n && !err; i++) {
		o->sets[i].dev = set_dev(devs[i]);
		snprintf(o->sum.sets[i].name, sizeof(o->sum.sets[i].name), "%s",
			 fleet__name(devs[i]));
		err = open_set(o, &o->sets[i], o->sum.sets[i].name, inputs, nr_inputs, d);
	}
	if (err) {
		btrace_out__close(o);
		return err;
	}
	snprintf(o->sum.where, sizeof(o->sum.where), "%s", dir);
	*out = o;
	return 0;
}

static int put(struct btrace_out *o, struct out_set *s, struct btrace_set_summary *sum,
	       const struct blk_io_trace *t, const void *pdu)
{
	FILE *f = s->files[t->cpu].f;

	int err = 0;

	errno = 0;
	if (fwrite(t, sizeof(*t), 1, f) != 1 || (t->pdu_len && fwrite(pdu, t->pdu_len, 1, f) != 1))
		err = -errno ?: -EIO;
	if (!err)
		err = btrace_summary__add(sum, t);
	if (err && !o->err)
		o->err = err;
	return err;
}

/* A task noted: its pid and name (the idle tasks of all CPUs share pid 0). */
struct noted_task {
	uint32_t pid;
	char comm[BTRACE_COMM_LEN];
};

static int cmp_task(const void *a, const void *b)
{
	const struct noted_task *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return memcmp(x->comm, y->comm, sizeof(x->comm));
}

/* A task's name, as the programs first sent it: by pid, and for pid 0 by CPU. */
struct task_name {
	uint32_t pid, cpu;
	char comm[BTRACE_COMM_LEN];
};

static int cmp_name(const void *a, const void *b)
{
	const struct task_name *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

static int keep_name(struct btrace_out *o, const struct btrace_task *t)
{
	struct task_name key = { .pid = t->pid, .cpu = t->pid ? 0 : t->cpu }, *n, **found;

	/* The first name, as the kernel notes a task once (at its first event). */
	if (tfind(&key, &o->tasks, cmp_name))
		return 0;
	n = malloc(sizeof(*n));
	if (n) {
		*n = key;
		memcpy(n->comm, t->comm, sizeof(t->comm));
	}
	found = n ? tsearch(n, &o->tasks, cmp_name) : NULL;
	if (!found) {
		free(n);
		return -ENOMEM;
	}
	return 0;
}

/*
 * A task's name before its first event on this device, as trace_note_tsk writes it:
 * the kernel notes each task once, so a pid gets a note per name it has (pid 0's idle
 * task is swapper/N on each CPU N; blkparse keeps a pid's first). The CPU's last pid
 * spares the lookups of a task's next events.
 */
static int note_task(struct btrace_out *o, struct out_set *s, struct btrace_set_summary *sum,
		     const struct btrace_step *e, uint64_t time)
{
	struct blk_io_trace t = {
		.magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION,
		.time = time,
		.action = BLK_TN_PROCESS,
		.pid = e->pid,
		.device = s->dev,
		.cpu = e->cpu,
		.pdu_len = BTRACE_COMM_LEN,
	};
	struct task_name name = { .pid = e->pid, .cpu = e->pid ? 0 : e->cpu }, **known;
	struct noted_task key = { .pid = e->pid }, *n;
	void *found;

	if (s->last_pid[e->cpu] == e->pid + 1)
		return 0;
	known = tfind(&name, &o->tasks, cmp_name);
	if (!known) /* its name was lost with a full ring buffer (counted) */
		return 0;
	s->last_pid[e->cpu] = e->pid + 1;
	memcpy(key.comm, (*known)->comm, sizeof(key.comm));
	if (tfind(&key, &s->noted, cmp_task))
		return 0;
	n = malloc(sizeof(*n));
	if (n)
		*n = key;
	found = n ? tsearch(n, &s->noted, cmp_task) : NULL;
	if (!found) {
		free(n);
		return -ENOMEM;
	}
	return put(o, s, sum, &t, key.comm);
}

/* One event into its device's file of its CPU, after its task's note if it has none yet. */
static int write_event(struct btrace_out *o, const struct held_event *e)
{
	struct blk_io_trace t = { .magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION };
	struct btrace_set_summary *sum = &o->sum.sets[e->device];
	struct out_set *s = &o->sets[e->device];
	int err;

	t.time = e->st.time > o->t0 ? e->st.time - o->t0 : 0;
	err = note_task(o, s, sum, &e->st, t.time);
	if (err) {
		o->err = o->err ?: err;
		return err;
	}
	t.sequence = ++s->seq[e->st.cpu];
	t.sector = e->st.sector;
	t.bytes = e->st.bytes;
	t.action = e->st.action;
	t.pid = e->st.pid;
	t.device = s->dev;
	t.cpu = e->st.cpu;
	t.error = e->st.error;
	t.pdu_len = e->pdu_len;
	return put(o, s, sum, &t, e->pdu);
}

/*
 * The order of the files. The kernel's blktrace writes each CPU's events in the order
 * they happen; ours come a request at a time, when it completes, so a request's Q may be
 * read after a later request's C. Events are therefore held in buckets by epoch
 * (blktrace.h) and an epoch is written, sorted by time, once it is complete: every
 * record begun in it has been read (or lost), which the programs' counts say. The
 * counts are read before a drain and an epoch is judged only when it ended
 * EPOCH_MARGIN_NS before the read, and before a read at which each CPU was idle
 * (quiet_ended): no record can begin in it after the read.
 */
#define RADIX_BITS 11 /* two passes over the 22 bits of time within an epoch */
#define RADIX (1U << RADIX_BITS)

/*
 * The order of bucket B's events by time, in o->sort: a stable LSD radix sort of the time
 * within the epoch, so events of one time keep the order they were read in (a record's
 * Q before its G). A comparison sort of every epoch took most of the drain's time.
 * 0 or -ENOMEM.
 */
static int sort_bucket(struct btrace_out *o, const struct bucket *b)
{
	uint32_t count[RADIX], *from, *to, *t;
	unsigned int pass, shift;
	size_t k, sum;

	if (b->n > o->sort_cap) {
		size_t cap = b->cap;
		uint32_t *a = realloc(o->sort, 2 * cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		o->sort = a;
		o->sort_cap = cap;
	}
	from = o->sort;
	to = o->sort + o->sort_cap;
	for (k = 0; k < b->n; k++)
		from[k] = k;
	for (pass = 0; pass < 2; pass++) {
		shift = pass * RADIX_BITS;
		memset(count, 0, sizeof(count));
		for (k = 0; k < b->n; k++)
			count[(b->ev[k].st.time >> shift) & (RADIX - 1)]++;
		for (k = 0, sum = 0; k < RADIX; k++) {
			size_t c = count[k];

			count[k] = sum;
			sum += c;
		}
		for (k = 0; k < b->n; k++)
			to[count[(b->ev[from[k]].st.time >> shift) & (RADIX - 1)]++] = from[k];
		t = from;
		from = to;
		to = t;
	}
	return 0; /* two passes: the order is back in o->sort */
}

/* Records of epoch slot I read, lost or owed (modulo 2^32). */
static uint32_t epoch_done(const struct btrace_out *o, uint32_t i)
{
	return o->closed[i] + o->dropped[i] + o->debt[i];
}

/* Write the oldest epoch held; records of it still to come will be late. */
static int write_epoch(struct btrace_out *o)
{
	uint32_t i = o->next_epoch % BTRACE_EPOCHS;
	struct bucket *b = &o->buckets[i];
	uint32_t done = epoch_done(o, i);
	size_t k;
	int err = 0;

	if (b->n && (int32_t)(b->epoch - o->next_epoch) <= 0) {
		err = sort_bucket(o, b);
		for (k = 0; k < b->n && !err; k++)
			err = write_event(o, &b->ev[o->sort[k]]);
		o->held -= b->n;
		b->n = 0;
		if (o->nr_spare < SPARE_BUCKETS && b->cap <= SPARE_MAX) {
			o->spare[o->nr_spare++] = *b;
		} else {
			free(b->ev);
		}
		b->ev = NULL;
		b->cap = 0;
	}
	/* What was begun and not read is owed: its record, when it comes, is not counted. */
	if ((int32_t)(o->opened[i] - done) > 0)
		o->debt[i] += o->opened[i] - done;
	o->next_epoch++;
	return err;
}

static bool epoch_complete(const struct btrace_out *o, uint32_t epoch)
{
	uint32_t i = epoch % BTRACE_EPOCHS;

	return (int32_t)(epoch_done(o, i) - o->opened[i]) >= 0;
}

/* An event to its bucket, or to its file at once if its epoch is written already. */
static int hold(struct btrace_out *o, const struct held_event *e)
{
	uint32_t epoch = e->st.time >> BTRACE_EPOCH_SHIFT;
	struct bucket *b = &o->buckets[epoch % BTRACE_EPOCHS];
	struct held_event *ev;
	int err;

	if ((int32_t)(epoch - o->next_epoch) < 0) {
		o->late++;
		return write_event(o, e);
	}
	/* A bucket still holding an epoch 256 earlier: the hold is full, write up to it. */
	while (b->n && b->epoch != epoch && (int32_t)(epoch - o->next_epoch) >= 0) {
		err = write_epoch(o);
		if (err)
			return err;
	}
	if ((int32_t)(epoch - o->next_epoch) < 0) { /* written up to past it, just now */
		o->late++;
		return write_event(o, e);
	}
	if (!b->cap && o->nr_spare)
		*b = o->spare[--o->nr_spare];
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 256;

		ev = realloc(b->ev, cap * sizeof(*ev));
		if (!ev)
			return -ENOMEM;
		b->ev = ev;
		b->cap = cap;
	}
	b->epoch = epoch;
	b->ev[b->n++] = *e;
	o->held++;
	return 0;
}

/* The record's first event, if it has one. */
static const struct btrace_step *first_step(const struct btrace_rec *r)
{
	unsigned int k;

	for (k = 0; k < BTRACE_STEPS; k++)
		if (r->steps & (1U << k))
			return &r->step[k];
	return NULL;
}

/* The adopted record whose first event is F: its index, or nr_adopted. */
static unsigned int find_adopted(const struct btrace_out *o, const struct btrace_step *f)
{
	unsigned int i;

	for (i = 0; i < o->nr_adopted; i++)
		if (!memcmp(&o->adopted[i].first, f, sizeof(*f)))
			break;
	return i;
}

/* Which events of R were written already, adopted from a cache (0: none); forgotten. */
static unsigned int adopted_steps(struct btrace_out *o, const struct btrace_rec *r)
{
	const struct btrace_step *f = o->nr_adopted ? first_step(r) : NULL;
	unsigned int i = f ? find_adopted(o, f) : o->nr_adopted, steps;

	if (i == o->nr_adopted)
		return 0;
	steps = o->adopted[i].steps;
	o->adopted[i] = o->adopted[--o->nr_adopted];
	return steps;
}

/* Each event of R but those in SKIP, to be written in order. */
static int hold_record(struct btrace_out *o, const struct btrace_rec *r, unsigned int skip)
{
	struct held_event e = { .device = r->device };
	unsigned int k;
	int err = 0;

	for (k = 0; k < BTRACE_STEPS && !err; k++) {
		const struct btrace_step *st = &r->step[k];

		if (!(r->steps & (1U << k)) || (skip & (1U << k)) || st->cpu >= o->ncpus)
			continue;
		e.st = *st;
		e.pdu_len = 0;
		if (k == BTRACE_OTHER) { /* only a whole record has one */
			e.pdu_len = r->pdu_len;
			memcpy(e.pdu, r->pdu, sizeof(e.pdu));
		}
		err = hold(o, &e);
	}
	if (err && !o->err)
		o->err = err;
	return err;
}

/* A request's record: each event it holds (not adopted already), to be written in order. */
static int on_request(void *ctx, const struct btrace_rec *r)
{
	struct btrace_out *o = ctx;
	unsigned int skip;

	/* The programs write nothing else; anything else is not ours to write. */
	if (r->device >= o->n || r->pdu_len > BTRACE_PDU_MAX)
		return 0;
	skip = adopted_steps(o, r);
	if (!skip && (int32_t)(r->epoch - o->next_epoch) >= 0)
		o->closed[r->epoch % BTRACE_EPOCHS]++;
	return hold_record(o, r, skip);
}

/* A record waiting in a cache for long: its events now, counted as read (see ADOPT_AGE). */
static int adopt(void *ctx, const struct btrace_rec *r)
{
	struct btrace_out *o = ctx;
	const struct btrace_step *f = first_step(r);

	if (r->device >= o->n || !f || (int32_t)(r->epoch - o->next_epoch) < 0)
		return 0;
	/* Adopted at an earlier tick and still there; or no room to remember it. */
	if (find_adopted(o, f) < o->nr_adopted || o->nr_adopted == ADOPTED_MAX)
		return 0;
	o->adopted[o->nr_adopted].first = *f;
	o->adopted[o->nr_adopted++].steps = r->steps;
	o->closed[r->epoch % BTRACE_EPOCHS]++;
	return hold_record(o, r, 0);
}

/* The drain thread's callback: a request's record or a task's name. */
static int on_record(void *ctx, void *data, size_t size)
{
	const struct btrace_task *t = data;
	struct btrace_out *o = ctx;
	int err;

	if (size >= BTRACE_REC_SHORT && t->kind == BTRACE_REC_REQUEST) {
		const struct btrace_rec *r = data;

		if (size < sizeof(*r) && (r->steps & (1U << BTRACE_OTHER)))
			return 0; /* not the programs' */
		return on_request(ctx, data);
	}
	if (size < sizeof(*t) || t->kind != BTRACE_REC_TASK)
		return 0;
	err = keep_name(o, t);
	if (err && !o->err)
		o->err = err;
	return err;
}

/* The last epoch that ended MARGIN before NOW or earlier. */
static uint32_t epoch_ended(uint64_t now, uint64_t margin)
{
	return ((now - margin) >> BTRACE_EPOCH_SHIFT) - 1;
}

/*
 * ENDED, or an earlier epoch: the last one that ended before an earlier read at which each
 * CPU was idle (btrace__cpu_idle, as of the read just made, whose clock was NOW).
 *
 * A program counts the record it begins in the epoch of a clock it read earlier in its
 * run, and can be preempted or interrupted in between for however long. It says so on its
 * CPU first (bpf/blktrace_rec.bpf.h, bt_enter). A CPU idle at a read after time T has
 * counted every record whose clock it read before T, and a later read holds those counts;
 * so each CPU's T is taken from a read before this one (the state read lags by a tick).
 * A CPU never seen idle holds the files back QUIET_LAG_MAX epochs at most (~67 ms): past
 * that its late records, if any, are written late, counted, rather than the hold grow.
 */
static uint32_t quiet_ended(struct btrace_out *o, uint64_t now, uint32_t ended)
{
	uint64_t since = UINT64_MAX;
	unsigned int cpu;
	uint32_t e;

	for (cpu = 0; cpu < o->ncpus; cpu++)
		if (o->quiet[cpu] < since)
			since = o->quiet[cpu];
	for (cpu = 0; cpu < o->ncpus; cpu++)
		if (btrace__cpu_idle(o->bt, (int)cpu))
			o->quiet[cpu] = now;
	if (since >= now) /* no CPU */
		return ended;
	e = epoch_ended(since, 0);
	/*
	 * The lag first in 64 bits: a CPU not yet seen idle has since 0, so many epochs back
	 * that the 32-bit difference below could wrap.
	 */
	if ((now - since) >> BTRACE_EPOCH_SHIFT > QUIET_LAG_MAX + 1 ||
	    (int32_t)(ended - e) > QUIET_LAG_MAX)
		return ended - QUIET_LAG_MAX;
	return (int32_t)(e - ended) < 0 ? e : ended;
}

/*
 * Before a drain, the programs' counts; after it, every complete epoch written (those
 * ended EPOCH_MARGIN_NS before the counts were read), and the oldest ones past the hold's
 * bounds.
 */
static int on_tick(void *ctx, bool before)
{
	struct btrace_out *o = ctx;
	uint64_t lost;
	int err = 0;

	if (before) {
		uint64_t now = clock__ns();

		err = btrace__counts(o->bt, o->opened, o->dropped, &lost);
		if (err)
			return err;
		o->ended = quiet_ended(o, now, epoch_ended(now, o->margin));
		return btrace__cached(o->bt, o->ended - ADOPT_AGE, adopt, o);
	}
	while (!err && (int32_t)(o->ended - o->next_epoch) >= 0 && epoch_complete(o, o->next_epoch))
		err = write_epoch(o);
	/* Past the bounds: never an epoch that records may still begin in. */
	while (!err && (int32_t)(o->ended - o->next_epoch) >= 0 &&
	       ((int32_t)(o->ended - o->next_epoch) > HOLD_EPOCHS || o->held > HOLD_EVENTS))
		err = write_epoch(o);
	return err ?: o->err;
}

/* The end: what the programs still hold, then every epoch, all of it complete now. */
static int write_all(struct btrace_out *o)
{
	uint32_t last = o->next_epoch;
	unsigned int i;
	int err;

	err = btrace__held(o->bt, on_request, o);
	for (i = 0; i < BTRACE_EPOCHS; i++)
		if (o->buckets[i].n && (int32_t)(o->buckets[i].epoch - last) > 0)
			last = o->buckets[i].epoch;
	while (!err && (int32_t)(last - o->next_epoch) >= 0)
		err = write_epoch(o);
	return err ?: o->err;
}

/* The start of the trace in wall-clock time, as blk_trace_startstop notes it. */
static int note_start(struct btrace_out *o)
{
	struct blk_io_trace t = {
		.magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION,
		.action = BLK_TN_TIMESTAMP,
		.pdu_len = 2 * sizeof(uint32_t),
	};
	struct timespec now;
	uint32_t words[2];
	unsigned int i;
	int err = 0;

	clock_gettime(CLOCK_REALTIME, &now);
	words[0] = (uint32_t)now.tv_sec;
	words[1] = (uint32_t)now.tv_nsec;
	for (i = 0; i < o->n && !err; i++) {
		t.device = o->sets[i].dev;
		err = put(o, &o->sets[i], &o->sum.sets[i], &t, words);
	}
	return err;
}

size_t btrace_out__ring_bytes(void)
{
	int n = libbpf_num_possible_cpus();
	uint64_t want = (n > 0 ? n : 1) * RING_RATE_PER_CPU * RING_TICKS * BTRACE_TICK_MS / 1000 *
			BTRACE_REC_SHORT;
	size_t bytes = 1 << 16;

	while (bytes < want && bytes < RING_MAX)
		bytes <<= 1;
	return bytes;
}

int btrace_out__start(struct btrace_out *o, const struct btrace_opts *opts, struct diag *d)
{
	int err;

	err = btrace__open(opts, &o->bt, d);
	if (err)
		return err;
	o->margin = opts->stall_every ? 0 : EPOCH_MARGIN_NS;
	o->quiet = calloc(o->ncpus, sizeof(*o->quiet));
	if (!o->quiet)
		return diag__fail(d, -ENOMEM, "out of memory");
	o->t0 = clock__ns();
	o->next_epoch = o->t0 >> BTRACE_EPOCH_SHIFT;
	err = note_start(o);
	if (err)
		return diag__fail(d, err, "cannot write --blktrace %s: %s", o->dir, strerror(-err));
	err = btrace__start(o->bt);
	if (err)
		return diag__fail(d, err, "cannot attach to the block tracepoints: %s",
				  strerror(-err));
	err = ringbuf_drain__start_ticked(btrace__events_fd(o->bt), on_record, on_tick, o,
					  BTRACE_TICK_MS, &o->drain);
	return err ? diag__fail(d, err, "cannot read the BPF ring buffer: %s", strerror(-err)) : 0;
}

void btrace_out__detach(struct btrace_out *o)
{
	if (o)
		btrace__detach(o->bt);
}

/* Files NAME.blktrace.N beyond our CPUs, from a larger machine: not part of this trace. */
static void remove_stale(const struct btrace_out *o, const char *name)
{
	char path[PATH_MAX];
	unsigned int c;

	for (c = o->ncpus; c < BTRACE_MAX_CPUS; c++) {
		snprintf(path, sizeof(path), "%s/%s.blktrace.%u", o->dir, name, c);
		if (unlink(path))
			break;
	}
}

int btrace_out__commit(struct btrace_out *o, struct btrace_summary *sum, struct diag *d)
{
	unsigned int i, c;
	int err;

	btrace__detach(o->bt);
	err = ringbuf_drain__stop(o->drain);
	o->drain = NULL;
	if (o->err)
		err = o->err;
	if (!err)
		err = write_all(o);
	if (err)
		return diag__fail(d, err, "cannot write --blktrace %s: %s", o->dir, strerror(-err));
	o->sum.late = o->late;
	err = btrace__lost(o->bt, &o->sum.lost, &o->sum.lost_notes);
	if (!err)
		err = btrace__skipped(o->bt, o->sum.skipped);
	if (err)
		return diag__fail(d, err, "cannot read the BPF maps: %s", strerror(-err));
	o->sum.has_lost = true;
	btrace__close(o->bt);
	o->bt = NULL;
	for (i = 0; i < o->n; i++) {
		for (c = 0; c < o->ncpus && !err; c++)
			err = outfile__commit(&o->sets[i].files[c], d);
		if (err)
			return err;
		remove_stale(o, o->sum.sets[i].name);
	}
	o->made_dir = false; /* it holds the trace now */
	*sum = o->sum;
	memset(&o->sum, 0, sizeof(o->sum));
	return 0;
}

void btrace_out__close(struct btrace_out *o)
{
	unsigned int i, c;

	if (!o)
		return;
	btrace__detach(o->bt);
	ringbuf_drain__stop(o->drain);
	btrace__close(o->bt);
	for (i = 0; i < o->n; i++) {
		struct out_set *s = &o->sets[i];

		for (c = 0; c < o->ncpus; c++) {
			if (s->files)
				outfile__abort(&s->files[c]);
			if (s->paths)
				free(s->paths[c]);
		}
		free(s->paths);
		free(s->files);
		free(s->seq);
		free(s->last_pid);
		tdestroy(s->noted, free);
	}
	if (o->made_dir)
		rmdir(o->dir);
	for (i = 0; i < BTRACE_EPOCHS; i++)
		free(o->buckets[i].ev);
	for (i = 0; i < o->nr_spare; i++)
		free(o->spare[i].ev);
	tdestroy(o->tasks, free);
	free(o->sort);
	free(o->quiet);
	free(o->sets);
	btrace_summary__free(&o->sum);
	free(o);
}
