// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * apply's files and what it does below a root: the udev rule parses as udev's rule
 * syntax and matches the disk by its identity with the scheduler set first; the
 * modprobe.d line and the boot parameter for 11, 32 and 128 segments (and a 4.4
 * kernel's "max"); no rule without a stable identity; written below a scratch root,
 * replaced when it is ours, refused when it is not, nothing written by --dry-run, and
 * --undo leaves the root exactly as it found it, an edited file excepted.
 */
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "tune/apply.h"
#include "tune/apply_files.h"
#include "base/diag.h"
#include "testutil.h"

static char fixtures[4096];

static struct tune_plan *loop_plan(void)
{
	struct tune_plan *p = test_calloc(1, sizeof(*p));

	snprintf(p->disk, sizeof(p->disk), "loop0");
	snprintf(p->tool_version, sizeof(p->tool_version), "0.1.0");
	snprintf(p->workload, sizeof(p->workload), "read bs=1 MiB psync direct");
	p->has_id = true;
	p->id = (struct disk_id){ "ATTR{loop/backing_file}", "/dev/shm/x.img",
				  "loop backing file" };
	p->out.nr_settings = 2;
	p->out.settings[0] = (struct tune_setting){ "max_sectors_kb", "44", "1024" };
	p->out.settings[1] = (struct tune_setting){ "scheduler", "none", "mq-deadline" };
	p->out.base_mbps = 7000;
	p->out.final_mbps = 20000;
	p->out.change = 20000.0 / 7000 - 1;
	p->out.base_req_p50 = 45056;
	p->out.final_req_p50 = 1 << 20;
	return p;
}

/* xvda of a xen fixture tree, recommended value segments. */
static struct tune_plan *xen_plan(const char *tree, int segments)
{
	struct tune_plan *p = test_calloc(1, sizeof(*p));
	struct device *dev = test_calloc(1, sizeof(*dev));
	char root[4200];

	snprintf(root, sizeof(root), "%s/%s", fixtures, tree);
	assert_int_equal(device__resolve(root, "xvda", dev, NULL), 0);
	snprintf(p->disk, sizeof(p->disk), "xvda");
	snprintf(p->tool_version, sizeof(p->tool_version), "0.1.0");
	p->has_id = !disk_id__of(dev, &p->id, NULL);
	p->out.has_module = true;
	tune_outcome__xen_param(&p->out.module, dev, segments);
	snprintf(p->out.xen, sizeof(p->out.xen), "requests were capped by segments");
	p->out.change = NAN;
	test_free(dev);
	return p;
}

/* strdup through cmocka's allocator (test_free frees it, leaks are reported). */
static char *copy_of(const char *s)
{
	char *d = test_malloc(strlen(s) + 1);

	return strcpy(d, s);
}

struct token {
	char key[32], attr[64], op[3], value[256];
};

/* One udev rule line: KEY[{attr}]OP"value", comma separated (udev(7), "Rules files"). */
static int parse_rule(const char *s, struct token *t, int max)
{
	static const char *const ops[] = { "==", "!=", "+=", "-=", ":=", "=" };
	int n = 0;
	size_t i, len;

	while (*s) {
		struct token *k = &t[n];

		assert_true(n < max);
		memset(k, 0, sizeof(*k));
		len = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
		assert_true(len > 0 && len < sizeof(k->key));
		memcpy(k->key, s, len);
		s += len;
		if (*s == '{') {
			len = strcspn(s + 1, "}");
			assert_true(s[1 + len] == '}' && len < sizeof(k->attr));
			memcpy(k->attr, s + 1, len);
			s += len + 2;
		}
		for (i = 0; i < 6 && strncmp(s, ops[i], strlen(ops[i])); i++)
			;
		assert_true(i < 6);
		memcpy(k->op, ops[i], strlen(ops[i]));
		s += strlen(ops[i]);
		assert_true(*s == '"');
		len = strcspn(s + 1, "\"");
		assert_true(s[1 + len] == '"' && len < sizeof(k->value));
		memcpy(k->value, s + 1, len);
		s += len + 2;
		n++;
		if (*s == ',')
			s += strspn(s + 1, " ") + 1;
		else
			assert_true(*s == '\0');
	}
	return n;
}

static void test_udev_rule(void **state)
{
	struct tune_plan *p = loop_plan();
	struct apply_file f[2];
	struct token t[16];
	struct diag d = {};
	char *line, *save, *text;
	int nr, rules = 0, n = 0;

	(void)state;
	assert_int_equal(apply_files__make(p, "/root/tune.json", f, &nr, &d), 0);
	assert_int_equal(nr, 1);
	assert_string_equal(
		f[0].path, "/etc/udev/rules.d/90-blktrace-bench-loop-x.img-87380db854ccb52c.rules");
	assert_non_null(strstr(f[0].content, "# Written by blktrace-bench 0.1.0 (apply) from the "
					     "tune result\n#   /root/tune.json\n"));
	assert_non_null(strstr(f[0].content, "Undo: blktrace-bench apply --undo"));
	assert_non_null(strstr(f[0].content, "7000.0 MB/s as found"));
	text = copy_of(f[0].content);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		rules++;
		n = parse_rule(line, t, 16);
	}
	assert_int_equal(rules, 1);
	assert_int_equal(n, 6);
	assert_string_equal(t[0].key, "ACTION");
	assert_string_equal(t[0].value, "add|change");
	assert_string_equal(t[1].key, "SUBSYSTEM");
	assert_string_equal(t[2].attr, "DEVTYPE");
	assert_string_equal(t[3].key, "ATTR");
	assert_string_equal(t[3].attr, "loop/backing_file");
	assert_string_equal(t[3].op, "==");
	assert_string_equal(t[3].value, "/dev/shm/x.img");
	/* The scheduler first: writing it resets nr_requests. */
	assert_string_equal(t[4].attr, "queue/scheduler");
	assert_string_equal(t[4].op, "=");
	assert_string_equal(t[4].value, "mq-deadline");
	assert_string_equal(t[5].attr, "queue/max_sectors_kb");
	assert_string_equal(t[5].value, "1024");
	test_free(text);
	apply_files__free(f, nr);
	test_free(p);
}

