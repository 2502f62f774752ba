// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Writing and removing the files of a tune result, with a manifest; see apply.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <jansson.h>
#include "apply.h"
#include "apply_files.h"
#include "diag.h"
#include "outfile.h"
#include "text.h"

#define MANIFEST_SCHEMA "blktrace-bench-applied/1"
#define FILE_MAX (1 << 20) /* our files are a few hundred bytes */

extern char **environ;

/* root + rel ("/etc/..."): "/etc/..." for root "/", "DIR/etc/..." otherwise. */
static int full_path(const char *root, const char *rel, char *out, size_t len)
{
	size_t n = strlen(root);

	while (n > 0 && root[n - 1] == '/')
		n--;
	return snprintf(out, len, "%.*s%s", (int)n, root, rel) >= (int)len ? -ENAMETOOLONG : 0;
}

/* A whole small file into *out (malloc'd); -ENOENT when it is not there. */
static int read_file(const char *path, char **out)
{
	char *buf = malloc(FILE_MAX + 1);
	ssize_t n, got = 0;
	int fd, ret = 0;

	*out = NULL;
	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	while ((n = read(fd, buf + got, FILE_MAX + 1 - got)) > 0)
		got += n;
	if (n < 0 || got > FILE_MAX)
		ret = n < 0 ? -errno : -EFBIG;
	close(fd);
	if (ret) {
		free(buf);
		return ret;
	}
	buf[got] = '\0';
	*out = buf;
	return 0;
}

/* Only paths apply writes: below one of its two directories, one name, no "..". */
static bool our_path(const char *rel)
{
	const char *dirs[] = { APPLY_UDEV_DIR "/", APPLY_MODPROBE_DIR "/" };
	size_t i, n;

	for (i = 0; i < 2; i++) {
		n = strlen(dirs[i]);
		if (!strncmp(rel, dirs[i], n) && rel[n] && !strchr(rel + n, '/') &&
		    strcmp(rel + n, ".") && strcmp(rel + n, ".."))
			return true;
	}
	return false;
}

static int check_manifest(json_t *doc, const char *path, struct diag *d)
{
	json_t *files = json_object_get(doc, "files"), *dirs = json_object_get(doc, "dirs"), *e;
	size_t i;

	if (!json_is_object(doc) || !json_is_string(json_object_get(doc, "schema")) ||
	    strcmp(json_string_value(json_object_get(doc, "schema")), MANIFEST_SCHEMA) ||
	    !json_is_array(files) || !json_is_array(dirs))
		return diag__usage(d, "%s is not a manifest of blktrace-bench apply", path);
	json_array_foreach(files, i, e)
		if (!json_is_string(json_object_get(e, "path")) ||
		    !json_is_string(json_object_get(e, "content")) ||
		    !our_path(json_string_value(json_object_get(e, "path"))))
			return diag__usage(d, "%s: files[%zu] is not a file apply writes", path, i);
	json_array_foreach(dirs, i, e)
		if (!json_is_string(e) || json_string_value(e)[0] != '/' ||
		    strstr(json_string_value(e), ".."))
			return diag__usage(d, "%s: dirs[%zu] is not a directory apply makes", path,
					   i);
	return 0;
}

/* The manifest below root, or an empty one when there is none. */
static int manifest_load(const char *root, json_t **doc, struct diag *d)
{
	char path[PATH_MAX];
	json_error_t jerr;
	int ret = full_path(root, APPLY_MANIFEST, path, sizeof(path));

	*doc = NULL;
	if (ret)
		return diag__usage_err(d, ret, "--root %s: path too long", root);
	if (access(path, F_OK) && errno == ENOENT) {
		*doc = json_pack("{s:s, s:[], s:[]}", "schema", MANIFEST_SCHEMA, "files", "dirs");
		return *doc ? 0 : diag__fail(d, -ENOMEM, "out of memory");
	}
	*doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!*doc)
		return diag__usage(d, "%s: not valid JSON: %s", path, jerr.text);
	ret = check_manifest(*doc, path, d);
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

static int write_text(const char *what, const char *path, const char *text, struct diag *d)
{
	struct outfile of = {};
	int ret = outfile__open(&of, what, path, NULL, 0, d);

	if (ret)
		return ret;
	if (fputs(text, of.f) == EOF) {
		outfile__abort(&of);
		return diag__fail(d, -EIO, "cannot write %s %s: %s", what, path, strerror(errno));
	}
	return outfile__commit(&of, d);
}

