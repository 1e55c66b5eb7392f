/* SPDX-License-Identifier: MIT */
#ifndef IOCURVE_FIGS_H
#define IOCURVE_FIGS_H

/*
 * A step's figures by concern (figs_groups.h): agg_point merges the window and fills the
 * load and latency, then each extractor of figs_fill's table fills its own group from
 * what the step measured. A new concern is a group, a file with its extractor and a row.
 */
#include <stdbool.h>
#include <stdint.h>

#include "aggregate.h"

/* What an extractor reads: the step's intervals and its window, merged. */
struct figs_in {
	const struct campaign *c;
	struct agg_record *const *merged; /* per interval (NULL: none arrived) */
	uint32_t nintervals;
	uint32_t win_from, win_to;    /* the measured window, [from, to) */
	const struct agg_record *all; /* the window's measured intervals merged... */
	uint32_t nmeasured;           /* ...how many they are */
	uint64_t measured_ns;         /* ...and their length */
	int slo_part;                 /* the part the SLO judges (-1: the whole) */
};

void figs_kinds(const struct figs_in *in, struct step_point *pt);
void figs_parts(const struct figs_in *in, struct step_point *pt);
void figs_sync(const struct figs_in *in, struct step_point *pt);
void figs_kernel(const struct figs_in *in, struct step_point *pt);
void figs_verify(const struct figs_in *in, struct step_point *pt);
void figs_client(const struct figs_in *in, struct step_point *pt);

/*
 * Whether the client can have moved pt's verdict (its part, pt->client.slo_ns, or a
 * busy host): for a point whose figures are all in.
 */
bool figs_client_moved(const struct campaign *c, const struct step_point *pt);
/* What the workload says of the client's part: none on a simulated device. */
void figs_client_workload(struct step_point *pt, const struct campaign *c,
                          const struct workload *w);

/*
 * Every extractor in turn: after the load, the latency, the errors and the metric's
 * interval are in pt.
 */
void figs_fill(const struct figs_in *in, struct step_point *pt);

#endif
