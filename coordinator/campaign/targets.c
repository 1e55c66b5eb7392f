/* SPDX-License-Identifier: MIT */
/* target: or targets:, the sim device and the agents' labels per target. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileparse.h"
#include "nfsparse.h"
#include "targets.h"
#include "text.h"
#include "units.h"
#include "xalloc.h"

#define TARGETS_MAX_LABELS 64
#define TARGETS_ALIGN      4096u

static const char *const targets_one_keys[] = {"path", "size", "direct", "sim", "nfs", NULL};
static const char *const targets_named_keys[] = {"name", "path", "size",   "direct",
                                                 "sim",  "nfs",  "select", NULL};
static const char *const targets_select_keys[] = {"labels", NULL};
static const char *const targets_sim_keys[] = {
    "servers",    "service_time",       "service", "jitter", "stall",
    "rate_limit", "write_service_time", NULL};
static const char *const targets_stall_keys[] = {"after", "for", NULL};

int targets_labels(struct yamlnode_doc *y, const yaml_node_t *map, const char *what,
                   struct label **labels, size_t *nlabels)
{
	size_t n;

	if (map->type != YAML_MAPPING_NODE) {
		yamlnode_expected(y, map, what,
		                  "a mapping of label names to values such as {zone: a}");
		return -1;
	}
	n = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
	if (n > TARGETS_MAX_LABELS) {
		yamlnode_error(y, map, "%s: %zu labels; at most %d", what, n, TARGETS_MAX_LABELS);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const yaml_node_pair_t *p = &map->data.mapping.pairs.start[i];
		const yaml_node_t *k = yamlnode_get(y, p->key), *v = yamlnode_get(y, p->value);
		const char *key, *value;
		char label[192];

		if (yamlnode_string(y, k, what, &key) < 0)
			return -1;
		/* the agent takes --label KEY=VALUE: a key is a name, never holds '=' */
		if (!text_name_ok(key)) {
			yamlnode_expected(y, k, what,
			                  "label names of letters, digits, '.', '_' and '-'");
			return -1;
		}
		for (size_t j = 0; j < *nlabels; j++) {
			if (strcmp((*labels)[j].key, key) == 0) {
				yamlnode_error(y, k, "%s: duplicate label '%s' (keep one)", what,
				               key);
				return -1;
			}
		}
		snprintf(label, sizeof(label), "%s.%s", what, key);
		if (yamlnode_string(y, v, label, &value) < 0)
			return -1;
		label_add(labels, nlabels, key, value);
	}
	return 0;
}

/* PRE.KEY into buf, for messages (cut short if it must). */
static void targets_label(char *buf, size_t len, const char *pre, const char *key)
{
	if (snprintf(buf, len, "%s.%s", pre, key) < 0)
		buf[0] = '\0';
}

/* jitter: "10%" or 10: the spread of the simulated service time. */
static int targets_percent(struct yamlnode_doc *y, const yaml_node_t *n, const char *label,
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

/* sim.rate_limit: a rate in ops/s above 0, written as other rates are ("5000", "5k"). */
static int targets_rate_limit(struct yamlnode_doc *y, const yaml_node_t *n, const char *label,
                              double *ops)
{
	struct error uerr;
	const char *s;

	if (yamlnode_string(y, n, label, &s) < 0)
		return -1;
	if (units_parse_rate(s, ops, &uerr) < 0) {
		yamlnode_error(y, n, "%s: %s", label, uerr.msg);
		return -1;
	}
	if (!(*ops > 0) || !isfinite(*ops)) {
		yamlnode_expected(y, n, label, "a rate in ops/s above 0, such as 5000 or 5k");
		return -1;
	}
	return 0;
}

/*
 * service_time: {default: 200us, stat: 20us, create: 500us}: a file operation's own by its
 * kind, every other operation's the default's.
 */
static int targets_sim_kinds(struct yamlnode_doc *y, const yaml_node_t *n, const char *label,
                             struct campaign_sim *sim)
{
	yaml_node_t *d;
	char l[200];

	if (yamlnode_require(y, n, "default", label, &d) < 0 ||
	    yamlnode_duration(y, d, label, &sim->service_ns) < 0)
		return -1;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yamlnode_get(y, p->key), *v = yamlnode_get(y, p->value);
		const char *name =
		    k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "";
		enum fileop op;

		if (strcmp(name, "default") == 0)
			continue;
		snprintf(l, sizeof(l), "%s key", label);
		if (fileparse_op(y, k, l, &op) < 0)
			return -1;
		snprintf(l, sizeof(l), "%s.%s", label, name);
		if (yamlnode_duration(y, v, l, &sim->op_service_ns[op]) < 0)
			return -1;
		if (sim->op_service_ns[op] == 0) {
			yamlnode_expected(y, v, l, "a duration above 0");
			return -1;
		}
		sim->op_service = true;
	}
	return 0;
}

