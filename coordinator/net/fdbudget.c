/* SPDX-License-Identifier: MIT */
/* The daemon's descriptors, shared out against RLIMIT_NOFILE. */
#include <string.h>
#include <sys/resource.h>

#include "fdbudget.h"

#define FDBUDGET_MIN_CAP 4

unsigned fdbudget_nofile(void)
{
	static unsigned nofile;
	struct rlimit rl;

	if (nofile == 0) {
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
		    rl.rlim_cur < (1u << 20))
			nofile = (unsigned)rl.rlim_cur;
		else
			nofile = 1u << 20;
	}
	return nofile;
}

size_t fdbudget_cap(size_t wanted, unsigned share)
{
	size_t part = fdbudget_nofile() / share;

	if (part < FDBUDGET_MIN_CAP)
		part = FDBUDGET_MIN_CAP;
	return wanted < part ? wanted : part;
}

bool fdbudget_in_reserve(int fd)
{
	unsigned nofile = fdbudget_nofile();

	return fd >= 0 && (unsigned)fd >= nofile - nofile / 4;
}

long fdbudget_victim(size_t n, const char *(*source)(size_t i, void *arg), void *arg,
                     const char *src)
{
	long best = -1;
	size_t best_count = 0;

	/* Fleets of connections nobody vouched for are capped small: n^2 is a few thousand. */
	for (size_t i = 0; i < n; i++) {
		const char *s = source(i, arg);
		size_t count = src != NULL && strcmp(s, src) == 0;
		bool first = true;

		for (size_t j = 0; j < n; j++)
			if (strcmp(source(j, arg), s) == 0) {
				first &= j >= i;
				count++;
			}
		if (!first) /* the source's oldest stands for it */
			continue;
		if (best < 0 || count > best_count ||
		    (count == best_count && src != NULL && strcmp(s, src) == 0)) {
			best = (long)i;
			best_count = count;
		}
	}
	return best;
}
