/* SPDX-License-Identifier: MIT */
/* Loading a campaign from YAML: check every key and value, then apply defaults. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "campaign.h"
#include "units.h"
#include "xalloc.h"
#include "yamlnode.h"

#define CAMPAIGN_MAX_FILE        (16u << 20)
#define CAMPAIGN_MAX_LOCAL       64
#define CAMPAIGN_MAX_SELECT      4096
#define CAMPAIGN_MAX_WORKERS     256
#define CAMPAIGN_MAX_QD          4096
#define CAMPAIGN_MAX_BLOCK       (16u << 20)
#define CAMPAIGN_MIN_INTERVAL_NS 100000000ULL
#define CAMPAIGN_TARGET_ALIGN    4096u

#define NS_PER_SEC 1000000000ULL

/* The workload keys the top level also takes, as defaults for every workload. */
#define CAMPAIGN_SETTING_KEYS                                                                      \
	"rw", "block_size", "workers", "queue_depth", "interval", "warmup", "measure", ACCESS_KEYS

static const char *const campaign_keys[] = {
    "campaign", "agents", "target", "slo", "workloads", CAMPAIGN_SETTING_KEYS, NULL,
};
static const char *const campaign_workload_keys[] = {"name", CAMPAIGN_SETTING_KEYS, "load", NULL};
static const char *const campaign_agents_keys[] = {"local", "select", "wait", NULL};
static const char *const campaign_select_keys[] = {"count", NULL};
static const char *const campaign_target_keys[] = {"path", "size", "direct", "sim", NULL};
static const char *const campaign_sim_keys[] = {"servers", "service_time", "jitter", "stall", NULL};
static const char *const campaign_stall_keys[] = {"after", "for", NULL};
static const char *const campaign_slo_keys[] = {"latency", NULL};
static const char *const campaign_load_keys[] = {"steps", "max", NULL};

/*
 * Where the timing settings came from, so a mismatch between them can point
 * at the line the user has to change rather than at the workload as a whole.
 */
struct campaign_origin {
	const yaml_node_t *interval;
	const yaml_node_t *warmup;
	const yaml_node_t *measure;
};

/* Read the settings a workload can inherit; keys that are absent keep w's values. */
static int campaign_settings(struct yamlnode_doc *y, const yaml_node_t *map, struct workload *w,
                             struct campaign_origin *o)
{
	yaml_node_t *n;
	uint64_t v;

	if ((n = yamlnode_lookup(y, map, "rw")) != NULL) {
		if (n->type != YAML_SCALAR_NODE ||
		    rw_mode_parse((const char *)n->data.scalar.value, &w->rw) < 0) {
			yamlnode_expected(y, n, "rw",
			                  "read, write, randread, randwrite, rw or randrw");
			return -1;
		}
	}
	if (access_parse(y, map, &w->access) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, map, "block_size")) != NULL) {
		if (yamlnode_size(y, n, "block_size", &v) < 0)
			return -1;
		/* O_DIRECT needs sector-aligned blocks; 16MiB bounds the buffers */
		if (v == 0 || v % 512 != 0 || v > CAMPAIGN_MAX_BLOCK) {
			yamlnode_expected(y, n, "block_size", "a multiple of 512B up to 16MiB");
			return -1;
		}
		w->block_size = (uint32_t)v;
	}
	if ((n = yamlnode_lookup(y, map, "workers")) != NULL &&
	    yamlnode_uint(y, n, "workers", 1, CAMPAIGN_MAX_WORKERS, &w->workers) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, map, "queue_depth")) != NULL &&
	    yamlnode_uint(y, n, "queue_depth", 1, CAMPAIGN_MAX_QD, &w->queue_depth) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, map, "interval")) != NULL) {
		if (yamlnode_duration(y, n, "interval", &w->interval_ns) < 0)
			return -1;
		/* shorter intervals cost more in records than they tell */
		if (w->interval_ns < CAMPAIGN_MIN_INTERVAL_NS) {
			yamlnode_expected(y, n, "interval", "at least 100ms");
			return -1;
		}
		o->interval = n;
	}
	if ((n = yamlnode_lookup(y, map, "warmup")) != NULL) {
		if (yamlnode_duration(y, n, "warmup", &w->warmup_ns) < 0)
			return -1;
		o->warmup = n;
	}
	if ((n = yamlnode_lookup(y, map, "measure")) != NULL) {
		if (yamlnode_duration(y, n, "measure", &w->measure_ns) < 0)
			return -1;
		if (w->measure_ns == 0) {
			yamlnode_expected(y, n, "measure", "a duration above 0s");
			return -1;
		}
		o->measure = n;
	}
	return 0;
}

