// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Per-disk sweep lock and state file (see sweep_state.h for the contract).
 *
 * The state file is line-based text, for a human who finds it after a crash:
 *   blktrace-bench sweep state 2
 *   pid 1234
 *   disk loop0 7:0
 *   diskseq 42
 *   boot 0f1e2d3c-...
 *   set max_sectors_kb 1280
 *   wrote max_sectors_kb 64 128
 * "set" is a setting's original; "wrote" the values the run may have left in force (the
 * one it was writing, and the one before it), so that a later restore puts the original
 * back only over a value of the run's own, never over one somebody set since.
 *
 * DIR is opened once (state_dir.h) and every file in it is reached through that
 * descriptor: a directory swapped for another after the check is never used.
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
#include "base/diag.h"
#include "files/infile.h"
#include "disk/queue_setting.h"
#include "base/parse.h"
#include "files/state_dir.h"
#include "disk/sweep_state.h"

#define STATE_MAGIC "blktrace-bench sweep state 2"
#define MAX_SAVED 8
#define STATE_MAX 4096 /* a state file is a few lines */
#define MAX_OURS 2
#define VALUE_MAX 64

struct saved_value {
	char name[32];
	char value[VALUE_MAX];		/* the original */
	char ours[MAX_OURS][VALUE_MAX]; /* written by the run, "" when unused */
};

struct sweep_state {
	const struct device *dev;
	int dirfd;
	int lock_fd;
	char lock_name[DEVICE_NAME_MAX + 8], state_name[DEVICE_NAME_MAX + 8];
	char lock_path[PATH_MAX + 80], state_path[PATH_MAX + 80]; /* for messages */
	char diskseq[32]; /* "-" on kernels without it (before 5.15) */
	char boot_id[64];
	struct saved_value saved[MAX_SAVED];
	int nr_saved;
};

/* What the module needs besides DIR: the disk's names and facts, the boot. */
static int state_new(const struct sweep_env *env, const struct device *d, struct sweep_state **out,
		     struct diag *dg)
{
	const char *dir = env && env->dir ? env->dir : SWEEP_STATE_DIR;
	const char *boot = env && env->boot_id ? env->boot_id : "/proc/sys/kernel/random/boot_id";
	struct sweep_state *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return diag__fail(dg, -ENOMEM, "out of memory");
	s->dev = d;
	s->dirfd = s->lock_fd = -1;
	snprintf(s->lock_name, sizeof(s->lock_name), "%s.lock", d->name);
	snprintf(s->state_name, sizeof(s->state_name), "%s.state", d->name);
	snprintf(s->lock_path, sizeof(s->lock_path), "%s/%s", dir, s->lock_name);
	snprintf(s->state_path, sizeof(s->state_path), "%s/%s", dir, s->state_name);
	if (device__disk_attr(d, "diskseq", s->diskseq, sizeof(s->diskseq)) || !s->diskseq[0])
		snprintf(s->diskseq, sizeof(s->diskseq), "-");
	/* Without the boot, state about an earlier one could not be told: none is kept. */
	if (infile__boot_id(boot, s->boot_id, sizeof(s->boot_id))) {
		free(s);
		return diag__fail(dg, -EIO, "cannot read the boot id from %s", boot);
	}
	*out = s;
	return 0;
}

