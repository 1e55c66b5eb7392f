/* SPDX-License-Identifier: MIT */
/* Loading a campaign from YAML: check every key and value, then apply defaults. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "campaign.h"
#include "campsource.h"
#include "text.h"
#include "clock.h"
#include "saferead.h"
#include "units.h"
#include "targets.h"
#include "observe.h"
#include "trace.h"
#include "workloads.h"
#include "xalloc.h"
#include "yamlload.h"
#include "yamlnode.h"

#define CAMPAIGN_MAX_LOCAL  64
#define CAMPAIGN_MAX_SELECT 16384
/*
 * agents.caps: within what a campaign can ask (workers 256, queue depth 4096) and
 * the agent's own hard limits (sizes under 2^31 for blocks, 1PiB a file here).
 */
#define CAMPAIGN_CAP_WORKERS    256u
#define CAMPAIGN_CAP_QD         4096u
#define CAMPAIGN_CAP_BLOCK_SIZE (1u << 30)
#define CAMPAIGN_CAP_FILE_SIZE  (1ull << 50)

/* The top level's keys: these, the workload settings (defaults for all), then cooldown and observe.
 */
static const char *const campaign_keys_before[] = {
    "campaign", "agents", "target", "targets", "slo", "stop", "workloads", "percentiles", NULL};
static const char *const campaign_keys_after[] = {"cooldown", "observe", NULL};
static const char *const campaign_agents_keys[] = {"local",  "select", "wait", "on_agent_loss",
                                                   "detail", "caps",   NULL};
static const char *const campaign_caps_keys[] = {"workers", "queue_depth", "block_size",
                                                 "file_size", NULL};
static const char *const campaign_select_keys[] = {"count", "labels", NULL};
static const char *const campaign_slo_keys[] = {"latency", "metric", "from", "part", NULL};
static const char *const campaign_stop_keys[] = {"achieved", "ceiling", "errors", NULL};
static const char *const campaign_cooldown_keys[] = {"margin", "max", NULL};

/* Indexed by enum slo_metric. */
static const char *const campaign_metric_names[] = {"mean", "p50", "p90", "p99", "p99.9"};

const char *campaign_slo_metric_name(enum slo_metric m)
{
	return (unsigned)m < sizeof(campaign_metric_names) / sizeof(campaign_metric_names[0])
	           ? campaign_metric_names[m]
	           : "?";
}

const char *campaign_slo_label(const struct campaign *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s", c->slo_from_due ? "response" : "storage",
	         campaign_slo_metric_name(c->slo_metric));
	return buf;
}

/*
 * agents.detail: what each agent's line in intervals.jsonl holds. histograms: its
 * latency and service histograms (as the merged line does); counts: its counters,
 * mean and p99, and the histograms' count, sum, min and max without their bins. auto
 * (the default): histograms up to CAMPAIGN_DETAIL_AUTO agents, counts above, where
 * a fleet's bins would be tens of MB a second.
 */
static int campaign_detail(struct yamlnode_doc *y, const yaml_node_t *n, struct campaign *c)
{
	const char *s;

	c->agent_detail = CAMPAIGN_DETAIL_AUTO_MODE;
	if (n == NULL)
		return 0;
	if (yamlnode_string(y, n, "agents.detail", &s) < 0)
		return -1;
	if (strcmp(s, "histograms") == 0)
		c->agent_detail = CAMPAIGN_DETAIL_HISTOGRAMS;
	else if (strcmp(s, "counts") == 0)
		c->agent_detail = CAMPAIGN_DETAIL_COUNTS;
	else if (strcmp(s, "auto") != 0) {
		yamlnode_error(y, n, "agents.detail: '%s' is not histograms, counts or auto", s);
		return -1;
	}
	return 0;
}

/*
 * agents: {local: 2, caps: {workers: 64}}: what `iocurve run` passes its local agents
 * as --max-workers, --max-queue-depth, --max-block-size and --max-file-size, so a
 * campaign asking more than their defaults (32 workers per CPU, ...) runs here.
 */
