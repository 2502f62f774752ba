// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Reading blktrace files: a set of per-CPU files merged by time, or one stream sorted in
 * memory. See btrace_read.h.
 */
#include <byteswap.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "blktrace/btrace_read.h"
#include "result/btrace_summary.h"
#include "base/diag.h"
#include "files/infile.h"

#define SET_SUFFIX ".blktrace."
/* Names a directory may hold before the message stops listing them. */
#define NAMES_LISTED 4

struct stream {
	FILE *f;
	bool own;   /* opened here, closed here */
	char *path; /* for messages */
	int cpu;    /* a per-CPU file's CPU; -1 for a stream of any */
	int swap;   /* -1 not known yet, 0 native, 1 the other byte order */
	uint64_t records;
	uint64_t other_cpu; /* a per-CPU file's records of another CPU, skipped */
	char ended[160];    /* why it ended before its last byte: "" when it did not */
	bool has_next;
	struct btrace_record next;
};

struct sorted_record {
	struct btrace_record r;
	size_t idx; /* the order read: equal times keep it */
};

struct btrace_reader {
	char name[DEVICE_NAME_MAX];
	char where[PATH_MAX + 64];
	char dir[PATH_MAX]; /* a set's directory; "" for a stream */
	struct stream *streams;
	unsigned int n;
	struct sorted_record *sorted; /* a single stream, sorted */
	size_t nr_sorted, pos;
};

static void swap_record(struct blk_io_trace *t)
{
	t->magic = bswap_32(t->magic);
	t->sequence = bswap_32(t->sequence);
	t->time = bswap_64(t->time);
	t->sector = bswap_64(t->sector);
	t->bytes = bswap_32(t->bytes);
	t->action = bswap_32(t->action);
	t->pid = bswap_32(t->pid);
	t->device = bswap_32(t->device);
	t->cpu = bswap_32(t->cpu);
	t->error = bswap_16(t->error);
	t->pdu_len = bswap_16(t->pdu_len);
}

static bool magic_ok(uint32_t magic)
{
	return (magic & 0xffffff00) == BLK_IO_TRACE_MAGIC;
}

/*
 * The header's checks: byte order (from the first record), magic, version, a stream's
 * CPU. NULL when t is a record (swapped to host order), else what it is not, in why.
 */
static const char *header_fault(struct stream *s, struct blk_io_trace *t, char *why, size_t len)
{
	if (s->swap < 0) {
		if (!magic_ok(t->magic) && !magic_ok(bswap_32(t->magic))) {
			snprintf(why, len, "not a blktrace file (magic 0x%08x)", t->magic);
			return why;
		}
		s->swap = !magic_ok(t->magic);
	}
	if (s->swap)
		swap_record(t);
	if (!magic_ok(t->magic))
		snprintf(why, len, "bad magic 0x%08x", t->magic);
	else if ((t->magic & 0xff) != BLK_IO_TRACE_VERSION)
		snprintf(why, len, "blktrace format version %u; this build reads version %u",
			 t->magic & 0xff, BLK_IO_TRACE_VERSION);
	else if (s->cpu < 0 && t->cpu >= BTRACE_MAX_CPUS)
		snprintf(why, len, "CPU %u, out of range", t->cpu);
	else
		return NULL;
	return why;
}

/*
 * The end of s at the record from byte at on, which is none: a trace stopped mid-write
 * may end in one cut short, or in one the kernel had reserved but not yet written when
 * blktrace read it. After a good record blkparse reads up to it, and so does this,
 * saying why in s->ended with the bytes left unread (a few, at a stop; more, where the
 * file is damaged); 0, as at the end of s.
 */
static int ended(struct stream *s, const char *why, off_t at)
{
	struct stat st;
	int n = snprintf(s->ended, sizeof(s->ended), "%s in record %llu", why,
			 (unsigned long long)s->records + 1);

	if (at >= 0 && !fstat(fileno(s->f), &st) && S_ISREG(st.st_mode) && st.st_size >= at &&
	    n >= 0 && (size_t)n < sizeof(s->ended))
		snprintf(s->ended + n, sizeof(s->ended) - n, " (byte %lld on: %lld bytes unread)",
			 (long long)at, (long long)(st.st_size - at));
	return 0;
}

/*
 * One record of s, its header checked: 1, 0 at its end, -errno with d. Before a good
 * record, any fault is bad input: the file is no trace.
 */
