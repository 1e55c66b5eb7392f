/* SPDX-License-Identifier: MIT */
/* Typed access to libyaml document nodes, with errors that say file:line:column. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "units.h"
#include "vocab.h"
#include "yamlnode.h"

void yamlnode_error(struct yamlnode_doc *y, const yaml_node_t *at, const char *fmt, ...)
{
	char what[sizeof(y->err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (y->where != NULL) {
		char pre[512], post[160];

		pre[0] = post[0] = '\0';
		y->where(y->where_arg, &at->start_mark, pre, sizeof(pre), post, sizeof(post));
		error_set(y->err, "%s%s%s", pre, what, post);
		return;
	}
	error_set(y->err, "%s:%zu:%zu: %s", y->file, at->start_mark.line + 1,
	          at->start_mark.column + 1, what);
}

yaml_node_t *yamlnode_get(struct yamlnode_doc *y, int id)
{
	return yaml_document_get_node(y->doc, id);
}

/*
 * What the user wrote instead, for "got ..." in messages: the text itself
 * for a scalar (truncated, so one huge value cannot drown the message).
 */
static void yamlnode_describe(const yaml_node_t *node, char *buf, size_t len)
{
	switch (node->type) {
	case YAML_SCALAR_NODE:
		if (node->data.scalar.length == 0)
			snprintf(buf, len, "nothing");
		else if (node->data.scalar.length > 60)
			snprintf(buf, len, "'%.57s...'", (const char *)node->data.scalar.value);
		else
			snprintf(buf, len, "'%s'", (const char *)node->data.scalar.value);
		break;
	case YAML_SEQUENCE_NODE:
		snprintf(buf, len, "%s",
		         node->data.sequence.items.top == node->data.sequence.items.start
		             ? "an empty list"
		             : "a list");
		break;
	case YAML_MAPPING_NODE:
		snprintf(buf, len, "%s",
		         node->data.mapping.pairs.top == node->data.mapping.pairs.start
		             ? "an empty mapping"
		             : "a mapping");
		break;
	default:
		snprintf(buf, len, "nothing");
		break;
	}
}

void yamlnode_expected(struct yamlnode_doc *y, const yaml_node_t *node, const char *label,
                       const char *expected)
{
	char got[80];

	yamlnode_describe(node, got, sizeof(got));
	yamlnode_error(y, node, "%s: expected %s, got %s", label, expected, got);
}

/*
 * The scalar's text, or NULL after an error. Embedded NULs ("\0" in a
 * double-quoted string) are refused so later C string handling sees it all.
 */
static const char *yamlnode_scalar(struct yamlnode_doc *y, const yaml_node_t *node,
                                   const char *label, const char *expected)
{
	const char *s;

	if (node->type != YAML_SCALAR_NODE) {
		yamlnode_expected(y, node, label, expected);
		return NULL;
	}
	s = (const char *)node->data.scalar.value;
	if (strlen(s) != node->data.scalar.length) {
		yamlnode_error(y, node, "%s: contains a NUL character (remove the \\0)", label);
		return NULL;
	}
	return s;
}

static void yamlnode_known_list(const char *const *known, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; known[i] != NULL && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", known[i]);
}

/* Edit distance (insert, delete, substitute), capped: keys are short. */
static size_t yamlnode_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64], prev, tmp;

	if (la >= 63 || lb >= 63)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t best = prev + (a[i - 1] != b[j - 1]);

			tmp = row[j];
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

const char *yamlnode_nearest(const char *name, const char *const *known)
{
	const char *best = NULL;
	size_t bestd = 3;

	for (size_t i = 0; known[i] != NULL; i++) {
		size_t d = yamlnode_distance(name, known[i]);

		if (d < bestd) {
			bestd = d;
			best = known[i];
		}
	}
	return best;
}

static bool yamlnode_known(const char *const *known, const char *name)
{
	for (size_t i = 0; known[i] != NULL; i++)
		if (strcmp(known[i], name) == 0)
			return true;
	return false;
}

/*
 * fio's job options, for people who think in them: where a mapping that holds
 * workload settings (it knows "rw") meets one, the hint names iocurve's key or
 * where the setting lives.
 */
static bool yamlnode_fio_hint(const char *name, const char *const *known, char *out, size_t len)
{
	static const struct {
		const char *fio, *ours, *where;
	} map[] = {
	    {"bs", "block_size", NULL},
	    {"blocksize", "block_size", NULL},
	    {"iodepth", "queue_depth", NULL},
	    {"numjobs", "workers", NULL},
	    {"runtime", "measure", NULL},
	    {"ramp_time", "warmup", NULL},
	    {"rwmixread", "read_pct", NULL},
	    {"readwrite", "rw", NULL},
	    {"log_avg_msec", "interval", NULL},
	    {"rate_iops", NULL, "give the rates as load: {steps: [OPS, ...]}"},
	    {"rate", NULL, "give the rates as load: {steps: [RATE, ...]}"},
	    {"filename", NULL, "name a directory as the campaign's target: {path: DIR}"},
	    {"directory", NULL, "name it as the campaign's target: {path: DIR}"},
	    {"size", NULL, "set it in the campaign's target: {size: SIZE}"},
	    {"ioengine", NULL, "leave it out, iocurve always drives io_uring"},
	    {"time_based", NULL, "leave it out, warmup and measure time every step"},
	};

	if (!yamlnode_known(known, "rw"))
		return false;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (strcmp(map[i].fio, name) != 0)
			continue;
		if (map[i].ours != NULL)
			snprintf(out, len, "'%s' is fio's name: iocurve calls it '%s'", name,
			         map[i].ours);
		else
			snprintf(out, len, "'%s' is fio's: %s", name, map[i].where);
		return true;
	}
	return false;
}

