// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Per-disk sweep lock and state file (see sweep_state.h for the contract).
 *
 * The state file is line-based text, for a human who finds it after a crash:
 *   blktrace-bench sweep state 1
 *   pid 1234
 *   disk loop0 7:0
 *   diskseq 42
 *   boot 0f1e2d3c-...
 *   set max_sectors_kb 1280
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "diag.h"
#include "knob.h"
#include "parse.h"
#include "sweep_state.h"

#define STATE_MAGIC "blktrace-bench sweep state 1"
#define MAX_SAVED 8

struct saved_value {
	char name[32];
	char value[256];
};

struct sweep_state {
	const struct device *dev;
	int lock_fd;
	char dir[PATH_MAX];
	char lock_path[PATH_MAX + 64];
	char state_path[PATH_MAX + 64];
	char diskseq[32]; /* "" on kernels without it (before 5.15) */
	char boot_id[64];
	struct saved_value saved[MAX_SAVED];
	int nr_saved;
};

/* One line of a small text file, trailing newline removed; "" when absent. */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* DIR must be ours: a directory, not a link, writable by nobody else. */
static int ensure_dir(const char *dir, struct diag *d)
{
	struct stat st;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return diag__fail(d, -errno, "cannot create %s: %s", dir, strerror(errno));
	if (lstat(dir, &st))
		return diag__fail(d, -errno, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return diag__usage_err(d, -ENOTDIR, "%s is not a directory", dir);
	if (st.st_uid != geteuid() || (st.st_mode & 022))
		return diag__usage_err(d, -EPERM,
				       "%s is writable by others: "
				       "not trusting its lock and state files",
				       dir);
	return 0;
}

static struct sweep_state *state_new(const struct sweep_env *env, const struct device *d)
{
	const char *dir = env && env->dir ? env->dir : SWEEP_STATE_DIR;
	const char *boot = env && env->boot_id ? env->boot_id : "/proc/sys/kernel/random/boot_id";
	struct sweep_state *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->dev = d;
	s->lock_fd = -1;
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	snprintf(s->lock_path, sizeof(s->lock_path), "%s/%s.lock", dir, d->name);
	snprintf(s->state_path, sizeof(s->state_path), "%s/%s.state", dir, d->name);
	if (device__disk_attr(d, "diskseq", s->diskseq, sizeof(s->diskseq)))
		s->diskseq[0] = '\0';
	read_line(boot, s->boot_id, sizeof(s->boot_id));
	return s;
}

/* A PID as this file writes it: decimal, above 0. */
static int parse_pid(const char *s, int *pid)
{
	int64_t v;

	if (parse_int(s, &v) || v <= 0 || v > INT_MAX)
		return -EINVAL;
	*pid = v;
	return 0;
}

/* The PID a holder wrote into its lock file, for the refusal; 0 when not (yet) there. */
static int holder_pid(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	int pid = 0;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return parse_pid(buf, &pid) ? 0 : pid;
}

/*
 * flock, then make sure the file we locked is still the one at the path: a holder
 * removes its lock file when it is done, and whoever opened the old one before that
 * must try again, or two runs would hold two different files.
 */
static int take_lock(struct sweep_state *s, struct diag *d)
{
	struct stat a, b;
	int tries, fd, pid;

	for (tries = 0; tries < 100; tries++) {
		fd = open(s->lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0)
			return diag__fail(d, -errno, "cannot open %s: %s", s->lock_path,
					  strerror(errno));
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			int e = errno;

			pid = holder_pid(fd);
			close(fd);
			if (e != EWOULDBLOCK)
				return diag__fail(d, -e, "cannot lock %s: %s", s->lock_path,
						  strerror(e));
			if (pid > 0)
				return diag__usage_err(d, -EBUSY,
						       "%s is being swept by PID %d (lock %s)",
						       s->dev->name, pid, s->lock_path);
			return diag__usage_err(d, -EBUSY,
					       "%s is being swept by another process (lock %s)",
					       s->dev->name, s->lock_path);
		}
		if (!fstat(fd, &a) && !stat(s->lock_path, &b) && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino) {
			if (ftruncate(fd, 0) || dprintf(fd, "%d\n", (int)getpid()) < 0) {
				close(fd);
				return diag__fail(d, -EIO, "cannot write %s: %s", s->lock_path,
						  strerror(errno));
			}
			s->lock_fd = fd;
			return 0;
		}
		close(fd);
	}
	return diag__fail(d, -EAGAIN, "cannot lock %s: it keeps being replaced", s->lock_path);
}

