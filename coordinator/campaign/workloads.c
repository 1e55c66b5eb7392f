/* SPDX-License-Identifier: MIT */
/* The workloads: list: settings inherited from the top level, matrices expanded, names checked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "background.h"
#include "clock.h"
#include "fileparse.h"
#include "loadspec.h"
#include "mixparse.h"
#include "sizeparse.h"
#include "replayspec.h"
#include "syncs.h"
#include "targets.h"
#include "text.h"
#include "units.h"
#include "slots.h"
#include "wlcheck.h"
#include "wlmatrix.h"
#include "workloads.h"
#include "xalloc.h"

#define WORKLOADS_MIN_INTERVAL_NS 100000000ULL
#define WORKLOADS_MAX_EXTEND      1000
/* steady: left out (workloads_steady_default) */
#define WORKLOADS_UNSET_EXTEND UINT32_MAX
#define WORKLOADS_UNSET_BUDGET UINT64_MAX
#define WORKLOADS_EXTEND_TIMES 3
#define WORKLOADS_BUDGET_TIMES 4
/* retry: at most this many more runs of a step whose client was disturbed. */
#define WORKLOADS_MAX_RETRY 10

static const char *const workloads_before[] = {"name", NULL};
static const char *const workloads_after[] = {"zip", "targets", NULL};
static const char *const workloads_steady_keys[] = {"extend", "budget", NULL};

/*
 * Where the timing settings came from, so a mismatch between them can point
 * at the line the user has to change rather than at the workload as a whole.
 */
struct workloads_origin {
	const yaml_node_t *interval;
	const yaml_node_t *warmup;
	const yaml_node_t *measure;
};

/* What the top level gives every workload. */
struct workloads_top {
	struct workload defaults;
	struct workloads_origin origin;
	struct wlmatrix_axis axes[WLMATRIX_NAXES];
	const yaml_node_t *load;
};

/* One entry of workloads: while it expands into workloads. */
struct workloads_entry {
	const yaml_node_t *node;
	const yaml_node_t *name_node; /* NULL: a matrix that leaves its name out */
	const char *name;
	char what[160]; /* "workload 'a'" or "workload 3", for messages */
	struct workload base;
	struct workloads_origin own;
	struct wlmatrix m; /* its lists, and how they zip */
	const yaml_node_t *load;
	bool matrix;
	/* targets: the campaign's targets it runs on (all unless it names some), in order */
	uint32_t targets[CAMPAIGN_MAX_TARGETS];
	size_t ntargets;
	bool direct_given; /* direct: set here or at the top: the target's does not apply */
};

/* A key a matrix varies, given a single value here (a list is the matrix's to read). */
static int workloads_scalar(struct yamlnode_doc *y, const yaml_node_t *map, int axis,
                            struct workload *w)
{
	yaml_node_t *n = yamlnode_lookup(y, map, wlmatrix_key(axis));

	if (n == NULL || n->type == YAML_SEQUENCE_NODE)
		return 0;
	/* block_size: {4KiB: 60, 64KiB: 40}: one stream of several sizes, not a matrix */
	if (axis == WLMATRIX_BS && n->type == YAML_MAPPING_NODE)
		return sizeparse_dist(y, n, "block_size", &w->io.mix.sizes, &w->io.block_size);
	w->io.mix.sizes.n = axis == WLMATRIX_BS ? 0 : w->io.mix.sizes.n;
	return wlmatrix_set(y, axis, n, w);
}

static int workloads_steady(struct yamlnode_doc *y, const yaml_node_t *map, struct workload *w)
{
	yaml_node_t *n;

	if (yamlnode_check_mapping(y, map, "steady", "steady", workloads_steady_keys) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, map, "extend")) != NULL &&
	    yamlnode_uint(y, n, "steady.extend", 0, WORKLOADS_MAX_EXTEND, &w->steady_extend) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, map, "budget")) != NULL &&
	    yamlnode_duration(y, n, "steady.budget", &w->steady_budget_ns) < 0)
		return -1;
	return 0;
}

/*
 * steady: left out: a step whose interval straddles the SLO runs on up to three times its
 * measured intervals (halving its interval's width), within the most a step may hold, and
 * the workload's steps' extensions within four times its measure.
 */
