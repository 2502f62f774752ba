// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The device and host settings that differ between two results; see result_diff.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "store/result_diff.h"

/* A leaf of a result's header as a typed value; s points into the document or *text. */
static struct value leaf(json_t *v, char **text)
{
	struct value x = { .kind = VALUE_NULL };

	if (json_is_boolean(v)) {
		x.kind = VALUE_BOOL;
		x.b = json_is_true(v);
	} else if (json_is_integer(v)) {
		x.kind = VALUE_INT;
		x.i = json_integer_value(v);
	} else if (json_is_real(v)) {
		x.kind = VALUE_REAL;
		x.r = json_real_value(v);
	} else if (json_is_string(v)) {
		x.kind = VALUE_STRING;
		x.s = json_string_value(v);
	} else if (v && !json_is_null(v)) {
		*text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		x.kind = *text ? VALUE_JSON : VALUE_NULL;
		x.s = *text;
	}
	return x;
}

/* Values that differ between a and b, walking objects; missing counts as null. */
static int diff_values(struct changes *out, const char *name, json_t *a, json_t *b)
{
	char sub[160], *ta = NULL, *tb = NULL;
	struct value va, vb;
	const char *key;
	json_t *v;
	int ret = 0;

	if (json_is_object(a) || json_is_object(b)) {
		json_object_foreach(a, key, v) {
			snprintf(sub, sizeof(sub), "%s%s%s", name, *name ? "." : "", key);
			ret = ret
				      ?: diff_values(out, sub, v,
						     json_is_object(b) ? json_object_get(b, key)
								       : NULL);
		}
		json_object_foreach(b, key, v) {
			if (json_is_object(a) && json_object_get(a, key))
				continue;
			snprintf(sub, sizeof(sub), "%s%s%s", name, *name ? "." : "", key);
			ret = ret ?: diff_values(out, sub, NULL, v);
		}
		return ret;
	}
	if (json_equal(a ?: json_null(), b ?: json_null()))
		return 0;
	va = leaf(a, &ta);
	vb = leaf(b, &tb);
	ret = changes__add(out, name, &va, &vb);
	free(ta);
	free(tb);
	return ret;
}

static json_t *get2(json_t *doc, const char *o, const char *key)
{
	return json_object_get(json_object_get(doc, o), key);
}

int result_diff__device(const struct loaded_result *ra, const struct loaded_result *rb,
			struct changes *out)
{
	json_t *a = ra->header, *b = rb->header;
	json_t *la = get2(a, "device", "limits"), *lb = get2(b, "device", "limits");
	int ret;

	ret = diff_values(out, "disk", get2(a, "device", "name"), get2(b, "device", "name"));
	ret = ret
		      ?: diff_values(out, "driver", get2(a, "device", "driver"),
				     get2(b, "device", "driver"));
	/* Limits by their sysfs names: "max_segments 11 -> 32". */
	ret = ret
		      ?: diff_values(out, json_is_object(la) || json_is_object(lb) ? "" : "limits",
				     la, lb);
	ret = ret
		      ?: diff_values(out, "xen_blkfront", get2(a, "device", "xen_blkfront"),
				     get2(b, "device", "xen_blkfront"));
	ret = ret
		      ?: diff_values(out, "kernel", get2(a, "host", "kernel"),
				     get2(b, "host", "kernel"));
	ret = ret
		      ?: diff_values(out, "tool_version", json_object_get(a, "tool_version"),
				     json_object_get(b, "tool_version"));
	return ret;
}
