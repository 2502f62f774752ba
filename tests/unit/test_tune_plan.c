// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What a tune recommends and how apply and verify read it back: the stable identity of
 * each kind of disk (fixture trees), the xen-blkfront parameter for the segments a
 * request needs (11, 32, 128 segments and more; the old parameter name; a backend that
 * grants fewer), the "tune" object written and read back through the result loader, and
 * a tune object whose strings would inject text into a udev rule, refused.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "tune/apply_files.h"
#include "disk/disk_id.h"
#include "output/report_json.h"
#include "base/diag.h"
#include "output/result_doc.h"
#include "testutil.h"
#include "tune/tune_json.h"
#include "tune/tune_plan.h"

static char fixtures[4096];

/* disk of tree, with xenstore from the file xs (NULL: none). */
static struct device *resolve_xs(const char *tree, const char *disk, const char *xs)
{
	struct device *d = test_calloc(1, sizeof(*d));
	char root[4200];
	const struct device_env env = { .sysfs_root = root, .xenstore = xs };

	snprintf(root, sizeof(root), "%s/%s", fixtures, tree);
	assert_int_equal(device__resolve_env(&env, disk, d, NULL), 0);
	return d;
}

static struct device *resolve(const char *tree, const char *disk)
{
	return resolve_xs(tree, disk, NULL);
}

static void expect_id(const char *tree, const char *disk, const char *match, const char *slug)
{
	struct device *d = resolve(tree, disk);
	struct disk_id id;
	char buf[512];

	assert_int_equal(disk_id__of(d, &id, NULL), 0);
	disk_id__match(&id, buf, sizeof(buf));
	assert_string_equal(buf, match);
	disk_id__slug(&id, buf, sizeof(buf));
	assert_string_equal(buf, slug);
	test_free(d);
}

static void test_disk_ids(void **state)
{
	struct device *d;
	struct disk_id id;
	struct diag err = {};

	(void)state;
	expect_id("xen-seg32", "xvda", "KERNELS==\"vbd-51712\"", "xen-vbd-51712-3d294193cf0180dc");
	expect_id("xen-seg32", "xvda1", "KERNELS==\"vbd-51712\"", "xen-vbd-51712-3d294193cf0180dc");
	expect_id("loop", "loop0", "ATTR{loop/backing_file}==\"/dev/shm/blktrace-bench.img\"",
		  "loop-blktrace-bench.img-858182e449ee41af");
	expect_id("virtio-blk", "vda", "ATTR{serial}==\"BHYVE-3A4C-51F1-0001\"",
		  "serial-BHYVE-3A4C-51F1-0001-850db01d6e3f3b8c");
	/* The namespace's WWID, not the controller's serial its namespaces share. */
	expect_id("nvme", "nvme0n1", "ATTR{wwid}==\"eui.0025388b71b01234\"",
		  "wwid-eui.0025388b71b01234-6bec6d7bb99fcb2a");
	expect_id("sd", "sda",
		  "ATTRS{wwid}==\"t10.ATA     QEMU HARDDISK                           QM00001\"",
		  "wwid-t10.ATA_____QEMU_HARDDISK___________________________QM00001-"
		  "d7ece5b02af07798");
	/* An unbound loop device has nothing stable: said, no identity. */
	d = resolve("loop", "loop1");
	assert_int_equal(disk_id__of(d, &id, &err), -ENOENT);
	assert_true(err.usage);
	assert_non_null(strstr(err.msg, "loop1 has no WWID, serial, xen vbd or loop backing file"));
	test_free(d);
	assert_false(disk_id__safe("a\"b"));
	assert_false(disk_id__safe("disk*"));
	assert_false(disk_id__safe(""));
	assert_true(disk_id__safe("/dev/shm/x y.img"));
}

static void test_find_by_id(void **state)
{
	struct device *d = test_calloc(1, sizeof(*d));
	struct disk_id id = { .key = "ATTR{serial}", .value = "BHYVE-3A4C-51F1-0001" };
	char root[4200];

	(void)state;
	snprintf(root, sizeof(root), "%s/virtio-blk", fixtures);
	assert_int_equal(disk_id__find(root, &id, d), 0);
	assert_string_equal(d->name, "vda");
	snprintf(id.value, sizeof(id.value), "another");
	assert_int_equal(disk_id__find(root, &id, d), -ENOENT);
	test_free(d);
}

