/* SPDX-License-Identifier: MIT */
/* What a step's point says about the target: short of its rate, saturated by the stop rules. */
#include <stdio.h>

#include "units.h"
#include "verdict.h"

bool verdict_short(const struct campaign *c, const struct step_point *pt)
{
	return pt->offered_ops > 0 &&
	       pt->achieved_ops < pt->offered_ops * c->stop.min_achieved_pct / 100.0;
}

bool verdict_saturated(const struct campaign *c, const struct step_point *pt, char *why, size_t len)
{
	double lat = step_metric(pt, c->slo_metric);
	char a[32], b[32];

	if (why == NULL)
		len = 0;
	if (verdict_short(c, pt)) {
		if (len)
			snprintf(why, len, "achieved %.0f%% of the offered rate",
			         100.0 * pt->achieved_ops / pt->offered_ops);
		return true;
	}
	if (c->stop.ceiling_ns && lat > (double)c->stop.ceiling_ns) {
		if (len) {
			units_format_duration((uint64_t)lat, a, sizeof(a));
			units_format_duration(c->stop.ceiling_ns, b, sizeof(b));
			snprintf(why, len, "%s latency %s over the %s ceiling",
			         campaign_slo_metric_name(c->slo_metric), a, b);
		}
		return true;
	}
	if (c->stop.on_errors && pt->errors > 0) {
		if (len)
			snprintf(why, len, "%llu I/O errors", (unsigned long long)pt->errors);
		return true;
	}
	return false;
}