static int campaign_caps(struct yamlnode_doc *y, const yaml_node_t *map, struct campaign *c)
{
	struct campaign_caps *k = &c->local_caps;
	yaml_node_t *n;

	if (yamlnode_check_mapping(y, map, "agents.caps", "agents.caps", campaign_caps_keys) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, map, "workers")) != NULL &&
	    yamlnode_uint(y, n, "agents.caps.workers", 1, CAMPAIGN_CAP_WORKERS, &k->workers) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, map, "queue_depth")) != NULL &&
	    yamlnode_uint(y, n, "agents.caps.queue_depth", 1, CAMPAIGN_CAP_QD, &k->queue_depth) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, map, "block_size")) != NULL) {
		uint64_t v;

		if (yamlnode_size(y, n, "agents.caps.block_size", &v) < 0)
			return -1;
		if (v < 512 || v > CAMPAIGN_CAP_BLOCK_SIZE) {
			yamlnode_expected(y, n, "agents.caps.block_size", "a size 512..1GiB");
			return -1;
		}
		k->block_size = (uint32_t)v;
	}
	if ((n = yamlnode_lookup(y, map, "file_size")) != NULL) {
		if (yamlnode_size(y, n, "agents.caps.file_size", &k->file_size) < 0)
			return -1;
		if (k->file_size < 4096 || k->file_size > CAMPAIGN_CAP_FILE_SIZE) {
			yamlnode_expected(y, n, "agents.caps.file_size", "a size 4KiB..1PiB");
			return -1;
		}
	}
	return 0;
}

static int campaign_agents(struct yamlnode_doc *y, const yaml_node_t *map, struct campaign *c)
{
	yaml_node_t *caps;

	yaml_node_t *local, *select, *wait, *count, *labels, *loss;

	if (yamlnode_check_mapping(y, map, "agents", "agents", campaign_agents_keys) < 0)
		return -1;
	local = yamlnode_lookup(y, map, "local");
	select = yamlnode_lookup(y, map, "select");
	wait = yamlnode_lookup(y, map, "wait");
	if ((loss = yamlnode_lookup(y, map, "on_agent_loss")) != NULL) {
		const char *s;

		if (yamlnode_string(y, loss, "agents.on_agent_loss", &s) < 0)
			return -1;
		if (strcmp(s, "continue") != 0 && strcmp(s, "abort") != 0) {
			yamlnode_error(y, loss,
			               "agents.on_agent_loss: '%s' is not continue or abort", s);
			return -1;
		}
		c->abort_on_agent_loss = strcmp(s, "abort") == 0;
	}
	if (campaign_detail(y, yamlnode_lookup(y, map, "detail"), c) < 0)
		return -1;
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
	if ((caps = yamlnode_lookup(y, map, "caps")) != NULL) {
		/* agents that dial in were started by someone else, with their own caps */
		if (local == NULL) {
			yamlnode_error(y, caps,
			               "agents.caps: only applies to 'local' (agents that dial in "
			               "take --max-workers etc. where they are started)");
			return -1;
		}
		if (campaign_caps(y, caps, c) < 0)
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
	c->agents_wait_ns = 60 * NSEC_PER_SEC;
	if (yamlnode_check_mapping(y, select, "agents.select", "agents.select",
	                           campaign_select_keys) < 0 ||
	    yamlnode_require(y, select, "count", "agents.select", &count) < 0 ||
	    yamlnode_uint(y, count, "agents.select.count", 1, CAMPAIGN_MAX_SELECT,
	                  &c->agents_count) < 0)
		return -1;
	if ((labels = yamlnode_lookup(y, select, "labels")) != NULL &&
	    targets_labels(y, labels, "agents.select.labels", &c->labels, &c->nlabels) < 0)
		return -1;
	if (wait != NULL && yamlnode_duration(y, wait, "agents.wait", &c->agents_wait_ns) < 0)
		return -1;
	return 0;
}

bool campaign_agent_histograms(const struct campaign *c)
{
	return c->agent_detail == CAMPAIGN_DETAIL_HISTOGRAMS ||
	       (c->agent_detail == CAMPAIGN_DETAIL_AUTO_MODE &&
	        c->agents_count <= CAMPAIGN_DETAIL_AUTO);
}

static int campaign_slo(struct yamlnode_doc *y, const yaml_node_t *map, struct campaign *c)
{
	yaml_node_t *n;

	if (yamlnode_check_mapping(y, map, "slo", "slo", campaign_slo_keys) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, map, "latency")) != NULL) {
		if (yamlnode_duration(y, n, "slo.latency", &c->slo_latency_ns) < 0)
			return -1;
		if (c->slo_latency_ns == 0 || c->slo_latency_ns > CAMPAIGN_MAX_SLO_NS) {
			yamlnode_expected(y, n, "slo.latency", "a latency above 0 and at most 1h");
			return -1;
		}
	}
	if ((n = yamlnode_lookup(y, map, "metric")) != NULL) {
		size_t i, count = sizeof(campaign_metric_names) / sizeof(campaign_metric_names[0]);

		for (i = 0; i < count; i++)
			if (n->type == YAML_SCALAR_NODE &&
			    strcmp((const char *)n->data.scalar.value, campaign_metric_names[i]) ==
			        0)
				break;
		if (i == count) {
			yamlnode_expected(y, n, "slo.metric", "mean, p50, p90, p99 or p99.9");
			return -1;
		}
		c->slo_metric = (enum slo_metric)i;
	}
	/* from: storage (submission to completion, the default) or due (the application's view) */
	if ((n = yamlnode_lookup(y, map, "from")) != NULL) {
		const char *from =
		    n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : "";

		if (strcmp(from, "due") != 0 && strcmp(from, "storage") != 0) {
			yamlnode_expected(y, n, "slo.from", "storage or due");
			return -1;
		}
		c->slo_from_due = strcmp(from, "due") == 0;
	}
	/* part: the knee judged on one part of each mix (checked once the workloads are read) */
	if ((n = yamlnode_lookup(y, map, "part")) != NULL) {
		const char *part;

		if (yamlnode_string(y, n, "slo.part", &part) < 0)
			return -1;
		if (!text_name_ok(part) || strlen(part) >= MIX_NAME_MAX) {
			yamlnode_expected(y, n, "slo.part", "the name of a part of the mix");
			return -1;
		}
		snprintf(c->slo_part, sizeof(c->slo_part), "%s", part);
	}
	return 0;
}

