/* SPDX-License-Identifier: MIT */
/* `iocurve check`: validate a campaign and print the plan it expands to, without running it. */
#include <stdio.h>
#include <string.h>

#include "campaign.h"
#include "campsource.h"
#include "clock.h"
#include "cmd.h"
#include "curve.h"
#include "error.h"
#include "loadspec.h"
#include "observe.h"
#include "syncs.h"
#include "trace.h"
#include "units.h"

/* Between steps: the step command round trip, the last interval's reports, the point's fsync. */
#define CMD_CHECK_STEP_OVERHEAD_NS 500000000ULL

/* "45s", "3m 05s", "1h 02m 03s": a plan's length is read in minutes, not in 1.23e3s. */
static void cmd_check_duration(uint64_t ns, char *buf, size_t len)
{
	uint64_t s = (ns + NSEC_PER_SEC / 2) / NSEC_PER_SEC;

	if (s >= 3600)
		snprintf(buf, len, "%lluh %02llum %02llus", (unsigned long long)(s / 3600),
		         (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
	else if (s >= 60)
		snprintf(buf, len, "%llum %02llus", (unsigned long long)(s / 60),
		         (unsigned long long)(s % 60));
	else
		snprintf(buf, len, "%llus", (unsigned long long)s);
}

/* "20000 ops/s (78.1 MiB/s)": a rate and the bandwidth it means at the mean block size. */
static void cmd_check_rate(double ops, const struct workload *w, char *buf, size_t len)
{
	snprintf(buf, len, "%.6g %s (%.1f %s)", ops, curve_rate_unit(w),
	         curve_shown_bw(w, curve_mean_mibps(w, ops)), curve_bw_unit(w));
}

/* A target as check shows it: "target" for target:, "target NAME" for targets:. */
static void cmd_check_target(const struct campaign *c, const struct campaign_target *t)
{
	char a[32], b[32], labels[512], lead[160];

	if (t->name != NULL)
		snprintf(lead, sizeof(lead), "  target   %s: ", t->name);
	else
		snprintf(lead, sizeof(lead), "  target   ");
	units_format_size(t->size, a, sizeof(a));
	if (t->sim.enabled) {
		units_format_duration(t->sim.service_ns, b, sizeof(b));
		printf("%ssimulated: %u server%s, service time %s, jitter %u%%, %s per "
		       "worker\n",
		       lead, t->sim.servers, t->sim.servers == 1 ? "" : "s", b, t->sim.jitter_pct,
		       a);
		if (t->sim.write_service_ns) {
			units_format_duration(t->sim.write_service_ns, b, sizeof(b));
			printf("           writes' service time %s\n", b);
		}
		if (t->sim.stall_after_ops) {
			units_format_duration(t->sim.stall_ns, b, sizeof(b));
			printf("           stalls %s every %llu operations\n", b,
			       (unsigned long long)t->sim.stall_after_ops);
		}
		if (t->sim.rate_limit > 0)
			printf("           rate limit %.0f ops/s for the fleet (a token bucket per "
			       "worker: split over agents x workers)\n",
			       t->sim.rate_limit);
	} else {
		if (t->size)
			printf("%s%s, %s per file (one per agent and worker)\n", lead, t->path, a);
		else
			printf("%s%s, the whole device\n", lead, t->path);
	}
	if (t->nlabels == 0)
		return;
	label_format(t->labels, t->nlabels, ", ", labels, sizeof(labels));
	if (c->agents_mode == CAMPAIGN_AGENTS_SELECT)
		printf("           driven by the agents with labels %s\n", labels);
	else
		printf("           labels %s apply to agents that dial in; the local agents "
		       "drive every target\n",
		       labels);
}

/* observe: each source, how often it is asked, and each series with its limit. */
static void cmd_check_observe(const struct campaign *c)
{
	for (size_t i = 0; i < c->nobserve; i++) {
		const struct observe_source *o = &c->observe[i];
		char every[48] = "each interval's end", t[32];

		if (o->every_ns) {
			units_format_duration(o->every_ns, t, sizeof(t));
			snprintf(every, sizeof(every), "every %s", t);
		}
		printf("  observe  %s: %s (%zu series, %s, %s%s%s)\n", o->name, o->url, o->nseries,
		       o->query ? "PromQL queries" : "an exporter's text", every,
		       o->token_file ? ", a bearer token from " : "",
		       o->token_file ? o->token_file : "");
		for (size_t k = 0; k < o->nseries; k++) {
			const struct observe_series *s = &o->series[k];

			printf("           %s/%s", o->name, s->name);
			if (strcmp(s->name, s->metric ? s->metric : s->query) != 0)
				printf(" = %s", s->metric ? s->metric : s->query);
			if (observe_series_threshold(s) > 0)
				printf(", at its limit from %g%s", observe_series_threshold(s),
				       s->unit);
			printf("\n");
		}
	}
}

static void cmd_check_campaign(const struct campaign *c)
{
	char a[32], b[32], labels[1024];

	printf("campaign %s (%s)\n", c->name, c->path);
	if (c->agents_mode == CAMPAIGN_AGENTS_LOCAL) {
		const struct campaign_caps *k = &c->local_caps;

		printf("  agents   %u local, started by iocurve run\n", c->agents_count);
		if (k->workers || k->queue_depth || k->block_size || k->file_size) {
			printf("           caps:");
			if (k->workers)
				printf(" workers %u,", k->workers);
			if (k->queue_depth)
				printf(" queue depth %u,", k->queue_depth);
			if (k->block_size) {
				units_format_size(k->block_size, a, sizeof(a));
				printf(" block size %s,", a);
			}
			if (k->file_size) {
				units_format_size(k->file_size, a, sizeof(a));
				printf(" file size %s,", a);
			}
			printf(" over the agents' defaults\n");
		}
	} else {
		units_format_duration(c->agents_wait_ns, a, sizeof(a));
		printf("  agents   %u that dial in", c->agents_count);
		label_format(c->labels, c->nlabels, ", ", labels, sizeof(labels));
		printf("%s%s", c->nlabels ? " with labels " : "", labels);
		printf("; wait up to %s for them\n", a);
	}
	for (size_t i = 0; i < c->ntargets; i++)
		cmd_check_target(c, &c->targets[i]);
	units_format_duration(c->slo_latency_ns, a, sizeof(a));
	printf("  slo      %s latency%s%s <= %s\n", campaign_slo_metric_name(c->slo_metric),
	       c->slo_part[0] ? " of each mix's part " : "", c->slo_part, a);
	units_format_duration(c->stop.ceiling_ns, b, sizeof(b));
	printf("  stop     a step saturates below %g%% of its offered rate, with %s latency over "
	       "%s",
	       c->stop.min_achieved_pct, campaign_slo_metric_name(c->slo_metric), b);
	if (c->stop.errors_pct == 0)
		printf(", or on any I/O error");
	else if (c->stop.errors_pct > 0)
		printf(", or with I/O errors over %g%% of its operations", c->stop.errors_pct);
	printf("\n  errors   %s\n", c->stop.allow_errors
	                                ? "allowed: a campaign with I/O errors may end complete"
	                                : "a campaign with any I/O error ends failed");
	cmd_check_observe(c);
}

static void cmd_check_access(const struct workload *w)
{
	const struct io_settings *x = &w->io;
	char dist[64], size[32];

	printf("  access   ");
	if (rw_is_mix(w->io.rw))
		printf("%u%% reads, ", x->read_pct);
	if (rw_is_random(w->io.rw)) {
		setting_dist_text(x, dist, sizeof(dist));
		printf("%s offsets, ", dist);
	}
	if (x->working_set) {
		units_format_size(x->working_set, size, sizeof(size));
		printf("working set %s, ", size);
	}
	if (x->align) {
		units_format_size(x->align, size, sizeof(size));
		printf("aligned to %s, ", size);
	}
	printf("%s arrivals, %s", x->poisson ? "poisson" : "uniform",
	       x->direct ? "O_DIRECT" : "buffered");
	if (rw_writes(w->io.rw))
		printf(", data %u%% compressible, %u%% dedupable", x->compress_pct, x->dedupe_pct);
	if (x->clone[0] != '\0')
		printf(", every file the clone '%s' (%u%% compressible, %u%% dedupable)", x->clone,
		       x->compress_pct, x->dedupe_pct);
	if (x->verify)
		printf(", verify %s (%s every 4KiB block)",
		       x->verify == IOCURVE__VERIFY_METHOD__VERIFY_XXH64 ? "xxh64" : "crc32",
		       rw_is_mix(w->io.rw)   ? "writes stamp and reads check"
		       : rw_writes(w->io.rw) ? "writes stamp a header on"
		                             : "reads check the header of");
	if (x->wake_slack_ns) {
		units_format_duration(x->wake_slack_ns, size, sizeof(size));
		printf(", wake slack %s", size);
	}
	printf("\n");
	if (syncs_asked(w)) {
		char sync[256];

		syncs_text(w, sync, sizeof(sync));
		printf("  sync     %s\n", sync);
	}
}

static void cmd_check_load(const struct workload *w)
{
	char r[64], q[64];

	if (w->work.on) {
		units_format_size(w->work.bytes, q, sizeof(q));
		printf("  load     fixed work: %s (%llu operations) per worker, then it stops; one "
		       "step, no knee\n",
		       q, (unsigned long long)w->work.ops);
		if (w->steps[0].ops > 0) {
			cmd_check_rate(w->steps[0].ops, w, r, sizeof(r));
			printf("           paced at %s in total across agents\n", r);
		} else {
			units_format_duration(w->work.think_ns, r, sizeof(r));
			printf("           closed loop at queue depth %u%s%s%s\n",
			       w->io.queue_depth, w->work.think_ns ? ", think " : "",
			       w->work.think_ns ? r : "",
			       w->work.think_ns ? " after each completion" : "");
		}
		units_format_duration(w->work.spread_ns, r, sizeof(r));
		units_format_duration(w->work.deadline_ns, q, sizeof(q));
		printf("           starts %s%s, deadline %s\n",
		       w->work.spread_ns ? "spread over " : "together", w->work.spread_ns ? r : "",
		       q);
		return;
	}
	switch (w->mode) {
	case LOAD_RAMP:
		cmd_check_rate(w->ramp_start, w, r, sizeof(r));
		if (w->ramp_factor > 1)
			snprintf(q, sizeof(q), "x%g", w->ramp_factor);
		else
			cmd_check_rate(w->ramp_increment, w, q, sizeof(q));
		/* a ramp of speeds: its rates are speeds of the trace (the x1 rate above) */
		if (w->replay != NULL) {
			double x1 = trace_rate(w->replay);

			printf(
			    "  load     ramp of speeds from x%g (%s in total), %sx%g each step, up "
			    "to %u steps, until a step saturates\n",
			    w->ramp_start / x1, r, w->ramp_factor > 1 ? "" : "+",
			    w->ramp_factor > 1 ? w->ramp_factor : w->ramp_increment / x1,
			    w->ramp_max_steps);
			break;
		}
		printf("  load     ramp from %s in total, %s%s each step, up to %u steps, until a "
		       "step "
		       "saturates\n",
		       r, w->ramp_factor > 1 ? "" : "+", q, w->ramp_max_steps);
		break;
	case LOAD_CURVE:
		printf("  load     curve: a max step for the peak, then");
		for (size_t i = 0; i < w->nsteps; i++)
			printf("%s%g%%", i ? ", " : " ", w->steps[i].peak_pct);
		printf(" of it\n");
		break;
	default:
		printf("  load     steps, offered in total across agents%s:\n",
		       loadspec_needs_peak(w) ? " (a max step first, for the peak)" : "");
		for (size_t i = 0; i < w->nsteps; i++) {
			const struct step_rate *s = &w->steps[i];

			if (s->peak_pct > 0)
				printf("           %3zu  %g%% of the peak\n", i + 1, s->peak_pct);
			else if (s->ops > 0) {
				cmd_check_rate(s->ops, w, r, sizeof(r));
				printf("           %3zu  %s\n", i + 1, r);
			} else
				printf("           %3zu  max (closed loop at queue depth %u)\n",
				       i + 1, w->io.queue_depth);
		}
		break;
	}
	if (w->refine)
		printf("  refine   up to %u more steps bisecting the bracket around the knee\n",
		       w->refine);
}

/* Prints the workload; returns the most time its steps can take, in ns. */
static uint64_t cmd_check_workload(size_t i, size_t n, const struct workload *w, bool *upper)
{
	size_t steps = loadspec_max_steps(w);
	uint64_t step_ns = w->warmup_ns + w->measure_ns + CMD_CHECK_STEP_OVERHEAD_NS;
	/* the steady extensions of all its steps, within the workload's budget */
	uint64_t extend_ns = steps * w->steady_extend * w->interval_ns;
	bool up = w->mode == LOAD_RAMP || w->refine > 0 || w->steady_extend > 0;
	char bs[32], a[32], b[32], c[32], d[32];

	units_format_size(w->io.block_size, bs, sizeof(bs));
	printf("\nworkload %zu/%zu: %s\n", i + 1, n, w->name);
	if (mix_is_files(&w->io.mix)) {
		char set[160];

		mix_fileset_text(&w->io.mix.fileset, set, sizeof(set));
		printf("  files    %s, %u worker%s x queue depth %u per agent%s\n",
		       w->io.mix.nparts ? "a mix of file operations" : fileop_name(w->io.mix.op),
		       w->io.workers, w->io.workers == 1 ? "" : "s", w->io.queue_depth,
		       w->qd_sized ? " (sized from the load)" : "");
		printf("  fileset  %s per worker (%llu files, laid out before the first step)\n",
		       set, (unsigned long long)mix_fileset_files(&w->io.mix.fileset));
	} else {
		printf("  io       %s, %s blocks, %u worker%s x queue depth %u per agent%s\n",
		       rw_mode_name(w->io.rw), bs, w->io.workers, w->io.workers == 1 ? "" : "s",
		       w->io.queue_depth, w->qd_sized ? " (sized from the load)" : "");
	}
	if (w->io.mix.nparts > 0 || w->io.mix.sizes.n > 0) {
		char mix[1024];

		if (w->io.mix.nparts > 0)
			mix_text(&w->io.mix, mix, sizeof(mix));
		else
			mix_sizes_text(&w->io.mix.sizes, mix, sizeof(mix));
		printf("  %-8s %s (one stream, interleaved by share)\n",
		       w->io.mix.nparts > 0 ? "mix" : "sizes", mix);
	}
	if (!mix_is_files(&w->io.mix))
		cmd_check_access(w);
	if (w->replay != NULL) {
		/* a step's rate below is its speed times this x1 rate */
		units_format_duration(w->replay->period_ns, a, sizeof(a));
		printf("  replay   %s (fio iolog v%u): %u operations, %u writes, a pass of %s, "
		       "%.6g ops/s at x1\n",
		       w->replay->path, w->replay->version, w->replay->n, w->replay->writes, a,
		       trace_rate(w->replay));
	}
	units_format_duration(w->interval_ns, a, sizeof(a));
	units_format_duration(w->warmup_ns, b, sizeof(b));
	units_format_duration(w->measure_ns, c, sizeof(c));
	printf("  timing   interval %s, warmup %s, measure %s", a, b, c);
	if (w->steady_extend) {
		units_format_duration(w->steady_budget_ns, d, sizeof(d));
		printf(", up to %u more intervals until decided (%s in all)", w->steady_extend, d);
	}
	printf("\n");
	if (w->io.background) {
		/* no steps of its own: it runs as long as the others do */
		cmd_check_rate(w->steps[0].ops, w, a, sizeof(a));
		printf("  load     background: %s on its own workers through every step of the "
		       "other workloads; each of their steps records what it achieved\n",
		       w->steps[0].ops > 0 ? a : "max (closed loop at its queue depth)");
		printf("  plan     no steps of its own\n");
		return 0;
	}
	cmd_check_load(w);
	if (extend_ns > w->steady_budget_ns)
		extend_ns = w->steady_budget_ns;
	cmd_check_duration(steps * step_ns + extend_ns, d, sizeof(d));
	printf("  plan     %s%zu steps, %s%s\n", up ? "up to " : "", steps,
	       up ? "at most " : "about ", d);
	*upper |= up;
	return steps * step_ns + extend_ns;
}

static int cmd_check_exec(const struct args *a)
{
	struct campaign *c;
	struct error err;
	uint64_t total_ns = 0;
	size_t total_steps = 0;
	bool upper = false;
	char d[32];
	struct campsource src = {0};

	src.sets = args_get_all(a, "set", &src.nsets);
	if (campaign_load_source(a->operands[0], &src, &c, &err) < 0) {
		fprintf(stderr, "iocurve: %s\n", err.msg);
		return 2;
	}
	cmd_check_campaign(c);
	for (size_t i = 0; i < c->nworkloads; i++) {
		total_ns += cmd_check_workload(i, c->nworkloads, &c->workloads[i], &upper);
		if (!c->workloads[i].io.background)
			total_steps += loadspec_max_steps(&c->workloads[i]);
	}
	cmd_check_duration(total_ns, d, sizeof(d));
	printf("\ntotal: %zu workload%s, %s%zu steps, %s%s (a step: warmup + measure "
	       "+ any steady extension + ~0.5s; laying out targets for writes not included)\n",
	       c->nworkloads, c->nworkloads == 1 ? "" : "s", upper ? "up to " : "", total_steps,
	       upper ? "at most " : "about ", d);
	/* what plan.yaml will hold, when it is not the file as written */
	if (c->text_generated)
		printf("\neffective campaign (plan.yaml):\n%.*s", (int)c->text_len, c->text);
	campaign_free(c);
	return 0;
}

static const struct args_option check_options[] = {
    {"set", 'S', "KEY=VALUE",
     "override a campaign value by its dotted path (target.path=/mnt/x, "
     "workloads.NAME.queue_depth=8); repeatable",
     false},
    {NULL},
};

const struct cmd_entry cmd_check_entry = {
    .args =
        {
            .name = "check",
            .operands = "FILE.yaml",
            .help = "validate a campaign and print its expanded plan and estimated duration",
            .more = "Loads the campaign, reports the first error as FILE:LINE:COLUMN (exit 2),\n"
                    "else prints every workload (matrices expanded), its load plan, and an\n"
                    "estimate of the steps and time the campaign takes (exit 0). A file\n"
                    "using include:, ${NAME} or --set also gets the effective campaign\n"
                    "printed: what runs and what plan.yaml holds, values commented with\n"
                    "where they came from.\n",
            .options = check_options,
            .min_operands = 1,
            .max_operands = 1,
        },
    .exec = cmd_check_exec,
};
