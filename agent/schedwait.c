/* SPDX-License-Identifier: MIT */
/* A worker's wait for a CPU and the reap delay it implies (schedwait.h). */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "schedwait.h"

void schedwait_open(struct schedwait *s)
{
	*s = (struct schedwait){.fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC)};
}

void schedwait_close(struct schedwait *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

/* The thread's three counters; -1 when they cannot be read. */
static int schedwait_read(const struct schedwait *s, uint64_t *exec, uint64_t *wait, uint64_t *runs)
{
	char buf[128];
	ssize_t n;

	if (s->fd < 0)
		return -1;
	n = pread(s->fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return sscanf(buf, "%" SCNu64 " %" SCNu64 " %" SCNu64, exec, wait, runs) == 3 ? 0 : -1;
}

void schedwait_mark(struct schedwait *s, uint64_t now)
{
	if (schedwait_read(s, &s->exec_ns, &s->wait_ns, &s->runs) == 0)
		s->at_ns = now;
	else
		s->at_ns = 0;
}

double schedwait_estimate(uint64_t span_ns, uint64_t exec_ns, uint64_t wait_ns, uint64_t runs)
{
	double span = (double)span_ns, ran, waited, asleep;

	if (span_ns == 0 || runs == 0)
		return 0;
	ran = (double)exec_ns / span;
	waited = (double)wait_ns / span;
	/* the counters are read a little apart from the clock: shares within [0, 1] */
	ran = ran > 1 ? 1 : ran;
	waited = waited > 1 - ran ? 1 - ran : waited;
	asleep = 1 - ran - waited;
	return (asleep + waited / 2) * ((double)wait_ns / (double)runs);
}

uint64_t schedwait_reap(struct schedwait *s, uint64_t now)
{
	uint64_t exec, wait, runs, at = s->at_ns;
	double est;

	if (at == 0 || now <= at || schedwait_read(s, &exec, &wait, &runs) < 0 ||
	    exec < s->exec_ns || wait < s->wait_ns || runs < s->runs) {
		schedwait_mark(s, now);
		return 0;
	}
	est = schedwait_estimate(now - at, exec - s->exec_ns, wait - s->wait_ns, runs - s->runs);
	s->exec_ns = exec;
	s->wait_ns = wait;
	s->runs = runs;
	s->at_ns = now;
	return (uint64_t)est;
}