static void expect_modprobe(const char *tree, int segments, const char *line, const char *boot)
{
	struct tune_plan *p = xen_plan(tree, segments);
	struct apply_file f[2];
	struct diag d = {};
	char want[256];
	int nr;

	assert_int_equal(apply_files__make(p, "/root/tune.json", f, &nr, &d), 0);
	assert_int_equal(nr, 1);
	assert_string_equal(f[0].path, "/etc/modprobe.d/blktrace-bench-xen_blkfront.conf");
	snprintf(want, sizeof(want), "\n%s\n", line);
	assert_non_null(strstr(f[0].content, want));
	/* The last line is the only one that is no comment. */
	assert_string_equal(strstr(f[0].content, want) + strlen(want), "");
	assert_non_null(strstr(f[0].content, boot));
	assert_non_null(strstr(f[0].content, "update-initramfs -u"));
	assert_string_equal(p->out.module.boot_parameter, boot);
	apply_files__free(f, nr);
	test_free(p);
}

static void test_modprobe(void **state)
{
	(void)state;
	expect_modprobe("xen-seg32", 11, "options xen_blkfront max_indirect_segments=11",
			"xen_blkfront.max_indirect_segments=11");
	expect_modprobe("xen-seg11", 32, "options xen_blkfront max_indirect_segments=32",
			"xen_blkfront.max_indirect_segments=32");
	expect_modprobe("xen-seg32", 128, "options xen_blkfront max_indirect_segments=128",
			"xen_blkfront.max_indirect_segments=128");
	expect_modprobe("xen-old-max", 128, "options xen_blkfront max=128", "xen_blkfront.max=128");
}

