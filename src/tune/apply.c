// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Writing and removing the files of a tune result, with a manifest; see apply.h.
 *
 * Below the root nothing is reached by a path. The root is opened once and locked
 * (flock: two applies read, change and write the manifest one after the other), and
 * each directory below it is opened from its parent's descriptor without following a
 * link, its owner and mode checked (state_dir.h); files are read, written (renamed into
 * place) and removed in those descriptors, O_NOFOLLOW. A link planted anywhere below
 * the root is refused, never followed, and a manifest names only files of apply's own
 * patterns in its two directories.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <jansson.h>
#include "tune/apply.h"
#include "tune/apply_files.h"
#include "base/diag.h"
#include "files/infile.h"
#include "files/outfile.h"
#include "files/state_dir.h"
#include "base/text.h"

#define MANIFEST_SCHEMA "blktrace-bench-applied/1"
#define FILE_MAX (1 << 20) /* our files are a few hundred bytes */

extern char **environ;

/* The directories apply may make, parents first: the only ones a manifest may name. */
static const char *const our_dirs[] = { "/etc", "/etc/udev", APPLY_UDEV_DIR,	APPLY_MODPROBE_DIR,
					"/var", "/var/lib",  APPLY_MANIFEST_DIR };

/* The root, opened once and locked for the whole command. */
struct apply_root {
	const char *path; /* as given, for messages */
	int fd;
};

/*
 * root + rel ("/etc/..."), for messages: "/etc/..." for root "/", "DIR/etc/..." otherwise;
 * "..." at the end when it does not fit (nothing is reached by this path).
 */
static void full_path(const char *root, const char *rel, char *out, size_t len)
{
	size_t n = strlen(root);

	while (n > 0 && root[n - 1] == '/')
		n--;
	if (snprintf(out, len, "%.*s%s", (int)n, root, rel) >= (int)len && len > 4)
		strcpy(out + len - 4, "...");
}

static int root_open(const struct apply_opts *o, struct apply_root *r, struct diag *d)
{
	r->path = o->root;
	r->fd = open(o->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->fd < 0)
		return diag__fail(d, -errno, "--root %s: %s", o->root, strerror(errno));
	/* A lost manifest entry is a file --undo never removes. */
	if (flock(r->fd, o->dry_run ? LOCK_SH : LOCK_EX)) {
		close(r->fd);
		return diag__fail(d, -errno, "cannot lock %s: %s", o->root, strerror(errno));
	}
	return 0;
}

static void root_close(struct apply_root *r)
{
	if (r->fd >= 0)
		close(r->fd); /* and the lock with it */
	r->fd = -1;
}

/*
 * The directory rel ("/etc/udev/rules.d"; "" is the root) below the root, each component
 * opened from its parent (state_dir.h), made where missing when made is not NULL (and
 * recorded there, for --undo). The descriptor; -ENOENT when missing and not to be made
 * (d untouched); another -errno with d.
 */
static int walk(const struct apply_root *r, const char *rel, json_t *made, struct diag *d)
{
	char part[PATH_MAX], shown[2 * PATH_MAX];
	const char *at = rel, *slash;
	int cur = fcntl(r->fd, F_DUPFD_CLOEXEC, 0), next;
	bool created;
	size_t n;

	if (cur < 0)
		return diag__fail(d, -errno, "--root %s: %s", r->path, strerror(errno));
	while (*at == '/')
		at++;
	while (*at) {
		slash = strchr(at, '/');
		n = slash ? (size_t)(slash - rel) : strlen(rel);
		snprintf(part, sizeof(part), "%.*s", (int)n, rel);
		full_path(r->path, part, shown, sizeof(shown));
		next = state_dir__openat(cur, part + (at - rel), shown, made != NULL, &created, d);
		close(cur);
		if (next < 0)
			return next;
		cur = next;
		if (created && json_array_append_new(made, json_string(part))) {
			close(cur);
			return diag__fail(d, -ENOMEM, "out of memory");
		}
		at = slash ? slash + 1 : "";
	}
	return cur;
}