/* n runs whose findings say share of their requests reached the segments. */
static struct run_summary *capped_runs(size_t n, double share, size_t *idx)
{
	struct run_summary *r = test_calloc(n, sizeof(*r));
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(r[i].findings[0].kind, sizeof(r[i].findings[0].kind), "max_segments");
		r[i].findings[0].share = share;
		r[i].nr_findings = 1;
		idx[i] = i;
	}
	return r;
}

/* The advice for direct I/O of bs on tree's xvda (xenstore: xs), capped in 95% of requests. */
static void advise_xs(const char *tree, const char *xs, unsigned long long bs,
		      struct tune_outcome *o)
{
	struct job_params p = { .rw = "read", .bs = bs, .direct = true };
	struct device *d = resolve_xs(tree, "xvda", xs);
	size_t idx[3];
	struct run_summary *r = capped_runs(3, 0.95, idx);

	memset(o, 0, sizeof(*o));
	tune_outcome__xen(o, d, &p, r, idx, 3);
	test_free(r);
	test_free(d);
}

static void advise(const char *tree, unsigned long long bs, struct tune_outcome *o)
{
	advise_xs(tree, NULL, bs, o);
}

/* The xenstore fake name, or a file of these lines: a backend offering that many. */
static const char *fake_offer(char *buf, size_t len, const char *name, const char *offer)
{
	static const char lines[] =
		"device/vbd/51712/backend = \"/local/domain/0/backend/vbd/1/51712\"\n"
		"/local/domain/0/backend/vbd/1/51712/state = \"4\"\n"
		"/local/domain/0/backend/vbd/1/51712/feature-max-indirect-segments = \"%s\"\n";
	FILE *f;
	int fd;

	if (name)
		return test_xenstore_fixture(buf, len, fixtures, name);
	snprintf(buf, len, "/tmp/bb-offer.XXXXXX");
	fd = mkstemp(buf);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fprintf(f, lines, offer);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* What the backend offers (xenstore) bounds the advice: never a parameter beyond it. */
static void test_xen_backend_offer(void **state)
{
	struct tune_outcome o;
	char xs[4200];

	(void)state;
	/* blkback's 256: 11 segments, 128 KiB requests want the default 32. */
	advise_xs("xen-seg11", fake_offer(xs, sizeof(xs), "blkback", NULL), 128 << 10, &o);
	assert_true(o.has_module);
	assert_int_equal(o.module.value, 32);
	assert_non_null(strstr(o.xen, "a 128 KiB request needs 32: "
				      "xen_blkfront.max_indirect_segments=32, after a reboot (this "
				      "disk's backend offers 256)."));
	/* A backend of 64: 1 MiB requests need 256, the parameter gets 64, no more. */
	fake_offer(xs, sizeof(xs), NULL, "64");
	advise_xs("xen-seg32", xs, 1 << 20, &o);
	assert_true(o.has_module);
	assert_int_equal(o.module.value, 64);
	assert_string_equal(o.module.boot_parameter, "xen_blkfront.max_indirect_segments=64");
	assert_non_null(strstr(o.xen, "a 1 MiB request needs 256: "
				      "xen_blkfront.max_indirect_segments=64, after a reboot (this "
				      "disk's backend offers 64)."));
	unlink(xs);
	/* A backend of 32 and the module's 32: only the host can do more. */
	fake_offer(xs, sizeof(xs), NULL, "32");
	advise_xs("xen-seg32", xs, 1 << 20, &o);
	assert_false(o.has_module);
	assert_string_equal(o.xen, "95.0% of requests were capped at 128 KiB by 32 segments: "
				   "max_indirect_segments=32, within the 32 the backend offers, so "
				   "no guest parameter raises it; only the host can (its backend's "
				   "feature-max-indirect-segments).");
	unlink(xs);
	/* tapdisk offers none: no parameter, the host's backend is what limits. */
	advise_xs("xen-seg11", fake_offer(xs, sizeof(xs), "tapdisk", NULL), 1 << 20, &o);
	assert_false(o.has_module);
	assert_string_equal(o.xen, "95.0% of requests were capped at 44 KiB by 11 segments: the "
				   "backend offers no indirect descriptors (as XCP-ng's tapdisk "
				   "does), so no guest parameter raises it; only the host can (its "
				   "backend's feature-max-indirect-segments).");
	/* 512 asked, blkback's 256 had: 1 MiB requests, as large as any backend allows. */
	advise_xs("xen-seg512", fake_offer(xs, sizeof(xs), "blkback", NULL), 4 << 20, &o);
	assert_false(o.has_module);
	assert_string_equal(o.xen, "");
}

static void test_xen_segments(void **state)
{
	struct tune_outcome o;

	(void)state;
	/* 11 segments (no indirect descriptors): 128 KiB requests need 32. */
	advise("xen-seg11", 128 << 10, &o);
	assert_true(o.has_module);
	assert_int_equal(o.module.value, 32);
	assert_int_equal(o.module.now, 11);
	assert_string_equal(o.module.boot_parameter, "xen_blkfront.max_indirect_segments=32");
	assert_string_equal(o.module.modprobe, "options xen_blkfront max_indirect_segments=32");
	assert_non_null(strstr(o.xen, "95.0% of requests were capped at 44 KiB by 11 segments"));
	/* 32 segments: 512 KiB requests need 128; 128 segments: 1 MiB needs 256. */
	advise("xen-seg32", 512 << 10, &o);
	assert_int_equal(o.module.value, 128);
	assert_string_equal(o.module.boot_parameter, "xen_blkfront.max_indirect_segments=128");
	advise("xen-seg128", 1 << 20, &o);
	assert_int_equal(o.module.value, 256);
	assert_string_equal(o.module.modprobe, "options xen_blkfront max_indirect_segments=256");
	/* More than blkback offers is not asked for; what the disk has already, not at all. */
	advise("xen-seg128", 4 << 20, &o);
	assert_int_equal(o.module.value, 256);
	advise("xen-seg256", 1 << 20, &o);
	assert_false(o.has_module);
	assert_string_equal(o.xen, "");
	/* A 4.4 kernel calls it "max". */
	advise("xen-old-max", 1 << 20, &o);
	assert_string_equal(o.module.boot_parameter, "xen_blkfront.max=256");
	assert_string_equal(o.module.modprobe, "options xen_blkfront max=256");
	/* The guest asks for 32, the backend grants 11: no guest parameter helps. */
	advise("xen-backend-limited", 1 << 20, &o);
	assert_false(o.has_module);
	assert_non_null(strstr(o.xen, "the backend grants 11, so no guest parameter raises it"));
}

static void test_xen_not_capped(void **state)
{
	struct job_params p = { .rw = "read", .bs = 1 << 20, .direct = true };
	struct device *d = resolve("xen-seg11", "xvda");
	struct tune_outcome o = { 0 };
	size_t idx[3];
	struct run_summary *r = capped_runs(3, 0.2, idx);

	(void)state;
	tune_outcome__xen(&o, d, &p, r, idx, 3);
	assert_false(o.has_module);
	assert_string_equal(o.xen, "");
	/* A budget that ended before the baseline's first run: no workload to advise on
	 * (this crashed tune once), even though capped runs are at hand. */
	test_free(r);
	r = capped_runs(3, 0.95, idx);
	snprintf(o.xen, sizeof(o.xen), "stale");
	tune_outcome__xen(&o, d, NULL, r, idx, 3);
	assert_false(o.has_module);
	assert_string_equal(o.xen, "");
	test_free(r);
	test_free(d);
}

/*
 * A tune of 1 MiB direct reads on xen-seg32's xvda: baseline and max_sectors_kb=64 runs
 * (3 each, 100 and 80 MB/s), the recommendation a module parameter of 256 segments.
 */
struct doc {
	struct result res;
	struct report rep;
	struct tune t;
	struct tune_outcome o;
	json_t *doc;
};

static void add_runs(struct doc *x, const char *knob, const char *value, double mbps, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct run *r = result__add_run(&x->res, true, true);

		assert_non_null(r);
		snprintf(r->params.rw, sizeof(r->params.rw), "read");
		r->params.bs = 1 << 20;
		r->params.size = 256 << 20;
		snprintf(r->params.engine, sizeof(r->params.engine), "psync");
		r->params.iodepth = 1;
		r->params.direct = true;
		if (knob) {
			snprintf(r->params.set_knob, sizeof(r->params.set_knob), "%s", knob);
			snprintf(r->params.set_value, sizeof(r->params.set_value), "%s", value);
		}
		snprintf(r->label, sizeof(r->label), "read bs=1 MiB psync direct");
		r->app->bytes = 256 << 20;
		r->app->ios = 256;
		r->app->ns = (uint64_t)(r->app->bytes / (mbps + i) * 1000);
		r->seconds = r->app->ns / 1e9;
	}
}

