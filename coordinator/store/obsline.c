/* SPDX-License-Identifier: MIT */
/* Observed lines kept in order (obsline.h). */
#include <stdlib.h>
#include <string.h>

#include "obsline.h"
#include "xalloc.h"

void obs_list_add(struct obs_list *l, const struct obs_line *o)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
	}
	l->v[l->n++] = *o;
}

void obs_list_void(struct obs_list *l, const char *workload, uint32_t step)
{
	size_t k = 0;

	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].step != step || strcmp(l->v[i].workload, workload) != 0)
			l->v[k++] = l->v[i];
	l->n = k;
}

void obs_list_free(struct obs_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

const struct obs_value *obs_line_value(const struct obs_line *o, const char *series)
{
	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->values[i].series, series) == 0)
			return &o->values[i];
	return NULL;
}