/*
 * slo.part names a part of every mix of the campaign (a plain workload is judged as a
 * whole): a name that is no part would judge nothing.
 */
static int campaign_slo_part(struct yamlnode_doc *y, const yaml_node_t *slo, struct campaign *c)
{
	size_t mixes = 0;

	if (c->slo_part[0] == '\0')
		return 0;
	for (size_t i = 0; i < c->nworkloads; i++) {
		const struct mix *m = &c->workloads[i].io.mix;
		char parts[MIX_PARTS_MAX * (MIX_NAME_MAX + 2)] = "";

		if (m->nparts == 0)
			continue;
		mixes++;
		if (mix_part_find(m, c->slo_part) >= 0)
			continue;
		for (uint32_t j = 0; j < m->nparts; j++) {
			size_t off = strlen(parts);

			snprintf(parts + off, sizeof(parts) - off, "%s%s", j ? ", " : "",
			         m->parts[j].name);
		}
		yamlnode_error(y, yamlnode_lookup(y, slo, "part"),
		               "slo.part: names part '%s', which workload '%s' has not (parts: %s)",
		               c->slo_part, c->workloads[i].name, parts);
		return -1;
	}
	if (mixes == 0) {
		yamlnode_error(y, yamlnode_lookup(y, slo, "part"),
		               "slo.part: names part '%s', but no workload has a mix (mix:)",
		               c->slo_part);
		return -1;
	}
	return 0;
}

/* percentiles: [50, 90, 99, 99.9, 99.99]: ascending, each above 0 and under 100. */
static int campaign_percentiles(struct yamlnode_doc *y, const yaml_node_t *n, struct campaign *c)
{
	const char *expected =
	    "a list of percentiles such as [50, 90, 99, 99.9, 99.99], ascending, "
	    "each above 0 and under 100, at most 8";
	size_t count;

	if (n->type != YAML_SEQUENCE_NODE ||
	    (count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start)) == 0 ||
	    count > CAMPAIGN_MAX_PERCENTILES) {
		yamlnode_expected(y, n, "percentiles", expected);
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		const yaml_node_t *e = yamlnode_get(y, n->data.sequence.items.start[i]);
		const char *s =
		    e->type == YAML_SCALAR_NODE ? (const char *)e->data.scalar.value : "";
		char *end;
		double v = strtod(s, &end);

		if (*s == '\0' || *end != '\0' || !(v > 0 && v < 100) ||
		    (i > 0 && v <= c->percentiles[i - 1])) {
			yamlnode_expected(y, e, "percentiles", expected);
			return -1;
		}
		c->percentiles[i] = v;
	}
	c->npercentiles = count;
	return 0;
}

