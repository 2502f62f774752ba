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
#include "base/diag.h"
#include "disk/fleet.h" /* fleet__name: a set is named as its disk is everywhere */
#include "trace/ringbuf_drain.h"

/* 10 ms at 150k IOPS and ~5 records per I/O is ~600 KB of the 16 MiB ring buffer. */
#define BTRACE_TICK_MS 10
/* stdio's buffer per file: fewer, larger writes from the drain thread. */
#define FILE_BUFFER (256 << 10)

/* One traced device's files. */
struct out_set {
	uint32_t dev;	       /* written in every record */
	char **paths;	       /* per CPU: DIR/NAME.blktrace.CPU */
	struct outfile *files; /* per CPU */
	uint32_t *seq;	       /* per CPU: the last sequence number written */
	void *noted;	       /* tsearch tree of the tasks whose name was written */
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
	if (!s->paths || !s->files || !s->seq)
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

/*
 * A task's name before its first event on this device, as trace_note_tsk writes it:
 * the kernel notes each task once, so a pid gets a note per name it has (pid 0's idle
 * task is swapper/N on each CPU N; blkparse keeps a pid's first).
 */
static int note_task(struct btrace_out *o, struct out_set *s, struct btrace_set_summary *sum,
		     const struct btrace_event *e, uint64_t time)
{
	struct blk_io_trace t = {
		.magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION,
		.time = time,
		.action = BLK_TN_PROCESS,
		.pid = e->pid,
		.device = s->dev,
		.cpu = e->cpu,
		.pdu_len = sizeof(e->comm),
	};
	struct noted_task key = { .pid = e->pid }, *n;
	void *found;

	memcpy(key.comm, e->comm, sizeof(key.comm));
	if (tfind(&key, &s->noted, cmp_task))
		return 0;
	n = malloc(sizeof(*n));
	if (n)
		*n = key;
	found = n ? tsearch(n, &s->noted, cmp_task) : NULL;
	if (!found) {
		free(n);
		o->err = o->err ?: -ENOMEM;
		return -ENOMEM;
	}
	return put(o, s, sum, &t, e->comm);
}

/* The drain thread's callback: one event, after its task's note if it has none yet. */
static int on_event(void *ctx, void *data, size_t size)
{
	struct btrace_out *o = ctx;
	const struct btrace_event *e = data;
	struct blk_io_trace t = { .magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION };
	struct btrace_set_summary *sum;
	struct out_set *s;
	int err;

	/* The programs write nothing else; anything else is not ours to write. */
	if (size < sizeof(*e) || e->device >= o->n || e->cpu >= o->ncpus ||
	    e->pdu_len > BTRACE_PDU_MAX)
		return 0;
	s = &o->sets[e->device];
	sum = &o->sum.sets[e->device];
	t.time = e->time > o->t0 ? e->time - o->t0 : 0;
	err = note_task(o, s, sum, e, t.time);
	if (err)
		return err;
	t.sequence = ++s->seq[e->cpu];
	t.sector = e->sector;
	t.bytes = e->bytes;
	t.action = e->action;
	t.pid = e->pid;
	t.device = s->dev;
	t.cpu = e->cpu;
	t.error = e->error;
	t.pdu_len = e->pdu_len;
	return put(o, s, sum, &t, e->pdu);
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

int btrace_out__start(struct btrace_out *o, const struct btrace_opts *opts, struct diag *d)
{
	struct timespec now;
	int err;

	err = btrace__open(opts, &o->bt, d);
	if (err)
		return err;
	clock_gettime(CLOCK_MONOTONIC, &now);
	o->t0 = (uint64_t)now.tv_sec * 1000000000ULL + now.tv_nsec;
	err = note_start(o);
	if (err)
		return diag__fail(d, err, "cannot write --blktrace %s: %s", o->dir, strerror(-err));
	err = btrace__start(o->bt);
	if (err)
		return diag__fail(d, err, "cannot attach to the block tracepoints: %s",
				  strerror(-err));
	err = ringbuf_drain__start(btrace__events_fd(o->bt), on_event, o, BTRACE_TICK_MS,
				   &o->drain);
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
	if (err)
		return diag__fail(d, err, "cannot write --blktrace %s: %s", o->dir, strerror(-err));
	err = btrace__lost(o->bt, &o->sum.lost);
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
		tdestroy(s->noted, free);
	}
	if (o->made_dir)
		rmdir(o->dir);
	free(o->sets);
	btrace_summary__free(&o->sum);
	free(o);
}