int sweep_state__lock(const struct sweep_env *env, const struct device *dev,
		      struct sweep_state **out, struct diag *d)
{
	struct sweep_state *s;
	int ret;

	*out = NULL;
	s = state_new(env, dev);
	if (!s)
		return diag__fail(d, -ENOMEM, "out of memory");
	ret = ensure_dir(s->dir, d);
	if (!ret)
		ret = take_lock(s, d);
	if (ret) {
		free(s);
		return ret;
	}
	*out = s;
	return 0;
}

void sweep_state__unlock(struct sweep_state *s)
{
	if (!s)
		return;
	if (s->lock_fd >= 0) {
		/* Still ours (see take_lock): remove it, then let go. */
		unlink(s->lock_path);
		close(s->lock_fd);
	}
	free(s);
}

/* Write the whole state to a temporary file, sync it, rename it into place, sync DIR. */
static int write_state(struct sweep_state *s)
{
	char tmp[PATH_MAX + 96];
	int fd, dfd, i, ret = 0;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/.%s.state.%d", s->dir, s->dev->name, (int)getpid());
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		goto cleanup;
	}
	fprintf(f, "%s\npid %d\ndisk %s %u:%u\ndiskseq %s\nboot %s\n", STATE_MAGIC, (int)getpid(),
		s->dev->name, s->dev->major, s->dev->minor, s->diskseq[0] ? s->diskseq : "-",
		s->boot_id[0] ? s->boot_id : "-");
	for (i = 0; i < s->nr_saved; i++)
		fprintf(f, "set %s %s\n", s->saved[i].name, s->saved[i].value);
	if (fflush(f) || fsync(fileno(f)))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, s->state_path))
		ret = -errno;
	if (!ret) {
		dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
	}
cleanup:
	if (ret)
		unlink(tmp);
	return ret;
}

int sweep_state__save(struct sweep_state *s, const char *name, const char *original)
{
	struct saved_value *v;
	int i;

	for (i = 0; i < s->nr_saved; i++)
		if (!strcmp(s->saved[i].name, name))
			return 0; /* the first original is the original */
	if (s->nr_saved == MAX_SAVED || strlen(name) >= sizeof(v->name) ||
	    strlen(original) >= sizeof(v->value))
		return -E2BIG;
	v = &s->saved[s->nr_saved++];
	snprintf(v->name, sizeof(v->name), "%s", name);
	snprintf(v->value, sizeof(v->value), "%s", original);
	return write_state(s);
}

int sweep_state__clear(struct sweep_state *s)
{
	/* Only what this run saved: a state file recovery could not restore stays. */
	if (!s->nr_saved)
		return 0;
	s->nr_saved = 0;
	if (unlink(s->state_path) && errno != ENOENT)
		return -errno;
	return 0;
}

/* A state file as read back. */
struct state_file {
	int pid;
	char disk[DEVICE_NAME_MAX];
	unsigned int major, minor;
	char diskseq[32], boot[64];
	struct saved_value set[MAX_SAVED];
	int nr_set;
	bool magic;
};

/* "NAME MAJ:MIN" of the disk line. */
static int parse_disk(char *s, struct state_file *sf)
{
	char *num = strchr(s, ' ');
	const char *why;

	if (!num || (size_t)(num - s) >= sizeof(sf->disk))
		return -EINVAL;
	*num++ = '\0';
	snprintf(sf->disk, sizeof(sf->disk), "%s", s);
	return parse_devnum(num, &sf->major, &sf->minor, &why);
}

static int parse_state(FILE *f, struct state_file *sf)
{
	char line[512], *sp;

	memset(sf, 0, sizeof(*sf));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		sp = strchr(line, ' ');
		if (!strcmp(line, STATE_MAGIC))
			sf->magic = true;
		else if (!sp)
			return -EINVAL;
		else if (!strncmp(line, "pid ", 4) && parse_pid(sp + 1, &sf->pid))
			return -EINVAL;
		else if (!strncmp(line, "disk ", 5) && parse_disk(sp + 1, sf))
			return -EINVAL;
		else if (!strncmp(line, "diskseq ", 8))
			snprintf(sf->diskseq, sizeof(sf->diskseq), "%s", sp + 1);
		else if (!strncmp(line, "boot ", 5))
			snprintf(sf->boot, sizeof(sf->boot), "%s", sp + 1);
		else if (!strncmp(line, "set ", 4)) {
			char *name = sp + 1, *value = strchr(name, ' ');

			if (!value || sf->nr_set == MAX_SAVED || value - name >= 32)
				return -EINVAL;
			*value++ = '\0';
			snprintf(sf->set[sf->nr_set].name, 32, "%s", name);
			snprintf(sf->set[sf->nr_set++].value, 256, "%s", value);
		}
	}
	return sf->magic && sf->disk[0] ? 0 : -EINVAL;
}

