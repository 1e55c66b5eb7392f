/* SPDX-License-Identifier: MIT */
/* What differs between the setups of two campaigns: the words `iocurve compare` warns with. */
#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "background.h"
#include "rw.h"
#include "setting.h"
#include "observe.h"
#include "setupdiff.h"
#include "trace.h"
#include "units.h"

struct setupdiff_out {
	char *buf;
	size_t len, off, n;
};

static __attribute__((format(printf, 2, 3))) void setupdiff_add(struct setupdiff_out *o,
                                                                const char *fmt, ...)
{
	va_list ap;
	int k;

	if (o->off + 1 >= o->len)
		return;
	if (o->n++ > 0)
		o->off += (size_t)snprintf(o->buf + o->off, o->len - o->off, "; ");
	if (o->off + 1 >= o->len)
		return;
	va_start(ap, fmt);
	k = vsnprintf(o->buf + o->off, o->len - o->off, fmt, ap);
	va_end(ap);
	if (k > 0)
		o->off = o->off + (size_t)k < o->len ? o->off + (size_t)k : o->len - 1;
}

static void setupdiff_u64(struct setupdiff_out *o, const char *w, const char *what, uint64_t a,
                          uint64_t b)
{
	if (a != b)
		setupdiff_add(o, "%s%s%s %" PRIu64 " vs %" PRIu64, w ? w : "", w ? ": " : "", what,
		              a, b);
}

/* Two quantities in their unit (units_format_size, units_format_duration). */
static void setupdiff_units(struct setupdiff_out *o, const char *w, const char *what, uint64_t a,
                            uint64_t b, void (*format)(uint64_t, char *, size_t))
{
	char x[32], y[32];

	if (a == b)
		return;
	format(a, x, sizeof(x));
	format(b, y, sizeof(y));
	setupdiff_add(o, "%s%s%s %s vs %s", w ? w : "", w ? ": " : "", what, x, y);
}

static void setupdiff_size(struct setupdiff_out *o, const char *w, const char *what, uint64_t a,
                           uint64_t b)
{
	setupdiff_units(o, w, what, a, b, units_format_size);
}

static void setupdiff_time(struct setupdiff_out *o, const char *w, const char *what, uint64_t a,
                           uint64_t b)
{
	setupdiff_units(o, w, what, a, b, units_format_duration);
}

static void setupdiff_str(struct setupdiff_out *o, const char *w, const char *what, const char *a,
                          const char *b)
{
	if (strcmp(a ? a : "", b ? b : "") != 0)
		setupdiff_add(o, "%s%s%s %s vs %s", w ? w : "", w ? ": " : "", what,
		              a && *a ? a : "none", b && *b ? b : "none");
}

/* A replay's speeds in words: "speeds x1 x2 x4", "speeds ramp x1 x2 up to 6 steps". */
static void setupdiff_speeds_text(const struct workload *w, char *buf, size_t len)
{
	double x1 = trace_rate(w->replay);
	size_t off;
	int k;

	if (!(x1 > 0))
		x1 = 1;
	if (w->mode == LOAD_RAMP) {
		if (w->ramp_factor > 0)
			snprintf(buf, len, "speeds ramp x%g x%g up to %u steps", w->ramp_start / x1,
			         w->ramp_factor, w->ramp_max_steps);
		else
			snprintf(buf, len, "speeds ramp x%g +x%g up to %u steps",
			         w->ramp_start / x1, w->ramp_increment / x1, w->ramp_max_steps);
		return;
	}
	k = snprintf(buf, len, "speeds");
	off = k > 0 ? (size_t)k : 0;
	for (size_t i = 0; i < w->nsteps && off + 1 < len; i++) {
		k = snprintf(buf + off, len - off, " x%g", w->steps[i].ops / x1);
		if (k < 0 || (size_t)k >= len - off)
			break;
		off += (size_t)k;
	}
}

/* The load plan in words: "steps 1000 2000 max", "curve 10% 50%", "ramp 100 x1.5 up to 20". */
static void setupdiff_load_text(const struct workload *w, char *buf, size_t len)
{
	size_t off = 0;
	int k;

	buf[0] = '\0';
	/* a replay's load in its own unit, speeds (x1 as recorded), whatever its trace's rate */
	if (w->replay != NULL) {
		setupdiff_speeds_text(w, buf, len);
		return;
	}
	if (w->mode == LOAD_RAMP) {
		if (w->ramp_factor > 0)
			snprintf(buf, len, "ramp %g x%g up to %u steps", w->ramp_start,
			         w->ramp_factor, w->ramp_max_steps);
		else
			snprintf(buf, len, "ramp %g +%g up to %u steps", w->ramp_start,
			         w->ramp_increment, w->ramp_max_steps);
		return;
	}
	k = snprintf(buf, len, "%s", w->mode == LOAD_CURVE ? "curve" : "steps");
	off = k > 0 ? (size_t)k : 0;
	for (size_t i = 0; i < w->nsteps && off + 1 < len; i++) {
		const struct step_rate *r = &w->steps[i];

		if (r->ops > 0)
			k = snprintf(buf + off, len - off, " %g", r->ops);
		else if (r->peak_pct > 0)
			k = snprintf(buf + off, len - off, " %g%%", r->peak_pct);
		else
			k = snprintf(buf + off, len - off, " max");
		if (k < 0 || (size_t)k >= len - off)
			break;
		off += (size_t)k;
	}
}