static int manifest_save(const char *root, json_t *doc, struct diag *d)
{
	char path[PATH_MAX], *json = json_dumps(doc, JSON_INDENT(2)), *text = NULL;
	int ret;

	/* json_dumps ends without a newline; a text file has one. */
	if (json && asprintf(&text, "%s\n", json) < 0)
		text = NULL;
	if (!text)
		ret = diag__fail(d, -ENOMEM, "out of memory");
	else if ((ret = full_path(root, APPLY_MANIFEST, path, sizeof(path))))
		ret = diag__usage_err(d, ret, "--root %s: path too long", root);
	else
		ret = write_text("the apply manifest", path, text, d);
	free(json);
	free(text);
	return ret;
}

/*
 * The parent directories of rel below root, made where missing (0755) and recorded in
 * the manifest's dirs, so that --undo takes away what apply made.
 */
static int make_dirs(const char *root, const char *rel, json_t *doc, struct diag *d)
{
	char part[PATH_MAX], path[PATH_MAX];
	const char *slash;
	int ret;

	for (slash = strchr(rel + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		snprintf(part, sizeof(part), "%.*s", (int)(slash - rel), rel);
		ret = full_path(root, part, path, sizeof(path));
		if (ret)
			return diag__usage_err(d, ret, "--root %s: path too long", root);
		if (!mkdir(path, 0755)) {
			json_array_append_new(json_object_get(doc, "dirs"), json_string(part));
			continue;
		}
		if (errno != EEXIST)
			return diag__fail(d, -errno, "cannot create %s: %s", path, strerror(errno));
	}
	return 0;
}

/* diff -u of the file at path (or nothing) and text, on out; the text itself without diff. */
static void print_diff(FILE *out, const char *path, const char *text)
{
	char *argv[] = { "diff",
			 "-u",
			 "--label",
			 (char *)path,
			 "--label",
			 (char *)path,
			 (char *)(access(path, F_OK) ? "/dev/null" : path),
			 "-",
			 NULL };
	posix_spawn_file_actions_t fa;
	int in[2], res[2], status;
	char buf[4096];
	ssize_t n;
	pid_t pid;

	fflush(out);
	if (pipe2(in, O_CLOEXEC) || pipe2(res, O_CLOEXEC))
		goto plain;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, res[1], 1);
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
	return;
plain:
	fprintf(out, "%s:\n%s", path, text);
}

/* Is whatever is at path something apply may replace? 0, or -EINVAL with d. */
static int may_replace(json_t *doc, const char *rel, const char *path, struct diag *d)
{
	json_t *e = manifest_entry(doc, rel, NULL);
	char *now;
	int ret = read_file(path, &now);

	if (ret == -ENOENT)
		return 0;
	if (ret)
		return diag__fail(d, ret, "cannot read %s: %s", path, strerror(-ret));
	ret = e && !strcmp(json_string_value(json_object_get(e, "content")), now);
	free(now);
	if (ret)
		return 0;
	return diag__usage(d,
			   "%s is there and apply did not write it%s: not replacing it (move it "
			   "away, or merge it by hand)",
			   path, e ? " as it is now (edited since?)" : "");
}

static void next_steps(const struct tune_plan *plan, const struct apply_opts *o, bool rule)
{
	char now[160], cmdline[4096] = "";
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
			"needed where %s is built in; as a module loaded from the initramfs,\n"
			"update-initramfs -u makes it read the modprobe.d file instead\n",
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
	if (!o->dry_run)
		fprintf(o->out,
			"after the change: blktrace-bench verify %s; undo: blktrace-bench "
			"apply --undo\n",
			o->result);
}

/* Record files[] in the manifest (replacing older entries of the same paths). */
static int record(json_t *doc, const struct apply_file *files, int nr, const char *result)
{
	size_t at;
	int i;

	for (i = 0; i < nr; i++) {
		json_t *e = json_pack("{s:s, s:s, s:o}", "path", files[i].path, "content",
				      files[i].content, "result", text__json(result));

		if (!e)
			return -ENOMEM;
		if (manifest_entry(doc, files[i].path, &at))
			json_array_remove(json_object_get(doc, "files"), at);
		json_array_append_new(json_object_get(doc, "files"), e);
	}
	return 0;
}

