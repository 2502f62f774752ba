// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Workload mode of the trace command. Before anything is traced (sweep__prepare):
 * --rw and friends are checked, the target is chosen, checked and opened
 * (target.c: nothing is written that the user did not ask for, nothing is left
 * behind), and a --set sweep takes the disk's lock and records the original value
 * (sweep_state.c) before its first change. Then every (value, block size,
 * repetition) becomes one traced run (sweep__run); sweep__close puts everything back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "workload/sweep.h"
#include "base/diag.h"
#include "base/fmt.h"
#include "workload/workload.h"

static bool is_write(const char *rw)
{
	return !strcmp(rw, "write") || !strcmp(rw, "randwrite");
}

#define DROP_CACHES "/proc/sys/vm/drop_caches"

/* --drop-caches on buffered reads: the file opened now, so that a run never starts warm. */
static int open_drop_caches(struct sweep *j, struct diag *d)
{
	const struct workload_spec *w = j->w;

	if (!w->drop_caches || j->write || w->direct)
		return 0;
	j->drop_fd = open(DROP_CACHES, O_WRONLY | O_CLOEXEC);
	if (j->drop_fd < 0)
		return diag__fail(d, -errno, "--drop-caches: cannot open %s: %s", DROP_CACHES,
				  strerror(errno));
	return 0;
}

/*
 * Before a buffered read run: the machine's page cache dropped when asked (a failure
 * ends the run: it was asked to be cold), and a raw disk's own, as a fresh dd finds it
 * (the target stays open across runs, so its last close never drops it). What could not
 * be dropped is said in the run (RUN_CACHE_WARM), never left for a cold read.
 */
static int drop_page_cache(struct sweep *j, int fd, enum run_cache *cache, char *note, size_t len,
			   struct diag *d)
{
	*cache = RUN_CACHE_NA;
	if (j->write || j->w->direct)
		return 0;
	if (j->drop_fd >= 0) {
		sync();
		if (pwrite(j->drop_fd, "3\n", 2, 0) != 2)
			return diag__fail(d, errno ? -errno : -EIO,
					  "--drop-caches: cannot drop the page cache: %s",
					  strerror(errno ? errno : EIO));
		*cache = RUN_CACHE_COLD;
	}
	if (j->target.kind != TARGET_DISK)
		return 0;
	if (!ioctl(fd, BLKFLSBUF, 0))
		*cache = RUN_CACHE_COLD;
	else if (*cache != RUN_CACHE_COLD) {
		*cache = RUN_CACHE_WARM;
		snprintf(note, len, "the disk's page cache could not be dropped (BLKFLSBUF: %s)",
			 strerror(errno));
	}
	return 0;
}

static void fill_params(struct job_params *p, const struct workload_spec *w, uint64_t bs,
			uint64_t size)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->rw, sizeof(p->rw), "%s", w->rw);
	p->bs = bs;
	p->size = size;
	p->runtime = w->runtime;
	snprintf(p->engine, sizeof(p->engine), "%s", w->engine ? w->engine : "psync");
	p->iodepth = w->iodepth ? w->iodepth : 1;
	p->direct = w->direct;
	p->sync = w->sync;
	p->fsync = w->fsync;
	p->fdatasync = w->fdatasync;
}

static void label_run(struct run *r)
{
	const struct job_params *p = &r->params;
	char bs[32], depth[32] = "";

	fmt__bytes(bs, sizeof(bs), p->bs);
	if (p->iodepth > 1)
		snprintf(depth, sizeof(depth), " iodepth=%u", p->iodepth);
	/* A label is for people: one cut short (tune's long combinations) ends in "...". */
	if (snprintf(r->label, sizeof(r->label), "%s%s%s%s%s bs=%s %s%s%s%s%s%s", p->set_knob,
		     p->set_knob[0] ? "=" : "", p->set_value, p->set_knob[0] ? " " : "", p->rw, bs,
		     p->engine, depth, p->direct ? " direct" : "", p->sync ? " dsync" : "",
		     p->fsync ? " fsync" : "",
		     p->fdatasync ? " fdatasync" : "") >= (int)sizeof(r->label))
		strcpy(r->label + sizeof(r->label) - 4, "...");
}

/* Options this workload would ignore: refused, not accepted in silence. */
static int validate_used(const struct workload_spec *w, struct diag *d)
{
	if (w->drop_caches && (is_write(w->rw) || w->direct))
		return diag__usage(d, "--drop-caches is for buffered reads: %s",
				   w->direct ? "--direct bypasses the page cache"
					     : "a write workload reads nothing");
	if (w->overwrite && !is_write(w->rw))
		return diag__usage(d,
				   "--overwrite is for write workloads: --rw %s never changes "
				   "the file",
				   w->rw);
	if (w->destructive && !is_write(w->rw))
		return diag__usage(d,
				   "--destructive is for write workloads: --rw %s never "
				   "changes the disk",
				   w->rw);
	if (w->wrap && !w->size && !w->count)
		return diag__usage(d, "--wrap lets --size or --count exceed the disk or the file: "
				      "give one of them");
	return 0;
}