static void setupdiff_load(struct setupdiff_out *o, const char *w, const struct workload *a,
                           const struct workload *b)
{
	char x[256], y[256];

	setupdiff_load_text(a, x, sizeof(x));
	setupdiff_load_text(b, y, sizeof(y));
	setupdiff_str(o, w, "load", x, y);
}

/*
 * Load under load: the background each run's foreground ran beside, by name and load
 * ("none" without one); a same-named one is also compared key by key as a workload.
 */
static void setupdiff_background(struct setupdiff_out *o, const struct campaign *a,
                                 const struct campaign *b)
{
	long i = background_of(a), j = background_of(b);
	char x[320], y[320], l[256];

	if (i < 0 && j < 0)
		return;
	snprintf(x, sizeof(x), "none");
	snprintf(y, sizeof(y), "none");
	if (i >= 0) {
		setupdiff_load_text(&a->workloads[i], l, sizeof(l));
		snprintf(x, sizeof(x), "%s (%s)", a->workloads[i].name, l);
	}
	if (j >= 0) {
		setupdiff_load_text(&b->workloads[j], l, sizeof(l));
		snprintf(y, sizeof(y), "%s (%s)", b->workloads[j].name, l);
	}
	setupdiff_str(o, NULL, "background", x, y);
}

/* The latency columns: "50 90 99 99.9". */
static void setupdiff_pcts(const struct campaign *c, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < c->npercentiles && off + 1 < len; i++) {
		int k = snprintf(buf + off, len - off, "%s%g", i ? " " : "", c->percentiles[i]);

		if (k < 0 || (size_t)k >= len - off)
			break;
		off += (size_t)k;
	}
}

/*
 * A setting of the two workloads, by its row: numbers compare as numbers, and what a
 * row shows by a function of its own (rw, random) or a name as the words shown.
 */
static void setupdiff_setting(struct setupdiff_out *o, const char *w, const struct setting *s,
                              const struct io_settings *a, const struct io_settings *b)
{
	char x[64], y[64];
	bool applies = setting_show(s, a, x, sizeof(x));

	applies |= setting_show(s, b, y, sizeof(y));
	if (!applies)
		return;
	if (s->show != NULL || s->type == SETTING_NAME)
		setupdiff_str(o, w, s->label, x, y);
	else if (setting_get(s, a) != setting_get(s, b))
		setupdiff_add(o, "%s: %s %s vs %s", w, s->label, x, y);
}

/* A mix's parts and a size distribution, as check prints them ("none": not a mix). */
static void setupdiff_mix(struct setupdiff_out *o, const char *w, const struct mix *a,
                          const struct mix *b)
{
	char ta[1024], tb[1024];

	mix_text(a, ta, sizeof(ta));
	mix_text(b, tb, sizeof(tb));
	setupdiff_str(o, w, "mix", ta[0] ? ta : "none", tb[0] ? tb : "none");
	mix_sizes_text(&a->sizes, ta, sizeof(ta));
	mix_sizes_text(&b->sizes, tb, sizeof(tb));
	setupdiff_str(o, w, "block_size distribution", ta[0] ? ta : "none", tb[0] ? tb : "none");
}

/*
 * The traces two workloads replay, key by key: the file by its content (SHA-256, its
 * first 12 hex digits; its bytes; its operations), then its rate at x1. Where the results
 * keep it (a copy beside plan.yaml) its path says nothing, so it is not compared.
 */
static void setupdiff_replay(struct setupdiff_out *o, const char *w, const struct workload *a,
                             const struct workload *b)
{
	const struct trace *x = a->replay, *y = b->replay;
	char rx[32], ry[32];

	if (x == NULL && y == NULL)
		return;
	if (x == NULL || y == NULL) {
		setupdiff_add(o, "%s: replay %s%.12s vs %s%.12s", w, x ? "sha256 " : "none",
		              x ? x->sha256 : "", y ? "sha256 " : "none", y ? y->sha256 : "");
		return;
	}
	if (strcmp(x->sha256, y->sha256) != 0)
		setupdiff_add(o, "%s: replay.sha256 %.12s vs %.12s", w, x->sha256, y->sha256);
	setupdiff_size(o, w, "replay.size", x->bytes, y->bytes);
	setupdiff_u64(o, w, "replay.operations", x->n, y->n);
	snprintf(rx, sizeof(rx), "%.6g ops/s", trace_rate(x));
	snprintf(ry, sizeof(ry), "%.6g ops/s", trace_rate(y));
	setupdiff_str(o, w, "replay.x1", rx, ry);
}