static struct doc *make_doc(const char *tree)
{
	struct doc *x = test_calloc(1, sizeof(*x));
	struct device *d = resolve(tree, "xvda");
	struct tune_workload w = { .target = TUNE_TARGET_RAW, .hugepages = true };
	struct disk_id id;
	size_t idx[3] = { 0, 1, 2 };
	struct run_summary *capped = capped_runs(3, 0.97, idx);

	x->res.device = *d;
	x->res.has_device = true;
	snprintf(x->res.tool_version, sizeof(x->res.tool_version), "test");
	add_runs(x, NULL, NULL, 100, 3);
	add_runs(x, "max_sectors_kb", "64", 80, 3);
	assert_int_equal(report__build(&x->rep, &x->res, false), 0);
	tune__init(&x->t);
	x->t.nr_knobs = 1;
	snprintf(x->t.knobs[0].name, 32, "max_sectors_kb");
	snprintf(x->t.knobs[0].original, TUNE_VALUE_MAX, "128");
	x->t.nr_points = 2;
	x->t.points[0] = (struct tune_point){
		.knob = TUNE_BASELINE, .base = -1, .n = 3, .run = { 0, 1, 2 }
	};
	x->t.points[1] =
		(struct tune_point){ .knob = 0, .value = "64", .n = 3, .run = { 3, 4, 5 } };
	x->t.knobs[0].recommended = -1;
	tune_outcome__compute(&x->o, &x->t, d, &x->res.runs[0].params, x->rep.runs);
	tune_outcome__xen(&x->o, d, &x->res.runs[0].params, capped, idx, 3);
	assert_int_equal(disk_id__of(d, &id, NULL), 0);
	x->doc = report_json__doc(&x->rep);
	assert_non_null(x->doc);
	json_object_set_new(x->doc, "tune", tune_json__object(&x->t, &x->o, &w, d, &id, NULL));
	test_free(capped);
	test_free(d);
	return x;
}

