/* SPDX-License-Identifier: MIT */
/* Benchmark one real worker on one file, or the per-operation measurement cost. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "hist.h"
#include "rw.h"
#include "shm.h"
#include "units.h"
#include "worker.h"
#include "xalloc.h"

/* The step starts this long after it is announced, as the agent's steps do. */
#define BENCH_LEAD_NS (20 * NSEC_PER_MSEC)
/* Laying out a large file on a slow disk can take a while before READY. */
#define BENCH_READY_TIMEOUT_NS (300 * NSEC_PER_SEC)

struct bench_opts {
	const char *file;
	uint64_t size;
	enum rw_mode rw;
	uint32_t block_size;
	uint32_t queue_depth;
	bool direct;
	double rate; /* ops/s; 0: closed loop at queue depth (`max`) */
	uint32_t seconds;
	uint64_t interval_ns;
	uint32_t warmup;     /* intervals left out of every figure */
	bool overhead;       /* time the per-op measurement instead of running a worker */
	bool sleep_cost;     /* time one timed sleep instead of running a worker */
	uint64_t iterations; /* of the --overhead loop */
	uint64_t wake_slack_ns;
	uint64_t lateness_ns; /* precise: the lateness budget */
	enum pacer_mode timing;
};

/* What the harness holds, the way the agent's pool holds it for one worker. */
struct bench_rig {
	struct shm_step *step;
	size_t step_len;
	struct shm_worker *slot;
	int wake_fd;
	int notify_fd;
	pid_t pid;
};

static void bench_usage(FILE *f)
{
	fprintf(f, "usage: iocurve-bench-worker --file PATH [--size 256MiB] [--rw randread]\n"
	           "         [--bs 4096] [--qd 32] [--direct 0|1] [--rate N|max] [--seconds 5]\n"
	           "         [--interval 1s] [--warmup 1] [--wake-slack 100us]\n"
	           "         [--timing precise|efficient] [--lateness 20us]\n"
	           "       iocurve-bench-worker --overhead [--iterations 10000000]\n"
	           "       iocurve-bench-worker --sleep-cost [--interval 100us] [--seconds 5]\n"
	           "Runs one worker on PATH (laid out first when needed) and prints one line of\n"
	           "key=value figures over the measured intervals (the first --warmup are left\n"
	           "out). --overhead times clock_now_ns + 3 hist_record per operation instead;\n"
	           "--sleep-cost, the CPU one timed sleep (clock_nanosleep) costs this machine.\n");
}

static __attribute__((format(printf, 1, 2), noreturn)) void bench_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("iocurve-bench-worker: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static uint64_t bench_parse_uint(const char *opt, const char *s, uint64_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || v > max)
		bench_die("%s: '%s' is not a whole number up to %" PRIu64, opt, s, max);
	return v;
}