/*
 * sim: {servers: 4, service_time: 200us, jitter: 10%, stall: {after: N, for: 100ms}};
 * pre names the target in messages ("target", "targets.fast").
 */
static int targets_sim(struct yamlnode_doc *y, const yaml_node_t *map, const char *pre,
                       struct campaign_sim *sim)
{
	char l[160], l2[160];
	yaml_node_t *n, *stall;

	targets_label(l, sizeof(l), pre, "sim");
	if (yamlnode_check_mapping(y, map, l, l, targets_sim_keys) < 0)
		return -1;
	sim->enabled = true;
	sim->servers = 1;
	targets_label(l2, sizeof(l2), l, "servers");
	if ((n = yamlnode_lookup(y, map, "servers")) != NULL &&
	    yamlnode_uint(y, n, l2, 1, 1024, &sim->servers) < 0)
		return -1;
	targets_label(l2, sizeof(l2), l, "service_time");
	if (yamlnode_require(y, map, "service_time", l, &n) < 0)
		return -1;
	if (n->type == YAML_MAPPING_NODE) {
		if (targets_sim_kinds(y, n, l2, sim) < 0)
			return -1;
	} else if (yamlnode_duration(y, n, l2, &sim->service_ns) < 0) {
		return -1;
	}
	if (sim->service_ns == 0) {
		yamlnode_expected(y, n, l2, "a duration above 0");
		return -1;
	}
	targets_label(l2, sizeof(l2), l, "jitter");
	if ((n = yamlnode_lookup(y, map, "jitter")) != NULL &&
	    targets_percent(y, n, l2, &sim->jitter_pct) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, map, "service")) != NULL) {
		const char *s;

		targets_label(l2, sizeof(l2), l, "service");
		if (yamlnode_string(y, n, l2, &s) < 0)
			return -1;
		if (strcmp(s, "fixed") != 0 && strcmp(s, "exponential") != 0) {
			yamlnode_expected(y, n, l2, "fixed or exponential");
			return -1;
		}
		sim->exponential = strcmp(s, "exponential") == 0;
	}
	/* Writes slower (or faster) than reads: read and write apart can be told apart. */
	targets_label(l2, sizeof(l2), l, "write_service_time");
	if ((n = yamlnode_lookup(y, map, "write_service_time")) != NULL) {
		if (yamlnode_duration(y, n, l2, &sim->write_service_ns) < 0)
			return -1;
		if (sim->write_service_ns == 0) {
			yamlnode_expected(y, n, l2, "a duration above 0");
			return -1;
		}
	}
	targets_label(l2, sizeof(l2), l, "rate_limit");
	if ((n = yamlnode_lookup(y, map, "rate_limit")) != NULL &&
	    targets_rate_limit(y, n, l2, &sim->rate_limit) < 0)
		return -1;
	if ((stall = yamlnode_lookup(y, map, "stall")) == NULL)
		return 0;
	targets_label(l2, sizeof(l2), l, "stall");
	if (yamlnode_check_mapping(y, stall, l2, l2, targets_stall_keys) < 0 ||
	    yamlnode_require(y, stall, "after", l2, &n) < 0)
		return -1;
	{
		uint32_t after;
		char l3[192];

		targets_label(l3, sizeof(l3), l2, "after");
		if (yamlnode_uint(y, n, l3, 1, UINT32_MAX, &after) < 0)
			return -1;
		sim->stall_after_ops = after;
		if (yamlnode_require(y, stall, "for", l2, &n) < 0)
			return -1;
		targets_label(l3, sizeof(l3), l2, "for");
		if (yamlnode_duration(y, n, l3, &sim->stall_ns) < 0)
			return -1;
	}
	return 0;
}