static void free_doc(struct doc *x)
{
	json_decref(x->doc);
	report__free(&x->rep);
	result__free(&x->res);
	test_free(x);
}

static int read_plan(json_t *doc, struct tune_plan *p, struct diag *d)
{
	struct loaded_result lr;
	int ret = result_doc__load(doc, "tune.json", &lr, d);

	if (!ret)
		ret = tune_plan__read(&lr, "tune.json", p, d);
	result_load__free(&lr);
	return ret;
}

static void test_round_trip(void **state)
{
	struct doc *x = make_doc("xen-seg32");
	struct tune_plan *p = test_calloc(1, sizeof(*p));
	struct workload_spec o = { 0 };
	struct diag err = {};

	(void)state;
	assert_int_equal(read_plan(x->doc, p, &err), 0);
	assert_string_equal(p->disk, "xvda");
	assert_true(p->has_id);
	assert_string_equal(p->id.key, "KERNELS");
	assert_string_equal(p->id.value, "vbd-51712");
	assert_int_equal(p->baseline_runs, 3);
	assert_string_equal(p->params.rw, "read");
	assert_int_equal(p->params.bs, 1 << 20);
	assert_string_equal(p->workload, "read bs=1 MiB psync direct");
	assert_int_equal(p->out.nr_settings, 0);
	assert_true(p->out.has_module);
	assert_string_equal(p->out.module.boot_parameter, "xen_blkfront.max_indirect_segments=256");
	assert_string_equal(p->out.module.modprobe,
			    "options xen_blkfront max_indirect_segments=256");
	assert_int_equal(p->out.module.now, 32);
	assert_true(fabs(p->out.base_mbps - x->o.base_mbps) < 1e-6);
	/* The workload to rerun: the baseline's job, the saved target and buffers. */
	tune_plan__spec(p, &o);
	assert_true(o.raw && o.hugepages && o.direct);
	assert_int_equal(o.bs[0], 1 << 20);
	assert_int_equal(o.size, 256 << 20);
	assert_int_equal(o.repeat, 3);
	test_free(p);
	free_doc(x);
}

/* Edit the tune object at path to v, and expect the reader to refuse, saying want. */
static void refused(const char *path, json_t *v, const char *want)
{
	struct doc *x = make_doc("xen-seg32");
	struct tune_plan *p = test_calloc(1, sizeof(*p));
	json_t *o = json_object_get(x->doc, "tune");
	struct diag err = {};
	char key[128], *dot;

	snprintf(key, sizeof(key), "%s", path);
	while ((dot = strchr(key, '.'))) {
		*dot = '\0';
		o = json_is_array(o) ? json_array_get(o, atoi(key)) : json_object_get(o, key);
		memmove(key, dot + 1, strlen(dot + 1) + 1);
	}
	json_object_set_new(o, key, v);
	assert_int_equal(read_plan(x->doc, p, &err), -EINVAL);
	assert_true(err.usage);
	if (!strstr(err.msg, want))
		fail_msg("%s: '%s' does not say '%s'", path, err.msg, want);
	assert_null(strchr(err.msg, '\n')); /* one line, whatever the file holds */
	test_free(p);
	free_doc(x);
}