static void bench_parse(int argc, char **argv, struct bench_opts *o)
{
	static const struct option longopts[] = {
	    {"file", required_argument, NULL, 'f'},
	    {"size", required_argument, NULL, 's'},
	    {"rw", required_argument, NULL, 'w'},
	    {"bs", required_argument, NULL, 'b'},
	    {"qd", required_argument, NULL, 'q'},
	    {"direct", required_argument, NULL, 'd'},
	    {"rate", required_argument, NULL, 'r'},
	    {"seconds", required_argument, NULL, 't'},
	    {"interval", required_argument, NULL, 'i'},
	    {"warmup", required_argument, NULL, 'u'},
	    {"overhead", no_argument, NULL, 'o'},
	    {"iterations", required_argument, NULL, 'n'},
	    {"sleep-cost", no_argument, NULL, 'c'},
	    {"wake-slack", required_argument, NULL, 'k'},
	    {"timing", required_argument, NULL, 'T'},
	    {"lateness", required_argument, NULL, 'L'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct error err = {{0}};
	bool interval_given = false;
	uint64_t bs;
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->file = optarg;
			break;
		case 's':
			if (units_parse_size(optarg, &o->size, &err) < 0)
				bench_die("--size: %s", err.msg);
			break;
		case 'w':
			if (rw_mode_parse(optarg, &o->rw) < 0)
				bench_die("--rw: '%s' is not read, write, randread, randwrite, rw "
				          "or randrw",
				          optarg);
			break;
		case 'b':
			if (units_parse_size(optarg, &bs, &err) < 0)
				bench_die("--bs: %s", err.msg);
			if (bs == 0 || bs > (1u << 24))
				bench_die("--bs: %s is out of range (1 .. 16MiB)", optarg);
			o->block_size = (uint32_t)bs;
			break;
		case 'q':
			o->queue_depth = (uint32_t)bench_parse_uint("--qd", optarg, UINT16_MAX);
			break;
		case 'd':
			o->direct = bench_parse_uint("--direct", optarg, 1) != 0;
			break;
		case 'r':
			if (strcmp(optarg, "max") == 0)
				o->rate = 0;
			else if (units_parse_rate(optarg, &o->rate, &err) < 0)
				bench_die("--rate: %s", err.msg);
			break;
		case 't':
			o->seconds = (uint32_t)bench_parse_uint("--seconds", optarg, 3600);
			break;
		case 'i':
			if (units_parse_duration(optarg, &o->interval_ns, &err) < 0)
				bench_die("--interval: %s", err.msg);
			interval_given = true;
			break;
		case 'k':
			if (units_parse_duration(optarg, &o->wake_slack_ns, &err) < 0)
				bench_die("--wake-slack: %s", err.msg);
			break;
		case 'L':
			if (units_parse_duration(optarg, &o->lateness_ns, &err) < 0)
				bench_die("--lateness: %s", err.msg);
			break;
		case 'u':
			o->warmup = (uint32_t)bench_parse_uint("--warmup", optarg, 100);
			break;
		case 'o':
			o->overhead = true;
			break;
		case 'c':
			o->sleep_cost = true;
			break;
		case 'n':
			o->iterations = bench_parse_uint("--iterations", optarg, UINT64_MAX / 2);
			if (o->iterations == 0)
				bench_die("--iterations: give at least one");
			break;
		case 'T':
			if (strcmp(optarg, "precise") != 0 && strcmp(optarg, "efficient") != 0)
				bench_die("--timing: '%s' is not precise or efficient", optarg);
			o->timing =
			    strcmp(optarg, "efficient") == 0 ? PACER_EFFICIENT : PACER_PRECISE;
			break;
		case 'h':
			bench_usage(stdout);
			exit(0);
		default:
			bench_usage(stderr);
			exit(2);
		}
	}
	if (optind < argc) {
		bench_usage(stderr);
		exit(2);
	}
	/* --interval is the sleep period there: a worker's at 10k ops/s by default. */
	if (o->sleep_cost && !interval_given)
		o->interval_ns = 100 * NSEC_PER_USEC;
	if (o->sleep_cost && (o->interval_ns == 0 || o->interval_ns > o->seconds * NSEC_PER_SEC))
		bench_die("--sleep-cost: --interval must be above zero and within --seconds");
	if (o->overhead || o->sleep_cost)
		return;
	if (o->file == NULL)
		bench_die("--file is required (e.g. --file /var/tmp/iocurve-bench.dat)");
	if (o->queue_depth == 0)
		bench_die("--qd must be at least 1");
	if (o->seconds == 0 || o->interval_ns == 0)
		bench_die("--seconds and --interval must be above zero");
	if (o->size < o->block_size)
		bench_die("--size must hold at least one block");
	/* The worker asks for a whole number of blocks. */
	o->size -= o->size % o->block_size;
}

/*
 * The measured loop, kept out of line so callgrind can count it alone
 * (--toggle-collect=bench_overhead_loop). It does per operation what a worker does
 * per completion at worst: one clock read and three histogram records (latency,
 * service, and the latency again in its kind's: read and write apart, 7 reads in 10
 * as a 70/30 mix branches), the values differing as real ones do.
 */
static __attribute__((noinline, noclone)) uint64_t
bench_overhead_loop(struct hist *lat, struct hist *svc, struct hist *kind, uint64_t iters)
{
	uint64_t start = clock_now_ns(), prev = start;

	for (uint64_t i = 0; i < iters; i++) {
		uint64_t now = clock_now_ns();
		/* A latency in the tens of microseconds, spread over many bins. */
		uint64_t l = (now - prev) * 997 + (i & 0xffff) * 31;

		hist_record(lat, l);
		hist_record(svc, (now - prev) * 991 + (i & 0x3fff) * 29);
		hist_record(&kind[(i * 0x9e3779b97f4a7c15ull >> 60) < 11 ? 0 : 1], l);
		prev = now;
	}
	return clock_now_ns() - start;
}

