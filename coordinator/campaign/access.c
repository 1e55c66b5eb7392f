/* SPDX-License-Identifier: MIT */
/* A workload's settings read from YAML through their rows, with file:line:column errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "text.h"
#include "units.h"
#include "yamlnode.h"

/* "zipf:0.99", "hotspot:10/90" (10% of the working set gets 90% of the operations). */
static int access_random(struct yamlnode_doc *y, const yaml_node_t *n, struct io_settings *a)
{
	const char *s;
	char *end;

	if (yamlnode_string(y, n, "random", &s) < 0)
		return -1;
	if (strcmp(s, "uniform") == 0) {
		a->dist = ACCESS_UNIFORM;
		return 0;
	}
	if (strncmp(s, "zipf:", 5) == 0) {
		double theta = strtod(s + 5, &end);

		if (end == s + 5 || *end != '\0' || !(theta > 0) ||
		    theta > SETTING_MAX_ZIPF_THETA) {
			yamlnode_expected(y, n, "random",
			                  "zipf:THETA with THETA above 0 (e.g. zipf:1.1)");
			return -1;
		}
		a->dist = ACCESS_ZIPF;
		a->zipf_theta = theta;
		return 0;
	}
	if (strncmp(s, "hotspot:", 8) == 0) {
		double set = strtod(s + 8, &end), ops;

		if (end == s + 8 || *end != '/')
			goto bad_hotspot;
		ops = strtod(end + 1, &end);
		if (*end != '\0' || !(set > 0 && set < 100) || !(ops > 0 && ops < 100))
			goto bad_hotspot;
		a->dist = ACCESS_HOTSPOT;
		a->hot_set_pct = set;
		a->hot_ops_pct = ops;
		return 0;
	bad_hotspot:
		yamlnode_expected(
		    y, n, "random",
		    "hotspot:SET/OPS, percentages between 0 and 100 (e.g. hotspot:10/90: "
		    "90% of operations hit 10% of the working set)");
		return -1;
	}
	yamlnode_expected(y, n, "random", "uniform, zipf:THETA or hotspot:SET/OPS");
	return -1;
}

/*
 * data.clone: NAME, the golden image every file is laid out as. The name is the
 * image's identity (its seed, in the layout's xattr): a name as file names have.
 */
static int access_clone(struct yamlnode_doc *y, const yaml_node_t *n, struct io_settings *a)
{
	const char *s;

	if (yamlnode_string(y, n, "data.clone", &s) < 0)
		return -1;
	if (s[0] == '\0' || !text_name_ok(s) || strlen(s) >= sizeof(a->clone)) {
		yamlnode_expected(y, n, "data.clone",
		                  "a name of letters, digits, '.', '_' and '-', 1 to 63 characters "
		                  "(e.g. clone: golden)");
		return -1;
	}
	snprintf(a->clone, sizeof(a->clone), "%s", s);
	return 0;
}

const yaml_node_t *access_clone_node(struct yamlnode_doc *y, const yaml_node_t *root,
                                     const yaml_node_t *node)
{
	const yaml_node_t *maps[] = {node, root};

	for (size_t i = 0; i < 2; i++) {
		yaml_node_t *data;

		if (maps[i] == NULL || maps[i]->type != YAML_MAPPING_NODE)
			continue;
		data = yamlnode_lookup(y, maps[i], "data");
		if (data != NULL && data->type == YAML_MAPPING_NODE)
			/* a workload's own data without clone still inherits the top level's */
			if ((data = yamlnode_lookup(y, data, "clone")) != NULL)
				return data;
	}
	return NULL;
}

/* A size or duration out of its row's bounds: told what it should be. */
static int access_bounded(struct yamlnode_doc *y, const yaml_node_t *n, const struct setting *s,
                          uint64_t v, struct io_settings *io)
{
	if (!setting_in_bounds(s, v)) {
		yamlnode_expected(y, n, s->key, s->expected);
		return -1;
	}
	setting_set(s, io, v);
	return 0;
}

/* One of the row's two words. */
static int access_words(struct yamlnode_doc *y, const yaml_node_t *n, const struct setting *s,
                        struct io_settings *io)
{
	char expected[64];
	const char *v;

	if (yamlnode_string(y, n, s->key, &v) < 0)
		return -1;
	for (int i = 0; i < SETTING_WORDS_MAX && s->words[i] != NULL; i++)
		if (strcmp(v, s->words[i]) == 0) {
			setting_set(s, io, (uint64_t)i);
			return 0;
		}
	/* the expected words are the row's own (every row with more than two says them) */
	snprintf(expected, sizeof(expected), "%s or %s", s->words[0], s->words[1]);
	yamlnode_expected(y, n, s->key, s->expected ? s->expected : expected);
	return -1;
}

int access_read(struct yamlnode_doc *y, const yaml_node_t *n, const struct setting *s,
                struct io_settings *io)
{
	uint32_t u;
	uint64_t v;
	bool b;

	switch (s->type) {
	case SETTING_COUNT:
		if (yamlnode_uint(y, n, s->key, (uint32_t)s->min, (uint32_t)s->max, &u) < 0)
			return -1;
		setting_set(s, io, u);
		return 0;
	case SETTING_SIZE32:
	case SETTING_SIZE64:
		if (yamlnode_size(y, n, s->key, &v) < 0)
			return -1;
		return access_bounded(y, n, s, v, io);
	case SETTING_DURATION:
		if (yamlnode_duration(y, n, s->key, &v) < 0)
			return -1;
		return access_bounded(y, n, s, v, io);
	case SETTING_BOOL:
		if (yamlnode_bool(y, n, s->key, &b) < 0)
			return -1;
		setting_set(s, io, b);
		return 0;
	case SETTING_WORDS:
	case SETTING_CHOICE:
		return access_words(y, n, s, io);
	default:
		/* the row's type has no reader of its own: a key read by hand was left here */
		yamlnode_error(y, n, "%s: read by hand, not by its row", s->key);
		return -1;
	}
}

/* Whether s is the first row of its group: the group's mapping is checked once, there. */
static bool access_group_first(const struct setting *s)
{
	return s == setting_table || s[-1].group == NULL || strcmp(s[-1].group, s->group) != 0;
}

int access_setting(struct yamlnode_doc *y, const yaml_node_t *map, const struct setting *s,
                   struct io_settings *io)
{
	const yaml_node_t *n;

	if (s->key == NULL || s->type == SETTING_HAND)
		return 0;
	if (s->group != NULL) {
		const char *keys[32];
		yaml_node_t *g = yamlnode_lookup(y, map, s->group);

		if (g == NULL)
			return 0;
		setting_keys(s->group, keys, sizeof(keys) / sizeof(keys[0]));
		if (access_group_first(s) &&
		    yamlnode_check_mapping(y, g, s->group, s->group, keys) < 0)
			return -1;
		n = yamlnode_lookup(y, g, s->key + strlen(s->group) + 1);
	} else {
		n = yamlnode_lookup(y, map, s->key);
	}
	if (n == NULL)
		return 0;
	if (s->type == SETTING_ENUM) /* random: the only enum no matrix varies */
		return access_random(y, n, io);
	if (s->type == SETTING_NAME) /* data.clone */
		return access_clone(y, n, io);
	return access_read(y, n, s, io);
}