/* rel's directory into dir; returns its last component. */
static const char *split(const char *rel, char *dir, size_t len)
{
	const char *slash = strrchr(rel, '/');

	snprintf(dir, len, "%.*s", (int)(slash - rel), rel);
	return slash + 1;
}

/*
 * A whole small regular file in dirfd into *out (malloc'd): -ENOENT when it is not
 * there, -ELOOP for a link, -EINVAL for another kind of file.
 */
static int read_at(int dirfd, const char *name, char **out)
{
	return infile__read_at(dirfd, name, FILE_MAX, out, NULL);
}

/* Why a file read_at could not read may not be replaced or taken as apply's. */
static int unreadable(int ret, const char *shown, struct diag *d)
{
	if (ret == -ELOOP)
		return diag__usage_err(d, ret, "%s is a symbolic link: apply never wrote one",
				       shown);
	if (ret == -EINVAL)
		return diag__usage(d, "%s is not a regular file: apply never wrote one", shown);
	return diag__fail(d, ret, "cannot read %s: %s", shown, strerror(-ret));
}

static bool our_dir(const char *rel)
{
	size_t i;

	for (i = 0; i < sizeof(our_dirs) / sizeof(our_dirs[0]); i++)
		if (!strcmp(rel, our_dirs[i]))
			return true;
	return false;
}

static int check_manifest(json_t *doc, const char *path, struct diag *d)
{
	json_t *files = json_object_get(doc, "files"), *dirs = json_object_get(doc, "dirs"), *e;
	json_t *match;
	size_t i;

	if (!json_is_object(doc) || !json_is_string(json_object_get(doc, "schema")) ||
	    strcmp(json_string_value(json_object_get(doc, "schema")), MANIFEST_SCHEMA) ||
	    !json_is_array(files) || !json_is_array(dirs))
		return diag__usage(d, "%s is not a manifest of blktrace-bench apply", path);
	json_array_foreach(files, i, e) {
		match = json_object_get(e, "match");
		if (!json_is_string(json_object_get(e, "path")) ||
		    !json_is_string(json_object_get(e, "content")) ||
		    (match && !json_is_string(match)) ||
		    !apply_files__ours(json_string_value(json_object_get(e, "path"))))
			return diag__usage(d, "%s: files[%zu] is not a file apply writes", path, i);
	}
	json_array_foreach(dirs, i, e)
		if (!json_is_string(e) || !our_dir(json_string_value(e)))
			return diag__usage(d, "%s: dirs[%zu] is not a directory apply makes", path,
					   i);
	return 0;
}

/* The manifest below the root, or an empty one when there is none; never a link. */
static int manifest_load(const struct apply_root *r, json_t **doc, struct diag *d)
{
	char shown[2 * PATH_MAX], *text = NULL;
	json_error_t jerr;
	int dir, ret;

	*doc = NULL;
	full_path(r->path, APPLY_MANIFEST, shown, sizeof(shown));
	dir = walk(r, APPLY_MANIFEST_DIR, NULL, d);
	if (dir < 0 && dir != -ENOENT)
		return dir;
	ret = dir < 0 ? dir : read_at(dir, APPLY_MANIFEST_NAME, &text);
	if (dir >= 0)
		close(dir);
	if (ret == -ENOENT) {
		*doc = json_pack("{s:s, s:[], s:[]}", "schema", MANIFEST_SCHEMA, "files", "dirs");
		return *doc ? 0 : diag__fail(d, -ENOMEM, "out of memory");
	}
	if (ret)
		return unreadable(ret, shown, d);
	*doc = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (!*doc)
		return diag__usage(d, "%s: not valid JSON: %s", shown, jerr.text);
	ret = check_manifest(*doc, shown, d);
	if (ret) {
		json_decref(*doc);
		*doc = NULL;
	}
	return ret;
}

static json_t *manifest_entry(json_t *doc, const char *rel, size_t *index)
{
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(doc, "files"), i, e)
		if (!strcmp(json_string_value(json_object_get(e, "path")), rel)) {
			if (index)
				*index = i;
			return e;
		}
	return NULL;
}

