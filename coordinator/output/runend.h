/* SPDX-License-Identifier: MIT */
/* How a campaign ended, as the results say it: the state, the reason and the run's description. */
#ifndef IOCURVE_RUNEND_H
#define IOCURVE_RUNEND_H

#include <stdbool.h>
#include <stddef.h>

/* What the run says of itself beyond its points. */
struct runend {
	/*
	 * How it ended, when it did not complete: state "" means complete; RUNEND_RUNNING
	 * is what files written between steps say, so none claims an end before it happened.
	 */
	char state[16]; /* "failed", "cancelled", "running" */
	char reason[512];
	/*
	 * meta.json as written at the start (runner_meta): date, version, command,
	 * coordinator and agent hosts, kernels, the target's mount; NULL: none.
	 */
	const char *meta;
};

#define RUNEND_RUNNING "running"

/*
 * The note at the top of every summary of a campaign that failed or was
 * cancelled, or written while it ran; false (and buf "") for a complete one.
 */
bool runend_note(const struct runend *end, char *buf, size_t len);

#endif