static void workloads_steady_default(struct workload *w)
{
	uint64_t planned = (w->warmup_ns + w->measure_ns) / w->interval_ns;
	uint64_t more = WORKLOADS_EXTEND_TIMES * (w->measure_ns / w->interval_ns);

	if (w->steady_extend == WORKLOADS_UNSET_EXTEND)
		w->steady_extend = planned >= CAMPAIGN_MAX_STEP_INTERVALS ? 0
		                   : more > CAMPAIGN_MAX_STEP_INTERVALS - planned
		                       ? (uint32_t)(CAMPAIGN_MAX_STEP_INTERVALS - planned)
		                       : (uint32_t)more;
	if (w->steady_budget_ns == WORKLOADS_UNSET_BUDGET)
		w->steady_budget_ns = WORKLOADS_BUDGET_TIMES * w->measure_ns;
}

/* A key the workloads' own code reads (SETTING_HAND), into w. */
static int workloads_hand(struct yamlnode_doc *y, const yaml_node_t *map, const char *key,
                          struct workload *w, struct workloads_origin *o)
{
	yaml_node_t *n = yamlnode_lookup(y, map, key);

	/* load: and replay: are read per workload, later */
	if (n == NULL || strcmp(key, "load") == 0 || strcmp(key, "replay") == 0)
		return 0;
	if (strcmp(key, "interval") == 0) {
		if (yamlnode_duration(y, n, "interval", &w->interval_ns) < 0)
			return -1;
		/* shorter intervals cost more in records than they tell */
		if (w->interval_ns < WORKLOADS_MIN_INTERVAL_NS) {
			yamlnode_expected(y, n, "interval", "at least 100ms");
			return -1;
		}
		/* the agents' own ceiling (common/setting.h): one limit on both sides */
		if (w->interval_ns > SETTING_MAX_INTERVAL_NS) {
			yamlnode_expected(y, n, "interval", "at most 1h");
			return -1;
		}
		o->interval = n;
	} else if (strcmp(key, "warmup") == 0) {
		if (yamlnode_duration(y, n, "warmup", &w->warmup_ns) < 0)
			return -1;
		o->warmup = n;
	} else if (strcmp(key, "measure") == 0) {
		if (yamlnode_duration(y, n, "measure", &w->measure_ns) < 0)
			return -1;
		if (w->measure_ns == 0) {
			yamlnode_expected(y, n, "measure", "a duration above 0s");
			return -1;
		}
		o->measure = n;
	} else if (strcmp(key, "steady") == 0) {
		return workloads_steady(y, n, w);
	} else if (strcmp(key, "mix") == 0) {
		return mixparse_read(y, n, &w->io);
	} else if (strcmp(key, "fileset") == 0) {
		return fileparse_fileset(y, n, &w->io.mix.fileset);
	} else if (strcmp(key, "op") == 0) {
		return fileparse_op(y, n, "op", &w->io.mix.op);
	} else if (strcmp(key, "retry") == 0) {
		return yamlnode_uint(y, n, "retry", 0, WORKLOADS_MAX_RETRY, &w->retry);
	}
	return 0;
}

/*
 * Read the settings a workload can inherit, row by row in the table's order; keys
 * that are absent keep w's values. The keys a matrix varies are read here one value
 * at a time (a list is workloads_axes'), the others by their rows or by hand.
 */
