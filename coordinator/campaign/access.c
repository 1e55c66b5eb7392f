/* SPDX-License-Identifier: MIT */
/* A workload's access pattern keys, read from YAML with file:line:column errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "text.h"
#include "units.h"
#include "yamlnode.h"

static const char *const access_data_keys[] = {"compress", "dedupe", "clone", NULL};

/* "zipf:0.99", "hotspot:10/90" (10% of the working set gets 90% of the operations). */
static int access_random(struct yamlnode_doc *y, const yaml_node_t *n, struct access *a)
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

		if (end == s + 5 || *end != '\0' || !(theta > 0) || theta > 10) {
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
static int access_clone(struct yamlnode_doc *y, const yaml_node_t *n, struct access *a)
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

static int access_data(struct yamlnode_doc *y, const yaml_node_t *map, struct access *a)
{
	yaml_node_t *n;

	if (yamlnode_check_mapping(y, map, "data", "data", access_data_keys) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, map, "compress")) != NULL &&
	    yamlnode_uint(y, n, "data.compress", 0, 99, &a->compress_pct) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, map, "dedupe")) != NULL &&
	    yamlnode_uint(y, n, "data.dedupe", 0, 99, &a->dedupe_pct) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, map, "clone")) != NULL && access_clone(y, n, a) < 0)
		return -1;
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

int access_read_pct(struct yamlnode_doc *y, const yaml_node_t *n, struct access *a)
{
	return yamlnode_uint(y, n, "read_pct", 0, 100, &a->read_pct);
}

int access_parse(struct yamlnode_doc *y, const yaml_node_t *map, struct access *a)
{
	yaml_node_t *n;
	uint64_t v;
	const char *s;

	/* a list of read_pct makes a workload matrix: workloads.c reads each entry */
	if ((n = yamlnode_lookup(y, map, "read_pct")) != NULL && n->type != YAML_SEQUENCE_NODE &&
	    access_read_pct(y, n, a) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, map, "align")) != NULL) {
		if (yamlnode_size(y, n, "align", &v) < 0)
			return -1;
		/* O_DIRECT needs sector-aligned offsets */
		if (v == 0 || v % 512 != 0 || v > (16u << 20)) {
			yamlnode_expected(y, n, "align", "a multiple of 512B up to 16MiB");
			return -1;
		}
		a->align = (uint32_t)v;
	}
	if ((n = yamlnode_lookup(y, map, "working_set")) != NULL) {
		if (yamlnode_size(y, n, "working_set", &a->working_set) < 0)
			return -1;
		if (a->working_set == 0) {
			yamlnode_expected(y, n, "working_set", "a size above 0 (e.g. 1GiB)");
			return -1;
		}
	}
	if ((n = yamlnode_lookup(y, map, "random")) != NULL && access_random(y, n, a) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, map, "arrivals")) != NULL) {
		if (yamlnode_string(y, n, "arrivals", &s) < 0)
			return -1;
		if (strcmp(s, "uniform") != 0 && strcmp(s, "poisson") != 0) {
			yamlnode_expected(y, n, "arrivals", "uniform or poisson");
			return -1;
		}
		a->poisson = strcmp(s, "poisson") == 0;
	}
	if ((n = yamlnode_lookup(y, map, "timing")) != NULL) {
		if (yamlnode_string(y, n, "timing", &s) < 0)
			return -1;
		if (strcmp(s, "precise") != 0 && strcmp(s, "efficient") != 0) {
			yamlnode_expected(y, n, "timing", "precise or efficient");
			return -1;
		}
		a->efficient = strcmp(s, "efficient") == 0;
	}
	if ((n = yamlnode_lookup(y, map, "data")) != NULL && access_data(y, n, a) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, map, "direct")) != NULL &&
	    yamlnode_bool(y, n, "direct", &a->direct) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, map, "wake_slack")) != NULL) {
		if (yamlnode_duration(y, n, "wake_slack", &a->wake_slack_ns) < 0)
			return -1;
		/* beyond a millisecond it is no longer a rate, it is bursts */
		if (a->wake_slack_ns > 1000000) {
			yamlnode_expected(y, n, "wake_slack", "a duration up to 1ms (e.g. 100us)");
			return -1;
		}
	}
	return 0;
}

void access_dist_text(const struct access *a, char *buf, size_t len)
{
	switch (a->dist) {
	case ACCESS_ZIPF:
		snprintf(buf, len, "zipf:%g", a->zipf_theta);
		break;
	case ACCESS_HOTSPOT:
		snprintf(buf, len, "hotspot:%g/%g", a->hot_set_pct, a->hot_ops_pct);
		break;
	default:
		snprintf(buf, len, "uniform");
		break;
	}
}