/* path, size, direct, sim of one target; pre names it in messages. */
static int targets_one(struct yamlnode_doc *y, const yaml_node_t *map, const char *pre,
                       struct campaign_target *t)
{
	yaml_node_t *path, *size, *direct, *sim, *nfs;
	char l[160];
	const char *s;

	t->direct = true;
	direct = yamlnode_lookup(y, map, "direct");
	targets_label(l, sizeof(l), pre, "direct");
	if (direct != NULL && yamlnode_bool(y, direct, l, &t->direct) < 0)
		return -1;
	sim = yamlnode_lookup(y, map, "sim");
	nfs = yamlnode_lookup(y, map, "nfs");
	targets_label(l, sizeof(l), pre, "size");
	if (nfs != NULL) {
		if (yamlnode_lookup(y, map, "path") != NULL || sim != NULL) {
			yamlnode_error(y, map,
			               "%s: use one of 'path', 'sim' and 'nfs' (the path goes in "
			               "nfs.path)",
			               pre);
			return -1;
		}
		if (nfsparse_target(y, nfs, pre, &t->nfs, &t->path) < 0)
			return -1;
		/* the agent's own client has no cache to bypass: nothing is O_DIRECT */
		if (direct == NULL)
			t->direct = false;
		return yamlnode_require(y, map, "size", pre, &size) < 0 ||
		               yamlnode_size(y, size, l, &t->size) < 0
		           ? -1
		           : 0;
	}
	if (sim != NULL) {
		if (yamlnode_lookup(y, map, "path") != NULL) {
			yamlnode_error(y, map, "%s: use either 'path' or 'sim', not both", pre);
			return -1;
		}
		if (targets_sim(y, sim, pre, &t->sim) < 0)
			return -1;
		/* a simulated device has offsets but no bytes: 1GiB unless told */
		t->size = 1ull << 30;
		size = yamlnode_lookup(y, map, "size");
		if (size != NULL && yamlnode_size(y, size, l, &t->size) < 0)
			return -1;
		return 0;
	}
	{
		char lp[160];

		snprintf(lp, sizeof(lp), "%s.path", pre);
		if (yamlnode_require(y, map, "path", pre, &path) < 0 ||
		    yamlnode_string(y, path, lp, &s) < 0)
			return -1;
		/* agents resolve it against their own allow-list: relative would mean nothing */
		if (s[0] != '/') {
			yamlnode_expected(y, path, lp, "an absolute path such as /mnt/test");
			return -1;
		}
		if (y->plan && text_path_unplain(s) != NULL) {
			yamlnode_error(y, path,
			               "%s: the path has %s; a plan to resume may name only plain "
			               "absolute paths",
			               lp, text_path_unplain(s));
			return -1;
		}
	}
	t->path = xstrdup(s);
	/* a block device may leave the size out: all of it */
	size = yamlnode_lookup(y, map, "size");
	if (size == NULL && strncmp(s, "/dev/", 5) == 0)
		return 0;
	if (yamlnode_require(y, map, "size", pre, &size) < 0 ||
	    yamlnode_size(y, size, l, &t->size) < 0)
		return -1;
	return 0;
}

long targets_find(const struct campaign *c, const char *name)
{
	for (size_t i = 0; i < c->ntargets; i++)
		if (c->targets[i].name != NULL && strcmp(c->targets[i].name, name) == 0)
			return (long)i;
	return -1;
}

/* One entry of targets:: {name: fast, path: ..., select: {labels: {class: fast}}}. */
static int targets_named(struct yamlnode_doc *y, const yaml_node_t *map, size_t index,
                         struct campaign *c)
{
	struct campaign_target *t = &c->targets[c->ntargets];
	yaml_node_t *n, *sel;
	char what[160];
	const char *name;

