/* SPDX-License-Identifier: MIT */
/* A trace's operations held for the workers, and each worker's walk through its own. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "xalloc.h"

/* The set the agent holds: the prepared workload's (one at a time). */
static struct replay_set replay_held;

static void replay_release(void)
{
	free(replay_held.ops);
	free(replay_held.first);
	memset(&replay_held, 0, sizeof(replay_held));
}

/* The counts, arrays and numbers of p against their bounds. */
static int replay_check(const Iocurve__Prepare *p, uint32_t block_size, struct error *err)
{
	uint64_t sum = 0;
	size_t n = p->n_replay_time_ns;

	if (p->replay_period_ns == 0 || p->replay_period_ns > REPLAY_MAX_PERIOD_NS) {
		error_set(err,
		          "Prepare field replay_period_ns %" PRIu64
		          " is out of its bounds (1..%llu)",
		          p->replay_period_ns, REPLAY_MAX_PERIOD_NS);
		return -1;
	}
	if (!isfinite(p->replay_rate) || !(p->replay_rate > 0) ||
	    p->replay_rate > REPLAY_MAX_RATE) {
		error_set(err,
		          "Prepare field replay_rate %g is out of its bounds (above 0, at most %g)",
		          p->replay_rate, REPLAY_MAX_RATE);
		return -1;
	}
	if (p->n_replay_worker_ops != p->workers) {
		error_set(err,
		          "Prepare field replay_worker_ops has %zu counts, not one per worker (%u)",
		          p->n_replay_worker_ops, p->workers);
		return -1;
	}
	for (size_t w = 0; w < p->n_replay_worker_ops; w++)
		sum += p->replay_worker_ops[w];
	if (n > REPLAY_MAX_OPS || sum != n || p->n_replay_offset != n || p->n_replay_len != n ||
	    p->n_replay_write != n) {
		error_set(
		    err,
		    "Prepare fields replay_time_ns, replay_offset, replay_len and replay_write "
		    "(%zu, %zu, %zu, %zu operations) are out of their bounds: as many as "
		    "replay_worker_ops sums to (%" PRIu64 "), at most %u",
		    n, p->n_replay_offset, p->n_replay_len, p->n_replay_write, sum, REPLAY_MAX_OPS);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (p->replay_time_ns[i] >= p->replay_period_ns) {
			error_set(err,
			          "Prepare field replay_time_ns[%zu] %" PRIu64
			          " is over its bound: replay_period_ns %" PRIu64,
			          i, p->replay_time_ns[i], p->replay_period_ns);
			return -1;
		}
		if (p->replay_len[i] == 0 || p->replay_len[i] > block_size ||
		    p->replay_len[i] % 512 != 0) {
			error_set(
			    err,
			    "Prepare field replay_len[%zu] %u is out of its bounds (512..%u, a "
			    "multiple of 512: block_size)",
			    i, p->replay_len[i], block_size);
			return -1;
		}
	}
	return 0;
}

int replay_from_prepare(const Iocurve__Prepare *p, uint64_t file_size, uint32_t block_size,
                        const struct replay_set **out, struct error *err)
{
	uint32_t at = 0;

	replay_release();
	*out = NULL;
	if (p->replay_period_ns == 0 && p->n_replay_time_ns == 0 && p->n_replay_worker_ops == 0)
		return 0;
	if (replay_check(p, block_size, err) < 0)
		return -1;
	replay_held.ops =
	    xcalloc(p->n_replay_time_ns ? p->n_replay_time_ns : 1, sizeof(*replay_held.ops));
	replay_held.first = xcalloc(p->workers + 1, sizeof(*replay_held.first));
	replay_held.nworkers = p->workers;
	replay_held.period_ns = p->replay_period_ns;
	replay_held.rate = p->replay_rate;
	for (uint32_t w = 0; w < p->workers; w++) {
		uint64_t last = 0;

		replay_held.first[w] = at;
		for (uint32_t j = 0; j < p->replay_worker_ops[w]; j++, at++) {
			struct replay_op *op = &replay_held.ops[at];
			uint64_t off = file_size ? p->replay_offset[at] % file_size : 0;

			if (p->replay_time_ns[at] < last) {
				error_set(err,
				          "Prepare field replay_time_ns[%u] %" PRIu64
				          " goes back in worker %u's operations",
				          at, p->replay_time_ns[at], w);
				replay_release();
				return -1;
			}
			last = p->replay_time_ns[at];
			if (p->replay_len[at] > file_size) {
				error_set(err,
				          "replay operation %u of %u bytes does not fit the "
				          "target's %" PRIu64 " bytes",
				          at, p->replay_len[at], file_size);
				replay_release();
				return -1;
			}
			if (off + p->replay_len[at] > file_size)
				off = file_size - p->replay_len[at];
			op->t_ns = last;
			op->offset = off / 512 * 512;
			op->len = p->replay_len[at];
			op->write = p->replay_write[at];
		}
	}
	replay_held.first[p->workers] = at;
	*out = &replay_held;
	return 0;
}

void replay_src_init(struct replay_src *r, const struct replay_set *set, unsigned worker)
{
	memset(r, 0, sizeof(*r));
	if (set == NULL || worker >= set->nworkers)
		return;
	r->ops = set->ops + set->first[worker];
	r->n = set->first[worker + 1] - set->first[worker];
	r->period_ns = set->period_ns;
}

void replay_src_start(struct replay_src *r, uint64_t start_ns, double speed)
{
	r->start_ns = start_ns;
	r->speed = speed > 0 ? speed : 1;
	r->k = 0;
	r->cur = NULL;
}

uint64_t replay_next(struct replay_src *r)
{
	uint64_t pass, i;
	double at;

	if (r->n == 0)
		return UINT64_MAX;
	pass = r->k / r->n;
	i = r->k % r->n;
	r->cur = &r->ops[i];
	r->k++;
	at = ((double)pass * (double)r->period_ns + (double)r->ops[i].t_ns) / r->speed;
	return r->start_ns + (uint64_t)at;
}

uint64_t replay_due_before(const struct replay_src *r, uint64_t t)
{
	uint64_t pass, lo = 0, hi, total;
	double e, rem;

	if (r->n == 0 || t <= r->start_ns)
		return 0;
	e = (double)(t - r->start_ns) * r->speed;
	pass = (uint64_t)(e / (double)r->period_ns);
	rem = e - (double)pass * (double)r->period_ns;
	/* in this pass: the operations whose time is under rem */
	hi = r->n;
	while (lo < hi) {
		uint64_t mid = (lo + hi) / 2;

		if ((double)r->ops[mid].t_ns < rem)
			lo = mid + 1;
		else
			hi = mid;
	}
	total = pass * r->n + lo;
	return total > r->k ? total - r->k : 0;
}
