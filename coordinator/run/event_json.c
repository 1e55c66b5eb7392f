/* SPDX-License-Identifier: MIT */
/* Events as JSON objects, driven by the field table (events.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "event_json.h"
#include "xalloc.h"

/* Ten significant digits: rates and latencies without binary noise (35.8, not 35.799...). */
#define EVENT_JSON_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(10))

static json_t *event_json_value(const struct event_field *f, const void *p)
{
	switch (f->type) {
	case EVENT_T_U32:
		return json_integer(*(const uint32_t *)p);
	case EVENT_T_I32:
		return json_integer(*(const int32_t *)p);
	case EVENT_T_U64:
		return json_integer((json_int_t) * (const uint64_t *)p);
	case EVENT_T_DOUBLE:
		/* JSON has no NaN: a figure not known is null. */
		return isfinite(*(const double *)p) ? json_real(*(const double *)p) : json_null();
	case EVENT_T_BOOL:
		return json_boolean(*(const bool *)p);
	case EVENT_T_STR:
		return json_string(*(const char *const *)p ? *(const char *const *)p : "");
	case EVENT_T_ENUM: {
		int v = *(const int *)p;

		return json_string(v >= 0 && (size_t)v < f->nnames ? f->names[v] : "");
	}
	}
	return json_null();
}

char *event_json_encode(const struct event *e)
{
	size_t n;
	const struct event_field *f = event_fields(e->kind, &n);
	json_t *o = json_object();
	char *text;

	json_object_set_new(o, "event", json_string(event_kind_name(e->kind)));
	for (size_t i = 0; i < n; i++)
		json_object_set_new(o, f[i].key,
		                    event_json_value(&f[i], (const char *)e + f[i].off));
	text = json_dumps(o, EVENT_JSON_FLAGS);
	json_decref(o);
	return text;
}

/* Number v, within [min, max]. */
static int event_json_int(json_t *v, double min, double max, double *out)
{
	double d;

	if (!json_is_number(v))
		return -1;
	d = json_number_value(v);
	if (!(d >= min && d <= max))
		return -1;
	*out = d;
	return 0;
}

static int event_json_member(const struct event_field *f, json_t *v, void *p)
{
	double d = 0;

	switch (f->type) {
	case EVENT_T_U32:
		if (event_json_int(v, 0, UINT32_MAX, &d) < 0)
			return -1;
		*(uint32_t *)p = (uint32_t)d;
		return 0;
	case EVENT_T_I32:
		if (event_json_int(v, INT32_MIN, INT32_MAX, &d) < 0)
			return -1;
		*(int32_t *)p = (int32_t)d;
		return 0;
	case EVENT_T_U64:
		if (json_is_integer(v) && json_integer_value(v) >= 0)
			*(uint64_t *)p = (uint64_t)json_integer_value(v);
		else if (event_json_int(v, 0, 1.8e19, &d) == 0)
			*(uint64_t *)p = (uint64_t)d;
		else
			return -1;
		return 0;
	case EVENT_T_DOUBLE:
		if (!json_is_number(v) && !json_is_null(v))
			return -1;
		*(double *)p = json_is_null(v) ? NAN : json_number_value(v);
		return 0;
	case EVENT_T_BOOL:
		if (!json_is_boolean(v))
			return -1;
		*(bool *)p = json_is_true(v);
		return 0;
	case EVENT_T_STR:
		if (!json_is_string(v))
			return -1;
		free((char *)*(const char **)p);
		*(const char **)p = xstrdup(json_string_value(v));
		return 0;
	case EVENT_T_ENUM:
		for (size_t k = 0; json_is_string(v) && k < f->nnames; k++)
			if (strcmp(f->names[k], json_string_value(v)) == 0) {
				*(int *)p = (int)k;
				return 0;
			}
		return -1;
	}
	return -1;
}

int event_json_decode(struct event *e, const char *text, struct error *err)
{
	json_error_t jerr;
	json_t *o = json_loads(text, JSON_REJECT_DUPLICATES, &jerr), *v;
	const struct event_field *f;
	size_t n;
	int kind;

	memset(e, 0, sizeof(*e));
	if (o == NULL) {
		error_set(err, "not JSON: %s (column %d)", jerr.text, jerr.column);
		return -1;
	}
	if (!json_is_object(o) ||
	    (kind = event_kind_of(json_string_value(json_object_get(o, "event")))) < 0) {
		error_set(err, "not an event: no known \"event\" kind");
		json_decref(o);
		return -1;
	}
	e->kind = (enum event_kind)kind;
	f = event_fields(e->kind, &n);
	for (size_t i = 0; i < n; i++) {
		void *p = (char *)e + f[i].off;

		if ((v = json_object_get(o, f[i].key)) != NULL &&
		    event_json_member(&f[i], v, p) < 0) {
			error_set(err, "%s event: \"%s\" has the wrong type or range",
			          event_kind_name(e->kind), f[i].key);
			event_clear(e);
			json_decref(o);
			return -1;
		}
		/* Strings are never NULL in a decoded event. */
		if (f[i].type == EVENT_T_STR && *(const char **)p == NULL)
			*(const char **)p = xstrdup("");
	}
	json_decref(o);
	return 0;
}