static int read_raw(struct stream *s, struct btrace_record *rec, struct diag *d)
{
	off_t at = ftello(s->f);
	size_t got = fread(&rec->t, 1, sizeof(rec->t), s->f), keep;
	char why[80];

	if (!got && feof(s->f))
		return 0;
	if (got < sizeof(rec->t))
		goto short_read;
	if (header_fault(s, &rec->t, why, sizeof(why)))
		return s->records ? ended(s, why, at) : diag__usage(d, "%s: %s", s->path, why);
	memset(rec->pdu, 0, sizeof(rec->pdu));
	keep = rec->t.pdu_len < sizeof(rec->pdu) ? rec->t.pdu_len : sizeof(rec->pdu);
	if (fread(rec->pdu, 1, keep, s->f) != keep)
		goto short_read;
	/* The rest of a longer payload (a message, driver data) is not used. */
	for (got = keep; got < rec->t.pdu_len; got++)
		if (fgetc(s->f) == EOF)
			goto short_read;
	s->records++;
	return 1;
short_read:
	if (ferror(s->f))
		return diag__fail(d, -EIO, "%s: read error: %s", s->path, strerror(errno));
	if (s->records)
		return ended(s, "cut short", at);
	return diag__usage(d, "%s: truncated after 0 records", s->path);
}

/*
 * One record of s: 1, 0 at its end, -errno with d. A per-CPU file's record of another
 * CPU is skipped and counted, as blkparse skips it.
 */
static int read_one(struct stream *s, struct btrace_record *rec, struct diag *d)
{
	int ret;

	while ((ret = read_raw(s, rec, d)) > 0 && s->cpu >= 0 && rec->t.cpu != (uint32_t)s->cpu)
		s->other_cpu++;
	return ret;
}

static int refill(struct stream *s, struct diag *d)
{
	int ret = read_one(s, &s->next, d);

	s->has_next = ret > 0;
	return ret < 0 ? ret : 0;
}

