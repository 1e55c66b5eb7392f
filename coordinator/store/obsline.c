/* SPDX-License-Identifier: MIT */
/* Observed lines kept in order, compactly (obsline.h). */
#include <stdlib.h>
#include <string.h>

#include "obsline.h"
#include "xalloc.h"

/* FNV-1a: the set's slot of a string. */
static size_t obs_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h;
}

static void obs_intern_grow(struct obs_list *l)
{
	size_t cap = l->cstr ? 2 * l->cstr : 64;
	char **str = xcalloc(cap, sizeof(*str));

	for (size_t i = 0; i < l->cstr; i++) {
		size_t k;

		if (l->str[i] == NULL)
			continue;
		for (k = obs_hash(l->str[i]) % cap; str[k] != NULL; k = (k + 1) % cap)
			;
		str[k] = l->str[i];
	}
	free(l->str);
	l->str = str;
	l->cstr = cap;
}

/* s, kept once in l: the same words on every line cost once. */
static const char *obs_intern(struct obs_list *l, const char *s)
{
	size_t k;

	if (s[0] == '\0')
		return "";
	if (2 * (l->nstr + 1) > l->cstr)
		obs_intern_grow(l);
	for (k = obs_hash(s) % l->cstr; l->str[k] != NULL; k = (k + 1) % l->cstr)
		if (strcmp(l->str[k], s) == 0)
			return l->str[k];
	l->str[k] = xstrdup(s);
	l->nstr++;
	return l->str[k];
}

static struct obs_kept *obs_list_next(struct obs_list *l)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
	}
	return &l->v[l->n++];
}

static void obs_kept_fill(struct obs_list *l, struct obs_kept *k, const char *workload,
                          uint32_t step, uint32_t interval, const char *source, const char *late,
                          const char *note, size_t n)
{
	k->workload = obs_intern(l, workload);
	k->step = step;
	k->interval = interval;
	k->source = obs_intern(l, source);
	k->late = obs_intern(l, late);
	k->note = obs_intern(l, note);
	k->n = n;
	k->values = n ? xcalloc(n, sizeof(*k->values)) : NULL;
}

void obs_list_add(struct obs_list *l, const struct obs_line *o)
{
	struct obs_kept *k = obs_list_next(l);
	size_t n = o->n < OBS_VALUES_MAX ? o->n : OBS_VALUES_MAX;

	obs_kept_fill(l, k, o->workload, o->step, o->interval, o->source, o->late, o->note, n);
	for (size_t i = 0; i < n; i++)
		k->values[i] = (struct obs_kept_value){obs_intern(l, o->values[i].series),
		                                       o->values[i].has, o->values[i].v};
}

void obs_list_add_kept(struct obs_list *l, const struct obs_kept *o)
{
	struct obs_kept *k = obs_list_next(l);

	obs_kept_fill(l, k, o->workload, o->step, o->interval, o->source, o->late, o->note, o->n);
	for (size_t i = 0; i < o->n; i++)
		k->values[i] = (struct obs_kept_value){obs_intern(l, o->values[i].series),
		                                       o->values[i].has, o->values[i].v};
}

void obs_list_cut(struct obs_list *l, size_t keep)
{
	while (l->n > keep)
		free(l->v[--l->n].values);
}

void obs_list_void(struct obs_list *l, const char *workload, uint32_t step)
{
	size_t keep = l->n;

	while (keep > 0 && l->v[keep - 1].step == step &&
	       strcmp(l->v[keep - 1].workload, workload) == 0)
		keep--;
	obs_list_cut(l, keep);
}

void obs_list_free(struct obs_list *l)
{
	obs_list_cut(l, 0);
	for (size_t i = 0; i < l->cstr; i++)
		free(l->str[i]);
	free(l->str);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

const struct obs_kept_value *obs_kept_value(const struct obs_kept *o, const char *series)
{
	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->values[i].series, series) == 0)
			return &o->values[i];
	return NULL;
}