/* "" and "-" mean unknown: only two known values that differ tell a different disk. */
static bool differ(const char *a, const char *b)
{
	return a[0] && b[0] && strcmp(a, "-") && strcmp(b, "-") && strcmp(a, b);
}

/* Is the file about this disk, now, in this boot? Otherwise say why not in why. */
static bool same_disk(const struct sweep_state *s, const struct state_file *sf, char *why,
		      size_t len)
{
	if (strcmp(sf->disk, s->dev->name) || sf->major != s->dev->major ||
	    sf->minor != s->dev->minor)
		snprintf(why, len, "it is about %s (%u:%u)", sf->disk, sf->major, sf->minor);
	else if (differ(sf->boot, s->boot_id))
		snprintf(why, len, "it was written before the last reboot");
	else if (differ(sf->diskseq, s->diskseq))
		snprintf(why, len,
			 "%.64s was re-attached or replaced since (diskseq %.31s, now %.31s)",
			 sf->disk, sf->diskseq, s->diskseq);
	else
		return true;
	return false;
}

static int restore_values(struct sweep_state *s, const struct state_file *sf, FILE *msgs,
			  struct diag *d)
{
	int i, ret;

	for (i = 0; i < sf->nr_set; i++) {
		const struct saved_value *v = &sf->set[i];

		/* Only what a sweep could have changed: the file must not steer other writes. */
		if (!knob__is_sweepable(v->name))
			return diag__fail(d, -EINVAL, "%s: '%s' is not a setting this tool changes",
					  s->state_path, v->name);
		ret = knob__put(s->dev, v->name, v->value);
		if (ret)
			return diag__fail(d, ret,
					  "cannot restore %s=%s on %s (left by PID %d): %s; the "
					  "state stays in %s",
					  v->name, v->value, s->dev->name, sf->pid, strerror(-ret),
					  s->state_path);
		fprintf(msgs,
			"blktrace-bench: restored %s=%s on %s, left changed by PID %d, "
			"which ended without restoring it\n",
			v->name, v->value, s->dev->name, sf->pid);
	}
	return sf->nr_set;
}

int sweep_state__recover(struct sweep_state *s, FILE *msgs, struct diag *d)
{
	struct state_file sf;
	char why[256];
	FILE *f;
	int ret;

	f = fopen(s->state_path, "re");
	if (!f && errno == ENOENT)
		return 0;
	if (!f)
		return diag__fail(d, -errno, "cannot read %s: %s", s->state_path, strerror(errno));
	ret = parse_state(f, &sf);
	fclose(f);
	if (ret)
		return diag__fail(d, ret,
				  "%s is not a state file of this tool: look at it, then remove it",
				  s->state_path);
	if (!same_disk(s, &sf, why, sizeof(why))) {
		fprintf(msgs, "blktrace-bench: discarding %s: %s\n", s->state_path, why);
	} else {
		ret = restore_values(s, &sf, msgs, d);
		if (ret < 0)
			return ret;
	}
	if (unlink(s->state_path) && errno != ENOENT)
		return diag__fail(d, -errno, "cannot remove %s: %s", s->state_path,
				  strerror(errno));
	return ret;
}

int sweep_state__recover_idle(const struct sweep_env *env, const struct device *dev, FILE *msgs,
			      struct diag *d)
{
	struct sweep_state *s;
	struct stat st;
	int ret;

	s = state_new(env, dev);
	if (!s)
		return diag__fail(d, -ENOMEM, "out of memory");
	ret = stat(s->state_path, &st);
	free(s);
	if (ret)
		return 0;
	ret = sweep_state__lock(env, dev, &s, d);
	if (ret == -EBUSY)
		return 0; /* a live sweep: it restores its own */
	if (ret)
		return ret;
	ret = sweep_state__recover(s, msgs, d);
	sweep_state__unlock(s);
	return ret;
}
