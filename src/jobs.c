// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Workload mode of the trace command: --rw and friends become job parameters, the
 * target file or disk is checked and prepared, and every (block size, repetition)
 * becomes one traced run. Nothing is lost: a file we create is removed afterwards,
 * also on error and Ctrl-C; an existing file is never removed and only written
 * with --overwrite; the raw disk is written only with --destructive and never when
 * it is mounted, partitioned or held.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "jobs.h"
#include "knob.h"
#include "report.h"
#include "workload.h"

#define ERR(fmt, ...) (snprintf(err, errlen, fmt, ##__VA_ARGS__), -EINVAL)

static bool is_write(const char *rw)
{
	return !strcmp(rw, "write") || !strcmp(rw, "randwrite");
}

/* Is MAJ:MIN mounted (mountinfo's third field) or used as swap? */
static bool dev_in_use(unsigned int major, unsigned int minor)
{
	char line[4096], want[32];
	bool used = false;
	FILE *f;

	snprintf(want, sizeof(want), " %u:%u ", major, minor);
	f = fopen("/proc/self/mountinfo", "r");
	while (f && !used && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ' ');

		p = p ? strchr(p + 1, ' ') : NULL; /* the " MAJ:MIN " field */
		used = p && !strncmp(p, want, strlen(want));
	}
	if (f)
		fclose(f);
	return used;
}

/* Refuse raw writes on a disk that holds anything, whatever the flags. */
static int check_raw_write(const struct device *d, char *err, size_t errlen)
{
	unsigned int i;

	if (d->nr_partitions && !d->part_name[0])
		return ERR("refusing to write to %s: it has partitions", d->name);
	if (d->nr_holders)
		return ERR("refusing to write to %s: it is held by %s", d->name, d->holders[0]);
	if (dev_in_use(d->major, d->minor))
		return ERR("refusing to write to %s: it is mounted or used as swap", d->name);
	for (i = 0; i < d->nr_partitions; i++) {
		const struct device_partition *p = &d->partitions[i];

		if (d->part_name[0] && strcmp(p->name, d->part_name))
			continue;
		if (dev_in_use(p->major, p->minor) || p->nr_holders)
			return ERR("refusing to write to %s: %s is mounted, swap or held",
				   d->part_name[0] ? d->part_name : d->name, p->name);
	}
	return 0;
}

/* The file's filesystem must live on the traced disk (or partition), or we see nothing. */
static int check_same_disk(const char *path, const struct device *d, bool any_fs, char *err,
			   size_t errlen)
{
	char dir[4096], msg[256];
	struct device fs;
	struct stat st;
	char spec[32];

	snprintf(dir, sizeof(dir), "%s", path);
	if (stat(dir, &st)) {
		char *slash = strrchr(dir, '/');

		if (slash)
			slash[slash == dir] = '\0';
		else
			snprintf(dir, sizeof(dir), ".");
		if (stat(dir, &st))
			return ERR("cannot use %s: %s", path, strerror(errno));
	}
	snprintf(spec, sizeof(spec), "%u:%u", major(st.st_dev), minor(st.st_dev));
	if (!device__resolve(spec, &fs, msg, sizeof(msg)) && fs.major == d->major &&
	    fs.minor == d->minor &&
	    (!d->part_name[0] || !strcmp(fs.part_name, d->part_name)))
		return 0;
	if (any_fs)
		return 0;
	return ERR("%s is on device %s, not on the traced %s: the trace would show nothing "
		   "(--file elsewhere, or --any-fs to run anyway)", path, spec,
		   d->part_name[0] ? d->part_name : d->name);
}

static void drop_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "3\n", 2) < 0)
			fprintf(stderr, "blktrace-bench: cannot drop caches: %s\n", strerror(errno));
		close(fd);
	}
}

static void fill_params(struct job_params *p, const struct options *o, uint64_t bs,
			uint64_t size)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->rw, sizeof(p->rw), "%s", o->rw);
	p->bs = bs;
	p->size = size;
	p->runtime = o->runtime;
	snprintf(p->engine, sizeof(p->engine), "%s", o->engine ? o->engine : "psync");
	p->iodepth = o->iodepth ? o->iodepth : 1;
	p->direct = o->direct;
	p->sync = o->sync;
	p->fsync = o->fsync;
	p->fdatasync = o->fdatasync;
}

