/* SPDX-License-Identifier: MIT */
/* The sim engine: a simulated device of parallel servers on the real clock, no real I/O. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "engine.h"
#include "simshare.h"
#include "xalloc.h"

#define SIM_ALIGN 4096u
/* Slots are uint16_t, so no caller can keep more than this in flight. */
#define SIM_MAX_DEPTH (UINT16_MAX + 1u)

/* An operation the device has accepted: it completes (or completed) at done_ns. */
struct sim_op {
	uint64_t done_ns;
	uint64_t seq; /* submission order: equal completion times are delivered FIFO */
	int32_t res;
	uint16_t slot;
};

/* Queued by the caller, not yet submitted: it has no submission time yet. */
struct sim_pending {
	uint32_t len;
	uint16_t slot;
	bool write;
	uint8_t op; /* a file operation's kind (fileop.h), served in its own time when given */
};

struct engine {
	uint32_t queue_depth;
	uint32_t block_size;
	int wake_fd;
	unsigned char *bufs;   /* queue_depth * block_size, aligned like a real engine's */
	uint64_t *server_free; /* min-heap: when each server next becomes free */
	uint32_t nservers;
	struct sim_pending *pending;
	uint32_t npending;
	struct sim_op *inflight; /* min-heap on (done_ns, seq): accepted, not yet delivered */
	uint32_t ninflight;
	uint64_t service_ns;
	uint64_t write_service_ns; /* writes' (write_service_time:; service_ns when not given) */
	uint64_t op_service_ns[FILEOP_COUNT]; /* file operations' by kind (0: as above) */
	double jitter;                        /* fraction of the service time, in [0, 1] */
	bool exponential;
	uint64_t stall_after_ops;
	uint64_t stall_ns;
	/*
	 * The token bucket of a rate limit (token_ns 0: none), as GCRA keeps it: the
	 * next operation conforms from tat_ns - burst_ns on; each one moves tat_ns on
	 * by token_ns from the later of itself and the one before.
	 */
	double token_ns;
	double burst_ns; /* ENGINE_SIM_BURST_NS, at least (ENGINE_SIM_BURST - 1) x token_ns */
	double tat_ns;
	uint64_t submitted; /* operations submitted so far; the last one's 1-based number */
	uint64_t rng;
	uint64_t reap_slack_ns; /* a completion may wait this long while a slot is free */
	bool overflow; /* the caller queued past queue_depth: reported, not silently dropped */
	struct simshare *share; /* set: the servers are a shared device's (engine.h) */
	uint32_t share_dev;
	uint32_t share_own;
	bool share_spread;
};

/* splitmix64: cheap, and a seed gives the same service times on every run. */
static uint64_t sim_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * An operation's service time: a file operation's its kind's when given, else a write's is
 * write_service_ns (mean), a read's service_ns.
 */
static uint64_t sim_service_ns(struct engine *e, bool write, unsigned op)
{
	uint64_t mean = op != FILEOP_NONE && e->op_service_ns[op] ? e->op_service_ns[op]
	                : write                                   ? e->write_service_ns
	                                                          : e->service_ns;
	double u;

	if (e->exponential) {
		/* Inversion with 53 random bits: u < 1, so log1p(-u) stays finite. */
		u = (double)(sim_rand(&e->rng) >> 11) * 0x1p-53;
		return (uint64_t)(-log1p(-u) * (double)mean + 0.5);
	}
	/* Without jitter the service time is exact: no rounding through a double. */
	if (e->jitter == 0)
		return mean;
	u = (double)(sim_rand(&e->rng) >> 11) * 0x1p-53 * 2.0 - 1.0;
	return (uint64_t)((double)mean * (1.0 + u * e->jitter) + 0.5);
}

static bool sim_u64_before(const void *a, const void *b)
{
	return *(const uint64_t *)a < *(const uint64_t *)b;
}

static bool sim_op_before(const void *pa, const void *pb)
{
	const struct sim_op *a = pa, *b = pb;

	return a->done_ns < b->done_ns || (a->done_ns == b->done_ns && a->seq < b->seq);
}