static int workloads_settings(struct yamlnode_doc *y, const yaml_node_t *map, struct workload *w,
                              struct workloads_origin *o)
{
	for (size_t i = 0; i < setting_count; i++) {
		const struct setting *s = &setting_table[i];
		int axis = wlmatrix_axis_of(s), rc;

		if (axis >= 0)
			rc = workloads_scalar(y, map, axis, w);
		else if (s->type == SETTING_HAND)
			rc = workloads_hand(y, map, s->key, w, o);
		else
			rc = access_setting(y, map, s, &w->io);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/*
 * One workload of the entry (the only one unless it is a matrix) on target ti:
 * load, checks, unique name. With targets: its name is TEST@TARGET.
 */
static int workloads_add_on(struct yamlnode_doc *y, const yaml_node_t *root,
                            const struct workloads_entry *e, const struct workloads_top *top,
                            const struct workload *combo, uint32_t ti, struct campaign *c)
{
	struct workload *w = &c->workloads[c->nworkloads++];
	char lwhat[192];

	*w = *combo;
	w->steps = NULL;
	w->test = e->matrix ? wlmatrix_name(&e->m, e->name, w) : xstrdup(e->name);
	w->target = ti;
	w->name =
	    c->multi_target ? xasprintf("%s@%s", w->test, c->targets[ti].name) : xstrdup(w->test);
	if (!e->direct_given)
		w->io.direct = c->targets[ti].direct;
	snprintf(lwhat, sizeof(lwhat), "load of %s", e->what);
	if (e->load == top->load) {
		/* the top level's load: a plain rate must mean what it says for this one */
		char wname[160];

		snprintf(wname, sizeof(wname), "workload '%s'", w->name);
		if (loadspec_parse_inherited(y, e->load, lwhat, wname, w) < 0)
			return -1;
	} else if (loadspec_parse(y, e->load, lwhat, w) < 0) {
		return -1;
	}
	if (w->work.on)
		wlcheck_fix_work(w);
	/*
	 * A trace's operations carry their own sizes and kinds: a mix or a size distribution
	 * beside it would name parts no operation is in.
	 */
	if ((w->io.mix.nparts > 0 || w->io.mix.sizes.n > 0) &&
	    yamlnode_lookup(y, e->node, "replay") != NULL) {
		yamlnode_error(y, yamlnode_lookup(y, e->node, "replay"),
		               "replay: workload '%s' replays a trace, whose operations have their "
		               "own sizes and kinds; leave its %s out",
		               w->name, w->io.mix.nparts > 0 ? "mix" : "block_size distribution");
		return -1;
	}
	if (replayspec_parse(y, e->node, e->load, c, w) < 0)
		return -1;
	workloads_steady_default(w);
	if (wlcheck_multiple(y, e->node, w, "warmup", w->warmup_ns, e->own.warmup, e->own.interval,
	                     top->origin.warmup, top->origin.interval) < 0 ||
	    wlcheck_multiple(y, e->node, w, "measure", w->measure_ns, e->own.measure,
	                     e->own.interval, top->origin.measure, top->origin.interval) < 0 ||
	    wlcheck_count(y, e->node, w, e->own.measure, top->origin.measure) < 0)
		return -1;
	/* the common mixed test is 75/25 random; a sequential mix defaults to half */
	if (w->io.read_pct == SETTING_READ_PCT_UNSET)
		w->io.read_pct = w->io.rw == RW_RW ? 50 : 75;
	/* a mix's rw, read_pct and block_size are its parts' (a file set's: its kinds') */
	if (fileparse_finish(y, e->node, w->name, &w->io) < 0)
		return -1;
	mixparse_finish(&w->io);
	/* no queue_depth given (0 until here): slots that follow the load */
	if (w->io.queue_depth == 0)
		w->io.queue_depth = slots_depth(c, w, &w->qd_sized);
	if (wlcheck_access(y, root, e->node, c, w) < 0 || wlcheck_work(y, e->load, c, w) < 0)
		return -1;
	{
		const yaml_node_t *bg = yamlnode_lookup(y, e->node, "background");

		if (background_check(y, e->load, bg != NULL ? bg : e->node, c, w) < 0)
			return -1;
	}
	for (size_t j = 0; j + 1 < c->nworkloads; j++) {
		if (strcmp(c->workloads[j].name, w->name) != 0)
			continue;
		if (e->matrix)
			yamlnode_error(y, e->name_node ? e->name_node : e->node,
			               "%sworkload '%s' from the matrix of %s is already defined "
			               "(names must be unique; rename one)",
			               e->name_node ? "name: " : "", w->test, e->what);
		else
			yamlnode_error(y, e->name_node,
			               "name: workload '%s' is already defined (names must be "
			               "unique; rename one)",
			               w->test);
		return -1;
	}
	return 0;
}

/* The combination on each of the entry's targets. */
static int workloads_add(struct yamlnode_doc *y, const yaml_node_t *root,
                         const struct workloads_entry *e, const struct workloads_top *top,
                         const struct workload *combo, struct campaign *c)
{
	for (size_t i = 0; i < e->ntargets; i++)
		if (workloads_add_on(y, root, e, top, combo, e->targets[i], c) < 0)
			return -1;
	return 0;
}

/*
 * targets: [fast, slow] (or one name): the campaign's targets (a targets: list)
 * the workload runs on, each once; all of them when it names none.
 */
static int workloads_targets(struct yamlnode_doc *y, struct workloads_entry *e,
                             const struct campaign *c)
{
	yaml_node_t *n = yamlnode_lookup(y, e->node, "targets");
	size_t count;

	e->ntargets = 0;
	if (n == NULL) {
		for (size_t i = 0; i < c->ntargets; i++)
			e->targets[e->ntargets++] = (uint32_t)i;
		return 0;
	}
	if (!c->multi_target) {
		yamlnode_error(y, n,
		               "targets: %s names targets, but the campaign has one (target:); "
		               "give the campaign a targets: list of named targets",
		               e->what);
		return -1;
	}
	if (n->type == YAML_SCALAR_NODE)
		count = 1;
	else if (n->type == YAML_SEQUENCE_NODE &&
	         (count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start)) > 0)
		;
	else {
		yamlnode_expected(y, n, "targets", "a list of target names such as [fast, slow]");
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		const yaml_node_t *k = n->type == YAML_SCALAR_NODE
		                           ? n
		                           : yamlnode_get(y, n->data.sequence.items.start[i]);
		const char *name;
		long ti;

		if (yamlnode_string(y, k, "targets", &name) < 0)
			return -1;
		if ((ti = targets_find(c, name)) < 0) {
			char names[512] = "";

			for (size_t j = 0; j < c->ntargets; j++) {
				size_t off = strlen(names);

				snprintf(names + off, sizeof(names) - off, "%s%s", j ? ", " : "",
				         c->targets[j].name);
			}
			yamlnode_error(y, k,
			               "targets: %s names target '%s', which is not defined "
			               "(targets: %s)",
			               e->what, name, names);
			return -1;
		}
		for (size_t j = 0; j < e->ntargets; j++)
			if (e->targets[j] == (uint32_t)ti) {
				yamlnode_error(y, k, "targets: %s names target '%s' twice", e->what,
				               name);
				return -1;
			}
		e->targets[e->ntargets++] = (uint32_t)ti;
	}
	return 0;
}

/* Every combination of the entry's lists, the first list outermost, values in written order. */
static int workloads_expand(struct yamlnode_doc *y, const yaml_node_t *root,
                            const struct workloads_entry *e, const struct workloads_top *top,
                            struct campaign *c)
{
	size_t idx[WLMATRIX_NAXES] = {0};