/* text as the file name in dirfd, through a temporary file renamed into place. */
static int write_at(const char *what, int dirfd, const char *name, const char *shown,
		    const char *text, struct diag *d)
{
	struct outfile of = {};
	int ret = outfile__open_at(&of, what, dirfd, name, shown, d);

	if (ret)
		return ret;
	if (fputs(text, of.f) == EOF) {
		outfile__abort(&of);
		return diag__fail(d, -EIO, "cannot write %s %s: %s", what, shown, strerror(errno));
	}
	return outfile__commit(&of, d);
}

static int manifest_save(const struct apply_root *r, int dir, json_t *doc, struct diag *d)
{
	char shown[2 * PATH_MAX], *json = json_dumps(doc, JSON_INDENT(2)), *text = NULL;
	int ret;

	/* json_dumps ends without a newline; a text file has one. */
	if (json && asprintf(&text, "%s\n", json) < 0)
		text = NULL;
	full_path(r->path, APPLY_MANIFEST, shown, sizeof(shown));
	ret = text ? write_at("the apply manifest", dir, APPLY_MANIFEST_NAME, shown, text, d)
		   : diag__fail(d, -ENOMEM, "out of memory");
	free(json);
	free(text);
	return ret;
}

/*
 * diff -u of the file name in dirfd (dirfd < 0, or no such file: nothing) and text, on
 * out, labelled shown; the text itself without diff. diff reads the file through the
 * descriptor opened here, never by its path.
 */
