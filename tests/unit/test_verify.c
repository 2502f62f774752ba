// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * verify's two judgements: whether a recommendation is in force on a disk (fixture
 * trees: runtime settings, the xen-blkfront parameter and the segments the backend
 * granted), and what the comparison of the baseline with the rerun says (held, no gain,
 * worse, with --fail-on-regression's threshold), with the exit codes.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cli/commands.h"
#include "testutil.h"
#include "tune/verify.h"

static char fixtures[4096];

static struct device *resolve(const char *tree, const char *disk)
{
	struct device *d = test_calloc(1, sizeof(*d));
	char root[4200];

	snprintf(root, sizeof(root), "%s/%s", fixtures, tree);
	assert_int_equal(device__resolve(root, disk, d, NULL), 0);
	return d;
}

/* A plan asking for segments of xen-blkfront (0: none), and one runtime setting. */
static struct tune_plan *plan(int segments, const char *name, const char *to)
{
	struct tune_plan *p = test_calloc(1, sizeof(*p));
	struct device d = { 0 };

	if (segments) {
		d.xen.present = true;
		p->out.has_module = true;
		tune_outcome__xen_param(&p->out.module, &d, segments);
	}
	if (name) {
		p->out.nr_settings = 1;
		snprintf(p->out.settings[0].name, 32, "%s", name);
		snprintf(p->out.settings[0].to, TUNE_VALUE_MAX, "%s", to);
	}
	p->out.change = 1;
	snprintf(p->disk, sizeof(p->disk), "loop0");
	snprintf(p->result, sizeof(p->result), "tune.json");
	return p;
}

static void check(const char *tree, const char *disk, struct tune_plan *p, struct verify_check *c)
{
	struct device *d = resolve(tree, disk);

	verify__check(p, d, c);
	test_free(d);
	test_free(p);
}

static void test_in_force(void **state)
{
	struct verify_check c;

	(void)state;
	check("xen-seg32", "xvda", plan(32, "max_sectors_kb", "128"), &c);
	assert_true(c.in_force);
	assert_int_equal(c.nr, 2);
	assert_string_equal(c.s[1].name, "xen_blkfront.max_indirect_segments");
	check("xen-seg256", "xvda", plan(256, NULL, NULL), &c);
	assert_true(c.in_force);
	check("loop", "loop0", plan(0, "scheduler", "none"), &c);
	assert_true(c.in_force);
}

static void test_not_in_force(void **state)
{
	struct verify_check c;

	(void)state;
	/* Not rebooted yet: the module still has 32. */
	check("xen-seg32", "xvda", plan(256, NULL, NULL), &c);
	assert_false(c.in_force);
	assert_string_equal(c.s[0].now, "32");
	assert_string_equal(c.s[0].want, "256");
	assert_non_null(strstr(c.s[0].note, "xen_blkfront.max_indirect_segments=256"));
	/* Asked for and set, but the backend grants 11. */
	check("xen-backend-limited", "xvda", plan(32, NULL, NULL), &c);
	assert_false(c.in_force);
	assert_string_equal(c.s[0].now, "32");
	assert_non_null(strstr(c.s[0].note, "the guest asks for 32 segments, the backend "
					    "grants 11"));
	check("loop", "loop0", plan(32, NULL, NULL), &c);
	assert_false(c.in_force);
	assert_non_null(strstr(c.s[0].note, "loop0 is not an xen-blkfront disk"));
	check("loop", "loop0", plan(0, "scheduler", "mq-deadline"), &c);
	assert_false(c.in_force);
	assert_string_equal(c.s[0].now, "none");
}

/* Three runs each side: app.mb_per_s around a and b, requests of ra and rb bytes. */
struct side {
	struct run_summary r[3];
	struct loaded_result lr;
};

static void side(struct side *s, double mbps, double req)
{
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < 3; i++) {
		struct run_summary *r = &s->r[i];

		snprintf(r->label, sizeof(r->label), "read bs=1 MiB psync direct");
		snprintf(r->params.rw, sizeof(r->params.rw), "read");
		r->params.bs = 1 << 20;
		r->metric[METRIC_APP_MB_PER_S] = mbps + i - 1;
		r->metric[METRIC_REQ_BYTES_P50] = req;
		r->has_metric[METRIC_APP_MB_PER_S] = r->has_metric[METRIC_REQ_BYTES_P50] = true;
	}
	s->lr = (struct loaded_result){
		.header = json_object(), .runs = s->r, .nr_runs = 3, .has_runs = true
	};
}

static enum verify_verdict judge(struct tune_plan *p, double a, double b, double pct,
				 struct verify_outcome *out)
{
	struct side *sa = test_calloc(1, sizeof(*sa)), *sb = test_calloc(1, sizeof(*sb));
	struct verify_check chk = { .in_force = true };
	struct comparison c;