/* stop.errors: a share such as 1%, true (any error), false (never stops) or allow. */
static int campaign_stop_errors(struct yamlnode_doc *y, const yaml_node_t *n, struct campaign *c)
{
	struct error uerr;
	const char *s;

	if (n->type != YAML_SCALAR_NODE || yamlnode_string(y, n, "stop.errors", &s) < 0)
		goto bad;
	if (strcmp(s, "true") == 0)
		c->stop.errors_pct = 0;
	else if (strcmp(s, "false") == 0)
		c->stop.errors_pct = -1;
	else if (strcmp(s, "allow") == 0) {
		c->stop.errors_pct = -1;
		c->stop.allow_errors = true;
	} else if (units_parse_percent(s, &c->stop.errors_pct, &uerr) < 0 ||
	           !(c->stop.errors_pct >= 0 && c->stop.errors_pct <= 100))
		goto bad;
	return 0;
bad:
	yamlnode_expected(y, n, "stop.errors",
	                  "true, false, allow or a share of the operations 0%..100% such as 1%");
	return -1;
}

/* stop: {achieved: 95%, ceiling: 50ms, errors: 1%}: when a step saturates the target. */
static int campaign_stop(struct yamlnode_doc *y, const yaml_node_t *map, struct campaign *c)
{
	struct error uerr;
	yaml_node_t *n;
	const char *s;

	if (yamlnode_check_mapping(y, map, "stop", "stop", campaign_stop_keys) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, map, "achieved")) != NULL) {
		if (yamlnode_string(y, n, "stop.achieved", &s) < 0)
			return -1;
		if (units_parse_percent(s, &c->stop.min_achieved_pct, &uerr) < 0) {
			yamlnode_error(y, n, "stop.achieved: %s", uerr.msg);
			return -1;
		}
		if (!(c->stop.min_achieved_pct >= 1 && c->stop.min_achieved_pct <= 100)) {
			yamlnode_expected(y, n, "stop.achieved",
			                  "a percentage of the offered rate 1%..100% such as 95%");
			return -1;
		}
	}
	if ((n = yamlnode_lookup(y, map, "ceiling")) != NULL) {
		if (yamlnode_duration(y, n, "stop.ceiling", &c->stop.ceiling_ns) < 0)
			return -1;
		if (c->stop.ceiling_ns == 0) {
			yamlnode_expected(y, n, "stop.ceiling", "a latency above 0 such as 50ms");
			return -1;
		}
	}
	if ((n = yamlnode_lookup(y, map, "errors")) != NULL)
		return campaign_stop_errors(y, n, c);
	return 0;
}

/* cooldown: {margin: 20%, max: 10s}: the wait after a step that fell behind or saturated. */
static int campaign_cooldown(struct yamlnode_doc *y, const yaml_node_t *map, struct campaign *c)
{
	struct error uerr;
	yaml_node_t *n;
	const char *s;

	if (yamlnode_check_mapping(y, map, "cooldown", "cooldown", campaign_cooldown_keys) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, map, "margin")) != NULL) {
		if (yamlnode_string(y, n, "cooldown.margin", &s) < 0)
			return -1;
		if (units_parse_percent(s, &c->cooldown.margin_pct, &uerr) < 0 ||
		    !(c->cooldown.margin_pct >= 1 && c->cooldown.margin_pct <= 1000)) {
			yamlnode_expected(y, n, "cooldown.margin",
			                  "a share of the first step's service time 1%..1000% such "
			                  "as 20%");
			return -1;
		}
	}
	if ((n = yamlnode_lookup(y, map, "max")) != NULL &&
	    yamlnode_duration(y, n, "cooldown.max", &c->cooldown.max_ns) < 0)
		return -1;
	return 0;
}