/* A duration as the user wrote it when we have the node, else as we print it. */
static const char *campaign_duration_text(const yaml_node_t *n, uint64_t ns, char *buf, size_t len)
{
	if (n != NULL)
		return (const char *)n->data.scalar.value;
	units_format_duration(ns, buf, len);
	return buf;
}

/*
 * Intervals are the unit of reporting: a warm-up or measurement that ends
 * mid-interval would leave a partial interval nobody can place on the curve.
 */
static int campaign_check_multiple(struct yamlnode_doc *y, const yaml_node_t *wnode,
                                   const struct workload *w, const char *label, uint64_t ns,
                                   const yaml_node_t *own, const yaml_node_t *own_interval,
                                   const yaml_node_t *top, const yaml_node_t *top_interval)
{
	const yaml_node_t *at, *vnode = own ? own : top,
	                       *inode = own_interval ? own_interval : top_interval;
	char vbuf[32], ibuf[32];

	if (ns % w->interval_ns == 0)
		return 0;
	/* point at the setting the workload itself changed, if any */
	at = own            ? own
	     : own_interval ? own_interval
	     : top          ? top
	     : top_interval ? top_interval
	                    : wnode;
	yamlnode_error(y, at,
	               "%s: %s is not a whole number of intervals (interval is %s) in workload "
	               "'%s'; make %s a multiple of interval",
	               label, campaign_duration_text(vnode, ns, vbuf, sizeof(vbuf)),
	               campaign_duration_text(inode, w->interval_ns, ibuf, sizeof(ibuf)), w->name,
	               label);
	return -1;
}

static bool campaign_name_ok(const char *s)
{
	for (; *s != '\0'; s++) {
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-'))
			return false;
	}
	return true;
}

/* A step is a rate ("20k") or "max": closed loop at the queue depth, to find the peak. */
static int campaign_step(struct yamlnode_doc *y, const yaml_node_t *n, struct step_rate *step)
{
	double *rate = &step->ops;

	step->ops = step->peak_pct = 0;
	if (n->type == YAML_SCALAR_NODE && strcmp((const char *)n->data.scalar.value, "max") == 0)
		return 0;
	if (yamlnode_rate(y, n, "load.steps", rate) < 0)
		return -1;
	if (*rate <= 0) {
		yamlnode_expected(y, n, "load.steps", "a rate above 0 ops/s, or max");
		return -1;
	}
	return 0;
}

static int campaign_load_steps(struct yamlnode_doc *y, const yaml_node_t *map, const char *what,
                               struct workload *w)
{
	yaml_node_t *load, *steps, *max;
	char lwhat[192];
	bool want_max = false;

	if (yamlnode_require(y, map, "load", what, &load) < 0)
		return -1;
	snprintf(lwhat, sizeof(lwhat), "load of %s", what);
	if (yamlnode_check_mapping(y, load, "load", lwhat, campaign_load_keys) < 0)
		return -1;
	max = yamlnode_lookup(y, load, "max");
	if (max != NULL && yamlnode_bool(y, max, "load.max", &want_max) < 0)
		return -1;
	steps = yamlnode_lookup(y, load, "steps");
	if (steps == NULL && want_max) {
		/* load: {max: true}: one closed-loop step at the queue depth */
		w->nsteps = 1;
		w->steps = xcalloc(1, sizeof(*w->steps));
		return 0;
	}
	if (steps == NULL) {
		yamlnode_error(y, load, "%s is missing 'steps' (or max: true)", lwhat);
		return -1;
	}
	if (steps->type != YAML_SEQUENCE_NODE ||
	    steps->data.sequence.items.top == steps->data.sequence.items.start) {
		yamlnode_expected(y, steps, "load.steps",
		                  "a list of rates in ops/s like [1000, 2k, max]");
		return -1;
	}
	w->nsteps = (size_t)(steps->data.sequence.items.top - steps->data.sequence.items.start);
	w->steps = xcalloc(w->nsteps + want_max, sizeof(*w->steps));
	for (size_t i = 0; i < w->nsteps; i++) {
		yaml_node_t *n = yamlnode_get(y, steps->data.sequence.items.start[i]);

		if (campaign_step(y, n, &w->steps[i]) < 0)
			return -1;
	}
	/* max: true with steps: the closed-loop peak after the rated steps */
	if (want_max)
		w->steps[w->nsteps++] = (struct step_rate){0, 0};
	return 0;
}