	snprintf(what, sizeof(what), "target %zu of targets", index + 1);
	if (yamlnode_check_mapping(y, map, "targets", what, targets_named_keys) < 0 ||
	    yamlnode_require(y, map, "name", what, &n) < 0 ||
	    yamlnode_string(y, n, "targets.name", &name) < 0)
		return -1;
	/* a name becomes part of workload and file names: WORKLOAD@TARGET */
	if (name[0] == '\0' || !text_name_ok(name)) {
		yamlnode_expected(y, n, "targets.name", "letters, digits, '.', '_' and '-' only");
		return -1;
	}
	if (targets_find(c, name) >= 0) {
		yamlnode_error(y, n,
		               "targets.name: target '%s' is already defined (names must be "
		               "unique; rename one)",
		               name);
		return -1;
	}
	memset(t, 0, sizeof(*t));
	t->name = xstrdup(name);
	c->ntargets++;
	snprintf(what, sizeof(what), "targets.%s", name);
	if (targets_one(y, map, what, t) < 0)
		return -1;
	if ((sel = yamlnode_lookup(y, map, "select")) == NULL)
		return 0;
	snprintf(what, sizeof(what), "targets.%s.select", name);
	if (yamlnode_check_mapping(y, sel, what, what, targets_select_keys) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, sel, "labels")) == NULL)
		return 0;
	snprintf(what, sizeof(what), "targets.%s.select.labels", name);
	return targets_labels(y, n, what, &t->labels, &t->nlabels);
}

int targets_parse(struct yamlnode_doc *y, const yaml_node_t *root, struct campaign *c)
{
	yaml_node_t *one = yamlnode_lookup(y, root, "target");
	yaml_node_t *list = yamlnode_lookup(y, root, "targets");
	size_t n;

	if (one != NULL && list != NULL) {
		yamlnode_error(y, list,
		               "targets: the campaign has 'target' already; give either 'target' "
		               "(one) or 'targets' (a list of named targets), not both");
		return -1;
	}
	if (one == NULL && list == NULL) {
		yamlnode_error(y, root,
		               "campaign is missing 'target' (or 'targets', a list of named "
		               "targets)");
		return -1;
	}
	if (one != NULL) {
		if (yamlnode_check_mapping(y, one, "target", "target", targets_one_keys) < 0)
			return -1;
		c->targets = xcalloc(1, sizeof(*c->targets));
		c->ntargets = 1;
		return targets_one(y, one, "target", &c->targets[0]);
	}
	c->multi_target = true;
	if (list->type != YAML_SEQUENCE_NODE ||
	    (n = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start)) == 0 ||
	    n > CAMPAIGN_MAX_TARGETS) {
		yamlnode_expected(y, list, "targets",
		                  "a list of 1 to 64 named targets such as [{name: fast, path: "
		                  "/mnt/fast, size: 1GiB}]");
		return -1;
	}
	c->targets = xcalloc(n, sizeof(*c->targets));
	for (size_t i = 0; i < n; i++)
		if (targets_named(y, yamlnode_get(y, list->data.sequence.items.start[i]), i, c) < 0)
			return -1;
	return 0;
}

/* The size node of target i as written, NULL when it has none (a block device). */
static const yaml_node_t *targets_size_node(struct yamlnode_doc *y, const yaml_node_t *root,
                                            const struct campaign *c, size_t i)
{
	const yaml_node_t *t;

	if (!c->multi_target)
		t = yamlnode_lookup(y, root, "target");
	else
		t = yamlnode_get(y,
		                 yamlnode_lookup(y, root, "targets")->data.sequence.items.start[i]);
	return yamlnode_lookup(y, t, "size");
}

/* Whether one agent can carry both label sets: no key with two values. */
static bool targets_labels_agree(const struct label *a, size_t na, const struct label *b, size_t nb)
{
	for (size_t i = 0; i < na; i++)
		for (size_t k = 0; k < nb; k++)
			if (strcmp(a[i].key, b[k].key) == 0 && strcmp(a[i].value, b[k].value) != 0)
				return false;
	return true;
}

static bool targets_used(const struct campaign *c, size_t i)
{
	for (size_t k = 0; k < c->nworkloads; k++)
		if (c->workloads[k].target == i)
			return true;
	return false;
}

/*
 * select mode: an agent must carry the campaign's labels and its target's, and
 * targets whose labels disagree (class=fast, class=slow) need agents of their own.
 * Refused at load when a target's labels contradict the campaign's, or when count
 * is below a set of targets that pairwise disagree (found greedily: a lower bound
 * on the agents needed, so a campaign that could run is never refused).
 */
