/* SPDX-License-Identifier: MIT */
/* Simulated devices in shared memory: foreground and background workers on the same servers. */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>

#include "simshare.h"

struct simshare_dev {
	uint32_t lock; /* 0 free, 1 held: a spin lock, held for a few instructions */
	uint32_t pad;
};

struct simshare {
	size_t bytes;
	uint32_t servers;
	uint32_t foreground; /* workers of the foreground workload per agent; 0: none yet */
	struct simshare_dev dev[SIMSHARE_DEVICES];
	/* then SIMSHARE_DEVICES x servers free times, device by device */
	uint64_t free_ns[];
};

struct simshare *simshare_new(uint32_t servers, struct error *err)
{
	size_t bytes =
	    sizeof(struct simshare) + (size_t)SIMSHARE_DEVICES * servers * sizeof(uint64_t);
	struct simshare *s;

	if (servers == 0) {
		error_set(err, "shared sim devices: servers is 0");
		return NULL;
	}
	s = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED) {
		error_set(err, "shared sim devices: mapping %zu bytes: %s", bytes, strerror(errno));
		return NULL;
	}
	/* anonymous memory is zero: every server free since time 0 */
	s->bytes = bytes;
	s->servers = servers;
	return s;
}

void simshare_free(struct simshare *s)
{
	if (s != NULL)
		munmap(s, s->bytes);
}

uint32_t simshare_servers(const struct simshare *s)
{
	return s->servers;
}

void simshare_set_foreground(struct simshare *s, uint32_t n)
{
	__atomic_store_n(&s->foreground, n, __ATOMIC_RELAXED);
}

uint32_t simshare_spread(const struct simshare *s, uint64_t seq, uint32_t own)
{
	uint32_t n = __atomic_load_n(&s->foreground, __ATOMIC_RELAXED);

	if (n == 0)
		n = own ? own : 1;
	if (n > SIMSHARE_DEVICES)
		n = SIMSHARE_DEVICES;
	return (uint32_t)(seq % n);
}

uint64_t simshare_take(struct simshare *s, uint32_t dev, uint64_t ready_ns, uint64_t service_ns)
{
	struct simshare_dev *d = &s->dev[dev % SIMSHARE_DEVICES];
	uint64_t *f = s->free_ns + (size_t)(dev % SIMSHARE_DEVICES) * s->servers;
	uint64_t start, done;
	uint32_t m = 0;

	while (__atomic_exchange_n(&d->lock, 1, __ATOMIC_ACQUIRE) != 0)
		sched_yield(); /* the holder was preempted: let it run */
	for (uint32_t i = 1; i < s->servers; i++)
		if (f[i] < f[m])
			m = i;
	start = f[m] > ready_ns ? f[m] : ready_ns;
	done = start + service_ns;
	f[m] = done;
	__atomic_store_n(&d->lock, 0, __ATOMIC_RELEASE);
	return done;
}
