/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: an agent's histograms from the wire to a fleet's figures. The input is
 * IntervalReport frames as agents send them. Each histogram is decoded (hist_decode) and
 * each report as the coordinator decodes it (record_decode); what is accepted is merged
 * into a running fleet (hist_merge; record_merge where record_merge_fits, as the
 * coordinator merges), and the fleet into itself as many times as the report's
 * interval number says (mod 64), so a few reports reach the bounds where histogram
 * merges must give up count to stay within them. After every merge the result must be what every
 * reader accepts: hist_check and record_check pass, the mean lies in [min, max], the bins add up to
 * count, quantiles stay in [min, max], and the wire form decodes back to the same histogram
 * (intervals.jsonl's reader goes through hist_decode). A merge that yields what serve would write
 * and `report` refuse is a crash here.
 */
#include <event2/buffer.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "fuzz.h"
#include "hist.h"
#include "iocurve.pb-c.h"
#include "record.h"
#include "xalloc.h"

#define FUZZ_DOUBLINGS 64

static void fuzz_hist_fail(const char *what, const char *name, const struct hist *h)
{
	fprintf(stderr,
	        "fuzz-hist: %s: %s count %" PRIu64 " sum %" PRIu64 " min %" PRIu64 " max %" PRIu64
	        "\n",
	        name, what, h->count, h->sum, h->min, h->max);
	abort();
}

/* Everything a reader of h relies on. */
static void fuzz_hist_holds(const char *name, const struct hist *h)
{
	static struct hist back;
	Iocurve__Histogram m;
	struct error err;
	uint64_t total = 0;
	unsigned i, lo, hi;
	double mean = hist_mean(h);

	if (hist_check(name, h, &err) < 0) {
		fprintf(stderr, "fuzz-hist: %s\n", err.msg);
		fuzz_hist_fail("refused by hist_check", name, h);
	}
	if (h->count == 0)
		return;
	if (h->sum / h->count < h->min || h->sum / h->count > h->max ||
	    mean < (double)h->min * (1 - 1e-15) || mean > (double)h->max * (1 + 1e-15))
		fuzz_hist_fail("mean outside [min, max]", name, h);
	hist_span(h, &lo, &hi);
	for (i = 0; i < HIST_BINS; i++) {
		if ((i < lo || i >= hi) && h->bins[i] != 0)
			fuzz_hist_fail("a bin outside min's to max's is not empty", name, h);
		total += h->bins[i];
	}
	if (total != h->count)
		fuzz_hist_fail("bins do not add up to count", name, h);
	if (h->bins[lo] == 0 || h->bins[hi - 1] == 0)
		fuzz_hist_fail("min's or max's bin is empty", name, h);
	for (double q = 0.0; q <= 100.0; q += 12.5) {
		uint64_t v = hist_quantile(h, q);

		if (v < h->min || v > h->max)
			fuzz_hist_fail("a quantile outside [min, max]", name, h);
	}
	hist_encode(h, &m);
	if (hist_decode(&back, &m, &err) < 0) {
		fprintf(stderr, "fuzz-hist: %s\n", err.msg);
		fuzz_hist_fail("written, then refused by hist_decode", name, h);
	}
	hist_encoded_free(&m);
	if (back.count != h->count || back.sum != h->sum || back.min != h->min ||
	    back.max != h->max || memcmp(back.bins, h->bins, sizeof(h->bins)) != 0)
		fuzz_hist_fail("read back different", name, h);
}

static void fuzz_record_holds(const struct record *rec)
{
	struct error err;

	fuzz_hist_holds("latency", &rec->latency);
	fuzz_hist_holds("service", &rec->service);
	fuzz_hist_holds("read_latency", &rec->read_latency);
	fuzz_hist_holds("write_latency", &rec->write_latency);
	if (record_check(rec, &err) < 0) {
		fprintf(stderr, "fuzz-hist: merged record refused by record_check: %s\n", err.msg);
		abort();
	}
}

struct fuzz_fleet {
	struct hist h[4]; /* every histogram accepted, of whatever kind */
	struct hist copy;
	struct record rec, rec_copy;
	bool any_rec;
};

/* Merges h into the fleet's histogram of its kind, then that into itself doublings times. */
static void fuzz_hist_merge(struct hist *fleet, struct hist *copy, const struct hist *h,
                            unsigned doublings)
{
	hist_merge(fleet, h);
	fuzz_hist_holds("merged", fleet);
	for (unsigned d = 0; d < doublings; d++) {
		*copy = *fleet;
		hist_merge(fleet, copy);
		fuzz_hist_holds("doubled", fleet);
	}
}

static void fuzz_report(struct fuzz_fleet *f, const Iocurve__IntervalReport *r)
{
	const Iocurve__Histogram *const in[4] = {r->latency, r->service, r->read_latency,
	                                         r->write_latency};
	unsigned doublings = r->interval % FUZZ_DOUBLINGS;
	static struct record rec;
	struct error err;

	for (int k = 0; k < 4; k++) {
		if (in[k] == NULL || hist_decode(&f->copy, in[k], &err) < 0)
			continue;
		fuzz_hist_holds("decoded", &f->copy);
		{
			struct hist *h = xmalloc(sizeof(*h));

			*h = f->copy;
			fuzz_hist_merge(&f->h[k], &f->copy, h, doublings);
			free(h);
		}
	}
	if (record_decode(&rec, r, &err) < 0)
		return;
	fuzz_record_holds(&rec);
	/* As the coordinator merges a fleet's interval: only what fits (agg_add_record). */
	if (record_merge_fits(&f->rec, &rec, &err) < 0)
		return;
	record_merge(&f->rec, &rec);
	fuzz_record_holds(&f->rec);
	for (unsigned d = 0; d < doublings && record_merge_fits(&f->rec, &f->rec, &err) == 0; d++) {
		record_copy(&f->rec_copy,
		            &f->rec); /* its own parts: merging reads one, grows the other */
		record_merge(&f->rec, &f->rec_copy);
		fuzz_record_holds(&f->rec);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_fleet *f = xmalloc(sizeof(*f));
	struct evbuffer *in = evbuffer_new();
	Iocurve__Envelope *env;
	struct error err;

	for (int k = 0; k < 4; k++)
		hist_reset(&f->h[k]);
	hist_reset(&f->copy);
	record_init(&f->rec);
	record_init(&f->rec_copy);
	evbuffer_add(in, data, size);
	while (frame_read(in, 1u << 20, &env, &err) > 0) {
		if (env->body_case == IOCURVE__ENVELOPE__BODY_INTERVAL_REPORT)
			fuzz_report(f, env->interval_report);
		frame_free(env);
	}
	evbuffer_free(in);
	record_release(&f->rec);
	record_release(&f->rec_copy);
	free(f);
	return 0;
}