/* One entry of workloads:, starting from the top-level defaults in *w. */
static int campaign_workload(struct yamlnode_doc *y, const yaml_node_t *node, size_t index,
                             const struct campaign_origin *top, struct workload *w)
{
	struct campaign_origin own = {0};
	yaml_node_t *n;
	const char *name;
	char what[160];

	/* name the workload in messages about its other keys, when it has one */
	snprintf(what, sizeof(what), "workload %zu", index + 1);
	if (node->type == YAML_MAPPING_NODE && (n = yamlnode_lookup(y, node, "name")) != NULL &&
	    n->type == YAML_SCALAR_NODE && n->data.scalar.length > 0 && n->data.scalar.length < 100)
		snprintf(what, sizeof(what), "workload '%s'", (const char *)n->data.scalar.value);
	if (yamlnode_check_mapping(y, node, "workloads", what, campaign_workload_keys) < 0)
		return -1;
	if (yamlnode_require(y, node, "name", what, &n) < 0 ||
	    yamlnode_string(y, n, "name", &name) < 0)
		return -1;
	/* names become file names in the results directory */
	if (!campaign_name_ok(name)) {
		yamlnode_expected(y, n, "name", "letters, digits, '.', '_' and '-' only");
		return -1;
	}
	w->name = xstrdup(name);
	if (campaign_settings(y, node, w, &own) < 0 || campaign_load_steps(y, node, what, w) < 0)
		return -1;
	if (campaign_check_multiple(y, node, w, "warmup", w->warmup_ns, own.warmup, own.interval,
	                            top->warmup, top->interval) < 0 ||
	    campaign_check_multiple(y, node, w, "measure", w->measure_ns, own.measure, own.interval,
	                            top->measure, top->interval) < 0)
		return -1;
	return 0;
}

/* Where a setting was given: the workload's own key, else the top-level default. */
static const yaml_node_t *campaign_where(struct yamlnode_doc *y, const yaml_node_t *root,
                                         const yaml_node_t *node, const char *key)
{
	const yaml_node_t *n = yamlnode_lookup(y, node, key);

	if (n == NULL)
		n = yamlnode_lookup(y, root, key);
	return n != NULL ? n : node;
}

/* The working set and alignment must leave room for whole, aligned blocks. */
static int campaign_check_access(struct yamlnode_doc *y, const yaml_node_t *root,
                                 const yaml_node_t *node, const struct campaign *c,
                                 const struct workload *w)
{
	const struct access *a = &w->access;
	char bs[32];

	units_format_size(w->block_size, bs, sizeof(bs));
	if (a->working_set != 0 && a->working_set < w->block_size) {
		yamlnode_error(y, campaign_where(y, root, node, "working_set"),
		               "working_set: smaller than block_size %s of workload '%s'", bs,
		               w->name);
		return -1;
	}
	if (a->working_set != 0 && c->target_size != 0 && a->working_set > c->target_size) {
		yamlnode_error(y, campaign_where(y, root, node, "working_set"),
		               "working_set: larger than target.size of workload '%s'; the working "
		               "set is the part of each target that is touched",
		               w->name);
		return -1;
	}
	if (a->align != 0 && a->align > w->block_size) {
		yamlnode_error(y, campaign_where(y, root, node, "align"),
		               "align: larger than block_size %s of workload '%s'", bs, w->name);
		return -1;
	}
	return 0;
}