static int validate(const struct workload_spec *w, struct diag *d)
{
	int i;

	if (w->size && w->count)
		return diag__usage(d, "--size and --count are alternatives: give one");
	if (w->iodepth > 1 && (!w->engine || strcmp(w->engine, "io_uring")))
		return diag__usage(
			d, "--iodepth %u needs --engine io_uring (psync does one I/O at a time)",
			w->iodepth);
	if (w->no_fixed_bufs && (!w->engine || strcmp(w->engine, "io_uring")))
		return diag__usage(
			d, "--no-fixed-bufs is for --engine io_uring (psync registers nothing)");
	if ((w->fsync || w->fdatasync || w->sync) && !is_write(w->rw))
		return diag__usage(d, "--dsync, --fsync and --fdatasync are for write workloads");
	if (w->raw && w->file)
		return diag__usage(d,
				   "--raw and --file are alternatives: the disk itself, or a file");
	if (is_write(w->rw) && !w->size && !w->count && !(w->raw && w->runtime))
		return diag__usage(d, "write workloads need --size or --count");
	for (i = 0; i < w->nr_bs; i++)
		if (w->size && w->size % w->bs[i])
			return diag__usage(d, "--size %llu is not a multiple of --bs %llu",
					   (unsigned long long)w->size,
					   (unsigned long long)w->bs[i]);
	if (w->recommend && !w->nr_set_values)
		return diag__usage(d, "--recommend needs a --set sweep to choose from");
	return validate_used(w, d);
}

/* Bytes per run for block size bs; 0: the whole file or disk (reads). */
static uint64_t run_size(const struct workload_spec *w, uint64_t bs)
{
	return w->size ? w->size : w->count * bs;
}