static int campaign_root(struct yamlnode_doc *y, const yaml_node_t *root, struct campaign *c)
{
	yaml_node_t *name, *agents, *workloads, *slo, *stop;
	const char *s, *keys[WORKLOADS_MAX_KEYS];

	workloads_known(campaign_keys_before, campaign_keys_after, keys);
	if (yamlnode_check_mapping(y, root, "campaign file", "campaign", keys) < 0)
		return -1;
	if (yamlnode_require(y, root, "campaign", "campaign", &name) < 0 ||
	    yamlnode_require(y, root, "agents", "campaign", &agents) < 0 ||
	    yamlnode_require(y, root, "workloads", "campaign", &workloads) < 0)
		return -1;
	if (yamlnode_string(y, name, "campaign", &s) < 0)
		return -1;
	/* the name becomes the results directory's name */
	if (!text_name_ok(s)) {
		yamlnode_expected(y, name, "campaign", "letters, digits, '.', '_' and '-' only");
		return -1;
	}
	c->name = xstrdup(s);
	if (campaign_agents(y, agents, c) < 0 || targets_parse(y, root, c) < 0)
		return -1;
	c->slo_latency_ns = 1000000;
	c->slo_metric = SLO_MEAN;
	c->stop =
	    (struct campaign_stop){.min_achieved_pct = 95, .ceiling_ns = 50000000, .errors_pct = 1};
	slo = yamlnode_lookup(y, root, "slo");
	if (slo != NULL && campaign_slo(y, slo, c) < 0)
		return -1;
	c->npercentiles = 4;
	memcpy(c->percentiles, (const double[]){50, 90, 99, 99.9}, 4 * sizeof(double));
	if ((slo = yamlnode_lookup(y, root, "percentiles")) != NULL &&
	    campaign_percentiles(y, slo, c) < 0)
		return -1;
	stop = yamlnode_lookup(y, root, "stop");
	if (stop != NULL && campaign_stop(y, stop, c) < 0)
		return -1;
	c->cooldown = (struct campaign_cooldown){.margin_pct = 20, .max_ns = 10 * NSEC_PER_SEC};
	stop = yamlnode_lookup(y, root, "cooldown");
	if (stop != NULL && campaign_cooldown(y, stop, c) < 0)
		return -1;
	if (workloads_parse(y, root, workloads, c) < 0 || observe_parse(y, root, c) < 0)
		return -1;
	slo = yamlnode_lookup(y, root, "slo");
	if (slo != NULL && campaign_slo_part(y, slo, c) < 0)
		return -1;
	return targets_check(y, root, c);
}

/* text as campaign_parse reads it; where (when set) maps its marks to where they came from. */
static int campaign_parse_where(const char *text, size_t len, const char *name,
                                struct campsource_result *where, bool plan, bool from_results,
                                struct campaign **out, struct error *err)
{
	struct yamlnode_doc y = {.file = name,
	                         .err = err,
	                         .plan = plan,
	                         .where = where != NULL ? campsource_where : NULL,
	                         .where_arg = where};
	yaml_document_t doc;
	yaml_node_t *root;
	struct campaign *c;

	*out = NULL;
	if (yamlload_document(text, len, name, &doc, err) < 0)
		return -1;
	y.doc = &doc;
	c = xcalloc(1, sizeof(*c));
	c->path = xstrdup(name);
	c->from_results = from_results;
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

int campaign_parse(const char *text, size_t len, const char *name, struct campaign **out,
                   struct error *err)
{
	return campaign_parse_where(text, len, name, NULL, false, false, out, err);
}

int campaign_load_source(const char *path, const struct campsource *src, struct campaign **out,
                         struct error *err)
{
	struct campsource_result r;
	int rc;

	*out = NULL;
	if (campsource_expand(path, src, &r, err) < 0)
		return -1;
	rc = campaign_parse_where(r.text, r.len, path, r.generated ? &r : NULL, false, false, out,
	                          err);
	if (rc == 0)
		(*out)->text_generated = r.generated;
	if (rc == 0 && r.build_failed) {
		/* the language could not read what the parser took: say why, run nothing */
		*err = r.build_err;
		campaign_free(*out);
		*out = NULL;
		rc = -1;
	}
	campsource_result_free(&r);
	return rc;
}

int campaign_load(const char *path, struct campaign **out, struct error *err)
{
	return campaign_load_source(path, NULL, out, err);
}

int campaign_load_plan(const char *path, bool plain, struct campaign **out, struct error *err)
{
	size_t len;
	char *text;
	int rc;

	*out = NULL;
	/* A regular file, no link, bounded: a FIFO planted here would hang the reader. */
	text = saferead_all(AT_FDCWD, NULL, path, CAMPAIGN_PLAN_MAX, 0, &len, err);
	if (text == NULL)
		return -1;
	rc = campaign_parse_where(text, len, path, NULL, plain, true, out, err);
	free(text);
	return rc;
}

void campaign_free(struct campaign *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->nworkloads; i++) {
		free(c->workloads[i].name);
		free(c->workloads[i].test);
		free(c->workloads[i].steps);
		trace_free(c->workloads[i].replay);
	}
	free(c->workloads);
	label_free(c->labels, c->nlabels);
	targets_free(c->targets, c->ntargets);
	observe_free(c->observe, c->nobserve);
	free(c->name);
	free(c->path);
	free(c->text);
	free(c);
}