static int campaign_workloads(struct yamlnode_doc *y, const yaml_node_t *root,
                              const yaml_node_t *list, struct campaign *c)
{
	struct workload defaults = {
	    .rw = RW_RANDREAD,
	    .block_size = 4096,
	    .workers = 1,
	    .queue_depth = 16,
	    .interval_ns = NS_PER_SEC,
	    .warmup_ns = NS_PER_SEC,
	    .measure_ns = 5 * NS_PER_SEC,
	    .access = {.read_pct = ACCESS_READ_PCT_UNSET, .direct = c->target_direct},
	    .ramp_max_steps = 20,
	};
	struct campaign_origin top = {0};
	size_t n;

	if (campaign_settings(y, root, &defaults, &top) < 0)
		return -1;
	if (list->type != YAML_SEQUENCE_NODE ||
	    list->data.sequence.items.top == list->data.sequence.items.start) {
		yamlnode_expected(y, list, "workloads", "a list of one or more workloads");
		return -1;
	}
	n = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
	c->workloads = xcalloc(n, sizeof(*c->workloads));
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *node = yamlnode_get(y, list->data.sequence.items.start[i]);
		struct workload *w = &c->workloads[i];

		*w = defaults;
		c->nworkloads++;
		if (campaign_workload(y, node, i, &top, w) < 0)
			return -1;
		/* the common mixed test is 75/25 random; a sequential mix defaults to half */
		if (w->access.read_pct == ACCESS_READ_PCT_UNSET)
			w->access.read_pct = w->rw == RW_RW ? 50 : 75;
		if (campaign_check_access(y, root, node, c, w) < 0)
			return -1;
		for (size_t j = 0; j < i; j++) {
			if (strcmp(c->workloads[j].name, w->name) == 0) {
				yamlnode_error(y, yamlnode_lookup(y, node, "name"),
				               "name: workload '%s' is already defined (names must "
				               "be unique; rename one)",
				               w->name);
				return -1;
			}
		}
	}
	return 0;
}

static int campaign_agents(struct yamlnode_doc *y, const yaml_node_t *map, struct campaign *c)
{
	yaml_node_t *local, *select, *wait, *count;

	if (yamlnode_check_mapping(y, map, "agents", "agents", campaign_agents_keys) < 0)
		return -1;
	local = yamlnode_lookup(y, map, "local");
	select = yamlnode_lookup(y, map, "select");
	wait = yamlnode_lookup(y, map, "wait");
	if (local != NULL && select != NULL) {
		yamlnode_error(y, map, "agents: use either 'local' or 'select', not both");
		return -1;
	}
	if (local == NULL && select == NULL) {
		yamlnode_error(y, map,
		               "agents is missing 'local' or 'select' (e.g. {local: 2} or "
		               "{select: {count: 4}})");
		return -1;
	}
	if (local != NULL) {
		if (wait != NULL) {
			yamlnode_error(y, wait,
			               "agents.wait: only applies to 'select' (remove it, or use "
			               "select)");
			return -1;
		}
		c->agents_mode = CAMPAIGN_AGENTS_LOCAL;
		return yamlnode_uint(y, local, "agents.local", 1, CAMPAIGN_MAX_LOCAL,
		                     &c->agents_count);
	}
	c->agents_mode = CAMPAIGN_AGENTS_SELECT;
	c->agents_wait_ns = 60 * NS_PER_SEC;
	if (yamlnode_check_mapping(y, select, "agents.select", "agents.select",
	                           campaign_select_keys) < 0 ||
	    yamlnode_require(y, select, "count", "agents.select", &count) < 0 ||
	    yamlnode_uint(y, count, "agents.select.count", 1, CAMPAIGN_MAX_SELECT,
	                  &c->agents_count) < 0)
		return -1;
	if (wait != NULL && yamlnode_duration(y, wait, "agents.wait", &c->agents_wait_ns) < 0)
		return -1;
	return 0;
}