static void label_run(struct run *r)
{
	const struct job_params *p = &r->params;
	char bs[32], depth[32] = "";

	fmt_bytes(bs, sizeof(bs), p->bs);
	if (p->iodepth > 1)
		snprintf(depth, sizeof(depth), " iodepth=%u", p->iodepth);
	snprintf(r->label, sizeof(r->label), "%s%s%s%s%s bs=%s %s%s%s%s%s%s", p->set_knob,
		 p->set_knob[0] ? "=" : "", p->set_value, p->set_knob[0] ? " " : "", p->rw, bs,
		 p->engine, depth, p->direct ? " direct" : "", p->sync ? " dsync" : "",
		 p->fsync ? " fsync" : "", p->fdatasync ? " fdatasync" : "");
}

static int validate(const struct options *o, char *err, size_t errlen)
{
	int i;

	if (o->size && o->count)
		return ERR("--size and --count are alternatives: give one");
	if (o->iodepth > 1 && (!o->engine || strcmp(o->engine, "io_uring")))
		return ERR("--iodepth %u needs --engine io_uring (psync does one I/O at a time)",
			   o->iodepth);
	if (o->no_fixed_bufs && (!o->engine || strcmp(o->engine, "io_uring")))
		return ERR("--no-fixed-bufs is for --engine io_uring (psync registers nothing)");
	if ((o->fsync || o->fdatasync || o->sync) && !is_write(o->rw))
		return ERR("--sync, --fsync and --fdatasync are for write workloads");
	if (o->raw && o->file)
		return ERR("--raw and --file are alternatives: the disk itself, or a file");
	if (is_write(o->rw) && !o->size && !o->count && !(o->raw && o->runtime))
		return ERR("write workloads need --size or --count");
	if (o->raw && is_write(o->rw) && !o->destructive)
		return ERR("--raw --rw %s would overwrite the disk's data: add --destructive", o->rw);
	for (i = 0; i < o->nr_bs; i++)
		if (o->size && o->size % o->bs[i])
			return ERR("--size %llu is not a multiple of --bs %llu",
				   (unsigned long long)o->size, (unsigned long long)o->bs[i]);
	return 0;
}