static int write_all(const struct apply_opts *o, json_t *doc, const struct apply_file *files,
		     int nr, struct diag *d)
{
	char path[PATH_MAX];
	int i, ret = 0;

	for (i = 0; !ret && i < nr; i++)
		ret = make_dirs(o->root, files[i].path, doc, d);
	if (!ret)
		ret = make_dirs(o->root, APPLY_MANIFEST, doc, d);
	if (!ret && record(doc, files, nr, o->result))
		ret = diag__fail(d, -ENOMEM, "out of memory");
	/* The manifest first: an apply that dies half way leaves only what --undo knows. */
	if (!ret)
		ret = manifest_save(o->root, doc, d);
	for (i = 0; !ret && i < nr; i++) {
		full_path(o->root, files[i].path, path, sizeof(path));
		ret = write_text(strstr(path, "udev") ? "the udev rule" : "the modprobe.d file",
				 path, files[i].content, d);
		if (!ret)
			fprintf(o->out, "wrote %s\n", path);
	}
	return ret;
}

int apply__run(const struct tune_plan *plan, const struct apply_opts *o, struct diag *d)
{
	struct apply_file files[2];
	char path[PATH_MAX];
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
	ret = manifest_load(o->root, &doc, d);
	for (i = 0; !ret && i < nr; i++)
		ret = full_path(o->root, files[i].path, path, sizeof(path))
			      ? diag__usage_err(d, -ENAMETOOLONG, "--root %s: path too long",
						o->root)
			      : may_replace(doc, files[i].path, path, d);
	for (i = 0; !ret && o->dry_run && i < nr; i++) {
		full_path(o->root, files[i].path, path, sizeof(path));
		fprintf(o->out, "would write %s:\n", path);
		print_diff(o->out, path, files[i].content);
	}
	if (!ret && !o->dry_run)
		ret = write_all(o, doc, files, nr, d);
	if (!ret)
		next_steps(plan, o, plan->out.nr_settings > 0);
	json_decref(doc);
	apply_files__free(files, nr);
	return ret;
}

/* Remove one file of the manifest if it is still what apply wrote; say what happened. */
static void undo_file(const struct apply_opts *o, json_t *e)
{
	const char *rel = json_string_value(json_object_get(e, "path"));
	char path[PATH_MAX], *now = NULL;
	int ret;

	if (full_path(o->root, rel, path, sizeof(path)))
		return;
	ret = read_file(path, &now);
	if (ret == -ENOENT)
		fprintf(o->out, "%s: already gone\n", path);
	else if (ret || strcmp(now, json_string_value(json_object_get(e, "content"))))
		fprintf(o->out,
			"%s: edited since apply wrote it: left in place (remove it "
			"yourself)\n",
			path);
	else if (o->dry_run)
		fprintf(o->out, "would remove %s\n", path);
	else if (unlink(path))
		fprintf(o->out, "%s: cannot remove it: %s\n", path, strerror(errno));
	else
		fprintf(o->out, "removed %s\n", path);
	free(now);
}

int apply__undo(const struct apply_opts *o, struct diag *d)
{
	json_t *doc, *files, *dirs, *e;
	char path[PATH_MAX];
	size_t i;
	int ret = manifest_load(o->root, &doc, d);

	if (ret)
		return ret;
	files = json_object_get(doc, "files");
	dirs = json_object_get(doc, "dirs");
	if (!json_array_size(files) && !json_array_size(dirs)) {
		fprintf(o->out, "nothing to undo: apply wrote nothing below %s\n", o->root);
		json_decref(doc);
		return 0;
	}
	json_array_foreach(files, i, e)
		undo_file(o, e);
	full_path(o->root, APPLY_MANIFEST, path, sizeof(path));
	if (!o->dry_run && unlink(path) && errno != ENOENT)
		ret = diag__fail(d, -errno, "cannot remove %s: %s", path, strerror(errno));
	/* Newest first: a directory apply made inside another it made. */
	for (i = json_array_size(dirs); !ret && !o->dry_run && i-- > 0;)
		if (!full_path(o->root, json_string_value(json_array_get(dirs, i)), path,
			       sizeof(path)) &&
		    !rmdir(path))
			fprintf(o->out, "removed %s/\n", path);
	if (!ret && !o->dry_run)
		fprintf(o->out, "the values in force stay until the next boot; a kernel command "
				"line parameter you added is yours to remove\n");
	json_decref(doc);
	return ret;
}
