// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The udev rule and the modprobe.d file of a tune result; see apply_files.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tune/apply_files.h"
#include "workload/boot_config.h"
#include "base/diag.h"
#include "base/fmt.h"
#include "base/text.h"

void apply_files__udev_now(const struct tune_plan *plan, char *buf, size_t len)
{
	snprintf(buf, len,
		 "udevadm control --reload && udevadm trigger --action=change "
		 "--sysname-match=%s",
		 plan->disk);
}

/* The comment lines every file starts with: the tool, the result, what was measured. */
static void provenance(FILE *f, const struct tune_plan *plan, const char *result)
{
	char esc[4 * PATH_MAX], version[128], job[1024], a[32], b[32];
	const struct tune_outcome *o = &plan->out;

	/* Escaped: a newline in a name must not end the comment. */
	fprintf(f, "# Written by blktrace-bench %s (apply) from the tune result\n#   %s\n",
		text__escape(version, sizeof(version), plan->tool_version,
			     strlen(plan->tool_version)),
		text__escape(esc, sizeof(esc), result, strlen(result)));
	if (!o->nr_settings || isnan(o->change))
		return;
	fprintf(f,
		"# Measured on %s with %s: %.1f MB/s as found,\n# %.1f MB/s with these "
		"settings (%+.1f%%)",
		plan->disk, text__escape(job, sizeof(job), plan->workload, strlen(plan->workload)),
		o->base_mbps, o->final_mbps, 100 * o->change);
	if (!isnan(o->base_req_p50) && !isnan(o->final_req_p50))
		fprintf(f, "; requests of %s instead of %s",
			fmt__size(a, sizeof(a), o->final_req_p50),
			fmt__size(b, sizeof(b), o->base_req_p50));
	fprintf(f, ".\n");
}

/* scheduler first: writing it resets nr_requests (and wbt_lat_usec), as in tune. */
static void assignments(FILE *f, const struct tune_plan *plan)
{
	int pass, i;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < plan->out.nr_settings; i++)
			if (!strcmp(plan->out.settings[i].name, "scheduler") == !pass)
				fprintf(f, ", ATTR{queue/%s}=\"%s\"", plan->out.settings[i].name,
					plan->out.settings[i].to);
}

static char *udev_rule(const struct tune_plan *plan, const char *result)
{
	char *text = NULL, match[320], now[160];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int i;

	if (!f)
		return NULL;
	provenance(f, plan, result);
	fprintf(f, "# The queue settings of the disk whose %s is\n#   %s (%s when tuned):",
		plan->id.what, plan->id.value, plan->disk);
	for (i = 0; i < plan->out.nr_settings; i++)
		fprintf(f, " %s %s -> %s%s", plan->out.settings[i].name, plan->out.settings[i].from,
			plan->out.settings[i].to, i + 1 < plan->out.nr_settings ? "," : "\n");
	if (!strcmp(plan->id.key, "ATTR{loop/backing_file}"))
		fprintf(f, "# Loop devices have no serial: the rule matches the backing file.\n");
	apply_files__udev_now(plan, now, sizeof(now));
	fprintf(f,
		"# In force from the next boot, or now:\n#   %s\n"
		"# Undo: blktrace-bench apply --undo (removes this file).\n",
		now);
	disk_id__match(&plan->id, match, sizeof(match));
	fprintf(f, "ACTION==\"add|change\", SUBSYSTEM==\"block\", ENV{DEVTYPE}==\"disk\", %s",
		match);
	assignments(f, plan);
	fputc('\n', f);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

static char *modprobe_conf(const struct tune_plan *plan, const char *result)
{
	const struct tune_module_param *m = &plan->out.module;
	char *text = NULL, why[4 * sizeof(plan->out.xen)], was[48] = "";
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	provenance(f, plan, result);
	if (m->now >= 0)
		snprintf(was, sizeof(was), " (was %lld)", (long long)m->now);
	fprintf(f,
		"# %s of %s: %lld%s, for %s:\n#   %s\n"
		"# Read when %s loads: from the initramfs after update-initramfs -u. Built into\n"
		"# the kernel, it takes the kernel command line instead (GRUB_CMDLINE_LINUX in\n"
		"# /etc/default/grub, then update-grub): %s\n"
		"# Undo: blktrace-bench apply --undo (removes this file).\n%s\n",
		m->name, m->module, (long long)m->value, was, plan->disk,
		text__escape(why, sizeof(why), plan->out.xen, strlen(plan->out.xen)), m->module,
		m->boot_parameter, m->modprobe);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

int apply_files__make(const struct tune_plan *plan, const char *result, struct apply_file files[2],
		      int *nr, struct diag *d)
{
	char slug[96];

	*nr = 0;
	memset(files, 0, 2 * sizeof(*files));
	if (plan->out.nr_settings) {
		if (!plan->has_id)
			return diag__usage(d, "no udev rule for %s: %s", plan->disk, plan->id_note);
		disk_id__slug(&plan->id, slug, sizeof(slug));
		snprintf(files[0].path, sizeof(files[0].path),
			 APPLY_UDEV_DIR "/" APPLY_RULE_PREFIX "%s" APPLY_RULE_SUFFIX, slug);
		disk_id__match(&plan->id, files[0].match, sizeof(files[0].match));
		files[0].content = udev_rule(plan, result);
		if (!files[0].content)
			return diag__fail(d, -ENOMEM, "out of memory");
		(*nr)++;
	}
	if (plan->out.has_module) {
		snprintf(files[*nr].path, sizeof(files[*nr].path),
			 APPLY_MODPROBE_DIR "/" APPLY_CONF_PREFIX "%s" APPLY_CONF_SUFFIX,
			 plan->out.module.module);
		files[*nr].content = modprobe_conf(plan, result);
		if (!files[*nr].content) {
			apply_files__free(files, *nr);
			return diag__fail(d, -ENOMEM, "out of memory");
		}
		(*nr)++;
	}
	return 0;
}

/* name is PREFIX, one or more of [A-Za-z0-9._-], SUFFIX. */
static bool named(const char *name, const char *prefix, const char *suffix)
{
	size_t p = strlen(prefix), s = strlen(suffix), n = strlen(name), i;

	if (n <= p + s || strncmp(name, prefix, p) || strcmp(name + n - s, suffix))
		return false;
	for (i = p; i < n - s; i++)
		if (!strchr("._-", name[i]) && !(name[i] >= '0' && name[i] <= '9') &&
		    !(name[i] >= 'a' && name[i] <= 'z') && !(name[i] >= 'A' && name[i] <= 'Z'))
			return false;
	return true;
}

bool apply_files__ours(const char *rel)
{
	size_t u = strlen(APPLY_UDEV_DIR "/"), m = strlen(APPLY_MODPROBE_DIR "/");

	if (!strncmp(rel, APPLY_UDEV_DIR "/", u))
		return named(rel + u, APPLY_RULE_PREFIX, APPLY_RULE_SUFFIX);
	/* The sweep across reboots' file has apply's prefix, and is not apply's. */
	if (!strncmp(rel, APPLY_MODPROBE_DIR "/", m))
		return named(rel + m, APPLY_CONF_PREFIX, APPLY_CONF_SUFFIX) &&
		       strcmp(rel + m, BOOT_CONFIG_FILE);
	return false;
}

void apply_files__free(struct apply_file *files, int nr)
{
	int i;

	for (i = 0; i < nr; i++) {
		free(files[i].content);
		files[i].content = NULL;
	}
}