static int cmp_sorted(const void *a, const void *b)
{
	const struct sorted_record *x = a, *y = b;

	if (x->r.t.time != y->r.t.time)
		return x->r.t.time < y->r.t.time ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* A single stream: every record in memory, then by time (equal times in file order). */
static int load_sorted(struct btrace_reader *r, struct diag *d)
{
	struct stream *s = &r->streams[0];
	size_t cap = 0;
	int ret;

	for (;;) {
		if (r->nr_sorted == cap) {
			struct sorted_record *p;

			if (cap >= BTRACE_READ_MAX_SORTED)
				return diag__usage(d,
						   "%s: more than %u records in one file; give "
						   "the per-CPU files (NAME.blktrace.CPU)",
						   s->path, BTRACE_READ_MAX_SORTED);
			cap = cap ? cap * 2 : 4096;
			p = realloc(r->sorted, cap * sizeof(*p));
			if (!p)
				return diag__fail(d, -ENOMEM, "out of memory");
			r->sorted = p;
		}
		ret = read_one(s, &r->sorted[r->nr_sorted].r, d);
		if (ret <= 0)
			break;
		r->sorted[r->nr_sorted].idx = r->nr_sorted;
		r->nr_sorted++;
	}
	if (ret < 0)
		return ret;
	if (!r->nr_sorted)
		return diag__usage(d, "%s: empty: no blktrace records", s->path);
	qsort(r->sorted, r->nr_sorted, sizeof(*r->sorted), cmp_sorted);
	return 0;
}

int btrace_read__next(struct btrace_reader *r, struct btrace_record *rec, struct diag *d)
{
	struct stream *best = NULL;
	unsigned int i;

	if (r->sorted) {
		if (r->pos >= r->nr_sorted)
			return 0;
		*rec = r->sorted[r->pos++].r;
		return 1;
	}
	/* The stream whose next record is earliest; on a tie the lower CPU, as blkparse. */
	for (i = 0; i < r->n; i++)
		if (r->streams[i].has_next &&
		    (!best || r->streams[i].next.t.time < best->next.t.time))
			best = &r->streams[i];
	if (!best)
		return 0;
	*rec = best->next;
	return refill(best, d) ?: 1;
}

/* NAME and CPU of a per-CPU file's name (NAME.blktrace.CPU); false for any other. */
static bool set_file(const char *fname, char *name, size_t len, unsigned int *cpu)
{
	const char *suffix = strstr(fname, SET_SUFFIX), *digits;
	char *end;
	unsigned long v;

	if (!suffix || suffix == fname || (size_t)(suffix - fname) >= len)
		return false;
	digits = suffix + strlen(SET_SUFFIX);
	if (*digits < '0' || *digits > '9')
		return false;
	errno = 0;
	v = strtoul(digits, &end, 10);
	if (*end || errno || v >= BTRACE_MAX_CPUS)
		return false;
	snprintf(name, len, "%.*s", (int)(suffix - fname), fname);
	*cpu = v;
	return true;
}

/* The one trace a directory holds: its NAME into r->name. */
static int find_set(const char *dir, struct btrace_reader *r, struct diag *d)
{
	char names[NAMES_LISTED][DEVICE_NAME_MAX], name[DEVICE_NAME_MAX], listed[512] = "";
	unsigned int cpu, n = 0, i;
	bool more = false;
	struct dirent *e;
	DIR *dh = opendir(dir);

	if (!dh)
		return diag__fail(d, -errno, "%s: %s", dir, strerror(errno));
	while ((e = readdir(dh))) {
		if (!set_file(e->d_name, name, sizeof(name), &cpu))
			continue;
		for (i = 0; i < n && strcmp(names[i], name); i++)
			;
		if (i < n)
			continue;
		if (n == NAMES_LISTED) {
			more = true;
			continue;
		}
		snprintf(names[n++], sizeof(names[0]), "%s", name);
	}
	closedir(dh);
	if (!n)
		return diag__usage(d, "%s: no blktrace files in it (NAME.blktrace.CPU)", dir);
	snprintf(r->name, sizeof(r->name), "%s", names[0]);
	if (n == 1)
		return 0;
	for (i = 0; i < n; i++)
		snprintf(listed + strlen(listed), sizeof(listed) - strlen(listed), "%s%s",
			 i ? ", " : "", names[i]);
	return diag__usage(d, "%s holds the traces of %s%s: name one (%s/%s)", dir, listed,
			   more ? ", ..." : "", dir, names[0]);
}

/* A stream of r for path (taken), not opened yet. NULL: out of memory. */
static struct stream *add_stream(struct btrace_reader *r, char *path, int cpu)
{
	struct stream *s = realloc(r->streams, (r->n + 1) * sizeof(*s));

	if (!s) {
		free(path);
		return NULL;
	}
	r->streams = s;
	s = &r->streams[r->n++];
	memset(s, 0, sizeof(*s));
	s->path = path;
	s->cpu = cpu;
	s->swap = -1;
	return s;
}

/*
 * The per-CPU files of DIR/NAME, from CPU 0 up to the first missing one, as blkparse:
 * named, not opened (every one of them is an input the run must not write over).
 */
static int find_files(struct btrace_reader *r, const char *dir, struct diag *d)
{
	unsigned int cpu;
	struct stat st;
	char *path;

	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	for (cpu = 0; cpu < BTRACE_MAX_CPUS; cpu++) {
		if (asprintf(&path, "%s/%s" SET_SUFFIX "%u", dir, r->name, cpu) < 0)
			return diag__fail(d, -ENOMEM, "out of memory");
		if (stat(path, &st)) {
			free(path);
			break;
		}
		if (!add_stream(r, path, cpu))
			return diag__fail(d, -ENOMEM, "out of memory");
	}
	snprintf(r->where, sizeof(r->where), "%s/%s" SET_SUFFIX "0-%u", dir, r->name, cpu - 1);
	return 0;
}

static struct btrace_reader *new_reader(void)
{
	return calloc(1, sizeof(struct btrace_reader));
}

/* A reader of one stream of any CPU, named name; its file opened later unless f is given. */
static int new_stream_reader(FILE *f, const char *name, struct btrace_reader **out, struct diag *d)
{
	struct btrace_reader *r = new_reader();
	const char *base = strrchr(name, '/');
	char *path = strdup(name);
	struct stream *s;

	*out = NULL;
	s = r && path ? add_stream(r, path, -1) : NULL;
	if (!s) {
		if (!r)
			free(path);
		btrace_read__close(r);
		return diag__fail(d, -ENOMEM, "out of memory");
	}
	s->f = f;
	snprintf(r->name, sizeof(r->name), "%s", base ? base + 1 : name);
	snprintf(r->where, sizeof(r->where), "%s", name);
	*out = r;
	return 0;
}

int btrace_read__open_stream(FILE *f, const char *name, struct btrace_reader **out, struct diag *d)
{
	int err = new_stream_reader(f, name, out, d);

	if (!err)
		err = btrace_read__start(*out, d);
	if (err) {
		btrace_read__close(*out);
		*out = NULL;
	}
	return err;
}

/*
 * PATH as blkparse -i takes it: DIR (its one trace), NAME.blktrace.N or DIR/NAME (the
 * set); 1 for any other file: a stream.
 */
static int open_path(const char *path, struct btrace_reader *r, struct diag *d)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char dir[PATH_MAX];
	unsigned int cpu;
	struct stat st;
	int err;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		err = find_set(path, r, d);
		return err ? err : find_files(r, path, d);
	}
	if (!set_file(base, r->name, sizeof(r->name), &cpu)) {
		if (!stat(path, &st))
			return 1;
		snprintf(r->name, sizeof(r->name), "%s", base);
	}
	err = find_files(r, dir, d);
	if (!err && !r->n)
		err = diag__fail(d, -ENOENT, "%s: %s", path, strerror(ENOENT));
	return err;
}