/* One recommended setting, name=to, refused saying want. */
static void refused_setting(const char *name, const char *to, const char *want)
{
	refused("recommendation.settings",
		json_pack("[{s:s, s:s, s:s}]", "name", name, "from", "1", "to", to), want);
}

static void test_refused(void **state)
{
	(void)state;
	refused("disk.name", json_integer(3), "tune.disk.name is a number, not a string");
	refused("disk.name", json_string("xvda\nRUN+=\"x\""),
		"'xvda\\x0aRUN+=\"x\"' holds a character");
	refused("disk.match.what", json_string("xen\\\n vbd"),
		"'xen\\\\\\x0a vbd' holds a character");
	refused("disk.match.value", json_string("vbd-1\", RUN+=\"/bin/x"),
		"cannot be matched exactly by udev");
	refused("disk.match.key", json_string("PROGRAM"), "no key this tool matches by");
	refused("workload.target", json_string("disk"), "is not raw, file or new_file");
	refused("version", json_integer(2), "this blktrace-bench reads version 1");
	refused_setting("max_sectors_kb", "64\", RUN+=\"/bin/sh", "holds a character");
	refused_setting("../../x", "2", "holds a character");
	refused_setting("iostats", "0", "no setting tune changes");
	/* Values a setting cannot take: none, out of its range, no scheduler's name. */
	refused_setting("max_sectors_kb", "", "settings[0].to '' is no value of max_sectors_kb");
	refused_setting("read_ahead_kb", "-999999999999",
			"'-999999999999' is no value of read_ahead_kb");
	refused_setting("max_sectors_kb", "99999999999999999999", "is no value of max_sectors_kb");
	refused_setting("nomerges", "3", "'3' is no value of nomerges");
	refused_setting("wbt_lat_usec", "-2", "'-2' is no value of wbt_lat_usec");
	refused_setting("scheduler", "", "'' is no value of scheduler");
	refused_setting("scheduler", "0-deadline", "'0-deadline' is no value of scheduler");
	refused("recommendation.module_parameters.0.value", json_integer(100000),
		"is not 11 to 256");
	refused("recommendation.module_parameters.0.module", json_string("nvme"),
		"no parameter this tool recommends");
}

/* No identity: the note why is said as is in messages, so it is kept escaped. */
static void test_match_note(void **state)
{
	struct doc *x = make_doc("xen-seg32");
	struct tune_plan *p = test_calloc(1, sizeof(*p));
	json_t *disk = json_object_get(json_object_get(x->doc, "tune"), "disk");
	struct apply_file f[2];
	struct diag err = {};
	int nr;

	(void)state;
	json_object_set_new(disk, "match", json_null());
	json_object_set_new(disk, "match_note", json_string("no id\x1b[2J\nRUN+=\"x\""));
	assert_int_equal(read_plan(x->doc, p, &err), 0);
	assert_false(p->has_id);
	assert_string_equal(p->id_note, "no id\\x1b[2J\\x0aRUN+=\"x\"");
	/* apply's refusal says it on one line, no escape sequence. */
	p->out.nr_settings = 1;
	p->out.settings[0] = (struct tune_setting){ "max_sectors_kb", "44", "1024" };
	assert_int_equal(apply_files__make(p, "tune.json", f, &nr, &err), -EINVAL);
	assert_string_equal(err.msg, "no udev rule for xvda: no id\\x1b[2J\\x0aRUN+=\"x\"");
	test_free(p);
	free_doc(x);
}

static void test_not_a_tune(void **state)
{
	struct doc *x = make_doc("xen-seg32");
	struct tune_plan *p = test_calloc(1, sizeof(*p));
	struct diag err = {};

	(void)state;
	json_object_del(x->doc, "tune");
	assert_int_equal(read_plan(x->doc, p, &err), -EINVAL);
	assert_string_equal(err.msg,
			    "tune.json: no \"tune\" object: not the result of blktrace-bench "
			    "tune");
	test_free(p);
	free_doc(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disk_ids),	  cmocka_unit_test(test_find_by_id),
		cmocka_unit_test(test_xen_segments),	  cmocka_unit_test(test_xen_not_capped),
		cmocka_unit_test(test_xen_backend_offer), cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),		  cmocka_unit_test(test_not_a_tune),
		cmocka_unit_test(test_match_note),
	};

	if (test_find_fixtures(fixtures, sizeof(fixtures)))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
