// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A list of differing settings; see change.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "result/change.h"

static int copy_value(struct value *to, const struct value *from)
{
	*to = *from;
	to->s = NULL;
	if (from->kind != VALUE_STRING && from->kind != VALUE_JSON)
		return 0;
	to->s = strdup(from->s ? from->s : "");
	return to->s ? 0 : -ENOMEM;
}

int changes__add(struct changes *c, const char *name, const struct value *a, const struct value *b)
{
	struct change *ch;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 8;
		struct change *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	ch = &c->v[c->n];
	memset(ch, 0, sizeof(*ch));
	ch->name = strdup(name);
	if (!ch->name || copy_value(&ch->a, a) || copy_value(&ch->b, b)) {
		/* The strings not copied are NULL. */
		free(ch->name);
		free((char *)ch->a.s);
		free((char *)ch->b.s);
		return -ENOMEM;
	}
	c->n++;
	return 0;
}

void changes__free(struct changes *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->v[i].name);
		free((char *)c->v[i].a.s);
		free((char *)c->v[i].b.s);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}