int btrace_read__resolve(const char *path, struct btrace_reader **out, struct diag *d)
{
	struct btrace_reader *r;
	int err;

	*out = NULL;
	if (!strcmp(path, "-"))
		return new_stream_reader(stdin, "stdin", out, d);
	r = new_reader();
	if (!r)
		return diag__fail(d, -ENOMEM, "out of memory");
	err = open_path(path, r, d);
	if (err) {
		btrace_read__close(r);
		/* 1: one stream of any CPU */
		return err == 1 ? new_stream_reader(NULL, path, out, d) : err;
	}
	*out = r;
	return 0;
}

int btrace_read__start(struct btrace_reader *r, struct diag *d)
{
	unsigned int i;
	int err;

	for (i = 0; i < r->n; i++) {
		struct stream *s = &r->streams[i];

		if (s->f)
			continue;
		err = infile__open(s->path, s->cpu < 0, &s->f, d);
		if (err)
			return err;
		s->own = true;
	}
	if (r->n == 1 && r->streams[0].cpu < 0)
		return load_sorted(r, d);
	for (i = 0; i < r->n; i++) {
		err = refill(&r->streams[i], d);
		if (err)
			return err;
	}
	return 0;
}

int btrace_read__open(const char *path, struct btrace_reader **out, struct diag *d)
{
	int err = btrace_read__resolve(path, out, d);

	if (!err)
		err = btrace_read__start(*out, d);
	if (err) {
		btrace_read__close(*out);
		*out = NULL;
	}
	return err;
}

const char *btrace_read__file(const struct btrace_reader *r, unsigned int i)
{
	/* stdin and a caller's stream have no name to protect */
	return i < r->n && (r->streams[i].own || !r->streams[i].f) ? r->streams[i].path : NULL;
}

bool btrace_read__of_set(const struct btrace_reader *r, const char *path)
{
	const char *slash = strrchr(path, '/');
	char name[DEVICE_NAME_MAX], dir[PATH_MAX];
	struct stat a, b;
	unsigned int cpu;

	if (!r->dir[0] || !set_file(slash ? slash + 1 : path, name, sizeof(name), &cpu) ||
	    strcmp(name, r->name))
		return false;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
		 slash ? path : ".");
	return !stat(dir, &a) && !stat(r->dir, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

const char *btrace_read__name(const struct btrace_reader *r)
{
	return r->name;
}

const char *btrace_read__where(const struct btrace_reader *r)
{
	return r->where;
}

const char *btrace_read__left_out(const struct btrace_reader *r, unsigned int i, char *buf,
				  size_t len)
{
	unsigned int k;

	for (k = 0; k < r->n; k++) {
		const struct stream *s = &r->streams[k];

		if (s->ended[0] && !i--) {
			snprintf(buf, len, "%s: %s", s->path, s->ended);
			return buf;
		}
		if (s->other_cpu && !i--) {
			snprintf(buf, len, "%s: %llu record%s of another CPU", s->path,
				 (unsigned long long)s->other_cpu, s->other_cpu == 1 ? "" : "s");
			return buf;
		}
	}
	return NULL;
}

void btrace_read__close(struct btrace_reader *r)
{
	unsigned int i;

	if (!r)
		return;
	for (i = 0; r->streams && i < r->n; i++) {
		if (r->streams[i].own && r->streams[i].f)
			fclose(r->streams[i].f);
		free(r->streams[i].path);
	}
	free(r->streams);
	free(r->sorted);
	free(r);
}