static int targets_check_select(struct yamlnode_doc *y, const yaml_node_t *root,
                                const struct campaign *c)
{
	size_t apart[CAMPAIGN_MAX_TARGETS], n = 0, used = 0;
	const yaml_node_t *agents = yamlnode_lookup(y, root, "agents");
	const yaml_node_t *sel = yamlnode_lookup(y, agents, "select");
	char names[512], labels[512];

	if (c->agents_mode != CAMPAIGN_AGENTS_SELECT || !c->multi_target)
		return 0;
	for (size_t i = 0; i < c->ntargets; i++) {
		const struct campaign_target *t = &c->targets[i];
		bool alone = true;

		if (!targets_used(c, i) || t->nlabels == 0)
			continue;
		if (!targets_labels_agree(t->labels, t->nlabels, c->labels, c->nlabels)) {
			label_format(t->labels, t->nlabels, ",", labels, sizeof(labels));
			label_format(c->labels, c->nlabels, ",", names, sizeof(names));
			const yaml_node_t *tn = yamlnode_get(
			    y, yamlnode_lookup(y, root, "targets")->data.sequence.items.start[i]);

			yamlnode_error(
			    y, yamlnode_lookup(y, yamlnode_lookup(y, tn, "select"), "labels"),
			    "targets.%s.select.labels: %s contradicts agents.select.labels "
			    "%s: no agent can carry both; make them agree",
			    t->name, labels, names);
			return -1;
		}
		for (size_t k = 0; k < n && alone; k++)
			alone = !targets_labels_agree(t->labels, t->nlabels,
			                              c->targets[apart[k]].labels,
			                              c->targets[apart[k]].nlabels);
		if (alone)
			apart[n++] = i;
	}
	if (n <= c->agents_count)
		return 0;
	names[0] = labels[0] = '\0';
	for (size_t k = 0; k < n; k++) {
		const struct campaign_target *t = &c->targets[apart[k]];
		size_t ln = strlen(labels);

		used +=
		    (size_t)snprintf(names + used, used < sizeof(names) ? sizeof(names) - used : 0,
		                     "%s%s", k ? ", " : "", t->name);
		if (used >= sizeof(names))
			used = sizeof(names) - 1;
		if (ln + 2 < sizeof(labels)) {
			snprintf(labels + ln, sizeof(labels) - ln, "%s", k ? "; " : "");
			ln = strlen(labels);
			label_format(t->labels, t->nlabels, ",", labels + ln, sizeof(labels) - ln);
		}
	}
	yamlnode_error(y, yamlnode_lookup(y, sel, "count"),
	               "agents.select.count: %u agent(s) cannot drive targets %s: their "
	               "select.labels disagree (%s), so each needs an agent of its own; raise "
	               "count to %zu",
	               c->agents_count, names, labels, n);
	return -1;
}

/* The target must hold a whole block of every workload, in O_DIRECT-friendly units. */
int targets_check(struct yamlnode_doc *y, const yaml_node_t *root, const struct campaign *c)
{
	for (size_t i = 0; i < c->ntargets; i++) {
		const struct campaign_target *t = &c->targets[i];
		const yaml_node_t *n = targets_size_node(y, root, c, i);
		char l[160];
		const char *text;

		if (n == NULL)
			continue; /* a block device: its own size, checked by the agent */
		if (t->name != NULL)
			snprintf(l, sizeof(l), "targets.%s.size", t->name);
		else
			snprintf(l, sizeof(l), "target.size");
		text = (const char *)n->data.scalar.value;
		if (t->size == 0 || t->size % TARGETS_ALIGN != 0) {
			yamlnode_expected(y, n, l, "a multiple of 4KiB");
			return -1;
		}
		for (size_t k = 0; k < c->nworkloads; k++) {
			const struct workload *w = &c->workloads[k];
			char bs[32];

			if (w->target != i || t->size >= w->io.block_size)
				continue;
			units_format_size(w->io.block_size, bs, sizeof(bs));
			yamlnode_error(y, n,
			               "%s: %s is smaller than block_size %s of workload '%s'; "
			               "make the target at least one block",
			               l, text, bs, w->test);
			return -1;
		}
	}
	return targets_check_select(y, root, c);
}

void targets_free(struct campaign_target *t, size_t n)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < n; i++) {
		free(t[i].name);
		free(t[i].path);
		nfsparse_free(&t[i].nfs);
		label_free(t[i].labels, t[i].nlabels);
	}
	free(t);
}