/* Restore a min-heap of n elements of size bytes (at most sizeof(struct sim_op)) below i. */
static void sim_sift_down(void *heap, size_t size, uint32_t n, uint32_t i,
                          bool (*before)(const void *, const void *))
{
	char *h = heap, t[sizeof(struct sim_op)];

	for (;;) {
		uint32_t l = 2 * i + 1, m = i;

		if (l < n && before(h + l * size, h + m * size))
			m = l;
		if (l + 1 < n && before(h + (l + 1) * size, h + m * size))
			m = l + 1;
		if (m == i)
			return;
		memcpy(t, h + i * size, size);
		memcpy(h + i * size, h + m * size, size);
		memcpy(h + m * size, t, size);
		i = m;
	}
}

static void sim_op_push(struct engine *e, const struct sim_op *op)
{
	struct sim_op *h = e->inflight;
	uint32_t i = e->ninflight++;

	while (i > 0 && sim_op_before(op, &h[(i - 1) / 2])) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = *op;
}

static void sim_op_pop(struct engine *e)
{
	e->inflight[0] = e->inflight[--e->ninflight];
	sim_sift_down(e->inflight, sizeof(*e->inflight), e->ninflight, 0, sim_op_before);
}

/*
 * The device stops serving until until_ns: no server starts anything before then,
 * and nothing still in service completes during it (a stalled device returns
 * nothing). Raising every key to at least one value keeps the server heap ordered;
 * the operation heap may gain ties whose FIFO order must be restored, so it is
 * rebuilt (a stall happens once per run).
 */
static void sim_stall(struct engine *e, uint64_t now, uint64_t until_ns)
{
	for (uint32_t i = 0; i < e->nservers; i++)
		if (e->server_free[i] < until_ns)
			e->server_free[i] = until_ns;
	for (uint32_t i = 0; i < e->ninflight; i++)
		if (e->inflight[i].done_ns > now && e->inflight[i].done_ns < until_ns)
			e->inflight[i].done_ns = until_ns;
	for (uint32_t i = e->ninflight / 2; i-- > 0;)
		sim_sift_down(e->inflight, sizeof(*e->inflight), e->ninflight, i, sim_op_before);
}

/*
 * When an operation arriving at now may reach the servers: at once without a
 * rate limit or with a token in the bucket, else when the next token comes
 * (FIFO behind those already waiting: the device queues what is over the rate).
 */
static uint64_t sim_token(struct engine *e, uint64_t now)
{
	double at;

	if (e->token_ns <= 0)
		return now;
	at = e->tat_ns - e->burst_ns;
	if (at < (double)now)
		at = (double)now;
	e->tat_ns = (e->tat_ns > (double)now ? e->tat_ns : (double)now) + e->token_ns;
	return (uint64_t)ceil(at);
}

/* FIFO through the rate limit's bucket (if any), then onto the earliest free server. */
static void sim_submit(struct engine *e, uint64_t now)
{
	for (uint32_t i = 0; i < e->npending; i++) {
		struct sim_op op;
		uint64_t start, ready;

		op.seq = ++e->submitted;
		if (op.seq == e->stall_after_ops)
			sim_stall(e, now, now + e->stall_ns);
		ready = sim_token(e, now);
		if (e->share != NULL) {
			/* another process's operations may hold the servers: the shared device's */
			uint32_t dev = e->share_spread
			                   ? simshare_spread(e->share, op.seq, e->share_own)
			                   : e->share_dev;

			op.done_ns =
			    simshare_take(e->share, dev, ready,
			                  sim_service_ns(e, e->pending[i].write, e->pending[i].op));
		} else {
			start = e->server_free[0] > ready ? e->server_free[0] : ready;
			op.done_ns =
			    start + sim_service_ns(e, e->pending[i].write, e->pending[i].op);
			e->server_free[0] = op.done_ns;
			sim_sift_down(e->server_free, sizeof(*e->server_free), e->nservers, 0,
			              sim_u64_before);
		}
		op.slot = e->pending[i].slot;
		op.res = (int32_t)e->pending[i].len; /* reads and writes always succeed */
		sim_op_push(e, &op);
	}
	e->npending = 0;
}