int yamlnode_check_mapping(struct yamlnode_doc *y, const yaml_node_t *node, const char *label,
                           const char *what, const char *const *known)
{
	char list[512];
	yaml_node_pair_t *p, *q;

	yamlnode_known_list(known, list, sizeof(list));
	if (node->type != YAML_MAPPING_NODE) {
		char expected[600];

		snprintf(expected, sizeof(expected), "a mapping with %s", list);
		yamlnode_expected(y, node, label, expected);
		return -1;
	}
	for (p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
		yaml_node_t *key = yamlnode_get(y, p->key);
		const char *name;
		size_t i;

		if (key->type != YAML_SCALAR_NODE) {
			yamlnode_error(y, key, "keys in %s must be plain names (known: %s)", what,
			               list);
			return -1;
		}
		name = (const char *)key->data.scalar.value;
		for (i = 0; known[i] != NULL; i++)
			if (strcmp(known[i], name) == 0)
				break;
		if (known[i] == NULL) {
			const char *near = yamlnode_nearest(name, known);
			char fio[256];

			if (yamlnode_fio_hint(name, known, fio, sizeof(fio)) ||
			    (yamlnode_known(known, "rw") && vocab_hint(name, fio, sizeof(fio))))
				yamlnode_error(y, key, "unknown key '%s' in %s (known: %s); %s",
				               name, what, list, fio);
			else
				yamlnode_error(y, key, "unknown key '%s' in %s (known: %s)%s%s%s",
				               name, what, list, near ? "; did you mean '" : "",
				               near ? near : "", near ? "'?" : "");
			return -1;
		}
		/* mappings are small: the quadratic scan costs nothing */
		for (q = node->data.mapping.pairs.start; q < p; q++) {
			yaml_node_t *prev = yamlnode_get(y, q->key);

			if (strcmp((const char *)prev->data.scalar.value, name) == 0) {
				yamlnode_error(y, key,
				               "duplicate key '%s' in %s (first at line %zu; keep "
				               "one)",
				               name, what, prev->start_mark.line + 1);
				return -1;
			}
		}
	}
	return 0;
}

yaml_node_t *yamlnode_lookup(struct yamlnode_doc *y, const yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *p;

	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yamlnode_get(y, p->key);

		if (k->type == YAML_SCALAR_NODE &&
		    strcmp((const char *)k->data.scalar.value, key) == 0)
			return yamlnode_get(y, p->value);
	}
	return NULL;
}

int yamlnode_require(struct yamlnode_doc *y, const yaml_node_t *map, const char *key,
                     const char *what, yaml_node_t **out)
{
	*out = yamlnode_lookup(y, map, key);
	if (*out == NULL) {
		yamlnode_error(y, map, "%s is missing '%s'", what, key);
		return -1;
	}
	return 0;
}

int yamlnode_string(struct yamlnode_doc *y, const yaml_node_t *node, const char *label,
                    const char **out)
{
	const char *s = yamlnode_scalar(y, node, label, "a string");

	if (s == NULL)
		return -1;
	if (s[0] == '\0') {
		yamlnode_expected(y, node, label, "a string");
		return -1;
	}
	*out = s;
	return 0;
}

int yamlnode_uint(struct yamlnode_doc *y, const yaml_node_t *node, const char *label, uint32_t min,
                  uint32_t max, uint32_t *out)
{
	char expected[64];
	uint64_t v = 0;
	const char *s;
	size_t i;

	snprintf(expected, sizeof(expected), "a whole number %u..%u", min, max);
	s = yamlnode_scalar(y, node, label, expected);
	if (s == NULL)
		return -1;
	for (i = 0; s[i] >= '0' && s[i] <= '9'; i++) {
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > max)
			break;
	}
	if (i == 0 || s[i] != '\0' || v < min || v > max) {
		yamlnode_expected(y, node, label, expected);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

int yamlnode_bool(struct yamlnode_doc *y, const yaml_node_t *node, const char *label, bool *out)
{
	const char *s = yamlnode_scalar(y, node, label, "true or false");

	if (s == NULL)
		return -1;
	if (strcasecmp(s, "true") == 0 || strcasecmp(s, "yes") == 0) {
		*out = true;
		return 0;
	}
	if (strcasecmp(s, "false") == 0 || strcasecmp(s, "no") == 0) {
		*out = false;
		return 0;
	}
	yamlnode_expected(y, node, label, "true or false");
	return -1;
}

/*
 * A scalar read with one of the units parsers (units.h). They already write
 * "'X' is not a size (expected ...)"; the field name and position go in front
 * so it reads like every other error.
 */
static int yamlnode_units(struct yamlnode_doc *y, const yaml_node_t *node, const char *label,
                          const char *expected,
                          int (*parse)(const char *, uint64_t *, struct error *), uint64_t *out)
{
	const char *s = yamlnode_scalar(y, node, label, expected);
	struct error uerr;

	if (s == NULL)
		return -1;
	if (parse(s, out, &uerr) < 0) {
		yamlnode_error(y, node, "%s: %s", label, uerr.msg);
		return -1;
	}
	return 0;
}

int yamlnode_size(struct yamlnode_doc *y, const yaml_node_t *node, const char *label, uint64_t *out)
{
	return yamlnode_units(y, node, label, "a size such as 64KiB", units_parse_size, out);
}

int yamlnode_duration(struct yamlnode_doc *y, const yaml_node_t *node, const char *label,
                      uint64_t *out)
{
	return yamlnode_units(y, node, label, "a duration such as 1s or 500ms",
	                      units_parse_duration, out);
}