	do {
		struct workload w = e->base;

		wlmatrix_combo(&e->m, idx, &w);
		if (workloads_add(y, root, e, top, &w, c) < 0)
			return -1;
	} while (wlmatrix_next(&e->m, &e->base, idx));
	return 0;
}

/* The entry's name: required, unless a matrix generates it from its lists. */
static int workloads_name(struct yamlnode_doc *y, struct workloads_entry *e)
{
	yaml_node_t *n = yamlnode_lookup(y, e->node, "name");

	if (n == NULL && e->matrix)
		return 0;
	if (n == NULL) {
		yamlnode_error(y, e->node,
		               "%s is missing 'name' (only a matrix, a workload with a list of "
		               "rw, block_size, read_pct or queue_depth, may leave it out)",
		               e->what);
		return -1;
	}
	if (yamlnode_string(y, n, "name", &e->name) < 0)
		return -1;
	/* names become file names in the results directory */
	if (!text_name_ok(e->name)) {
		yamlnode_expected(y, n, "name", "letters, digits, '.', '_' and '-' only");
		return -1;
	}
	e->name_node = n;
	return 0;
}

/* One entry of workloads:, starting from the top-level defaults. */
static int workloads_entry(struct yamlnode_doc *y, const yaml_node_t *root, const yaml_node_t *node,
                           size_t index, const struct workloads_top *top, struct campaign *c)
{
	struct wlmatrix_axis own[WLMATRIX_NAXES];
	struct workloads_entry e = {.node = node, .base = top->defaults};
	const char *keys[WORKLOADS_MAX_KEYS];
	yaml_node_t *n;
	size_t count;

	/* name the workload in messages about its other keys, when it has one */
	snprintf(e.what, sizeof(e.what), "workload %zu", index + 1);
	if (node->type == YAML_MAPPING_NODE && (n = yamlnode_lookup(y, node, "name")) != NULL &&
	    n->type == YAML_SCALAR_NODE && n->data.scalar.length > 0 && n->data.scalar.length < 100)
		snprintf(e.what, sizeof(e.what), "workload '%s'",
		         (const char *)n->data.scalar.value);
	workloads_known(workloads_before, workloads_after, keys);
	if (background_check_select(y, node, e.what) < 0 ||
	    yamlnode_check_mapping(y, node, "workloads", e.what, keys) < 0 ||
	    workloads_settings(y, node, &e.base, &e.own) < 0 ||
	    wlmatrix_axes(y, node, &e.base, own) < 0)
		return -1;
	/* a list of the workload's own wins; a value of its own hides a top-level list */
	for (int a = 0; a < WLMATRIX_NAXES; a++) {
		if (own[a].list != NULL)
			e.m.axes[a] = &own[a];
		else if (yamlnode_lookup(y, node, wlmatrix_key(a)) == NULL &&
		         top->axes[a].list != NULL)
			e.m.axes[a] = &top->axes[a];
		e.matrix |= e.m.axes[a] != NULL;
	}
	if (workloads_name(y, &e) < 0 || wlmatrix_zip(y, node, e.what, &e.m) < 0 ||
	    workloads_targets(y, &e, c) < 0)
		return -1;
	e.direct_given = yamlnode_lookup(y, node, "direct") != NULL ||
	                 yamlnode_lookup(y, root, "direct") != NULL;
	/* a top-level list of read_pct simply does not apply to a workload that is no mix */
	if (own[WLMATRIX_PCT].list != NULL && !wlmatrix_any_mix(&e.m, &e.base)) {
		yamlnode_error(y, own[WLMATRIX_PCT].list,
		               "read_pct: a list of read shares needs a mix (rw: rw or randrw) in "
		               "%s; give one value, or make rw a mix",
		               e.what);
		return -1;
	}
	count = wlmatrix_count(&e.m, &e.base) * e.ntargets;
	if (c->nworkloads + count > WORKLOADS_MAX) {
		yamlnode_error(y, node,
		               "%s: the campaign would have %zu workloads, at most %d (a matrix "
		               "makes one per combination of its lists); shorten the lists",
		               e.what, c->nworkloads + count, WORKLOADS_MAX);
		return -1;
	}
	e.load = yamlnode_lookup(y, node, "load");
	if (e.load == NULL)
		e.load = top->load;
	if (e.load == NULL) {
		yamlnode_error(y, node,
		               "%s is missing 'load' (or give load: at the top level, for every "
		               "workload)",
		               e.what);
		return -1;
	}
	c->workloads = xreallocarray(c->workloads, c->nworkloads + count, sizeof(*c->workloads));
	return workloads_expand(y, root, &e, top, c);
}

/* A load: at the top level is checked once, even if every workload gives its own. */
static int workloads_check_top_load(struct yamlnode_doc *y, const struct workloads_top *top)
{
	struct workload scratch = top->defaults;
	int rc = loadspec_parse(y, top->load, "load", &scratch);

	free(scratch.steps);
	return rc;
}

void workloads_known(const char *const *before, const char *const *after, const char **keys)
{
	size_t n = 0;

	for (size_t i = 0; before[i] != NULL; i++)
		keys[n++] = before[i];
	n += setting_keys(NULL, keys + n, WORKLOADS_MAX_KEYS - n);
	for (size_t i = 0; after[i] != NULL && n + 1 < WORKLOADS_MAX_KEYS; i++)
		keys[n++] = after[i];
	keys[n] = NULL;
}

int workloads_parse(struct yamlnode_doc *y, const yaml_node_t *root, const yaml_node_t *list,
                    struct campaign *c)
{
	struct workloads_top top = {
	    .defaults =
	        {
	            .interval_ns = NSEC_PER_SEC,
	            .warmup_ns = NSEC_PER_SEC,
	            .measure_ns = 5 * NSEC_PER_SEC,
	            .ramp_max_steps = 20,
	            .retry = 2,
	            .steady_extend = WORKLOADS_UNSET_EXTEND,
	            .steady_budget_ns = WORKLOADS_UNSET_BUDGET,
	        },
	};
	size_t n;