/* The clock alone and the records alone, so the table can say where the time goes. */
static __attribute__((noinline, noclone)) uint64_t bench_overhead_clock(uint64_t iters)
{
	uint64_t start = clock_now_ns(), acc = 0;

	for (uint64_t i = 0; i < iters; i++)
		acc += clock_now_ns();
	__asm__ volatile("" : : "r"(acc));
	return clock_now_ns() - start;
}

static __attribute__((noinline, noclone)) uint64_t bench_overhead_hist(struct hist *h,
                                                                       uint64_t iters)
{
	uint64_t start = clock_now_ns(), x = 0x9e3779b97f4a7c15ull;

	for (uint64_t i = 0; i < iters; i++) {
		/* xorshift: values the compiler cannot fold, spread over 2^10..2^26 ns. */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		hist_record(h, x >> (38 + (x & 15)));
	}
	return clock_now_ns() - start;
}

static int bench_overhead(uint64_t iters)
{
	struct hist *lat = xmalloc(sizeof(*lat)), *svc = xmalloc(sizeof(*svc));
	struct hist *kind = xmalloc(2 * sizeof(*kind));
	uint64_t loop_ns, clock_ns, hist_ns;

	hist_reset(lat);
	hist_reset(svc);
	hist_reset(&kind[0]);
	hist_reset(&kind[1]);
	/* One pass to fault in the histograms and warm the caches, as a running worker has. */
	bench_overhead_loop(lat, svc, kind, iters / 10 + 1);
	hist_reset(lat);
	hist_reset(svc);
	hist_reset(&kind[0]);
	hist_reset(&kind[1]);
	loop_ns = bench_overhead_loop(lat, svc, kind, iters);
	clock_ns = bench_overhead_clock(iters);
	hist_reset(lat);
	hist_ns = bench_overhead_hist(lat, iters);
	/* loop_calls: every iteration bench_overhead_loop ran, for callgrind's per-op count. */
	printf("iterations=%" PRIu64 " loop_calls=%" PRIu64 " per_op_ns=%.2f clock_ns=%.2f"
	       " hist_record_ns=%.2f lat_mean_ns=%.0f\n",
	       iters, iters + iters / 10 + 1, (double)loop_ns / (double)iters,
	       (double)clock_ns / (double)iters, (double)hist_ns / (double)iters, hist_mean(lat));
	free(lat);
	free(svc);
	free(kind);
	return 0;
}

static uint64_t bench_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * NSEC_PER_SEC +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * NSEC_PER_USEC;
}

/*
 * A worker at a fixed rate pays for one timed sleep per wake at least. On a VM
 * where arming a timer traps to the hypervisor that cost dwarfs the I/O, so the
 * harness measures it to put the worker's CPU figure in context.
 */
