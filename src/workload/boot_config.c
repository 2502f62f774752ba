// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The next boot's settings (boot_config.h): what sets a module parameter besides the
 * tool, the tool's modprobe.d file, and the initramfs rebuilt to carry it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include "workload/boot_config.h"
#include "base/diag.h"
#include "files/outfile.h"
#include "base/text.h"

extern char **environ;

/* modprobe.d(5): the directories modprobe reads, /etc first (the administrator's). */
static const char *const system_modprobe_dirs[] = {
	"/etc/modprobe.d", "/run/modprobe.d",	  "/usr/local/lib/modprobe.d",
	"/lib/modprobe.d", "/usr/lib/modprobe.d", NULL,
};

/* Debian's and Ubuntu's initramfs-tools, then dracut (Fedora, RHEL, SUSE); {r}: uname -r. */
static const char *const system_initramfs_cmds[] = {
	"/usr/sbin/update-initramfs -u -k {r}",
	"/sbin/update-initramfs -u -k {r}",
	"/usr/bin/dracut -f --kver {r}",
	"/usr/sbin/dracut -f --kver {r}",
	NULL,
};

#define MARK "# blktrace-bench: a sweep across reboots"

void boot_config__system(struct boot_config_env *env, const char *sysfs_root)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		u.release[0] = '\0';
	env->sysfs_root = sysfs_root;
	env->cmdline = "/proc/cmdline";
	env->modprobe_dirs = system_modprobe_dirs;
	env->conf_dir = "/etc/modprobe.d";
	env->initramfs_cmds = system_initramfs_cmds;
	env->kernel_release = u.release;
}

/* Module and parameter names: the kernel and modprobe take '-' for '_'. */
static bool same_name(const char *a, size_t alen, const char *b)
{
	size_t i;

	if (alen != strlen(b))
		return false;
	for (i = 0; i < alen; i++)
		if (a[i] != b[i] && !((a[i] == '-' || a[i] == '_') && (b[i] == '-' || b[i] == '_')))
			return false;
	return true;
}

/* Does "PARAM=VALUE" set k (by either name)? Then VALUE into value. */
static bool sets_param(const struct boot_knob *k, const char *tok, char *value, size_t len)
{
	const char *eq = strchr(tok, '=');

	if (!eq || !(same_name(tok, eq - tok, k->param) ||
		     (k->old_param && same_name(tok, eq - tok, k->old_param))))
		return false;
	text__copy(value, len, eq + 1);
	return true;
}

/* The kernel command line's "MODULE.PARAM=V", the last one (the kernel keeps the last). */
static int from_cmdline(const struct boot_config_env *env, const struct boot_knob *k, char *value,
			size_t len)
{
	char line[4096], *tok, *save = NULL, *dot;
	FILE *f = fopen(env->cmdline, "re");
	int found = 0;

	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	for (tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		dot = strchr(tok, '.');
		if (dot && same_name(tok, dot - tok, k->module) &&
		    sets_param(k, dot + 1, value, len))
			found = 1;
	}
	return found;
}

/* An "options MODULE P=V ..." line of path that sets k: 1 with the value, 0, -errno. */
static int from_file(const char *path, const struct boot_knob *k, char *value, size_t len)
{
	char *line = NULL, *tok, *save, *mod;
	size_t cap = 0;
	int found = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (getline(&line, &cap, f) > 0) {
		save = NULL;
		tok = strtok_r(line, " \t\n", &save);
		if (!tok || strcmp(tok, "options"))
			continue;
		mod = strtok_r(NULL, " \t\n", &save);
		if (!mod || !same_name(mod, strlen(mod), k->module))
			continue;
		while ((tok = strtok_r(NULL, " \t\n", &save)) && *tok != '#')
			if (sets_param(k, tok, value, len))
				found = 1;
	}
	free(line);
	fclose(f);
	return found;
}

static bool is_conf(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 5 && !strcmp(name + n - 5, ".conf");
}

int boot_config__other_setting(const struct boot_config_env *env, const struct boot_knob *k,
			       char *where, size_t where_len, char *value, size_t value_len)
{
	const char *const *dir;
	char path[PATH_MAX];
	struct dirent **ents;
	int n, i, ret;

	ret = from_cmdline(env, k, value, value_len);
	if (ret) {
		text__copy(where, where_len, "the kernel command line");
		return ret;
	}
	for (dir = env->modprobe_dirs; *dir; dir++) {
		n = scandir(*dir, &ents, NULL, alphasort);
		if (n < 0 && errno != ENOENT && errno != ENOTDIR)
			return -errno;
		for (i = 0; i < n; i++) {
			bool ours = !strcmp(*dir, env->conf_dir) &&
				    !strcmp(ents[i]->d_name, BOOT_CONFIG_FILE);

			if (!ret && !ours && is_conf(ents[i]->d_name) &&
			    snprintf(path, sizeof(path), "%s/%s", *dir, ents[i]->d_name) <
				    (int)sizeof(path) &&
			    (ret = from_file(path, k, value, value_len)) > 0)
				text__copy(where, where_len, path);
			free(ents[i]);
		}
		if (n >= 0)
			free(ents);
		if (ret)
			return ret;
	}
	return 0;
}