	setting_defaults(&top.defaults.io);
	/* read_pct's default is the mix's, set per workload; direct's the target's */
	top.defaults.io.read_pct = SETTING_READ_PCT_UNSET;
	top.defaults.io.direct = c->targets[0].direct;
	/* queue_depth's default is sized per workload from its load (slots.c) */
	top.defaults.io.queue_depth = 0;
	if (workloads_settings(y, root, &top.defaults, &top.origin) < 0 ||
	    wlmatrix_axes(y, root, &top.defaults, top.axes) < 0)
		return -1;
	if ((top.load = yamlnode_lookup(y, root, "replay")) != NULL) {
		yamlnode_error(y, top.load,
		               "replay: a trace is a workload's own; give replay: in the workload "
		               "that replays it");
		return -1;
	}
	top.load = yamlnode_lookup(y, root, "load");
	if (top.load != NULL && workloads_check_top_load(y, &top) < 0)
		return -1;
	if (list->type != YAML_SEQUENCE_NODE ||
	    list->data.sequence.items.top == list->data.sequence.items.start) {
		yamlnode_expected(y, list, "workloads", "a list of one or more workloads");
		return -1;
	}
	n = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *node = yamlnode_get(y, list->data.sequence.items.start[i]);

		if (workloads_entry(y, root, node, i, &top, c) < 0)
			return -1;
	}
	return background_check_campaign(y, list, c);
}