static void print_diff(FILE *out, const char *shown, int dirfd, const char *name, const char *text)
{
	int old = dirfd < 0 ? -1
			    : openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	char *argv[] = { "diff",
			 "-u",
			 "--label",
			 (char *)shown,
			 "--label",
			 (char *)shown,
			 (char *)(old < 0 ? "/dev/null" : "/dev/fd/3"),
			 "-",
			 NULL };
	posix_spawn_file_actions_t fa;
	int in[2], res[2], status;
	char buf[4096];
	ssize_t n;
	pid_t pid;

	fflush(out);
	if (old >= 0 && old <= 3) {
		/* dup2 onto itself would leave it close-on-exec: diff would not see it. */
		int moved = fcntl(old, F_DUPFD_CLOEXEC, 10);

		close(old);
		old = moved;
	}
	if (pipe2(in, O_CLOEXEC) || pipe2(res, O_CLOEXEC))
		goto plain;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, res[1], 1);
	if (old >= 0)
		posix_spawn_file_actions_adddup2(&fa, old, 3);
	if (posix_spawnp(&pid, "diff", &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		close(in[0]), close(in[1]), close(res[0]), close(res[1]);
		goto plain;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(res[1]);
	/* diff reads both sides before it writes; ours is far below a pipe's buffer. */
	if (write(in[1], text, strlen(text)) < 0)
		fprintf(out, "(cannot feed diff: %s)\n", strerror(errno));
	close(in[1]);
	while ((n = read(res[0], buf, sizeof(buf))) > 0)
		fwrite(buf, 1, n, out);
	close(res[0]);
	waitpid(pid, &status, 0);
	if (old >= 0)
		close(old);
	return;
plain:
	if (old >= 0)
		close(old);
	fprintf(out, "%s:\n%s", shown, text);
}

/*
 * Is whatever is at file's path something apply may replace: nothing, or what the
 * manifest says apply wrote there for the same disk, unedited? 0, or -errno with d.
 */
static int may_replace(const struct apply_root *r, json_t *doc, const struct apply_file *file,
		       struct diag *d)
{
	json_t *e = manifest_entry(doc, file->path, NULL), *match;
	char dir[PATH_MAX], shown[2 * PATH_MAX], *now = NULL;
	const char *name = split(file->path, dir, sizeof(dir));
	int fd = walk(r, dir, NULL, d), ret;

	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	full_path(r->path, file->path, shown, sizeof(shown));
	ret = read_at(fd, name, &now);
	close(fd);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return unreadable(ret, shown, d);
	ret = e && !strcmp(json_string_value(json_object_get(e, "content")), now);
	free(now);
	match = e ? json_object_get(e, "match") : NULL;
	if (ret && match && strcmp(json_string_value(match), file->match))
		return diag__usage(d,
				   "%s was written by apply for another disk (%s): not replacing "
				   "it",
				   shown, json_string_value(match));
	if (ret)
		return 0;
	return diag__usage(d,
			   "%s is there and apply did not write it%s: not replacing it (move it "
			   "away, or merge it by hand)",
			   shown, e ? " as it is now (edited since?)" : "");
}

/*
 * A path for a command line to copy: escaped for the terminal (text.h), in single quotes
 * unless it is plain.
 */
static const char *shell_word(char *buf, size_t len, const char *s)
{
	char esc[4 * PATH_MAX];
	size_t n;
	const char *c;

	text__escape(esc, sizeof(esc), s, strlen(s));
	if (esc[0] && strspn(esc, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				  "0123456789_./-+:=,") == strlen(esc)) {
		snprintf(buf, len, "%s", esc);
		return buf;
	}
	n = snprintf(buf, len, "'");
	for (c = esc; *c && n + 5 < len; c++) {
		if (*c == '\'')
			n += snprintf(buf + n, len - n, "'\\''");
		else
			buf[n++] = *c;
	}
	snprintf(buf + n, len - n, "'");
	return buf;
}

/*
 * The initramfs carries a copy of modprobe.d: rebuilt, so that a module it loads reads the
 * file apply wrote or removed (below --root there is no system's initramfs to rebuild).
 */
static int update_initramfs(const struct apply_opts *o, struct diag *d)
{
	char how[256];
	int ret;

	if (!o->boot)
		return 0;
	ret = boot_config__update_initramfs(o->boot, how, sizeof(how), d);
	if (ret >= 0)
		fprintf(o->out, "initramfs: %s\n",
			ret ? how
			    : "no update-initramfs or dracut "
			      "here to rebuild");
	return ret < 0 ? ret : 0;
}

static void next_steps(const struct tune_plan *plan, const struct apply_opts *o, bool rule)
{
	char now[160], cmdline[4096] = "", root[4 * PATH_MAX + 32] = "";
	char word[4 * PATH_MAX + 16], result[4 * PATH_MAX + 16];
	const char *set;
	FILE *f;

	if (rule) {
		apply_files__udev_now(plan, now, sizeof(now));
		fprintf(o->out, "queue settings: in force from the next boot, or now with\n  %s\n",
			now);
	}
	if (plan->out.has_module) {
		fprintf(o->out,
			"kernel command line (not edited by this tool): add\n  %s\n"
			"to GRUB_CMDLINE_LINUX in /etc/default/grub, then run update-grub:\n"
			"needed where %s is built in; as a module, the modprobe.d file counts\n"
			"(loaded from the initramfs: once the initramfs carries it, as above)\n",
			plan->out.module.boot_parameter, plan->out.module.module);
		f = o->check_cmdline ? fopen("/proc/cmdline", "re") : NULL;
		if (f && fgets(cmdline, sizeof(cmdline), f) &&
		    (set = strstr(cmdline, "xen_blkfront.")))
			fprintf(o->out,
				"note: this kernel was booted with %.*s, which overrides "
				"modprobe.d: change it there\n",
				(int)strcspn(set, " \n"), set);
		if (f)
			fclose(f);
	}
	if (o->dry_run)
		return;
	/* The undo must find the same manifest: below the same root. */
	if (strcmp(o->root, "/"))
		snprintf(root, sizeof(root), " --root %s", shell_word(word, sizeof(word), o->root));
	fprintf(o->out,
		"after the change: blktrace-bench verify %s; undo: blktrace-bench apply --undo%s\n",
		shell_word(result, sizeof(result), o->result), root);
}

/* Record files[] in the manifest (replacing older entries of the same paths). */
static int record(json_t *doc, const struct apply_file *files, int nr, const char *result)
{
	size_t at;
	int i;

	for (i = 0; i < nr; i++) {
		json_t *e = json_pack("{s:s, s:s, s:o}", "path", files[i].path, "content",
				      files[i].content, "result", text__json(result));

		if (!e || (files[i].match[0] &&
			   json_object_set_new(e, "match", json_string(files[i].match)))) {
			json_decref(e);
			return -ENOMEM;
		}
		if (manifest_entry(doc, files[i].path, &at))
			json_array_remove(json_object_get(doc, "files"), at);
		json_array_append_new(json_object_get(doc, "files"), e);
	}
	return 0;
}

static int write_all(const struct apply_opts *o, const struct apply_root *r, json_t *doc,
		     const struct apply_file *files, int nr, struct diag *d)
{
	json_t *made = json_object_get(doc, "dirs");
	char dir[PATH_MAX], shown[2 * PATH_MAX];
	int fds[2] = { -1, -1 }, mdir = -1, i, ret = 0;
	const char *name;

	for (i = 0; !ret && i < nr; i++) {
		split(files[i].path, dir, sizeof(dir));
		fds[i] = walk(r, dir, made, d);
		ret = fds[i] < 0 ? fds[i] : 0;
	}
	if (!ret)
		ret = (mdir = walk(r, APPLY_MANIFEST_DIR, made, d)) < 0 ? mdir : 0;
	if (!ret && record(doc, files, nr, o->result))
		ret = diag__fail(d, -ENOMEM, "out of memory");
	/* The manifest first: an apply that dies half way leaves only what --undo knows. */
	if (!ret)
		ret = manifest_save(r, mdir, doc, d);
	for (i = 0; !ret && i < nr; i++) {
		name = split(files[i].path, dir, sizeof(dir));
		full_path(r->path, files[i].path, shown, sizeof(shown));
		ret = write_at(files[i].match[0] ? "the udev rule" : "the modprobe.d file", fds[i],
			       name, shown, files[i].content, d);
		if (!ret)
			fprintf(o->out, "wrote %s\n", shown);
	}
	for (i = 0; i < nr; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (mdir >= 0)
		close(mdir);
	return ret;
}

/* Each file as a diff against what is at its path now. */
static void dry_run(const struct apply_opts *o, const struct apply_root *r,
		    const struct apply_file *files, int nr)
{
	char dir[PATH_MAX], shown[2 * PATH_MAX];
	const char *name;
	int i, fd;

	for (i = 0; i < nr; i++) {
		name = split(files[i].path, dir, sizeof(dir));
		full_path(r->path, files[i].path, shown, sizeof(shown));
		fd = walk(r, dir, NULL, NULL);
		fprintf(o->out, "would write %s:\n", shown);
		print_diff(o->out, shown, fd, name, files[i].content);
		if (fd >= 0)
			close(fd);
	}
}

int apply__run(const struct tune_plan *plan, const struct apply_opts *o, struct diag *d)
{
	struct apply_root r = { .fd = -1 };
	struct apply_file files[2];
	json_t *doc = NULL;
	int nr = 0, i, ret;

	ret = apply_files__make(plan, o->result, files, &nr, d);
	if (ret)
		return ret;
	if (!nr) {
		fprintf(o->out, "nothing to apply: %s keeps every setting of %s as found\n",
			o->result, plan->disk);
		return 0;
	}
	ret = root_open(o, &r, d);
	if (!ret)
		ret = manifest_load(&r, &doc, d);
	for (i = 0; !ret && i < nr; i++)
		ret = may_replace(&r, doc, &files[i], d);
	if (!ret && o->dry_run)
		dry_run(o, &r, files, nr);
	if (!ret && !o->dry_run)
		ret = write_all(o, &r, doc, files, nr, d);
	root_close(&r);
	if (!ret && !o->dry_run && plan->out.has_module)
		ret = update_initramfs(o, d);
	if (!ret)
		next_steps(plan, o, plan->out.nr_settings > 0);
	json_decref(doc);
	apply_files__free(files, nr);
	return ret;
}

/* Remove one file of the manifest if it is still what apply wrote; say what happened. */
static void undo_file(const struct apply_opts *o, const struct apply_root *r, json_t *e)
{
	const char *rel = json_string_value(json_object_get(e, "path")), *name;
	char dir[PATH_MAX], shown[2 * PATH_MAX], *now = NULL;
	struct diag d = {};
	int fd, ret;

	name = split(rel, dir, sizeof(dir));
	full_path(r->path, rel, shown, sizeof(shown));
	fd = walk(r, dir, NULL, &d);
	ret = fd < 0 ? fd : read_at(fd, name, &now);
	if (ret == -ENOENT)
		fprintf(o->out, "%s: already gone\n", shown);
	else if (fd < 0)
		fprintf(o->out, "%s: left in place: %s\n", shown, d.msg);
	else if (ret || strcmp(now, json_string_value(json_object_get(e, "content"))))
		fprintf(o->out,
			"%s: edited since apply wrote it: left in place (remove it "
			"yourself)\n",
			shown);
	else if (o->dry_run)
		fprintf(o->out, "would remove %s\n", shown);
	else if (unlinkat(fd, name, 0))
		fprintf(o->out, "%s: cannot remove it: %s\n", shown, strerror(errno));
	else
		fprintf(o->out, "removed %s\n", shown);
	if (fd >= 0)
		close(fd);
	free(now);
}

/* A directory apply made, if empty; rel's parent reached as every directory is. */
static void undo_dir(const struct apply_opts *o, const struct apply_root *r, const char *rel)
{
	char parent[PATH_MAX], shown[2 * PATH_MAX];
	const char *name = split(rel, parent, sizeof(parent));
	int fd = walk(r, parent, NULL, NULL);

	full_path(r->path, rel, shown, sizeof(shown));
	if (fd >= 0 && !unlinkat(fd, name, AT_REMOVEDIR))
		fprintf(o->out, "removed %s/\n", shown);
	if (fd >= 0)
		close(fd);
}

/* Every directory the manifest's files are in can be reached (or is gone): else nothing. */
static int reachable(const struct apply_root *r, json_t *files, struct diag *d)
{
	char dir[PATH_MAX];
	json_t *e;
	size_t i;
	int fd;

	json_array_foreach(files, i, e) {
		split(json_string_value(json_object_get(e, "path")), dir, sizeof(dir));
		fd = walk(r, dir, NULL, d);
		if (fd < 0 && fd != -ENOENT)
			return fd;
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

static int undo_all(const struct apply_opts *o, const struct apply_root *r, json_t *doc,
		    struct diag *d)
{
	json_t *files = json_object_get(doc, "files"), *dirs = json_object_get(doc, "dirs"), *e;
	char shown[2 * PATH_MAX];
	size_t i;
	int ret = reachable(r, files, d), fd;

	if (ret)
		return ret;
	json_array_foreach(files, i, e)
		undo_file(o, r, e);
	if (o->dry_run)
		return 0;
	json_array_foreach(files, i, e)
		if (!strncmp(json_string_value(json_object_get(e, "path")) ?: "",
			     APPLY_MODPROBE_DIR "/", strlen(APPLY_MODPROBE_DIR "/"))) {
			ret = update_initramfs(o, d);
			if (ret)
				return ret;
			break;
		}
	full_path(r->path, APPLY_MANIFEST, shown, sizeof(shown));
	fd = walk(r, APPLY_MANIFEST_DIR, NULL, d);
	if (fd < 0 && fd != -ENOENT)
		return fd;
	if (fd >= 0 && unlinkat(fd, APPLY_MANIFEST_NAME, 0) && errno != ENOENT)
		ret = diag__fail(d, -errno, "cannot remove %s: %s", shown, strerror(errno));
	if (fd >= 0)
		close(fd);
	/* Newest first: a directory apply made inside another it made. */
	for (i = json_array_size(dirs); !ret && i-- > 0;)
		undo_dir(o, r, json_string_value(json_array_get(dirs, i)));
	if (!ret)
		fprintf(o->out, "the values in force stay until the next boot; a kernel command "
				"line parameter you added is yours to remove\n");
	return ret;
}

int apply__undo(const struct apply_opts *o, struct diag *d)
{
	struct apply_root r = { .fd = -1 };
	json_t *doc = NULL;
	int ret = root_open(o, &r, d);

	if (!ret)
		ret = manifest_load(&r, &doc, d);
	if (!ret && !json_array_size(json_object_get(doc, "files")) &&
	    !json_array_size(json_object_get(doc, "dirs")))
		fprintf(o->out, "nothing to undo: apply wrote nothing below %s\n", o->root);
	else if (!ret)
		ret = undo_all(o, &r, doc, d);
	root_close(&r);
	json_decref(doc);
	return ret;
}