static void state_free(struct sweep_state *s)
{
	if (s->dirfd >= 0)
		close(s->dirfd);
	free(s);
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

static int busy(struct sweep_state *s, int pid, struct diag *d)
{
	if (pid > 0)
		return diag__usage_err(d, -EBUSY, "%s is being swept by PID %d (lock %s)",
				       s->dev->name, pid, s->lock_path);
	return diag__usage_err(d, -EBUSY, "%s is being swept by another process (lock %s)",
			       s->dev->name, s->lock_path);
}

/*
 * flock, then make sure the file we locked is still the one in DIR: a holder removes its
 * lock file when it is done, and whoever opened the old one before that must try again,
 * or two runs would hold two different files.
 */
static int take_lock(struct sweep_state *s, struct diag *d)
{
	struct stat a, b;
	int tries, fd, e;

	for (tries = 0; tries < 100; tries++) {
		fd = openat(s->dirfd, s->lock_name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
			    0644);
		if (fd < 0)
			return diag__fail(d, -errno, "cannot open %s: %s", s->lock_path,
					  strerror(errno));
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			e = errno;
			if (e == EWOULDBLOCK)
				e = busy(s, holder_pid(fd), d);
			else
				e = diag__fail(d, -e, "cannot lock %s: %s", s->lock_path,
					       strerror(e));
			close(fd);
			return e;
		}
		if (!fstat(fd, &a) && !fstatat(s->dirfd, s->lock_name, &b, AT_SYMLINK_NOFOLLOW) &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
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

	ret = state_new(env, dev, &s, d);
	if (ret)
		return ret;
	s->dirfd = state_dir__open(env && env->dir ? env->dir : SWEEP_STATE_DIR, true, d);
	ret = s->dirfd < 0 ? s->dirfd : take_lock(s, d);
	if (ret) {
		state_free(s);
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
		unlinkat(s->dirfd, s->lock_name, 0);
		close(s->lock_fd);
	}
	state_free(s);
}

void sweep_state__release(struct sweep_state *s, bool restored, FILE *notes)
{
	int ret;

	if (!s)
		return;
	if (!restored)
		diag__note(notes, "`blktrace-bench restore %s` tries again", s->dev->name);
	else if ((ret = sweep_state__clear(s)))
		diag__note(notes, "cannot remove the state file of %s: %s", s->dev->name,
			   strerror(-ret));
	sweep_state__unlock(s);
}

static void print_state(FILE *f, const struct sweep_state *s)
{
	int i, k;

	fprintf(f, "%s\npid %d\ndisk %s %u:%u\ndiskseq %s\nboot %s\n", STATE_MAGIC, (int)getpid(),
		s->dev->name, s->dev->major, s->dev->minor, s->diskseq, s->boot_id);
	for (i = 0; i < s->nr_saved; i++)
		fprintf(f, "set %s %s\n", s->saved[i].name, s->saved[i].value);
	for (i = 0; i < s->nr_saved; i++) {
		if (!s->saved[i].ours[0][0])
			continue;
		fprintf(f, "wrote %s", s->saved[i].name);
		for (k = 0; k < MAX_OURS && s->saved[i].ours[k][0]; k++)
			fprintf(f, " %s", s->saved[i].ours[k]);
		fputc('\n', f);
	}
}

/* Write the whole state to a temporary file, sync it, rename it into place, sync DIR. */
static int write_state(struct sweep_state *s)
{
	char tmp[DEVICE_NAME_MAX + 32];
	int fd, ret = 0;
	FILE *f;

	snprintf(tmp, sizeof(tmp), ".%s.%d", s->state_name, (int)getpid());
	unlinkat(s->dirfd, tmp, 0);
	fd = openat(s->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		goto cleanup;
	}
	print_state(f, s);
	if (fflush(f) || fsync(fileno(f)))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && renameat(s->dirfd, tmp, s->dirfd, s->state_name))
		ret = -errno;
	if (!ret)
		fsync(s->dirfd);
cleanup:
	if (ret)
		unlinkat(s->dirfd, tmp, 0);
	return ret;
}

static struct saved_value *saved_of(struct sweep_state *s, const char *name)
{
	int i;

	for (i = 0; i < s->nr_saved; i++)
		if (!strcmp(s->saved[i].name, name))
			return &s->saved[i];
	return NULL;
}

int sweep_state__save(struct sweep_state *s, const char *name, const char *original)
{
	struct saved_value *v;

	if (saved_of(s, name))
		return 0; /* the first original is the original */
	if (s->nr_saved == MAX_SAVED || strlen(name) >= sizeof(v->name) ||
	    strlen(original) >= sizeof(v->value) || strchr(original, ' ') || !original[0])
		return -E2BIG;
	v = &s->saved[s->nr_saved++];
	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), "%s", name);
	snprintf(v->value, sizeof(v->value), "%s", original);
	return write_state(s);
}

/* What is in force now of each saved setting, as far as it is not the original. */
static void note_in_force(struct sweep_state *s)
{
	char now[VALUE_MAX];
	int i;

	for (i = 0; i < s->nr_saved; i++) {
		struct saved_value *v = &s->saved[i];

		memset(v->ours, 0, sizeof(v->ours));
		/* A scheduler change resets nr_requests and wbt: that too is the run's doing. */
		if (!queue_setting__get(s->dev, v->name, now, sizeof(now)) &&
		    strcmp(now, v->value) && !strchr(now, ' '))
			snprintf(v->ours[0], sizeof(v->ours[0]), "%s", now);
	}
}

int sweep_state__put(struct sweep_state *s, const char *name, const char *value)
{
	struct saved_value *v = saved_of(s, name);
	int ret, err;

	if (!v || strlen(value) >= sizeof(v->ours[0]) || strchr(value, ' ') || !value[0])
		return -EINVAL;
	/* Before the write: the value it may leave, beside the one in force now. */
	memmove(v->ours[1], v->ours[0], sizeof(v->ours[1]));
	snprintf(v->ours[0], sizeof(v->ours[0]), "%s", value);
	ret = write_state(s);
	if (ret)
		return ret;
	err = device__queue_set(s->dev, name, value);
	/* After it: what the kernel shows (wbt's -1 reads back as its default). */
	note_in_force(s);
	ret = write_state(s);
	return err ? err : ret;
}