int jobs__run(const struct options *o, struct tracer *t, struct result *res,
	      volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	const struct device *d = &res->device;
	uint64_t default_bs = 4096, file_size = 0, max_size = 0;
	const uint64_t *bs_list = o->nr_bs ? o->bs : &default_bs;
	int nr_bs = o->nr_bs ? o->nr_bs : 1, nr_vals = o->nr_set_values ? o->nr_set_values : 1;
	int i, v, ret = 0;
	struct knob knob = {};
	/* Registered buffers spare the kernel pinning every I/O's pages (fio: fixedbufs). */
	struct workload_opts wo = { .fixed_bufs = !o->no_fixed_bufs, .hugepages = o->hugepages };
	bool write = is_write(o->rw), created = false, said_huge = false;
	unsigned int rep, repeat = o->repeat ? o->repeat : 1;
	struct block_stats *before = NULL;
	char path[4096];
	struct stat st;

	ret = validate(o, err, errlen);
	if (ret)
		return ret;
	if (o->nr_set_values) {
		ret = knob__prepare(&knob, d, o->set_knob, o->set_values, o->nr_set_values, err,
				    errlen);
		if (ret)
			return ret;
	} else if (o->recommend) {
		return ERR("--recommend needs a --set sweep to choose from");
	}
	for (i = 0; i < nr_bs; i++) {
		uint64_t s = o->size ? o->size : o->count * bs_list[i];

		if (s > max_size)
			max_size = s;
	}

	if (o->raw) {
		snprintf(path, sizeof(path), "/dev/%s", d->part_name[0] ? d->part_name : d->name);
		if (write && (ret = check_raw_write(d, err, errlen)))
			return ret;
	} else {
		if (o->file)
			snprintf(path, sizeof(path), "%s", o->file);
		else
			snprintf(path, sizeof(path), "blktrace-bench-%d.tmp", (int)getpid());
		ret = check_same_disk(path, d, o->any_fs, err, errlen);
		if (ret)
			return ret;
		if (!stat(path, &st)) {
			if (!o->file)
				return ERR("%s exists already: not touching it", path);
			if (write && !o->overwrite)
				return ERR("%s exists: writing into it needs --overwrite", path);
		} else if (o->file && !write && !max_size) {
			return ERR("%s does not exist: give --size to create it for reading", path);
		} else {
			/* A new file: reads need real blocks first; writes extend it. */
			ret = workload__prepare_file(path, write ? 0 : max_size, !write, stop);
			if (ret)
				return ret == -EINTR ? ret :
				       ERR("cannot create %s: %s", path, strerror(-ret));
			created = true;
		}
	}

	before = malloc(sizeof(*before));
	if (!before) {
		ret = -ENOMEM;
		goto cleanup;
	}
	for (v = 0; v < nr_vals && !ret; v++) {
		if (o->nr_set_values) {
			ret = knob__apply(&knob, o->set_values[v], err, errlen);
			if (ret)
				break;
		}
		for (i = 0; i < nr_bs && !ret; i++) {
			for (rep = 0; rep < repeat && !ret; rep++) {
				/* Like dd of=FILE, each run of ours writes a fresh file. */
				int flags = (write ? O_WRONLY : O_RDONLY) | (o->direct ? O_DIRECT : 0) |
					    (o->sync ? O_DSYNC : 0) | (write && created ? O_TRUNC : 0);
				uint64_t size = o->size ? o->size : o->count * bs_list[i];
				struct run *r;
				int fd;

				if (*stop) {
					ret = -EINTR;
					break;
				}
				fd = open(path, flags);
				if (fd < 0) {
					ret = ERR("cannot open %s: %s", path, strerror(errno));
					break;
				}
				file_size = 0;
				if (!write || o->raw || !created)
					workload__file_size(fd, &file_size);
				if (!size) /* reads default to the whole file or disk */
					size = file_size - file_size % bs_list[i];
				if (o->drop_caches && !write && !o->direct)
					drop_caches();
				r = result__add_run(res, true, true);
				if (!r) {
					close(fd);
					ret = -ENOMEM;
					break;
				}
				fill_params(&r->params, o, bs_list[i], size);
				if (o->nr_set_values) {
					snprintf(r->params.set_knob, sizeof(r->params.set_knob), "%s",
						 o->set_knob);
					snprintf(r->params.set_value, sizeof(r->params.set_value), "%s",
						 o->set_values[v]);
				}
				r->repetition = rep;
				label_run(r);
				if (o->nr_set_values) {
					struct device now = *d;

					device__read_limits(&now);
					r->limits = now.limits;
					r->has_limits = true;
				}
				ret = tracer__snapshot(t, before);
				if (!ret)
					ret = tracer__reset_max(t);
				if (!ret)
					ret = workload__run_opts(&r->params, fd, file_size, &wo,
								 r->app, stop);
				close(fd);
				if (wo.hugepages && !r->app->huge_bufs && !ret && !said_huge) {
					fprintf(stderr, "blktrace-bench: --hugepages: the kernel gave "
						"4 KiB pages (transparent_hugepage is \"never\", or "
						"memory is fragmented); requests may be split by "
						"segments\n");
					said_huge = true;
				}
				if (!ret || ret == -EINTR) {
					int e = tracer__snapshot(t, r->block);

					if (e)
						ret = e;
					else
						block_stats__delta(r->block, r->block, before);
				}
				r->seconds = r->app->ns / 1e9;
				if (ret && ret != -EINTR)
					snprintf(err, errlen, "%s failed: %s", r->label, strerror(-ret));
			}
		}
	}
cleanup:
	free(before);
	if (knob.changed && !knob__restore(&knob))
		fprintf(stderr, "blktrace-bench: restored %s=%s on %s\n", knob.name, knob.original,
			d->name);
	if (created && unlink(path) && errno != ENOENT)
		fprintf(stderr, "blktrace-bench: cannot remove %s: %s\n", path, strerror(errno));
	return ret;
}