static void setupdiff_workload(struct setupdiff_out *o, const struct workload *a,
                               const struct workload *b)
{
	const char *w = a->name;

	for (size_t i = 0; i < setting_count; i++)
		if (setting_table[i].label != NULL && setting_held(&setting_table[i]))
			setupdiff_setting(o, w, &setting_table[i], &a->io, &b->io);
	setupdiff_mix(o, w, &a->io.mix, &b->io.mix);
	setupdiff_time(o, w, "interval", a->interval_ns, b->interval_ns);
	setupdiff_time(o, w, "warmup", a->warmup_ns, b->warmup_ns);
	setupdiff_time(o, w, "measure", a->measure_ns, b->measure_ns);
	setupdiff_replay(o, w, a, b);
	setupdiff_load(o, w, a, b);
	setupdiff_u64(o, w, "refine", a->refine, b->refine);
	setupdiff_str(o, w, "confirm", a->skip_confirm ? "false" : "true",
	              b->skip_confirm ? "false" : "true");
	setupdiff_u64(o, w, "repeat", a->repeat, b->repeat);
	setupdiff_u64(o, w, "steady.extend", a->steady_extend, b->steady_extend);
	setupdiff_u64(o, w, "retry", a->retry, b->retry);
}

/* One target against another; w names it ("target fast") or is NULL (target:). */
static void setupdiff_target(struct setupdiff_out *o, const char *w,
                             const struct campaign_target *a, const struct campaign_target *b)
{
	setupdiff_str(o, w, "target", a->sim.enabled ? "sim" : a->path,
	              b->sim.enabled ? "sim" : b->path);
	setupdiff_size(o, w, "target size", a->size, b->size);
	/* a simulated device is its parameters: two sims of other service times are two devices */
	if (a->sim.enabled && b->sim.enabled) {
		setupdiff_u64(o, w, "sim servers", a->sim.servers, b->sim.servers);
		setupdiff_time(o, w, "sim service_time", a->sim.service_ns, b->sim.service_ns);
		setupdiff_u64(o, w, "sim jitter", a->sim.jitter_pct, b->sim.jitter_pct);
		/* writes' own time: named only when a run gave one (else it is service_time) */
		if (a->sim.write_service_ns || b->sim.write_service_ns)
			setupdiff_time(
			    o, w, "sim write_service_time",
			    a->sim.write_service_ns ? a->sim.write_service_ns : a->sim.service_ns,
			    b->sim.write_service_ns ? b->sim.write_service_ns : b->sim.service_ns);
		setupdiff_str(o, w, "sim service", a->sim.exponential ? "exponential" : "fixed",
		              b->sim.exponential ? "exponential" : "fixed");
		setupdiff_u64(o, w, "sim stall after", a->sim.stall_after_ops,
		              b->sim.stall_after_ops);
		setupdiff_time(o, w, "sim stall for", a->sim.stall_ns, b->sim.stall_ns);
		/* a whole number of ops/s: a cap is written as one */
		setupdiff_u64(o, w, "sim rate_limit", (uint64_t)llround(a->sim.rate_limit),
		              (uint64_t)llround(b->sim.rate_limit));
	}
}

/*
 * targets: the targets of the same name against each other (an unnamed target:
 * pairs with an unnamed one), and those only one campaign has.
 */
static void setupdiff_targets(struct setupdiff_out *o, const struct campaign *a,
                              const struct campaign *b)
{
	for (int side = 0; side < 2; side++) {
		const struct campaign *x = side == 0 ? a : b, *z = side == 0 ? b : a;

		for (size_t i = 0; i < x->ntargets; i++) {
			const struct campaign_target *t = &x->targets[i], *u = NULL;
			const char *tn = t->name ? t->name : "target";
			char w[160];

			for (size_t j = 0; j < z->ntargets && u == NULL; j++)
				if ((t->name == NULL && z->targets[j].name == NULL) ||
				    (t->name != NULL && z->targets[j].name != NULL &&
				     strcmp(t->name, z->targets[j].name) == 0))
					u = &z->targets[j];
			if (u == NULL) {
				setupdiff_add(o, "target %s only in the %s", tn,
				              side == 0 ? "first" : "second");
				continue;
			}
			if (side == 1)
				continue;
			snprintf(w, sizeof(w), "target %s", tn);
			setupdiff_target(o, w, t, u);
			setupdiff_str(o, w, "direct", t->direct ? "true" : "false",
			              u->direct ? "true" : "false");
		}
	}
}