	side(sa, a, 45056);
	side(sb, b, 1 << 20);
	assert_int_equal(compare__build(&c, &sa->lr, &sb->lr, "tune.json", "this run"), 0);
	verify__judge(p, &chk, &c, pct, out);
	compare__free(&c);
	json_decref(sa->lr.header);
	json_decref(sb->lr.header);
	test_free(sa);
	test_free(sb);
	test_free(p);
	return out->verdict;
}

static void test_verdicts(void **state)
{
	struct verify_outcome o;

	(void)state;
	/* Welch: t = 100 / sqrt(2/3), 4 degrees of freedom, p = 1 - sin(a)(1 + cos(a)^2 / 2)
	 * with a = atan(t / 2) (Student's t for 4 df in closed form): 2.67e-08. */
	assert_int_equal(judge(plan(0, "max_sectors_kb", "1024"), 100, 200, NAN, &o), VERIFY_HELD);
	assert_string_equal(o.text, "the change held: +100.0% throughput (100.0 -> 200.0 MB/s, "
				    "p = 2.7e-08), requests now 1 MiB (were 44 KiB)");
	assert_int_equal(verify__exit_code(o.verdict), EXIT_OK);
	assert_int_equal(judge(plan(0, "max_sectors_kb", "1024"), 100, 100.5, NAN, &o),
			 VERIFY_NO_GAIN);
	assert_non_null(strstr(o.text, "the settings are in force but the gain did not show"));
	/* A verdict, not a failure: a code of its own. */
	assert_int_equal(verify__exit_code(o.verdict), EXIT_NOT_HELD);
	assert_int_equal(EXIT_NOT_HELD, 4);
	assert_int_equal(judge(plan(0, "max_sectors_kb", "1024"), 100, 50, NAN, &o), VERIFY_WORSE);
	assert_int_equal(verify__exit_code(o.verdict), EXIT_REGRESSION);
	/* --fail-on-regression 60: 50% worse is within it; 10: it is not. */
	assert_int_equal(judge(plan(0, "max_sectors_kb", "1024"), 100, 50, 60, &o), VERIFY_NO_GAIN);
	assert_int_equal(judge(plan(0, "max_sectors_kb", "1024"), 100, 50, 10, &o), VERIFY_WORSE);
	/* Only a module parameter (tune could not try it): the requests grew, 44 KiB to
	 * 1 MiB, so it held, whatever the throughput did short of a significant loss. Welch:
	 * t = 0.5 / sqrt(2/3) = 0.612, 4 df, a = atan(t / 2): p = 0.573. */
	assert_int_equal(judge(plan(256, NULL, NULL), 100, 100.5, NAN, &o), VERIFY_HELD);
	assert_string_equal(o.text, "the change held: requests now 1 MiB (were 44 KiB) with "
				    "xen_blkfront.max_indirect_segments=256; throughput +0.5% "
				    "(p = 0.57)");
	assert_int_equal(judge(plan(256, NULL, NULL), 100, 50, NAN, &o), VERIFY_WORSE);
	/* Nothing recommended: whatever the disk does now is drift, not a change that held. */
	assert_int_equal(judge(plan(0, NULL, NULL), 100, 100.5, NAN, &o), VERIFY_NOTHING);
	assert_int_equal(verify__exit_code(o.verdict), EXIT_OK);
	assert_int_equal(judge(plan(0, NULL, NULL), 100, 200, NAN, &o), VERIFY_NOTHING);
	assert_string_equal(o.text, "nothing to verify: tune.json recommended no change, every "
				    "setting of loop0 as found");
	assert_int_equal(judge(plan(0, NULL, NULL), 100, 50, NAN, &o), VERIFY_NOTHING);
	assert_int_equal(verify__exit_code(o.verdict), EXIT_OK);
}

static void test_not_in_force_verdict(void **state)
{
	struct tune_plan *p = plan(0, "max_sectors_kb", "1024");
	struct verify_check chk = { .nr = 1 };
	struct verify_outcome o;
	struct comparison c = { 0 };

	(void)state;
	chk.s[0] = (struct verify_setting){ "max_sectors_kb", "1024", "44", false, "" };
	verify__judge(p, &chk, &c, NAN, &o);
	assert_int_equal(o.verdict, VERIFY_NOT_IN_FORCE);
	assert_string_equal(o.text, "the change did not hold: max_sectors_kb is 44, not 1024");
	assert_int_equal(verify__exit_code(o.verdict), EXIT_NOT_HELD);
	test_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_force),
		cmocka_unit_test(test_not_in_force),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_not_in_force_verdict),
	};

	if (test_find_fixtures(fixtures, sizeof(fixtures)))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