/* jitter: "10%" or 10: the spread of the simulated service time. */
static int campaign_percent(struct yamlnode_doc *y, const yaml_node_t *n, const char *label,
                            uint32_t *out)
{
	const char *s;
	char *end;
	unsigned long v;

	if (yamlnode_string(y, n, label, &s) < 0)
		return -1;
	v = strtoul(s, &end, 10);
	if (end == s || (*end != '\0' && strcmp(end, "%") != 0) || v > 100) {
		yamlnode_expected(y, n, label, "a percentage 0..100 such as 10%");
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

/* target: {sim: {servers: 4, service_time: 200us, jitter: 10%, stall: {after: N, for: 100ms}}} */
static int campaign_sim(struct yamlnode_doc *y, const yaml_node_t *map, struct campaign_sim *sim)
{
	yaml_node_t *n, *stall;

	if (yamlnode_check_mapping(y, map, "target.sim", "target.sim", campaign_sim_keys) < 0)
		return -1;
	sim->enabled = true;
	sim->servers = 1;
	if ((n = yamlnode_lookup(y, map, "servers")) != NULL &&
	    yamlnode_uint(y, n, "target.sim.servers", 1, 1024, &sim->servers) < 0)
		return -1;
	if (yamlnode_require(y, map, "service_time", "target.sim", &n) < 0 ||
	    yamlnode_duration(y, n, "target.sim.service_time", &sim->service_ns) < 0)
		return -1;
	if (sim->service_ns == 0) {
		yamlnode_expected(y, n, "target.sim.service_time", "a duration above 0");
		return -1;
	}
	if ((n = yamlnode_lookup(y, map, "jitter")) != NULL &&
	    campaign_percent(y, n, "target.sim.jitter", &sim->jitter_pct) < 0)
		return -1;
	if ((stall = yamlnode_lookup(y, map, "stall")) == NULL)
		return 0;
	if (yamlnode_check_mapping(y, stall, "target.sim.stall", "target.sim.stall",
	                           campaign_stall_keys) < 0 ||
	    yamlnode_require(y, stall, "after", "target.sim.stall", &n) < 0)
		return -1;
	{
		uint32_t after;

		if (yamlnode_uint(y, n, "target.sim.stall.after", 1, UINT32_MAX, &after) < 0)
			return -1;
		sim->stall_after_ops = after;
	}
	if (yamlnode_require(y, stall, "for", "target.sim.stall", &n) < 0 ||
	    yamlnode_duration(y, n, "target.sim.stall.for", &sim->stall_ns) < 0)
		return -1;
	return 0;
}

static int campaign_target(struct yamlnode_doc *y, const yaml_node_t *map, struct campaign *c)
{
	yaml_node_t *path, *size, *direct, *sim;
	const char *s;

	if (yamlnode_check_mapping(y, map, "target", "target", campaign_target_keys) < 0)
		return -1;
	c->target_direct = true;
	direct = yamlnode_lookup(y, map, "direct");
	if (direct != NULL && yamlnode_bool(y, direct, "target.direct", &c->target_direct) < 0)
		return -1;
	sim = yamlnode_lookup(y, map, "sim");
	if (sim != NULL) {
		if (yamlnode_lookup(y, map, "path") != NULL) {
			yamlnode_error(y, map, "target: use either 'path' or 'sim', not both");
			return -1;
		}
		if (campaign_sim(y, sim, &c->sim) < 0)
			return -1;
		/* a simulated device has offsets but no bytes: 1GiB unless told */
		c->target_size = 1ull << 30;
		size = yamlnode_lookup(y, map, "size");
		if (size != NULL && yamlnode_size(y, size, "target.size", &c->target_size) < 0)
			return -1;
		return 0;
	}
	if (yamlnode_require(y, map, "path", "target", &path) < 0 ||
	    yamlnode_string(y, path, "target.path", &s) < 0)
		return -1;
	/* agents resolve it against their own allow-list: relative would mean nothing */
	if (s[0] != '/') {
		yamlnode_expected(y, path, "target.path", "an absolute path such as /mnt/test");
		return -1;
	}
	c->target_path = xstrdup(s);
	/* a block device may leave the size out: all of it */
	size = yamlnode_lookup(y, map, "size");
	if (size == NULL && strncmp(s, "/dev/", 5) == 0)
		return 0;
	if (yamlnode_require(y, map, "size", "target", &size) < 0 ||
	    yamlnode_size(y, size, "target.size", &c->target_size) < 0)
		return -1;
	return 0;
}

/* The target must hold a whole block of every workload, in O_DIRECT-friendly units. */
static int campaign_check_target_size(struct yamlnode_doc *y, const yaml_node_t *target,
                                      const struct campaign *c)
{
	const yaml_node_t *n = yamlnode_lookup(y, target, "size");
	const char *text;

	if (n == NULL)
		return 0; /* a block device: its own size, checked by the agent */
	text = (const char *)n->data.scalar.value;
	if (c->target_size == 0 || c->target_size % CAMPAIGN_TARGET_ALIGN != 0) {
		yamlnode_expected(y, n, "target.size", "a multiple of 4KiB");
		return -1;
	}
	for (size_t i = 0; i < c->nworkloads; i++) {
		const struct workload *w = &c->workloads[i];
		char bs[32];

		if (c->target_size < w->block_size) {
			units_format_size(w->block_size, bs, sizeof(bs));
			yamlnode_error(y, n,
			               "target.size: %s is smaller than block_size %s of workload "
			               "'%s'; make the target at least one block",
			               text, bs, w->name);
			return -1;
		}
	}
	return 0;
}

static int campaign_slo(struct yamlnode_doc *y, const yaml_node_t *map, struct campaign *c)
{
	yaml_node_t *n;

	if (yamlnode_check_mapping(y, map, "slo", "slo", campaign_slo_keys) < 0)
		return -1;
	n = yamlnode_lookup(y, map, "latency");
	if (n == NULL)
		return 0;
	if (yamlnode_duration(y, n, "slo.latency", &c->slo_latency_ns) < 0)
		return -1;
	if (c->slo_latency_ns == 0) {
		yamlnode_expected(y, n, "slo.latency", "a latency above 0");
		return -1;
	}
	return 0;
}

static int campaign_root(struct yamlnode_doc *y, const yaml_node_t *root, struct campaign *c)
{
	yaml_node_t *name, *agents, *target, *workloads, *slo;
	const char *s;

	if (yamlnode_check_mapping(y, root, "campaign file", "campaign", campaign_keys) < 0)
		return -1;
	if (yamlnode_require(y, root, "campaign", "campaign", &name) < 0 ||
	    yamlnode_require(y, root, "agents", "campaign", &agents) < 0 ||
	    yamlnode_require(y, root, "target", "campaign", &target) < 0 ||
	    yamlnode_require(y, root, "workloads", "campaign", &workloads) < 0)
		return -1;
	if (yamlnode_string(y, name, "campaign", &s) < 0)
		return -1;
	/* the name becomes the results directory's name */
	if (!campaign_name_ok(s)) {
		yamlnode_expected(y, name, "campaign", "letters, digits, '.', '_' and '-' only");
		return -1;
	}
	c->name = xstrdup(s);
	if (campaign_agents(y, agents, c) < 0 || campaign_target(y, target, c) < 0)
		return -1;
	c->slo_latency_ns = 1000000;
	c->slo_metric = SLO_MEAN;
	c->stop = (struct campaign_stop){
	    .min_achieved_pct = 95, .ceiling_ns = 50000000, .on_errors = true};
	slo = yamlnode_lookup(y, root, "slo");
	if (slo != NULL && campaign_slo(y, slo, c) < 0)
		return -1;
	if (campaign_workloads(y, root, workloads, c) < 0)
		return -1;
	return campaign_check_target_size(y, target, c);
}

/* libyaml's own words, placed at its mark, plus the construct it was inside. */
static void campaign_yaml_error(const yaml_parser_t *p, const char *file, struct error *err)
{
	const char *problem = p->problem ? p->problem : "malformed YAML";

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		error_set(err, "%s: out of memory while reading YAML", file);
		break;
	case YAML_READER_ERROR:
		error_set(err, "%s: byte %zu: %s (a campaign must be UTF-8 text)", file,
		          p->problem_offset, problem);
		break;
	default:
		if (p->context != NULL)
			error_set(err, "%s:%zu:%zu: %s (%s at line %zu column %zu)", file,
			          p->problem_mark.line + 1, p->problem_mark.column + 1, problem,
			          p->context, p->context_mark.line + 1, p->context_mark.column + 1);
		else
			error_set(err, "%s:%zu:%zu: %s", file, p->problem_mark.line + 1,
			          p->problem_mark.column + 1, problem);
		break;
	}
}

/* Load the one document of the file; a second document would be silently ignored otherwise. */
static int campaign_load_document(const char *text, size_t len, const char *name,
                                  yaml_document_t *doc, struct error *err)
{
	yaml_document_t extra;
	yaml_parser_t parser;
	yaml_node_t *root;
	int rc = -1;

	if (!yaml_parser_initialize(&parser)) {
		error_set(err, "%s: out of memory while reading YAML", name);
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, doc)) {
		campaign_yaml_error(&parser, name, err);
		goto out;
	}
	if (!yaml_parser_load(&parser, &extra)) {
		campaign_yaml_error(&parser, name, err);
		yaml_document_delete(doc);
		goto out;
	}
	root = yaml_document_get_root_node(&extra);
	if (root != NULL) {
		error_set(err,
		          "%s:%zu:%zu: a second YAML document; a campaign file holds one "
		          "(remove the '---' and what follows, or split the file)",
		          name, root->start_mark.line + 1, root->start_mark.column + 1);
		yaml_document_delete(&extra);
		yaml_document_delete(doc);
		goto out;
	}
	yaml_document_delete(&extra);
	rc = 0;
out:
	yaml_parser_delete(&parser);
	return rc;
}