/* observe: the sources polled and their series, "storage http://h:9100/metrics [busy reads]" */
static void setupdiff_observe(const struct campaign *c, char *buf, size_t len)
{
	size_t used = 0;

	snprintf(buf, len, "%s", c->nobserve ? "" : "none");
	for (size_t i = 0; i < c->nobserve && used < len; i++) {
		const struct observe_source *o = &c->observe[i];

		used += (size_t)snprintf(buf + used, len - used, "%s%s %s [", i ? "; " : "",
		                         o->name, o->url);
		for (size_t k = 0; k < o->nseries && used < len; k++)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? " " : "",
			                         o->series[k].name);
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "]");
	}
}

size_t setupdiff(const struct campaign *a, const struct campaign *b, char *buf, size_t len)
{
	struct setupdiff_out o = {.buf = buf, .len = len};

	buf[0] = '\0';
	setupdiff_u64(&o, NULL, "agents", a->agents_count, b->agents_count);
	if (!a->multi_target && !b->multi_target) {
		setupdiff_target(&o, NULL, &a->targets[0], &b->targets[0]);
		setupdiff_time(&o, NULL, "slo", a->slo_latency_ns, b->slo_latency_ns);
		setupdiff_str(&o, NULL, "slo metric", campaign_slo_metric_name(a->slo_metric),
		              campaign_slo_metric_name(b->slo_metric));
		setupdiff_str(&o, NULL, "slo from", a->slo_from_due ? "due" : "storage",
		              b->slo_from_due ? "due" : "storage");
		setupdiff_str(&o, NULL, "slo part", a->slo_part[0] ? a->slo_part : "the whole",
		              b->slo_part[0] ? b->slo_part : "the whole");
		setupdiff_str(&o, NULL, "target direct", a->targets[0].direct ? "true" : "false",
		              b->targets[0].direct ? "true" : "false");
	} else {
		setupdiff_targets(&o, a, b);
		setupdiff_time(&o, NULL, "slo", a->slo_latency_ns, b->slo_latency_ns);
		setupdiff_str(&o, NULL, "slo metric", campaign_slo_metric_name(a->slo_metric),
		              campaign_slo_metric_name(b->slo_metric));
		setupdiff_str(&o, NULL, "slo from", a->slo_from_due ? "due" : "storage",
		              b->slo_from_due ? "due" : "storage");
		setupdiff_str(&o, NULL, "slo part", a->slo_part[0] ? a->slo_part : "the whole",
		              b->slo_part[0] ? b->slo_part : "the whole");
	}
	/* the stop rules and cooldown decide which steps run and are judged saturated */
	if (a->stop.min_achieved_pct != b->stop.min_achieved_pct)
		setupdiff_add(&o, "stop achieved %g%% vs %g%%", a->stop.min_achieved_pct,
		              b->stop.min_achieved_pct);
	setupdiff_time(&o, NULL, "stop ceiling", a->stop.ceiling_ns, b->stop.ceiling_ns);
	if (a->stop.errors_pct != b->stop.errors_pct)
		setupdiff_add(&o, "stop errors %g%% vs %g%%", a->stop.errors_pct,
		              b->stop.errors_pct);
	setupdiff_str(&o, NULL, "stop allow_errors", a->stop.allow_errors ? "true" : "false",
	              b->stop.allow_errors ? "true" : "false");
	if (a->cooldown.margin_pct != b->cooldown.margin_pct)
		setupdiff_add(&o, "cooldown margin %g%% vs %g%%", a->cooldown.margin_pct,
		              b->cooldown.margin_pct);
	setupdiff_time(&o, NULL, "cooldown max", a->cooldown.max_ns, b->cooldown.max_ns);
	{
		char x[128], y[128];

		setupdiff_pcts(a, x, sizeof(x));
		setupdiff_pcts(b, y, sizeof(y));
		setupdiff_str(&o, NULL, "percentiles", x, y);
	}
	setupdiff_background(&o, a, b);
	{
		/* what the storage's side was read from: a figure of one run has no peer in another
		 */
		char x[512], y[512];

		setupdiff_observe(a, x, sizeof(x));
		setupdiff_observe(b, y, sizeof(y));
		setupdiff_str(&o, NULL, "observe", x, y);
	}
	for (size_t i = 0; i < a->nworkloads; i++)
		for (size_t j = 0; j < b->nworkloads; j++)
			if (strcmp(a->workloads[i].name, b->workloads[j].name) == 0)
				setupdiff_workload(&o, &a->workloads[i], &b->workloads[j]);
	return o.n;
}