static int bench_sleep_cost(uint64_t period_ns, uint32_t seconds)
{
	const uint64_t n = seconds * NSEC_PER_SEC / period_ns;
	uint64_t start, cpu, t;

	/* The worker's own setting: without it every sleep ends up to 50 us late. */
	prctl(PR_SET_TIMERSLACK, 1UL);
	cpu = bench_cpu_ns();
	start = t = clock_now_ns();
	for (uint64_t i = 0; i < n; i++) {
		struct timespec ts;

		t += period_ns;
		ts = clock_ns_to_timespec(t);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	t = clock_now_ns() - start;
	cpu = bench_cpu_ns() - cpu;
	printf("period_ns=%" PRIu64 " sleeps=%" PRIu64 " sleeps_s=%.0f cpu_pct=%.2f"
	       " cpu_ns_per_sleep=%.0f\n",
	       period_ns, n, (double)n * 1e9 / (double)t, (double)cpu * 100 / (double)t,
	       (double)cpu / (double)n);
	return 0;
}

static void bench_rig_open(struct bench_rig *r)
{
	r->step_len = sizeof(*r->step) + sizeof(struct shm_plan);
	r->step =
	    mmap(NULL, r->step_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	r->slot =
	    mmap(NULL, sizeof(*r->slot), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r->step == MAP_FAILED || r->slot == MAP_FAILED)
		bench_die("mapping the shared region: %s", strerror(errno));
	r->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	r->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->wake_fd < 0 || r->notify_fd < 0)
		bench_die("eventfd: %s", strerror(errno));
}

/* Fork the worker the way the agent's pool does: the child runs worker_run only. */
static void bench_fork(struct bench_rig *r, const struct bench_opts *o)
{
	struct io_plan cfg = {
	    .io = {.rw = o->rw,
	           .block_size = o->block_size,
	           .queue_depth = o->queue_depth,
	           .direct = o->direct,
	           .wake_slack_ns = o->wake_slack_ns,
	           .efficient = o->timing == PACER_EFFICIENT},
	    .index = 0,
	    .path = o->file,
	    .file_size = o->size,
	    .seed = 0x5eed,
	    .lateness_ns = o->lateness_ns,
	    .step = r->step,
	    .slot = r->slot,
	    .wake_fd = r->wake_fd,
	    .notify_fd = r->notify_fd,
	};

	fflush(NULL);
	r->pid = fork();
	if (r->pid < 0)
		bench_die("fork: %s", strerror(errno));
	if (r->pid == 0)
		_exit(worker_run(&cfg));
}

/* Sleep on the notify eventfd until the worker says something; false at the deadline. */
static bool bench_wait_notify(struct bench_rig *r, uint64_t deadline_ns)
{
	struct pollfd p = {.fd = r->notify_fd, .events = POLLIN};
	uint64_t now = clock_now_ns(), v;

	if (now >= deadline_ns)
		return false;
	if (poll(&p, 1, (int)((deadline_ns - now) / NSEC_PER_MSEC) + 1) < 0 && errno != EINTR)
		bench_die("poll: %s", strerror(errno));
	if (read(r->notify_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		bench_die("reading the notify eventfd: %s", strerror(errno));
	return true;
}

static void bench_wake(struct bench_rig *r)
{
	uint64_t one = 1;

	if (write(r->wake_fd, &one, sizeof(one)) < 0)
		bench_die("waking the worker: %s", strerror(errno));
}

static void bench_ready(struct bench_rig *r, const struct bench_opts *o)
{
	uint64_t deadline = clock_now_ns() + BENCH_READY_TIMEOUT_NS;
	uint32_t state;

	while ((state = atomic_load_explicit(&r->slot->state, memory_order_acquire)) ==
	       SHM_WORKER_STARTING)
		if (!bench_wait_notify(r, deadline))
			bench_die("%s: the worker was not ready within %llu s", o->file,
			          (unsigned long long)(BENCH_READY_TIMEOUT_NS / NSEC_PER_SEC));
	if (state != SHM_WORKER_READY)
		bench_die("worker failed: %s", r->slot->error);
}

/* Announce the one step (the agent's seqlock write, then the wake). */
static uint64_t bench_step(struct bench_rig *r, const struct bench_opts *o, uint32_t nintervals)
{
	uint64_t gen;

	shm_step_write_begin(r->step);
	r->step->start_ns = clock_now_ns() + BENCH_LEAD_NS;
	r->step->interval_ns = o->interval_ns;
	r->step->nintervals = nintervals;
	r->step->plan[0].rate = o->rate;
	r->step->stop = 0;
	gen = shm_step_write_end(r->step);
	bench_wake(r);
	return gen;
}

static void bench_collect(struct bench_rig *r, const struct bench_opts *o, uint64_t gen, uint32_t n,
                          struct shm_interval *out)
{
	uint64_t deadline = clock_now_ns() + BENCH_LEAD_NS + n * o->interval_ns + 10 * NSEC_PER_SEC;

	for (uint32_t k = 0; k < n; k++) {
		while (atomic_load_explicit(&r->slot->published, memory_order_acquire) <= k) {
			if (atomic_load_explicit(&r->slot->state, memory_order_acquire) ==
			    SHM_WORKER_FAILED)
				bench_die("worker failed: %s", r->slot->error);
			if (!bench_wait_notify(r, deadline))
				bench_die("interval %u never came", k);
		}
		out[k] = r->slot->slots[k % SHM_SLOTS];
		if (out[k].gen != gen || out[k].index != k)
			bench_die("interval %u: got gen %" PRIu64 " index %u", k, out[k].gen,
			          out[k].index);
	}
}

/* Ask the worker to stop and reap it; its rusage covers its whole life. */
static void bench_stop(struct bench_rig *r, struct rusage *ru)
{
	int status;

	shm_step_write_begin(r->step);
	r->step->stop = 1;
	shm_step_write_end(r->step);
	bench_wake(r);
	if (wait4(r->pid, &status, 0, ru) != r->pid)
		bench_die("waiting for the worker: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		bench_die("the worker exited with status 0x%x", status);
}

static int bench_run(const struct bench_opts *o)
{
	const uint32_t n = o->warmup + (uint32_t)((o->seconds * NSEC_PER_SEC + o->interval_ns - 1) /
	                                          o->interval_ns);
	struct shm_interval *iv = xcalloc(n, sizeof(*iv));
	struct hist *lat = xmalloc(sizeof(*lat)), *svc = xmalloc(sizeof(*svc));
	struct bench_rig r = {0};
	uint64_t ops = 0, errors = 0, user = 0, sys = 0, lag = 0, gen;
	double secs, achieved, cpu_pct;
	struct rusage ru;
	char offered[32], ratio[32];

	/* Collected as they come, so the SHM_SLOTS ring never laps however many there are. */
	if (n <= o->warmup || n > 100000)
		bench_die("--seconds / --interval gives %u intervals; want 1 .. 100000", n);
	hist_reset(lat);
	hist_reset(svc);
	bench_rig_open(&r);
	bench_fork(&r, o);
	bench_ready(&r, o);
	gen = bench_step(&r, o, n);
	bench_collect(&r, o, gen, n, iv);
	bench_stop(&r, &ru);

	for (uint32_t k = o->warmup; k < n; k++) {
		ops += iv[k].rec.ops;
		errors += iv[k].rec.errors;
		user += iv[k].rec.cpu_user_ns;
		sys += iv[k].rec.cpu_sys_ns;
		lag += iv[k].rec.lag_sum_ns;
		hist_merge(lat, &iv[k].rec.latency);
		hist_merge(svc, &iv[k].rec.service);
	}
	secs = (double)(n - o->warmup) * (double)o->interval_ns / 1e9;
	achieved = (double)ops / secs;
	cpu_pct = (double)(user + sys) / 1e9 / secs * 100;
	if (o->rate > 0) {
		snprintf(offered, sizeof(offered), "%.0f", o->rate);
		snprintf(ratio, sizeof(ratio), "%.4f", achieved / o->rate);
	} else {
		snprintf(offered, sizeof(offered), "max");
		snprintf(ratio, sizeof(ratio), "-");
	}
	printf("rw=%s bs=%u qd=%u direct=%d offered=%s seconds=%.1f ops=%" PRIu64
	       " ops_s=%.0f ratio=%s errors=%" PRIu64 " lat_mean_us=%.2f lat_p50_us=%.2f"
	       " lat_p99_us=%.2f svc_mean_us=%.2f lag_mean_us=%.2f cpu_pct=%.2f cpu_user_pct=%.2f"
	       " cpu_sys_pct=%.2f cpu_ns_per_op=%.0f child_cpu_s=%.3f\n",
	       rw_mode_name(o->rw), o->block_size, o->queue_depth, o->direct ? 1 : 0, offered, secs,
	       ops, achieved, ratio, errors, hist_mean(lat) / 1e3,
	       (double)hist_quantile(lat, 50) / 1e3, (double)hist_quantile(lat, 99) / 1e3,
	       hist_mean(svc) / 1e3, ops ? (double)lag / (double)ops / 1e3 : 0.0, cpu_pct,
	       (double)user / 1e9 / secs * 100, (double)sys / 1e9 / secs * 100,
	       ops ? (double)(user + sys) / (double)ops : 0.0,
	       (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	munmap(r.step, r.step_len);
	munmap(r.slot, sizeof(*r.slot));
	close(r.wake_fd);
	close(r.notify_fd);
	free(iv);
	free(lat);
	free(svc);
	return 0;
}

int main(int argc, char **argv)
{
	struct bench_opts o = {
	    .size = 256ull << 20,
	    .rw = RW_RANDREAD,
	    .block_size = 4096,
	    .queue_depth = 32,
	    .direct = false,
	    .rate = 0,
	    .seconds = 5,
	    .interval_ns = NSEC_PER_SEC,
	    .warmup = 1,
	    .iterations = 10000000,
	};

	bench_parse(argc, argv, &o);
	if (o.overhead)
		return bench_overhead(o.iterations);
	if (o.sleep_cost)
		return bench_sleep_cost(o.interval_ns, o.seconds);
	return bench_run(&o);
}