static void test_no_identity(void **state)
{
	struct tune_plan *p = loop_plan();
	struct apply_file f[2];
	struct diag d = {};
	int nr;

	(void)state;
	p->has_id = false;
	snprintf(p->id_note, sizeof(p->id_note), "loop0 has no WWID, serial ...");
	assert_int_equal(apply_files__make(p, "t.json", f, &nr, &d), -EINVAL);
	assert_string_equal(d.msg, "no udev rule for loop0: loop0 has no WWID, serial ...");
	test_free(p);
}

/* Every file and directory below root with the content of files, sorted: its state. */
static char listing[65536];

static int list_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	FILE *f;
	char buf[4096] = "";

	(void)st, (void)ftw;
	strncat(listing, path, sizeof(listing) - strlen(listing) - 1);
	if (flag == FTW_F && (f = fopen(path, "r"))) {
		buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
		fclose(f);
		strncat(listing, buf, sizeof(listing) - strlen(listing) - 1);
	}
	strncat(listing, "\n", sizeof(listing) - strlen(listing) - 1);
	return 0;
}

static char *state_of(const char *root)
{
	listing[0] = '\0';
	nftw(root, list_one, 16, FTW_PHYS);
	return copy_of(listing);
}

struct scratch {
	char root[64];
	char *out;
	size_t len;
	FILE *f;
	struct apply_opts o;
	struct diag d;
};

/* The scratch root of a test, removed by its teardown even when the test fails. */
static int setup(void **state)
{
	struct scratch *s = test_calloc(1, sizeof(*s));

	snprintf(s->root, sizeof(s->root), "/tmp/bb-apply.XXXXXX");
	if (!mkdtemp(s->root))
		return -1;
	s->f = open_memstream(&s->out, &s->len);
	s->o = (struct apply_opts){ .root = s->root, .out = s->f, .result = "/root/tune.json" };
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct scratch *s = *state;

	fclose(s->f);
	free(s->out);
	test_remove_tree(s->root);
	test_free(s);
	return 0;
}

static const char *output(struct scratch *s)
{
	fflush(s->f);
	return s->out;
}

static void test_apply_and_undo(void **state)
{
	struct scratch *s = *state;
	struct tune_plan *loop = loop_plan(), *xen = xen_plan("xen-seg32", 128);
	char *before = state_of(s->root), *after, rule[256], conf[256], undo[256];

	snprintf(rule, sizeof(rule),
		 "%s/etc/udev/rules.d/90-blktrace-bench-loop-x.img-87380db854ccb52c.rules",
		 s->root);
	snprintf(conf, sizeof(conf), "%s/etc/modprobe.d/blktrace-bench-xen_blkfront.conf", s->root);
	assert_int_equal(apply__run(loop, &s->o, &s->d), 0);
	assert_int_equal(apply__run(xen, &s->o, &s->d), 0);
	assert_int_equal(access(rule, F_OK), 0);
	assert_int_equal(access(conf, F_OK), 0);
	assert_non_null(strstr(output(s), "add\n  xen_blkfront.max_indirect_segments=128\nto "
					  "GRUB_CMDLINE_LINUX in /etc/default/grub"));
	/* The undo finds the manifest below the same root. */
	snprintf(undo, sizeof(undo), "; undo: blktrace-bench apply --undo --root %s\n", s->root);
	assert_non_null(strstr(output(s), undo));
	/* Ours: replaced with what a newer result says. */
	snprintf(loop->out.settings[0].to, TUNE_VALUE_MAX, "512");
	assert_int_equal(apply__run(loop, &s->o, &s->d), 0);
	after = state_of(s->root);
	assert_non_null(strstr(after, "ATTR{queue/max_sectors_kb}=\"512\""));
	assert_null(strstr(after, "ATTR{queue/max_sectors_kb}=\"1024\""));
	test_free(after);
	assert_int_equal(apply__undo(&s->o, &s->d), 0);
	after = state_of(s->root);
	assert_string_equal(after, before);
	assert_non_null(strstr(output(s), "removed "));
	test_free(after);
	assert_int_equal(apply__undo(&s->o, &s->d), 0);
	assert_non_null(strstr(output(s), "nothing to undo"));
	test_free(before);
	test_free(loop);
	test_free(xen);
}