int sweep_state__clear(struct sweep_state *s)
{
	/* Only what this run saved: a state file recovery could not restore stays. */
	if (!s->nr_saved)
		return 0;
	s->nr_saved = 0;
	if (unlinkat(s->dirfd, s->state_name, 0) && errno != ENOENT)
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

/* One word of at most len - 1 bytes into buf. */
static int word(const char *s, char *buf, size_t len)
{
	if (!s[0] || strlen(s) >= len || strchr(s, ' '))
		return -EINVAL;
	snprintf(buf, len, "%s", s);
	return 0;
}

/* "set NAME ORIGINAL" */
static int parse_set(char *s, struct state_file *sf)
{
	char *value = strchr(s, ' ');
	struct saved_value *v = &sf->set[sf->nr_set];

	if (!value || sf->nr_set == MAX_SAVED)
		return -EINVAL;
	*value++ = '\0';
	memset(v, 0, sizeof(*v));
	if (word(s, v->name, sizeof(v->name)) || word(value, v->value, sizeof(v->value)))
		return -EINVAL;
	sf->nr_set++;
	return 0;
}

/* "wrote NAME VALUE [VALUE]", after the setting's "set" line. */
static int parse_wrote(char *s, struct state_file *sf)
{
	struct saved_value *v = NULL;
	char *tok, *save;
	int i, k = 0;

	tok = strtok_r(s, " ", &save);
	for (i = 0; tok && i < sf->nr_set; i++)
		if (!strcmp(sf->set[i].name, tok))
			v = &sf->set[i];
	if (!v || v->ours[0][0])
		return -EINVAL;
	while ((tok = strtok_r(NULL, " ", &save)))
		if (k == MAX_OURS || word(tok, v->ours[k++], sizeof(v->ours[0])))
			return -EINVAL;
	return k ? 0 : -EINVAL;
}

/* A line that may be there once. */
static int once(unsigned int *seen, unsigned int bit)
{
	if (*seen & bit)
		return -EINVAL;
	*seen |= bit;
	return 0;
}

/* Every line known and well formed, none missing: the disk, its diskseq, the boot. */
static int parse_state(FILE *f, struct state_file *sf)
{
	char line[512], *arg;
	unsigned int seen = 0;
	int ret;

	memset(sf, 0, sizeof(*sf));
	if (!fgets(line, sizeof(line), f) || strcmp(line, STATE_MAGIC "\n"))
		return -EINVAL;
	while (fgets(line, sizeof(line), f)) {
		if (!strchr(line, '\n'))
			return -EINVAL;
		line[strcspn(line, "\n")] = '\0';
		arg = strchr(line, ' ');
		if (!arg)
			return -EINVAL;
		*arg++ = '\0';
		if (!strcmp(line, "pid"))
			ret = once(&seen, 1) ?: parse_pid(arg, &sf->pid);
		else if (!strcmp(line, "disk"))
			ret = once(&seen, 2) ?: parse_disk(arg, sf);
		else if (!strcmp(line, "diskseq"))
			ret = once(&seen, 4) ?: word(arg, sf->diskseq, sizeof(sf->diskseq));
		else if (!strcmp(line, "boot"))
			ret = once(&seen, 8) ?: word(arg, sf->boot, sizeof(sf->boot));
		else if (!strcmp(line, "set"))
			ret = parse_set(arg, sf);
		else if (!strcmp(line, "wrote"))
			ret = parse_wrote(arg, sf);
		else
			ret = -EINVAL;
		if (ret)
			return ret;
	}
	return seen == 15 ? 0 : -EINVAL;
}

/* Is the file about this disk, now, in this boot? Otherwise say why not in why. */
static bool same_disk(const struct sweep_state *s, const struct state_file *sf, char *why,
		      size_t len)
{
	if (strcmp(sf->disk, s->dev->name) || sf->major != s->dev->major ||
	    sf->minor != s->dev->minor)
		snprintf(why, len, "it is about %s (%u:%u)", sf->disk, sf->major, sf->minor);
	else if (strcmp(sf->boot, s->boot_id))
		snprintf(why, len, "it was written before the last reboot");
	else if (strcmp(sf->diskseq, s->diskseq))
		snprintf(why, len,
			 "%.64s was re-attached or replaced since (diskseq %.31s, now %.31s)",
			 sf->disk, sf->diskseq, s->diskseq);
	else
		return true;
	return false;
}

static bool is_ours(const struct saved_value *v, const char *now)
{
	int k;

	for (k = 0; k < MAX_OURS && v->ours[k][0]; k++)
		if (!strcmp(v->ours[k], now))
			return true;
	return false;
}

/* Somebody set it since the dead run did: theirs stays, said so. */
static void leave(const struct sweep_state *s, const struct state_file *sf,
		  const struct saved_value *v, const char *now, FILE *msgs)
{
	char wrote[2 * VALUE_MAX + 8] = "";

	if (v->ours[0][0])
		snprintf(wrote, sizeof(wrote), " (it wrote %s%s%s)", v->ours[0],
			 v->ours[1][0] ? " or " : "", v->ours[1]);
	diag__note(msgs,
		   "left %s=%s on %s as it is: not what PID %d%s left, so it was set since; "
		   "before PID %d changed it, it was %s",
		   v->name, now, s->dev->name, sf->pid, wrote, sf->pid, v->value);
}

static int restore_values(struct sweep_state *s, const struct state_file *sf, FILE *msgs,
			  struct diag *d)
{
	char now[VALUE_MAX];
	int i, ret, n = 0;

	for (i = 0; i < sf->nr_set; i++) {
		const struct saved_value *v = &sf->set[i];

		/* Only what a sweep could have changed: the file must not steer other writes. */
		if (!queue_setting__is_sweepable(v->name))
			return diag__fail(d, -EINVAL, "%s: '%s' is not a setting this tool changes",
					  s->state_path, v->name);
		ret = queue_setting__get(s->dev, v->name, now, sizeof(now));
		if (ret)
			return diag__fail(d, ret, "cannot read %s of %s: %s; the state stays in %s",
					  v->name, s->dev->name, strerror(-ret), s->state_path);
		if (!strcmp(now, v->value))
			continue;
		if (!is_ours(v, now)) {
			leave(s, sf, v, now, msgs);
			continue;
		}
		ret = queue_setting__put(s->dev, v->name, v->value);
		if (ret)
			return diag__fail(d, ret,
					  "cannot restore %s=%s on %s (left by PID %d): %s; the "
					  "state stays in %s",
					  v->name, v->value, s->dev->name, sf->pid, strerror(-ret),
					  s->state_path);
		diag__note(msgs,
			   "restored %s=%s on %s, left changed by PID %d, which ended without "
			   "restoring it",
			   v->name, v->value, s->dev->name, sf->pid);
		n++;
	}
	return n;
}

int sweep_state__recover(struct sweep_state *s, FILE *msgs, struct diag *d)
{
	struct state_file sf;
	char why[256], *text;
	size_t len;
	FILE *f;
	int ret;

	/* Without following a link, or blocking on a FIFO put in its place. */
	ret = infile__read_at(s->dirfd, s->state_name, STATE_MAX, &text, &len);
	if (ret == -ENOENT)
		return 0;
	if (ret && ret != -EINVAL && ret != -ELOOP && ret != -EFBIG)
		return diag__fail(d, ret, "cannot read %s: %s", s->state_path, strerror(-ret));
	f = ret ? NULL : fmemopen(text, len, "r");
	ret = f ? parse_state(f, &sf) : -EINVAL;
	if (f)
		fclose(f);
	free(text);
	if (ret)
		return diag__fail(d, ret,
				  "%s is not a state file of this tool: look at it, then remove it",
				  s->state_path);
	if (!same_disk(s, &sf, why, sizeof(why))) {
		diag__note(msgs, "discarding %s: %s", s->state_path, why);
	} else {
		ret = restore_values(s, &sf, msgs, d);
		if (ret < 0)
			return ret;
	}
	if (unlinkat(s->dirfd, s->state_name, 0) && errno != ENOENT)
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

	ret = state_new(env, dev, &s, d);
	if (ret)
		return ret;
	s->dirfd = state_dir__open(env && env->dir ? env->dir : SWEEP_STATE_DIR, false, d);
	if (s->dirfd == -ENOENT ||
	    (s->dirfd >= 0 && fstatat(s->dirfd, s->state_name, &st, AT_SYMLINK_NOFOLLOW))) {
		state_free(s);
		return 0;
	}
	ret = s->dirfd < 0 ? s->dirfd : take_lock(s, d);
	if (!ret)
		ret = sweep_state__recover(s, msgs, d);
	else if (ret == -EBUSY)
		ret = 0; /* a live sweep: it restores its own */
	if (s->lock_fd >= 0)
		sweep_state__unlock(s);
	else
		state_free(s);
	return ret;
}
