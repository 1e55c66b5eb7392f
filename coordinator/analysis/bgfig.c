/* SPDX-License-Identifier: MIT */
/* Load under load: the background's figures over a foreground step. */
#include <stdio.h>

#include "background.h"
#include "bgfig.h"
#include "hist.h"

void bgfig_fill(struct step_point *p, double asked, const struct record *acc, uint32_t n,
                double secs)
{
	p->bg.on = true;
	p->bg.asked_ops = asked;
	p->bg.intervals = n;
	p->bg.ops = secs > 0 ? (double)acc->ops / secs : 0;
	p->bg.mib_s = secs > 0 ? (double)acc->bytes / secs / (1024.0 * 1024.0) : 0;
	p->bg.mean_ns = hist_mean(&acc->latency);
	p->bg.p99_ns = hist_quantile(&acc->latency, 99);
	p->bg.missed = acc->missed;
}

bool bgfig_kept_up(const struct step_point *p)
{
	if (!p->bg.on || p->bg.intervals == 0)
		return false;
	if (p->bg.asked_ops <= 0)
		return true;
	/*
	 * The rate alone: missed is a backlog seen at an interval's end, which a client's
	 * hiccup leaves for a moment (1 of 1,000 at 100% of the rate) without the
	 * background losing its rate.
	 */
	return p->bg.ops >= p->bg.asked_ops * BACKGROUND_KEPT_UP_PCT / 100.0;
}

void bgfig_words(const struct step_point *p, char *buf, size_t len)
{
	if (!p->bg.on) {
		snprintf(buf, len, "%s", "");
	} else if (p->bg.intervals == 0) {
		snprintf(buf, len, "not measured (no background interval inside the step)");
	} else if (p->bg.asked_ops <= 0) {
		snprintf(buf, len, "max: %.0f ops/s", p->bg.ops);
	} else if (bgfig_kept_up(p)) {
		snprintf(buf, len, "kept up (%.0f of %.0f ops/s)", p->bg.ops, p->bg.asked_ops);
	} else {
		snprintf(buf, len, "fell behind: %.0f of %.0f ops/s asked (%.0f%%)%s", p->bg.ops,
		         p->bg.asked_ops, 100.0 * p->bg.ops / p->bg.asked_ops,
		         p->bg.missed ? ", operations missed" : "");
	}
}