static int open_target(struct sweep *j, const struct workload_env *env, struct diag *d)
{
	const struct workload_spec *w = j->w;
	struct target_req req = {
		.file = w->file,
		.raw = w->raw,
		.write = j->write,
		.overwrite = w->overwrite,
		.destructive = w->destructive,
		.any_fs = w->any_fs,
	};
	int i, ret;

	ret = target__open(&j->target, &env->target, &req, j->d, d);
	if (ret)
		return ret;
	if (j->target.kind == TARGET_NEW_FILE && !j->write && !j->max_size)
		return w->file ? diag__usage(d,
					     "%s does not exist: give --size to create it for "
					     "reading",
					     w->file)
			       : diag__usage(d, "--rw %s of a new file needs --size or --count",
					     w->rw);
	for (i = 0; i < j->nr_bs; i++) {
		ret = target__check_io(&j->target, j->bs_list[i], run_size(w, j->bs_list[i]),
				       w->direct, w->wrap, d);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The disk's lock, whatever a dead sweep left put back, the original value recorded,
 * and only then the trial writes of every value.
 */
/*
 * "KNOB" changes the traced device; "DEV:KNOB" a layer of its stack (a member disk under
 * an array, the disk under a dm device). The knob's name without DEV, or NULL after
 * saying which devices there are.
 */
static const char *knob_target(struct sweep *j, const struct workload_env *env, struct diag *d)
{
	const char *name = j->w->set_knob, *colon = strchr(name, ':');
	char devs[256];
	size_t i, used;

	j->knob_dev = j->d;
	j->knob_layer = -1;
	if (!colon)
		return name;
	for (i = 0; i < env->nr_layers; i++)
		if (strlen(env->layers[i].dev.name) == (size_t)(colon - name) &&
		    !strncmp(env->layers[i].dev.name, name, colon - name)) {
			j->knob_dev = &env->layers[i].dev;
			j->knob_layer = (int)i;
			return colon + 1;
		}
	used = (size_t)snprintf(devs, sizeof(devs), "%s", j->d->name);
	for (i = 0; i < env->nr_layers && used < sizeof(devs); i++)
		used += snprintf(devs + used, sizeof(devs) - used, ", %s", env->layers[i].dev.name);
	diag__usage(d, "--set %s: %.*s is not under %s (its stack: %s)", name, (int)(colon - name),
		    name, j->d->name, devs);
	return NULL;
}

static int prepare_sweep(struct sweep *j, const struct workload_env *env, struct diag *d)
{
	const struct workload_spec *w = j->w;
	const char *knob = knob_target(j, env, d);
	int ret;

	if (!knob)
		return -EINVAL;
	ret = sweep_state__lock(&env->state, j->knob_dev, &j->state, d);
	if (ret)
		return ret;
	ret = sweep_state__recover(j->state, j->notes, d);
	if (ret < 0)
		return ret;
	if (ret > 0)
		device__read_limits(j->knob_dev);
	ret = knob__prepare(&j->knob, j->knob_dev, knob, w->set_values, w->nr_set_values, d);
	j->knob.notes = j->notes;
	if (ret)
		return ret;
	ret = sweep_state__save(j->state, j->knob.name, j->knob.original);
	if (ret)
		return diag__fail(d, ret, "cannot record the original %s=%s of %s: %s",
				  j->knob.name, j->knob.original, j->knob_dev->name,
				  strerror(-ret));
	j->knob.state = j->state;
	return knob__try(&j->knob, w->set_values, w->nr_set_values, d);
}

int sweep__prepare(struct sweep *j, const struct workload_spec *w, struct device *dev,
		   const struct workload_env *env, volatile sig_atomic_t *stop, struct diag *d)
{
	int i, ret;

	memset(j, 0, sizeof(*j));
	j->target.fd = -1;
	j->drop_fd = -1;
	j->knob_layer = -1;
	j->w = w;
	j->notes = env->notes;
	j->d = dev;
	j->write = is_write(w->rw);
	j->bs_list = w->nr_bs ? w->bs : &j->default_bs;
	j->nr_bs = w->nr_bs ? w->nr_bs : 1;
	j->default_bs = WORKLOAD_DEFAULT_BS;
	for (i = 0; i < j->nr_bs; i++)
		if (run_size(w, j->bs_list[i]) > j->max_size)
			j->max_size = run_size(w, j->bs_list[i]);
	ret = validate(w, d);
	if (!ret)
		ret = open_target(j, env, d);
	if (!ret)
		ret = open_drop_caches(j, d);
	if (!ret && w->nr_set_values)
		ret = prepare_sweep(j, env, d);
	/* A read job's new file needs real blocks; writes extend it. */
	if (!ret && j->target.kind == TARGET_NEW_FILE && !j->write) {
		ret = target__fill(&j->target, j->max_size, stop);
		if (ret && ret != -EINTR)
			diag__fail(d, ret, "cannot fill %s: %s", j->target.name, strerror(-ret));
	}
	if (!ret && *stop)
		ret = -EINTR;
	if (ret)
		sweep__close(j);
	return ret;
}

static void restore_knob(struct sweep *j)
{
	if (!j->knob.changed || j->restore_failed)
		return;
	if (knob__restore(&j->knob)) {
		/* knob__restore said what to write where; the state file remembers it too
		 * (sweep_state__release says how to use it). */
		j->restore_failed = true;
		return;
	}
	diag__note(j->notes, "restored %s=%s on %s", j->knob.name, j->knob.original,
		   j->knob_dev->name);
}

void sweep__close(struct sweep *j)
{
	restore_knob(j);
	sweep_state__release(j->state, !j->knob.changed, j->notes);
	j->state = j->knob.state = NULL;
	target__close(&j->target);
	if (j->drop_fd >= 0)
		close(j->drop_fd);
	j->drop_fd = -1;
}

/*
 * The limits in force during a --set run: the traced device's, and when the knob is on a
 * layer, every layer's as it is now (layers.c reads them).
 */
static int run_limits(struct sweep *j, const struct result *res, struct run *r)
{
	struct device now = *j->d;
	size_t i;

	device__read_limits(&now);
	r->limits = now.limits;
	r->has_limits = true;
	if (j->knob_layer < 0)
		return 0;
	r->layer_limits = calloc(res->nr_layers, sizeof(*r->layer_limits));
	if (!r->layer_limits)
		return -ENOMEM;
	for (i = 0; i < res->nr_layers; i++) {
		now = res->layers[i].dev;
		device__read_limits(&now);
		r->layer_limits[i] = now.limits;
	}
	return 0;
}

/* One traced run of block size bs, repetition rep, appended to res; knob=value labels it. */
static int run_one(struct sweep *j, struct tracer *t, struct result *res, uint64_t bs,
		   unsigned int rep, const char *knob, const char *value,
		   struct block_stats *before, volatile sig_atomic_t *stop, struct diag *d)
{
	const struct workload_spec *w = j->w;
	/* Registered buffers spare the kernel pinning every I/O's pages (fio: fixedbufs). */
	struct workload_opts wo = { .fixed_bufs = !w->no_fixed_bufs, .hugepages = w->hugepages };
	bool new_file = j->target.kind == TARGET_NEW_FILE;
	/* Like dd of=FILE, each run of ours writes a fresh file. */
	int flags = (j->write ? O_WRONLY : O_RDONLY) | (w->direct ? O_DIRECT : 0) |
		    (w->sync ? O_DSYNC : 0) | (j->write && new_file ? O_TRUNC : 0);
	uint64_t size = run_size(w, bs), file_size = 0;
	enum run_cache cache;
	char note[128] = "";
	struct run *r;
	int fd, ret;

	fd = target__reopen(&j->target, flags);
	if (fd < 0)
		return diag__fail(d, fd, "cannot open %s: %s", j->target.name, strerror(-fd));
	/* Writes extend a file; a disk, or a file being read, bounds the offsets. */
	if (!j->write || j->target.kind == TARGET_DISK)
		workload__file_size(fd, &file_size);
	if (!size) /* reads default to the whole file or disk */
		size = file_size - file_size % bs;
	ret = drop_page_cache(j, fd, &cache, note, sizeof(note), d);
	r = ret ? NULL : result__add_run(res, true, true);
	if (!r) {
		close(fd);
		return ret ? ret : -ENOMEM;
	}
	r->cache = cache;
	snprintf(r->cache_note, sizeof(r->cache_note), "%s", note);
	fill_params(&r->params, w, bs, size);
	if (knob) {
		snprintf(r->params.set_knob, sizeof(r->params.set_knob), "%s", knob);
		snprintf(r->params.set_value, sizeof(r->params.set_value), "%s", value);
		ret = run_limits(j, res, r);
		if (ret) {
			close(fd);
			return ret;
		}
	}
	r->repetition = rep;
	label_run(r);
	ret = tracer__snapshot_all(t, before);
	if (!ret)
		ret = tracer__reset_max(t);
	if (!ret)
		ret = workload__run_opts(&r->params, fd, file_size, &wo, r->app, stop);
	close(fd);
	if (wo.hugepages && !r->app->huge_bufs && !ret && !j->said_huge) {
		diag__note(j->notes,
			   "--hugepages: the kernel gave 4 KiB pages "
			   "(transparent_hugepage is \"never\", or memory is fragmented); "
			   "requests may be split by segments");
		j->said_huge = true;
	}
	if (!ret || ret == -EINTR) {
		int e = tracer__snapshot_all(t, r->block);

		if (e)
			ret = e;
		else
			block_stats__delta_n(r->block, r->block, before, 1 + res->nr_layers);
	}
	r->seconds = r->app->ns / 1e9;
	/* Stopped part way: its figures are true, but it is no repetition of the others. */
	r->partial = ret == -EINTR;
	if (ret && ret != -EINTR)
		diag__fail(d, ret, "%s failed: %s", r->label, strerror(-ret));
	return ret;
}

/* Every block size and repetition of the job at one setting, knob=value (knob NULL: none). */
static int run_grid(struct sweep *j, struct tracer *t, struct result *res, const char *knob,
		    const char *value, struct block_stats *before, volatile sig_atomic_t *stop,
		    struct diag *d)
{
	unsigned int rep, repeat = j->w->repeat ? j->w->repeat : 1;
	int i, ret = 0;

	for (i = 0; i < j->nr_bs && !ret; i++)
		for (rep = 0; rep < repeat && !ret; rep++)
			ret = *stop ? -EINTR
				    : run_one(j, t, res, j->bs_list[i], rep, knob, value, before,
					      stop, d);
	return ret;
}

int sweep__run(struct sweep *j, struct tracer *t, struct result *res, volatile sig_atomic_t *stop,
	       struct diag *d)
{
	const struct workload_spec *w = j->w;
	int v, ret = 0, nr_vals = w->nr_set_values ? w->nr_set_values : 1;
	struct block_stats *before = calloc(1 + res->nr_layers, sizeof(*before));

	if (!before)
		return -ENOMEM;
	for (v = 0; v < nr_vals && !ret; v++) {
		if (w->nr_set_values) {
			ret = knob__apply(&j->knob, w->set_values[v], d);
			if (ret)
				break;
		}
		ret = run_grid(j, t, res, w->nr_set_values ? w->set_knob : NULL, w->set_values[v],
			       before, stop, d);
	}
	free(before);
	restore_knob(j);
	return ret;
}

int sweep__run_set(struct sweep *j, struct tracer *t, struct result *res, const char *knob,
		   const char *value, volatile sig_atomic_t *stop, struct diag *d)
{
	struct block_stats *before = calloc(1 + res->nr_layers, sizeof(*before));
	int ret;

	if (!before)
		return diag__fail(d, -ENOMEM, "out of memory");
	ret = run_grid(j, t, res, knob, value, before, stop, d);
	free(before);
	return ret;
}

int sweep__run_one(struct sweep *j, struct tracer *t, struct result *res, unsigned int rep,
		   const char *knob, const char *value, volatile sig_atomic_t *stop, struct diag *d)
{
	struct block_stats *before = calloc(1 + res->nr_layers, sizeof(*before));
	int ret;

	if (!before)
		return diag__fail(d, -ENOMEM, "out of memory");
	ret = run_one(j, t, res, j->bs_list[0], rep, knob, value, before, stop, d);
	free(before);
	return ret;
}
