/* SPDX-License-Identifier: MIT */
/*
 * Synthetic interval records: latency drawn from a log-normal distribution
 * (median and spread from the options), service time a little below it, so a
 * report carries a few hundred filled bins as a real agent's does.
 */
#include <math.h>
#include <string.h>

#include "hist.h"
#include "swarm.h"

/* Draws beyond this are scaled from this many: the shape, not the count, costs. */
#define SWARM_MAX_DRAWS 50000

uint64_t swarm_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

static double swarm_uniform(uint64_t *state)
{
	return ((double)(swarm_rand(state) >> 11) + 0.5) / 9007199254740992.0;
}

static double swarm_normal(uint64_t *state)
{
	return sqrt(-2.0 * log(swarm_uniform(state))) * cos(2.0 * M_PI * swarm_uniform(state));
}

/* count values of a log-normal with this median (ns) and sigma, in h. */
static void swarm_fill(struct hist *h, uint64_t count, double median_ns, double sigma,
                       uint64_t *seed)
{
	uint64_t draws = count < SWARM_MAX_DRAWS ? count : SWARM_MAX_DRAWS, total = 0;
	unsigned last = 0, first = HIST_BINS;

	hist_reset(h);
	for (uint64_t i = 0; i < draws; i++)
		h->bins[hist_index((uint64_t)(median_ns * exp(sigma * swarm_normal(seed))))]++;
	/* Scale to count, then recount: count, sum, min and max follow the bins. */
	for (unsigned b = 0; b < HIST_BINS; b++) {
		if (h->bins[b] == 0)
			continue;
		if (draws < count)
			h->bins[b] = h->bins[b] * count / draws;
		total += h->bins[b];
		last = b;
		if (first == HIST_BINS)
			first = b;
	}
	if (total == 0)
		return;
	h->bins[last] += count - total;
	h->count = count;
	h->sum = 0;
	for (unsigned b = first; b <= last; b++)
		h->sum += h->bins[b] * hist_bin_mid(b);
	h->min = hist_bin_low(first);
	h->max = hist_bin_low(last);
}

void swarm_record_free(struct swarm *sw)
{
	for (unsigned i = 0; i < SWARM_TEMPLATES; i++) {
		hist_encoded_free(&sw->tmpl[i].latency);
		hist_encoded_free(&sw->tmpl[i].service);
		hist_encoded_free(&sw->tmpl[i].read_latency);
		hist_encoded_free(&sw->tmpl[i].write_latency);
		memset(&sw->tmpl[i].latency, 0, sizeof(sw->tmpl[i].latency));
		memset(&sw->tmpl[i].service, 0, sizeof(sw->tmpl[i].service));
		memset(&sw->tmpl[i].read_latency, 0, sizeof(sw->tmpl[i].read_latency));
		memset(&sw->tmpl[i].write_latency, 0, sizeof(sw->tmpl[i].write_latency));
	}
}

void swarm_record_templates(struct swarm *sw, double ops, uint32_t rw, uint32_t read_pct,
                            uint32_t block_size)
{
	uint64_t n = (uint64_t)llround(ops);

	swarm_record_free(sw);
	for (unsigned i = 0; i < SWARM_TEMPLATES; i++) {
		struct swarm_template *t = &sw->tmpl[i];
		struct record *r = &t->rec;
		/* Each template's count varies a little, as a real interval's does. */
		uint64_t count = n > 10 ? n - n / 200 + swarm_rand(&sw->seed) % (n / 100 + 1) : n;

		record_reset(r);
		r->ops = count;
		r->reads =
		    rw == IOCURVE__RW_MODE__RW_MODE_READ || rw == IOCURVE__RW_MODE__RW_MODE_RANDREAD
		        ? count
		    : rw == IOCURVE__RW_MODE__RW_MODE_RW || rw == IOCURVE__RW_MODE__RW_MODE_RANDRW
		        ? count * read_pct / 100
		        : 0;
		r->bytes = count * block_size;
		r->cpu_user_ns = count * 4000;
		r->cpu_sys_ns = count * 6000;
		r->lag_sum_ns = count * 5000;
		r->wakes = count ? count / 4 + 1 : 0; /* a worker's batch of about four per wake */
		r->lag_max_ns = count ? 40000 + swarm_rand(&sw->seed) % 20000 : 0;
		/* A healthy client: lag all issue lateness (5 us), a few ops preempted, no steal.
		 */
		r->health_n = 1;
		r->issue_late_ns = count * 5000;
		r->reap_delay_ns = count * 2000;
		r->nivcsw = 2 + swarm_rand(&sw->seed) % 5;
		r->late_10us = count / 100;
		r->late_100us = count / 2000;
		swarm_fill(&r->latency, count, sw->o.median_us * 1000.0, sw->o.sigma, &sw->seed);
		swarm_fill(&r->service, count, sw->o.median_us * 800.0, sw->o.sigma, &sw->seed);
		/* Read and write apart (CAPABILITY_KINDS): writes a little slower. */
		r->read_bytes = r->reads * block_size;
		swarm_fill(&r->read_latency, r->reads, sw->o.median_us * 1000.0, sw->o.sigma,
		           &sw->seed);
		swarm_fill(&r->write_latency, count - r->reads, sw->o.median_us * 1200.0,
		           sw->o.sigma, &sw->seed);
		hist_encode(&r->latency, &t->latency);
		hist_encode(&r->service, &t->service);
		hist_encode(&r->read_latency, &t->read_latency);
		hist_encode(&r->write_latency, &t->write_latency);
	}
	sw->tmpl_ops = ops;
	sw->tmpl_rw = rw;
	sw->tmpl_read_pct = read_pct;
	sw->tmpl_bs = block_size;
}