static int ours_or_none(const char *path, struct diag *d);

int boot_config__write(const struct boot_config_env *env, const struct boot_knob *k, int64_t v,
		       struct diag *d)
{
	char path[PATH_MAX], line[128];
	struct outfile of = {};
	int err;

	if (snprintf(path, sizeof(path), "%s/%s", env->conf_dir, BOOT_CONFIG_FILE) >=
		    (int)sizeof(path) ||
	    boot_knob__modprobe_line(k, env->sysfs_root, v, line, sizeof(line)))
		return diag__fail(d, -ENAMETOOLONG, "%s/%s: name too long", env->conf_dir,
				  BOOT_CONFIG_FILE);
	err = ours_or_none(path, d);
	if (err)
		return err;
	err = outfile__open(&of, "the next boot's setting", path, NULL, 0, d);
	if (err)
		return err;
	fprintf(of.f,
		"%s (blktrace-bench resume measures the next value;\n"
		"# blktrace-bench resume --abort removes this file).\n%s\n",
		MARK, line);
	return outfile__commit(&of, d);
}

/* Is path the tool's file (its first line says so), or missing? 0, or -errno with d. */
static int ours_or_none(const char *path, struct diag *d)
{
	char first[128] = "";
	FILE *f = fopen(path, "re");

	if (!f)
		return errno == ENOENT
			       ? 0
			       : diag__fail(d, -errno, "cannot read %s: %s", path, strerror(errno));
	if (!fgets(first, sizeof(first), f))
		first[0] = '\0';
	fclose(f);
	if (strncmp(first, MARK, strlen(MARK)))
		return diag__usage_err(d, -EEXIST, "%s is not the file this tool wrote: left alone",
				       path);
	return 0;
}

int boot_config__remove(const struct boot_config_env *env, struct diag *d)
{
	char path[PATH_MAX];
	int err;

	if (snprintf(path, sizeof(path), "%s/%s", env->conf_dir, BOOT_CONFIG_FILE) >=
	    (int)sizeof(path))
		return diag__fail(d, -ENAMETOOLONG, "%s: name too long", env->conf_dir);
	if (access(path, F_OK))
		return 0;
	err = ours_or_none(path, d);
	if (err)
		return err;
	if (unlink(path))
		return diag__fail(d, -errno, "cannot remove %s: %s", path, strerror(errno));
	return 1;
}

/* cmd split on spaces into argv, "{r}" the kernel release. Returns argc, or -E2BIG. */
static int split_cmd(const char *cmd, const char *release, char *buf, size_t len, char **argv,
		     int max)
{
	char *tok, *save = NULL;
	int n = 0;

	text__copy(buf, len, cmd);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (n == max - 1)
			return -E2BIG;
		argv[n++] = strcmp(tok, "{r}") ? tok : (char *)release;
	}
	argv[n] = NULL;
	return n;
}

int boot_config__update_initramfs(const struct boot_config_env *env, char *how, size_t len,
				  struct diag *d)
{
	const char *const *c;
	char buf[512], *argv[16];
	int status, err;
	pid_t pid;

	for (c = env->initramfs_cmds; *c; c++) {
		if (split_cmd(*c, env->kernel_release, buf, sizeof(buf), argv, 16) < 1 ||
		    access(argv[0], X_OK))
			continue;
		text__join(how, len, split_cmd(*c, env->kernel_release, buf, sizeof(buf), argv, 16),
			   argv);
		/* Its output is the user's to read: stdout joins stderr, away from reports. */
		posix_spawn_file_actions_t fa;

		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
		err = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
		posix_spawn_file_actions_destroy(&fa);
		if (err)
			return diag__fail(d, -err, "cannot run %s: %s", how, strerror(err));
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				return diag__fail(d, -errno, "%s: %s", how, strerror(errno));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			return diag__fail(d, -EIO,
					  "%s failed (%s %d): the initramfs may not carry "
					  "the setting",
					  how, WIFEXITED(status) ? "exit" : "signal",
					  WIFEXITED(status) ? WEXITSTATUS(status)
							    : WTERMSIG(status));
		return 1;
	}
	text__copy(how, len, "no update-initramfs or dracut here");
	return 0;
}