static void test_dry_run(void **state)
{
	struct scratch *s = *state;
	struct tune_plan *loop = loop_plan();
	char *before = state_of(s->root), *after;

	s->o.dry_run = true;
	assert_int_equal(apply__run(loop, &s->o, &s->d), 0);
	after = state_of(s->root);
	assert_string_equal(after, before);
	assert_non_null(strstr(output(s), "would write "));
	/* diff -u of nothing and the new file: every line added. */
	assert_non_null(strstr(output(s), "\n+ACTION==\"add|change\""));
	test_free(before);
	test_free(after);
	test_free(loop);
}

/* mkdir -p */
static int mkdirs(const char *path)
{
	char buf[256], *slash;

	snprintf(buf, sizeof(buf), "%s", path);
	for (slash = strchr(buf + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(buf, 0755);
		*slash = '/';
	}
	return mkdir(buf, 0755);
}

/* A file apply did not write is refused, untouched; an edited one outlives --undo. */
static void test_not_ours(void **state)
{
	struct scratch *s = *state;
	struct tune_plan *xen = xen_plan("xen-seg11", 32), *loop = loop_plan();
	char conf[256], rule[256], *now;
	FILE *f;

	snprintf(conf, sizeof(conf), "%s/etc/modprobe.d", s->root);
	assert_int_equal(mkdirs(conf), 0);
	strcat(conf, "/blktrace-bench-xen_blkfront.conf");
	f = fopen(conf, "w");
	fputs("options xen_blkfront max_indirect_segments=64\n", f);
	fclose(f);
	assert_int_equal(apply__run(xen, &s->o, &s->d), -EINVAL);
	assert_true(s->d.usage); /* bad input: exit 2 */
	assert_non_null(strstr(s->d.msg, "is there and apply did not write it"));
	now = state_of(conf);
	assert_non_null(strstr(now, "max_indirect_segments=64\n"));
	test_free(now);
	assert_int_equal(apply__run(loop, &s->o, &s->d), 0);
	snprintf(rule, sizeof(rule),
		 "%s/etc/udev/rules.d/90-blktrace-bench-loop-x.img-87380db854ccb52c.rules",
		 s->root);
	f = fopen(rule, "a");
	fputs("# mine\n", f);
	fclose(f);
	assert_int_equal(apply__undo(&s->o, &s->d), 0);
	assert_int_equal(access(rule, F_OK), 0);
	assert_int_equal(access(conf, F_OK), 0);
	assert_non_null(strstr(output(s), "edited since apply wrote it: left in place"));
	test_free(xen);
	test_free(loop);
}

/*
 * A file where apply needs a directory is in the way (exit 2), as a file it did not
 * write is; what the system cannot do, a root that is not there, a runtime failure.
 */
static void test_cannot_write(void **state)
{
	struct scratch *s = *state;
	struct tune_plan *loop = loop_plan();
	char etc[256], want[300];
	FILE *f;

	snprintf(etc, sizeof(etc), "%s/etc", s->root);
	f = fopen(etc, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(apply__run(loop, &s->o, &s->d), -ENOTDIR);
	assert_true(s->d.usage);
	snprintf(want, sizeof(want), "%s/etc is not a directory", s->root);
	assert_string_equal(s->d.msg, want);
	unlink(etc);
	snprintf(etc, sizeof(etc), "%s/missing", s->root);
	s->o.root = etc;
	assert_int_equal(apply__run(loop, &s->o, &s->d), -ENOENT);
	assert_false(s->d.usage);
	s->o.root = s->root;
	test_free(loop);
}

/* path's directories made, then text as its content. */
static void put_file(const char *path, const char *text)
{
	char dir[512];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	mkdirs(dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static struct tune_plan *loop_plan_of(const char *backing_file)
{
	struct tune_plan *p = loop_plan();

	snprintf(p->id.value, sizeof(p->id.value), "%s", backing_file);
	return p;
}

static size_t manifest_files(const char *root)
{
	char path[256];
	json_t *doc;
	size_t n;

	snprintf(path, sizeof(path), "%s/var/lib/blktrace-bench/applied.json", root);
	doc = json_load_file(path, 0, NULL);
	n = json_array_size(json_object_get(doc, "files"));
	json_decref(doc);
	return n;
}

/*
 * Two loop disks whose backing files share a name: a rule each, the names told apart by a
 * hash of the whole identity (FNV-1a of key and value, computed here by Python's hand).
 */
static void test_same_base_name(void **state)
{
	struct scratch *s = *state;
	struct tune_plan *a = loop_plan_of("/srv/a/disk.img"), *b = loop_plan_of("/srv/b/disk.img");
	char ra[256], rb[256], *now;

	snprintf(ra, sizeof(ra),
		 "%s/etc/udev/rules.d/90-blktrace-bench-loop-disk.img-420e9c3ccbc02666.rules",
		 s->root);
	snprintf(rb, sizeof(rb),
		 "%s/etc/udev/rules.d/90-blktrace-bench-loop-disk.img-6eb343b96e0762bf.rules",
		 s->root);
	assert_int_equal(apply__run(a, &s->o, &s->d), 0);
	assert_int_equal(apply__run(b, &s->o, &s->d), 0);
	now = state_of(ra);
	assert_non_null(strstr(now, "ATTR{loop/backing_file}==\"/srv/a/disk.img\""));
	test_free(now);
	now = state_of(rb);
	assert_non_null(strstr(now, "ATTR{loop/backing_file}==\"/srv/b/disk.img\""));
	test_free(now);
	assert_int_equal(manifest_files(s->root), 2);
	test_free(a);
	test_free(b);
}

/* A scratch tree beside the root: what a link below the root would lead to. */
static void host_tree(char *host, size_t len)
{
	char path[256];

	snprintf(host, len, "/tmp/bb-apply-host.XXXXXX");
	assert_non_null(mkdtemp(host));
	snprintf(path, 256, "%s/etc/modprobe.d/blacklist-host.conf", host);
	put_file(path, "blacklist floppy\n");
	snprintf(path, 256, "%s/etc/udev/rules.d/70-host.rules", host);
	put_file(path, "# host\n");
	snprintf(path, 256, "%s/etc/modprobe.d/blktrace-bench-xen_blkfront.conf", host);
	put_file(path, "options xen_blkfront max_indirect_segments=64\n");
}

static void forge_manifest(const char *root, const char *files)
{
	char path[256], text[1024];

	snprintf(path, sizeof(path), "%s/var/lib/blktrace-bench/applied.json", root);
	snprintf(text, sizeof(text),
		 "{\"schema\": \"blktrace-bench-applied/1\", \"files\": [%s], \"dirs\": []}\n",
		 files);
	put_file(path, text);
}

/*
 * --undo with ROOT/etc a link to another tree and a manifest naming that tree's files:
 * nothing outside the root is removed. A name not of apply's own patterns is refused,
 * and so is the link, even for a name apply could have written.
 */
static void test_undo_stays_below_root(void **state)
{
	struct scratch *s = *state;
	char host[64], etc[256], *before, *after;

	host_tree(host, sizeof(host));
	before = state_of(host);
	snprintf(etc, sizeof(etc), "%s/etc", s->root);
	snprintf(host + strlen(host), sizeof(host) - strlen(host), "/etc");
	assert_int_equal(symlink(host, etc), 0);
	*strrchr(host, '/') = '\0';
	forge_manifest(s->root,
		       "{\"path\": \"/etc/modprobe.d/blacklist-host.conf\", \"content\": "
		       "\"blacklist floppy\\n\"}, {\"path\": \"/etc/udev/rules.d/70-host.rules\", "
		       "\"content\": \"# host\\n\"}");
	assert_int_equal(apply__undo(&s->o, &s->d), -EINVAL);
	assert_true(s->d.usage);
	assert_non_null(strstr(s->d.msg, "files[0] is not a file apply writes"));
	/* The sweep across reboots' file has apply's prefix, and is not apply's. */
	forge_manifest(s->root, "{\"path\": \"/etc/modprobe.d/blktrace-bench-sweep.conf\", "
				"\"content\": \"x\\n\"}");
	assert_int_equal(apply__undo(&s->o, &s->d), -EINVAL);
	assert_non_null(strstr(s->d.msg, "files[0] is not a file apply writes"));
	forge_manifest(s->root, "{\"path\": \"/etc/modprobe.d/blktrace-bench-xen_blkfront.conf\", "
				"\"content\": \"options xen_blkfront "
				"max_indirect_segments=64\\n\"}");
	assert_int_equal(apply__undo(&s->o, &s->d), -ELOOP);
	assert_true(s->d.usage);
	assert_non_null(strstr(s->d.msg, "/etc is a symbolic link"));
	after = state_of(host);
	assert_string_equal(after, before);
	test_free(before);
	test_free(after);
	test_remove_tree(host);
}

/* A link below the root, a directory's or the manifest's, is refused, never written through. */
static void test_no_write_through_links(void **state)
{
	struct scratch *s = *state;
	struct tune_plan *loop = loop_plan();
	char host[64], path[256], *before, *after;

	host_tree(host, sizeof(host));
	before = state_of(host);
	snprintf(path, sizeof(path), "%s/etc/udev", s->root);
	assert_int_equal(mkdirs(path), 0);
	strcat(path, "/rules.d");
	snprintf(host + strlen(host), sizeof(host) - strlen(host), "/etc/udev/rules.d");
	assert_int_equal(symlink(host, path), 0);
	assert_int_equal(apply__run(loop, &s->o, &s->d), -ELOOP);
	assert_true(s->d.usage);
	assert_non_null(strstr(s->d.msg, "/etc/udev/rules.d is a symbolic link"));
	assert_int_equal(unlink(path), 0);
	/* The manifest a link to the other tree's file. */
	*strstr(host, "/etc") = '\0';
	snprintf(path, sizeof(path), "%s/var/lib/blktrace-bench", s->root);
	assert_int_equal(mkdirs(path), 0);
	strcat(path, "/applied.json");
	snprintf(host + strlen(host), sizeof(host) - strlen(host),
		 "/etc/udev/rules.d/70-host.rules");
	assert_int_equal(symlink(host, path), 0);
	assert_int_equal(apply__run(loop, &s->o, &s->d), -ELOOP);
	assert_non_null(strstr(s->d.msg, "applied.json is a symbolic link"));
	*strstr(host, "/etc") = '\0';
	after = state_of(host);
	assert_string_equal(after, before);
	test_free(before);
	test_free(after);
	test_remove_tree(host);
	test_free(loop);
}

/* Twenty applies at once below one root: every one of them in the manifest. */
static void test_concurrent_applies(void **state)
{
	struct scratch *s = *state;
	pid_t pids[20];
	char name[64];
	int i, status, ok = 0;

	for (i = 0; i < 20; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (!pids[i]) {
			struct tune_plan *p;

			/* Names of their own: what is lost is a manifest entry, not a file. */
			snprintf(name, sizeof(name), "/srv/disk%d.img", i);
			p = loop_plan_of(name);
			s->o.out = fopen("/dev/null", "w");
			_exit(apply__run(p, &s->o, &s->d) ? 1 : 0);
		}
	}
	for (i = 0; i < 20; i++)
		if (waitpid(pids[i], &status, 0) == pids[i] && WIFEXITED(status) &&
		    !WEXITSTATUS(status))
			ok++;
	assert_int_equal(ok, 20);
	assert_int_equal(manifest_files(s->root), 20);
	assert_int_equal(apply__undo(&s->o, &s->d), 0);
	assert_int_equal(manifest_files(s->root), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_udev_rule),
		cmocka_unit_test(test_modprobe),
		cmocka_unit_test(test_no_identity),
		cmocka_unit_test_setup_teardown(test_apply_and_undo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dry_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_ours, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cannot_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_base_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_undo_stays_below_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_write_through_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_applies, setup, teardown),
	};

	if (test_find_fixtures(fixtures, sizeof(fixtures)))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
