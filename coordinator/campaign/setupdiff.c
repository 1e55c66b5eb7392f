/* SPDX-License-Identifier: MIT */
/* What differs between the setups of two campaigns: the words `iocurve compare` warns with. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rw.h"
#include "setupdiff.h"
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

static void setupdiff_workload(struct setupdiff_out *o, const struct workload *a,
                               const struct workload *b)
{
	const char *w = a->name;
	char x[48], y[48];

	setupdiff_str(o, w, "rw", rw_mode_name(a->rw), rw_mode_name(b->rw));
	setupdiff_size(o, w, "block_size", a->block_size, b->block_size);
	setupdiff_u64(o, w, "workers", a->workers, b->workers);
	setupdiff_u64(o, w, "queue_depth", a->queue_depth, b->queue_depth);
	if (rw_is_mix(a->rw) || rw_is_mix(b->rw))
		setupdiff_u64(o, w, "read_pct", a->access.read_pct, b->access.read_pct);
	access_dist_text(&a->access, x, sizeof(x));
	access_dist_text(&b->access, y, sizeof(y));
	setupdiff_str(o, w, "random", x, y);
	setupdiff_size(o, w, "working_set", a->access.working_set, b->access.working_set);
	setupdiff_str(o, w, "direct", a->access.direct ? "true" : "false",
	              b->access.direct ? "true" : "false");
	setupdiff_str(o, w, "arrivals", a->access.poisson ? "poisson" : "uniform",
	              b->access.poisson ? "poisson" : "uniform");
	setupdiff_str(o, w, "timing", a->access.efficient ? "efficient" : "precise",
	              b->access.efficient ? "efficient" : "precise");
	setupdiff_time(o, w, "interval", a->interval_ns, b->interval_ns);
	setupdiff_time(o, w, "warmup", a->warmup_ns, b->warmup_ns);
	setupdiff_time(o, w, "measure", a->measure_ns, b->measure_ns);
}

size_t setupdiff(const struct campaign *a, const struct campaign *b, char *buf, size_t len)
{
	struct setupdiff_out o = {.buf = buf, .len = len};

	buf[0] = '\0';
	setupdiff_u64(&o, NULL, "agents", a->agents_count, b->agents_count);
	setupdiff_str(&o, NULL, "target", a->sim.enabled ? "sim" : a->target_path,
	              b->sim.enabled ? "sim" : b->target_path);
	setupdiff_size(&o, NULL, "target size", a->target_size, b->target_size);
	/* a simulated device is its parameters: two sims of other service times are two devices */
	if (a->sim.enabled && b->sim.enabled) {
		setupdiff_u64(&o, NULL, "sim servers", a->sim.servers, b->sim.servers);
		setupdiff_time(&o, NULL, "sim service_time", a->sim.service_ns, b->sim.service_ns);
		setupdiff_u64(&o, NULL, "sim jitter", a->sim.jitter_pct, b->sim.jitter_pct);
		setupdiff_str(&o, NULL, "sim service", a->sim.exponential ? "exponential" : "fixed",
		              b->sim.exponential ? "exponential" : "fixed");
		setupdiff_u64(&o, NULL, "sim stall after", a->sim.stall_after_ops,
		              b->sim.stall_after_ops);
		setupdiff_time(&o, NULL, "sim stall for", a->sim.stall_ns, b->sim.stall_ns);
	}
	setupdiff_time(&o, NULL, "slo", a->slo_latency_ns, b->slo_latency_ns);
	setupdiff_str(&o, NULL, "slo metric", campaign_slo_metric_name(a->slo_metric),
	              campaign_slo_metric_name(b->slo_metric));
	for (size_t i = 0; i < a->nworkloads; i++)
		for (size_t j = 0; j < b->nworkloads; j++)
			if (strcmp(a->workloads[i].name, b->workloads[j].name) == 0)
				setupdiff_workload(&o, &a->workloads[i], &b->workloads[j]);
	return o.n;
}