int campaign_parse(const char *text, size_t len, const char *name, struct campaign **out,
                   struct error *err)
{
	struct yamlnode_doc y = {.file = name, .err = err};
	yaml_document_t doc;
	yaml_node_t *root;
	struct campaign *c;

	*out = NULL;
	if (campaign_load_document(text, len, name, &doc, err) < 0)
		return -1;
	y.doc = &doc;
	c = xcalloc(1, sizeof(*c));
	c->path = xstrdup(name);
	c->text = xmalloc(len + 1);
	memcpy(c->text, text, len);
	c->text[len] = '\0';
	c->text_len = len;

	root = yaml_document_get_root_node(&doc);
	if (root == NULL) {
		error_set(err,
		          "%s: the campaign is empty (expected a mapping with campaign, agents, "
		          "target and workloads)",
		          name);
		goto fail;
	}
	if (campaign_root(&y, root, c) < 0)
		goto fail;
	yaml_document_delete(&doc);
	*out = c;
	return 0;
fail:
	yaml_document_delete(&doc);
	campaign_free(c);
	return -1;
}

/* The whole file in memory: campaign_parse needs it, and plan.yaml keeps it verbatim. */
static char *campaign_read_file(const char *path, size_t *len, struct error *err)
{
	size_t have = 0, cap;
	struct stat st;
	char *buf = NULL;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		error_set(err, "%s: cannot read: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0) {
		error_set(err, "%s: cannot read: %s", path, strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		error_set(err, "%s: cannot read: %s (give the campaign's .yaml file)", path,
		          strerror(EISDIR));
		goto fail;
	}
	/* st_size is only a hint: read to EOF so pipes and /proc files work too */
	cap = S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size <= CAMPAIGN_MAX_FILE
	          ? (size_t)st.st_size + 1
	          : 4096;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t r;

		if (have == cap) {
			if (cap > CAMPAIGN_MAX_FILE) {
				error_set(err, "%s: too large for a campaign (over 16MiB)", path);
				goto fail;
			}
			cap *= 2;
			buf = xreallocarray(buf, cap, 1);
		}
		r = read(fd, buf + have, cap - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			error_set(err, "%s: cannot read: %s", path, strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		have += (size_t)r;
	}
	close(fd);
	*len = have;
	return buf;
fail:
	free(buf);
	close(fd);
	return NULL;
}

int campaign_load(const char *path, struct campaign **out, struct error *err)
{
	size_t len;
	char *text;
	int rc;

	*out = NULL;
	text = campaign_read_file(path, &len, err);
	if (text == NULL)
		return -1;
	rc = campaign_parse(text, len, path, out, err);
	free(text);
	return rc;
}

void campaign_free(struct campaign *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->nworkloads; i++) {
		free(c->workloads[i].name);
		free(c->workloads[i].steps);
	}
	free(c->workloads);
	free(c->target_path);
	free(c->name);
	free(c->path);
	free(c->text);
	free(c);
}
