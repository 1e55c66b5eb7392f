/* SPDX-License-Identifier: MIT */
/* Reading a fixed-work load (work, rate, think, start) with file:line:column errors. */
#include <stdio.h>
#include <string.h>

#include "units.h"
#include "workspec.h"
#include "xalloc.h"

static const char *const workspec_keys[] = {"work", "rate", "think", "start", NULL};
static const char *const workspec_others[] = {"steps",  "curve",   "ramp",  "max",
                                              "refine", "confirm", "repeat"};
static const char *const workspec_work_keys[] = {"bytes", "ops", "deadline", NULL};
static const char *const workspec_start_keys[] = {"spread", NULL};

bool workspec_given(struct yamlnode_doc *y, const yaml_node_t *load)
{
	if (load->type != YAML_MAPPING_NODE)
		return false;
	for (size_t i = 0; workspec_keys[i] != NULL; i++)
		if (yamlnode_lookup(y, load, workspec_keys[i]) != NULL)
			return true;
	return false;
}

/* work: {bytes: 300MiB | ops: 10000, deadline: 10m} */
static int workspec_amount(struct yamlnode_doc *y, const yaml_node_t *map, struct workload *w)
{
	yaml_node_t *bytes, *ops, *n;
	char bs[32];

	if (yamlnode_check_mapping(y, map, "load.work", "load.work", workspec_work_keys) < 0)
		return -1;
	bytes = yamlnode_lookup(y, map, "bytes");
	ops = yamlnode_lookup(y, map, "ops");
	if (bytes != NULL && ops != NULL) {
		yamlnode_error(y, ops,
		               "load.work: give either 'bytes' (such as 300MiB) or 'ops' (such as "
		               "10000) per worker, not both");
		return -1;
	}
	if (bytes == NULL && ops == NULL) {
		yamlnode_error(y, map,
		               "load.work is missing 'bytes' or 'ops': how much each worker does "
		               "(e.g. work: {bytes: 300MiB})");
		return -1;
	}
	units_format_size(w->io.block_size, bs, sizeof(bs));
	if (bytes != NULL) {
		if (yamlnode_size(y, bytes, "load.work.bytes", &w->work.bytes) < 0)
			return -1;
		if (w->work.bytes == 0 || w->work.bytes % w->io.block_size != 0) {
			yamlnode_error(
			    y, bytes,
			    "load.work.bytes: expected a whole number of %s blocks above "
			    "0 (each worker's share)",
			    bs);
			return -1;
		}
		w->work.ops = w->work.bytes / w->io.block_size;
	} else {
		uint32_t v;

		if (yamlnode_uint(y, ops, "load.work.ops", 1, UINT32_MAX, &v) < 0)
			return -1;
		w->work.ops = v;
		w->work.bytes = (uint64_t)v * w->io.block_size;
	}
	w->work.deadline_ns = WORKSPEC_DEADLINE_NS;
	if ((n = yamlnode_lookup(y, map, "deadline")) != NULL) {
		if (yamlnode_duration(y, n, "load.work.deadline", &w->work.deadline_ns) < 0)
			return -1;
		if (w->work.deadline_ns == 0) {
			yamlnode_expected(y, n, "load.work.deadline",
			                  "a duration above 0 such as 10m");
			return -1;
		}
	}
	return 0;
}

/* rate: max (closed loop at the queue depth) or a rate for the fleet, as steps: take. */
static int workspec_rate(struct yamlnode_doc *y, const yaml_node_t *n, struct workload *w,
                         double *ops)
{
	const char *s;
	struct error uerr;
	double bps;

	*ops = 0;
	if (n->type != YAML_SCALAR_NODE || yamlnode_string(y, n, "load.rate", &s) < 0 ||
	    s[0] == '\0') {
		yamlnode_expected(y, n, "load.rate",
		                  "max, a rate such as 2000 or a bandwidth such as "
		                  "800MiB/s (for the fleet)");
		return -1;
	}
	if (strcmp(s, "max") == 0)
		return 0;
	if (strlen(s) > 2 && strcmp(s + strlen(s) - 2, "/s") == 0) {
		if (units_parse_bandwidth(s, &bps, &uerr) < 0) {
			yamlnode_error(y, n, "load.rate: %s", uerr.msg);
			return -1;
		}
		*ops = bps / w->io.block_size;
	} else if (units_parse_rate(s, ops, &uerr) < 0) {
		yamlnode_expected(y, n, "load.rate",
		                  "max, a rate such as 2000 or a bandwidth such as "
		                  "800MiB/s (for the fleet)");
		return -1;
	}
	if (!(*ops > 0)) {
		yamlnode_expected(y, n, "load.rate", "a rate above 0 ops/s, or max");
		return -1;
	}
	return 0;
}

int workspec_parse(struct yamlnode_doc *y, const yaml_node_t *load, struct workload *w)
{
	yaml_node_t *work = yamlnode_lookup(y, load, "work"), *n;
	double rate = 0;

	if (work == NULL) {
		for (size_t i = 1; workspec_keys[i] != NULL; i++)
			if ((n = yamlnode_lookup(y, load, workspec_keys[i])) != NULL) {
				yamlnode_error(
				    y, n,
				    "load.%s goes with fixed work only (load: {work: {bytes: "
				    "300MiB}, %s: ...})",
				    workspec_keys[i], workspec_keys[i]);
				return -1;
			}
		return 0;
	}
	for (size_t i = 0; i < sizeof(workspec_others) / sizeof(workspec_others[0]); i++)
		if ((n = yamlnode_lookup(y, load, workspec_others[i])) != NULL) {
			yamlnode_error(y, n,
			               "load.%s: fixed work (load.work) is one step that ends when "
			               "every worker is done, not a curve: leave out '%s' (pace it "
			               "with rate: instead)",
			               workspec_others[i], workspec_others[i]);
			return -1;
		}
	memset(&w->work, 0, sizeof(w->work));
	if (workspec_amount(y, work, w) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, load, "rate")) != NULL && workspec_rate(y, n, w, &rate) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, load, "think")) != NULL) {
		if (yamlnode_duration(y, n, "load.think", &w->work.think_ns) < 0)
			return -1;
		if (rate > 0 && w->work.think_ns > 0) {
			yamlnode_error(
			    y, n,
			    "load.think: think time goes with rate: max (closed loop: each "
			    "slot waits this long after a completion); a rate paces the "
			    "workers by itself");
			return -1;
		}
		if (w->work.think_ns >= w->work.deadline_ns) {
			yamlnode_error(y, n,
			               "load.think: a slot would think past the deadline "
			               "(load.work.deadline): make it shorter");
			return -1;
		}
	}
	if ((n = yamlnode_lookup(y, load, "start")) != NULL) {
		yaml_node_t *spread;

		if (yamlnode_check_mapping(y, n, "load.start", "load.start", workspec_start_keys) <
		    0)
			return -1;
		if (yamlnode_require(y, n, "spread", "load.start", &spread) < 0 ||
		    yamlnode_duration(y, spread, "load.start.spread", &w->work.spread_ns) < 0)
			return -1;
		if (w->work.spread_ns >= w->work.deadline_ns) {
			yamlnode_error(y, spread,
			               "load.start.spread: the last worker would start after the "
			               "deadline (load.work.deadline): make the spread shorter");
			return -1;
		}
	}
	w->work.on = true;
	w->mode = LOAD_STEPS;
	w->nsteps = 1;
	w->steps = xcalloc(1, sizeof(*w->steps));
	w->steps[0].ops = rate;
	w->refine = 0;
	w->repeat = 1;
	return 0;
}