/* Deliver what completed by now, earliest first; what does not fit stays for the next call. */
static int sim_reap(struct engine *e, uint64_t now, struct engine_completion *done, int max)
{
	int n = 0;

	while (n < max && e->ninflight > 0 && e->inflight[0].done_ns <= now) {
		done[n].slot = e->inflight[0].slot;
		done[n].res = e->inflight[0].res;
		done[n].done_ns = e->inflight[0].done_ns;
		done[n].start_ns = 0;
		n++;
		sim_op_pop(e);
	}
	return n;
}

/*
 * Sleep in the kernel for timeout_ns (UINT64_MAX: no limit) or until wake_fd is
 * written, never longer and never spinning. The eventfd may be blocking, so it is
 * read only once poll says it is readable. Returns 0 or -errno.
 */
static int sim_poll(struct engine *e, uint64_t timeout_ns, bool *woken)
{
	struct pollfd pfd = {.fd = e->wake_fd, .events = POLLIN}; /* fd < 0: ignored by poll */
	struct timespec ts, *tsp = NULL;
	uint64_t v;
	int ret;

	if (timeout_ns != UINT64_MAX) {
		ts = clock_ns_to_timespec(timeout_ns);
		tsp = &ts;
	}
	ret = ppoll(&pfd, 1, tsp, NULL);
	if (ret < 0)
		return -errno;
	if (ret == 0)
		return 0;
	if (pfd.revents & POLLNVAL)
		return -EBADF;
	if (!(pfd.revents & POLLIN))
		return -EPIPE; /* hung up with nothing to read: every later poll would spin */
	*woken = true;
	if (read(e->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN && errno != EINTR)
		return -errno;
	return 0;
}

static struct engine *sim_open(const struct engine_params *p, struct error *err)
{
	const struct engine_sim_params *s = &p->sim;
	struct engine *e;
	void *bufs = NULL;
	int ret;

	if (p->queue_depth == 0 || p->queue_depth > SIM_MAX_DEPTH || p->block_size == 0) {
		error_set(err, "sim engine: queue depth %u and block size %u must be 1..%u and > 0",
		          p->queue_depth, p->block_size, SIM_MAX_DEPTH);
		return NULL;
	}
	if (s->servers == 0) {
		error_set(err, "sim engine: servers is 0; the device needs at least one");
		return NULL;
	}
	if (s->jitter_pct > 100) {
		error_set(err,
		          "sim engine: jitter %u%% is over 100%%; service times would go negative",
		          s->jitter_pct);
		return NULL;
	}
	if (!(s->rate_limit >= 0) || !isfinite(s->rate_limit) ||
	    (s->rate_limit > 0 && 1e9 / s->rate_limit > 1e15)) {
		error_set(err,
		          "sim engine: rate limit %g ops/s must be a finite rate, 0 for none, "
		          "and at least one operation in 1e6 s",
		          s->rate_limit);
		return NULL;
	}
	ret = posix_memalign(&bufs, SIM_ALIGN, (size_t)p->queue_depth * p->block_size);
	if (ret) {
		error_set(err, "sim engine: allocating %u buffers of %u bytes: %s", p->queue_depth,
		          p->block_size, strerror(ret));
		return NULL;
	}
	e = xcalloc(1, sizeof(*e));
	e->queue_depth = p->queue_depth;
	e->block_size = p->block_size;
	e->wake_fd = p->wake_fd;
	e->bufs = bufs;
	memset(e->bufs, 0, (size_t)p->queue_depth * p->block_size);
	/*
	 * With at most queue_depth operations accepted, at most queue_depth - 1 are in
	 * service when one more arrives, so servers beyond queue_depth are never the
	 * earliest free one that matters: clamping changes no completion time.
	 */
	e->nservers = s->servers < p->queue_depth ? s->servers : p->queue_depth;
	e->server_free = xcalloc(e->nservers, sizeof(*e->server_free));
	e->pending = xcalloc(p->queue_depth, sizeof(*e->pending));
	e->inflight = xcalloc(p->queue_depth, sizeof(*e->inflight));
	e->service_ns = s->service_ns;
	e->write_service_ns = s->write_service_ns ? s->write_service_ns : s->service_ns;
	memcpy(e->op_service_ns, s->op_service_ns, sizeof(e->op_service_ns));
	e->jitter = s->jitter_pct / 100.0;
	e->exponential = s->exponential;
	e->stall_after_ops = s->stall_after_ops;
	e->stall_ns = s->stall_ns;
	if (s->rate_limit > 0) {
		e->token_ns = 1e9 / s->rate_limit;
		e->burst_ns = (ENGINE_SIM_BURST - 1) * e->token_ns;
		if (e->burst_ns < (double)ENGINE_SIM_BURST_NS)
			e->burst_ns = (double)ENGINE_SIM_BURST_NS;
	}
	e->rng = p->seed;
	e->reap_slack_ns = p->reap_slack_ns;
	e->share = s->share;
	e->share_dev = s->share_dev;
	e->share_own = s->share_own;
	e->share_spread = s->share_spread;
	return e;
}

static void *sim_buffer(struct engine *e, uint16_t slot)
{
	return e->bufs + (size_t)slot * e->block_size;
}

static void sim_queue(struct engine *e, const struct engine_io *io)
{
	/* A real ring would overflow here; say so at the next submit rather than lose an op. */
	if (io->slot >= e->queue_depth || e->npending + e->ninflight >= e->queue_depth) {
		e->overflow = true;
		return;
	}
	e->pending[e->npending].slot = io->slot;
	e->pending[e->npending].len = io->len;
	/* a sync is served as one write of the device: its service time, a server's turn */
	e->pending[e->npending].write =
	    io->write || io->sync != ENGINE_SYNC_NONE || fileop_modifies(io->op);
	e->pending[e->npending].op = (uint8_t)io->op;
	e->npending++;
}

/*
 * Submission time is this call's clock read. Completions are handed over once the
 * real clock has passed them (by up to reap_slack_ns while a slot is free: their
 * times are the device's, so waking for each is only CPU); until then the call
 * sleeps in ppoll to the earliest of that, the caller's deadline and a wake. When
 * it does not sleep it still looks at wake_fd once (zero timeout), so a wake is
 * never starved by a caller that always finds completions due.
 */
static int sim_submit_and_wait(struct engine *e, uint64_t wait_ns, struct engine_completion *done,
                               int max, bool *woken)
{
	uint64_t now = clock_now_ns(), deadline;
	bool polled = false;
	int n, ret;

	*woken = false;
	if (e->overflow)
		return -EOVERFLOW;
	sim_submit(e, now);
	if (wait_ns == ENGINE_WAIT_EVER || wait_ns > UINT64_MAX - now)
		deadline = UINT64_MAX;
	else
		deadline = now + wait_ns;
	for (;;) {
		uint64_t until = deadline, slack = 0;

		if (e->ninflight < e->queue_depth && deadline != UINT64_MAX)
			slack = e->reap_slack_ns;
		if (e->ninflight > 0 && e->inflight[0].done_ns + slack < until)
			until = e->inflight[0].done_ns + slack;
		if (now >= until) {
			n = sim_reap(e, now, done, max);
			ret = polled ? 0 : sim_poll(e, 0, woken);
			return ret < 0 && ret != -EINTR ? ret : n;
		}
		ret = sim_poll(e, until == UINT64_MAX ? UINT64_MAX : until - now, woken);
		polled = true;
		if (ret == -EINTR)
			return 0; /* a signal ends the sleep, as it does in the ring */
		if (ret < 0)
			return ret;
		now = clock_now_ns();
		if (*woken)
			return sim_reap(e, now, done, max);
	}
}

static void sim_close(struct engine *e)
{
	if (e == NULL)
		return;
	/* Nothing real is in flight: accepted operations are simply forgotten. */
	free(e->bufs);
	free(e->server_free);
	free(e->pending);
	free(e->inflight);
	free(e);
}

const struct engine_ops engine_sim_ops = {
    .name = "sim",
    .open = sim_open,
    .buffer = sim_buffer,
    .queue = sim_queue,
    .submit_and_wait = sim_submit_and_wait,
    .close = sim_close,
};
