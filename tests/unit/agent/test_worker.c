/* SPDX-License-Identifier: MIT */
/* Worker tests: layout, and real forked workers doing open-loop I/O on real files. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <setjmp.h>
#include <sys/resource.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "clock.h"
#include "layout.h"
#include "shm.h"
#include "worker.h"
#include "worker_rig.h"
#include "xalloc.h"

/*
 * Totals over a step's intervals, with the invariants every interval must keep. due:
 * every operation the step's rate made due, completed, failed or charged (never
 * issued or still in flight at its end): a client that fell behind on a busy
 * machine accounts for all of them too.
 */
struct wt_sum {
	uint64_t ops, due, bytes, errors, lat_sum, svc_sum, cpu_ns;
};

static struct wt_sum wt_sum(const struct shm_interval *iv, uint32_t n, uint32_t bs)
{
	struct wt_sum s = {0};

	for (uint32_t k = 0; k < n; k++) {
		/* what never completed in its step is charged to latency as a lower bound */
		assert_int_equal(iv[k].rec.latency.count, iv[k].rec.ops + iv[k].rec.missed_charged);
		assert_int_equal(iv[k].rec.service.count, iv[k].rec.ops);
		assert_int_equal(iv[k].rec.bytes, iv[k].rec.ops * bs);
		if (iv[k].rec.ops && iv[k].rec.missed_charged == 0) /* a charge can be shorter */
			assert_true(iv[k].rec.latency.min >= iv[k].rec.service.min);
		s.ops += iv[k].rec.ops;
		s.due += iv[k].rec.latency.count + iv[k].rec.errors;
		s.bytes += iv[k].rec.bytes;
		s.errors += iv[k].rec.errors;
		s.lat_sum += iv[k].rec.latency.sum;
		s.svc_sum += iv[k].rec.service.sum;
		s.cpu_ns += iv[k].rec.cpu_user_ns + iv[k].rec.cpu_sys_ns;
	}
	return s;
}

/* The step's rate made `want` operations due: all are accounted for (s.due). */
static void wt_assert_rate(const char *what, struct wt_sum s, double want)
{
	double err = ((double)s.due - want) / want;

	print_message("%s: %" PRIu64 " ops due (%" PRIu64 " completed), wanted %.0f (%+.2f%%)\n",
	              what, s.due, s.ops, want, err * 100);
	if (err > 0.05 || err < -0.05)
		fail_msg("%s: %" PRIu64 " ops due is not within 5%% of %.0f", what, s.due, want);
}

/* FNV-1a over the whole file, read through the page cache. */
static uint64_t wt_checksum(const char *path)
{
	static unsigned char buf[1 << 20];
	uint64_t h = 0xcbf29ce484222325ull;
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3ull;
	close(fd);
	return h;
}

static void test_layout(void **state)
{
	char path[128], xattr[64];
	unsigned char *a = xmalloc(1 << 20), *b = xmalloc(1 << 20);
	struct error err = {{0}};
	uint64_t written = 1;
	struct stat st;
	size_t zeros = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/layout", wt_dir);
	fd = layout_open(path, WT_FILE_SIZE, true, NULL, NULL, &written, &err);
	if (fd < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(written, WT_FILE_SIZE);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, WT_FILE_SIZE);
	/* Fully allocated: no holes for a write step to fill. */
	assert_true((uint64_t)st.st_blocks * 512 >= WT_FILE_SIZE);
	close(fd);
	/* The xattr records size and data pattern: a change of either lays out again. */
	assert_int_equal(getxattr(path, "user.iocurve.layout", xattr, sizeof(xattr)), 33);
	assert_memory_equal(xattr, "size=16777216 compress=0 dedupe=0", 33);

	fd = open(path, O_RDONLY);
	assert_int_equal(pread(fd, a, 1 << 20, 0), 1 << 20);
	assert_int_equal(pread(fd, b, 1 << 20, WT_FILE_SIZE - (1 << 20)), 1 << 20);
	close(fd);
	for (size_t i = 0; i < 1 << 20; i++)
		zeros += a[i] == 0;
	/* Random bytes are zero 1/256 of the time; a zero-filled layout would be all zeros. */
	assert_true(zeros < (1 << 20) / 128);
	assert_memory_not_equal(a, b, 1 << 20);

	written = 1;
	fd = layout_open(path, WT_FILE_SIZE, true, NULL, NULL, &written, &err);
	assert_true(fd >= 0);
	assert_int_equal(written, 0);
	close(fd);
	/* A different size is a different layout. */
	fd = layout_open(path, WT_FILE_SIZE / 2, false, NULL, NULL, &written, &err);
	assert_true(fd >= 0);
	assert_int_equal(written, WT_FILE_SIZE / 2);
	close(fd);
	/* So is a different data pattern; the same one again is skipped. */
	fd = layout_open(path, WT_FILE_SIZE / 2, false,
	                 &(struct datagen_config){.compress_pct = 50}, NULL, &written, &err);
	assert_true(fd >= 0);
	assert_int_equal(written, WT_FILE_SIZE / 2);
	close(fd);
	fd = layout_open(path, WT_FILE_SIZE / 2, false,
	                 &(struct datagen_config){.compress_pct = 50}, NULL, &written, &err);
	assert_true(fd >= 0);
	assert_int_equal(written, 0);
	close(fd);
	free(a);
	free(b);
}

static void test_randread_rate(void **state)
{
	struct wt_rig *r = wt_rig_new(1);
	struct shm_interval *iv = xcalloc(5, sizeof(*iv));
	double rate = 2000;
	struct wt_sum s;
	uint64_t gen;
	double cpu;

	wt_fork(r, 0,
	        &(struct wt_worker_opts){.name = "randread", .rw = RW_RANDREAD, .direct = true});
	wt_ready(r, 0);
	gen = wt_step(r, 200 * NSEC_PER_MSEC, 5, &rate);
	wt_collect(r, 0, gen, 5, iv);
	s = wt_sum(iv, 5, 4096);
	wt_assert_rate("randread 2000 ops/s", s, 2000);
	assert_int_equal(s.errors, 0);
	assert_int_equal(s.bytes, s.ops * 4096);
	assert_true(s.lat_sum >= s.svc_sum);
	cpu = (double)s.cpu_ns / (1.0 * NSEC_PER_SEC);
	print_message(
	    "randread: mean latency %.1f us, mean service %.1f us, CPU %.1f%% of a core\n",
	    (double)s.lat_sum / (double)s.ops / 1e3, (double)s.svc_sum / (double)s.ops / 1e3,
	    cpu * 100);
	/*
	 * Its CPU share is a figure of a shared machine, printed by tools/bench-pacer. Paced,
	 * not bursty: 400 a 200 ms interval, wherever the worker was on time (a worker
	 * held off its CPU for 20 ms or more issues the backlog late, in a later interval).
	 */
	for (int k = 0; k < 5; k++)
		if (iv[k].rec.lag_max_ns < 20 * NSEC_PER_MSEC &&
		    (k == 0 || iv[k - 1].rec.lag_max_ns < 20 * NSEC_PER_MSEC))
			assert_true(iv[k].rec.ops > 300 && iv[k].rec.ops < 500);
	wt_rig_free(r);
	free(iv);
}

static void test_randwrite_changes_data(void **state)
{
	struct wt_rig *r = wt_rig_new(1);
	struct shm_interval iv[2];
	double rate = 2000;
	uint64_t before, gen;
	struct wt_sum s;

	wt_fork(
	    r, 0,
	    &(struct wt_worker_opts){
	        .name = "randwrite", .rw = RW_RANDWRITE, .direct = true, .blocking_wake = true});
	wt_ready(r, 0);
	before = wt_checksum(r->path[0]);
	gen = wt_step(r, 100 * NSEC_PER_MSEC, 2, &rate);
	wt_collect(r, 0, gen, 2, iv);
	s = wt_sum(iv, 2, 4096);
	wt_assert_rate("randwrite 2000 ops/s", s, 400);
	assert_int_equal(s.errors, 0);
	assert_true(s.bytes > 0);
	assert_true(wt_checksum(r->path[0]) != before);
	wt_rig_free(r);
}

static void test_seqread(void **state)
{
	struct wt_rig *r = wt_rig_new(1);
	struct shm_interval iv[3];
	double rate = 1500;
	uint64_t gen;
	struct wt_sum s;

	/* 64KiB blocks: 1500 ops/s walks the 16MiB file more than once, wrapping at the end. */
	wt_fork(r, 0,
	        &(struct wt_worker_opts){
	            .name = "seqread", .rw = RW_READ, .block_size = 65536, .direct = true});
	wt_ready(r, 0);
	gen = wt_step(r, 200 * NSEC_PER_MSEC, 3, &rate);
	wt_collect(r, 0, gen, 3, iv);
	s = wt_sum(iv, 3, 65536);
	wt_assert_rate("seqread 1500 ops/s", s, 900);
	assert_int_equal(s.errors, 0);
	wt_rig_free(r);
}

static void test_two_workers(void **state)
{
	struct wt_rig *r = wt_rig_new(2);
	struct shm_interval iv[2][5];
	double rates[2] = {500, 3000};
	uint64_t gen;

	wt_fork(r, 0, &(struct wt_worker_opts){.name = "two-0", .rw = RW_RANDREAD, .direct = true});
	wt_fork(r, 1, &(struct wt_worker_opts){.name = "two-1", .rw = RW_RANDREAD, .direct = true});
	wt_ready(r, 0);
	wt_ready(r, 1);
	gen = wt_step(r, 200 * NSEC_PER_MSEC, 5, rates);
	for (unsigned i = 0; i < 2; i++) {
		char what[32];
		struct wt_sum s;

		wt_collect(r, i, gen, 5, iv[i]);
		s = wt_sum(iv[i], 5, 4096);
		snprintf(what, sizeof(what), "worker %u at %.0f ops/s", i, rates[i]);
		wt_assert_rate(what, s, rates[i]);
	}
	wt_rig_free(r);
}

static uint64_t wt_rusage_ns(const struct rusage *ru)
{
	return (uint64_t)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * NSEC_PER_SEC +
	       (uint64_t)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * 1000;
}

/*
 * Three streams in one process (as the pool runs a CPU's workers): one ring over their
 * three files, each stream its own rate, writes and figures; the process's CPU split
 * three ways, so the streams' CPU adds up to the process's, not three times it.
 */
static void test_streams_one_process(void **state)
{
	struct wt_rig *r = wt_rig_new(3);
	struct shm_interval iv[3][5];
	double rates[3] = {500, 1500, 3000};
	const struct wt_worker_opts o[3] = {
	    {.name = "streams-0", .rw = RW_RANDREAD, .direct = true},
	    {.name = "streams-1", .rw = RW_RANDWRITE, .direct = true},
	    {.name = "streams-2", .rw = RW_RANDREAD, .direct = true, .queue_depth = 16}};
	uint64_t gen, before = 0, cpu[3], children;
	struct rusage ru;

	/* the CPU of the children reaped so far: the process's is what it adds */
	assert_int_equal(getrusage(RUSAGE_CHILDREN, &ru), 0);
	children = wt_rusage_ns(&ru);
	wt_fork_streams(r, o);
	for (unsigned i = 0; i < 3; i++)
		wt_ready(r, i);
	before = wt_checksum(r->path[1]);
	gen = wt_step(r, 200 * NSEC_PER_MSEC, 5, rates);
	for (unsigned i = 0; i < 3; i++) {
		char what[48];
		struct wt_sum s;

		wt_collect(r, i, gen, 5, iv[i]);
		s = wt_sum(iv[i], 5, 4096);
		snprintf(what, sizeof(what), "stream %u at %.0f ops/s", i, rates[i]);
		wt_assert_rate(what, s, rates[i]);
		assert_int_equal(s.errors, 0);
		cpu[i] = s.cpu_ns;
	}
	/* the writes went to stream 1's file, and only its records count writes */
	assert_true(wt_checksum(r->path[1]) != before);
	assert_int_equal(iv[0][2].rec.reads, iv[0][2].rec.ops);
	assert_int_equal(iv[1][2].rec.reads, 0);
	/* each stream holds a third of the process's CPU: equal shares, within a tick */
	assert_true(cpu[0] + 2 * NSEC_PER_MSEC >= cpu[2] && cpu[2] + 2 * NSEC_PER_MSEC >= cpu[0]);
	wt_rig_free(r);
	/* the streams' shares add up to no more than the one process used (not 3x it) */
	assert_int_equal(getrusage(RUSAGE_CHILDREN, &ru), 0);
	print_message("streams' CPU %.1f ms, the process's %.1f ms\n",
	              (double)(cpu[0] + cpu[1] + cpu[2]) / 1e6,
	              (double)(wt_rusage_ns(&ru) - children) / 1e6);
	assert_true(cpu[0] + cpu[1] + cpu[2] <= wt_rusage_ns(&ru) - children + 4 * NSEC_PER_MSEC);
}

/* rate 0 is the `max` step: queue_depth in flight, so latency equals service time. */
static void test_closed_loop(void **state)
{
	struct wt_rig *r = wt_rig_new(1);
	struct shm_interval iv[2];
	double rate = 0;
	struct wt_sum s;
	uint64_t gen;

	wt_fork(r, 0,
	        &(struct wt_worker_opts){
	            .name = "closed", .rw = RW_RANDREAD, .direct = true, .queue_depth = 8});
	wt_ready(r, 0);
	gen = wt_step(r, 100 * NSEC_PER_MSEC, 2, &rate);
	wt_collect(r, 0, gen, 2, iv);
	s = wt_sum(iv, 2, 4096);
	print_message("closed loop qd 8: %" PRIu64 " ops in 0.2 s\n", s.ops);
	assert_true(s.ops > 100);
	assert_int_equal(s.lat_sum, s.svc_sum);
	wt_rig_free(r);
}

/*
 * One simulated server of 1 ms offered 1,500 ops/s through 2 slots: what waits for a slot
 * waits on the storage. A sized queue counts that wait in the storage latency; a depth
 * the campaign gave keeps the storage's own (the wait is the client's, queue-bound).
 */
static void test_sized_queue_wait(void **state)
{
	struct engine_sim_params sim = {.servers = 1, .service_ns = NSEC_PER_MSEC};
	double svc[2];

	for (int sized = 0; sized < 2; sized++) {
		struct wt_rig *r = wt_rig_new(1);
		struct shm_interval iv[2];
		double rate = 1500;
		struct wt_sum s;
		uint64_t gen;

		wt_fork(
		    r, 0,
		    &(struct wt_worker_opts){
		        .rw = RW_RANDREAD, .queue_depth = 2, .sim = &sim, .queue_sized = sized});
		wt_ready(r, 0);
		gen = wt_step(r, 200 * NSEC_PER_MSEC, 2, &rate);
		wt_collect(r, 0, gen, 2, iv);
		s = wt_sum(iv, 2, 4096);
		svc[sized] = (double)s.svc_sum / (double)s.ops;
		print_message("queue %s: %" PRIu64 " ops, storage mean %.2f ms, response %.2f ms\n",
		              sized ? "sized" : "given", s.ops, svc[sized] / 1e6,
		              (double)s.lat_sum / (double)s.ops / 1e6);
		wt_rig_free(r);
	}
	/* given: the server's 1 ms, or 2 behind the other slot */
	assert_true(svc[0] <= 2.2e6);
	/* sized: a backlog growing by 500 ops/s for 0.4 s waited in the slots */
	assert_true(svc[1] >= 20e6);
}

/* A new generation mid-step ends the old step at once; the new one runs in full. */
static void test_step_replaced(void **state)
{
	struct wt_rig *r = wt_rig_new(1);
	struct shm_interval iv[10];
	double rate = 1000;
	uint64_t gen, published, t0;

	wt_fork(r, 0,
	        &(struct wt_worker_opts){.name = "replace", .rw = RW_RANDREAD, .direct = true});
	wt_ready(r, 0);
	gen = wt_step(r, 100 * NSEC_PER_MSEC, 50, &rate);
	wt_collect(r, 0, gen, 2, iv);
	rate = 2000;
	t0 = clock_now_ns();
	gen = wt_step(r, 100 * NSEC_PER_MSEC, 2, &rate);
	/* Skip whatever the old step published before it saw the change. */
	do {
		if (!wt_wait_notify(r, 0, t0 + 5 * NSEC_PER_SEC))
			fail_msg("the replacing step never published");
		published = atomic_load_explicit(&r->slots[0].published, memory_order_acquire);
		while (r->consumed[0] < published &&
		       r->slots[0].slots[r->consumed[0] % SHM_SLOTS].gen != gen)
			r->consumed[0]++;
	} while (r->consumed[0] == published);
	wt_collect(r, 0, gen, 2, iv);
	assert_true(clock_now_ns() - t0 < 500 * NSEC_PER_MSEC);
	wt_assert_rate("replacing step at 2000 ops/s", wt_sum(iv, 2, 4096), 400);
	wt_rig_free(r);
}

static void test_stop_exits(void **state)
{
	struct wt_rig *r = wt_rig_new(1);
	double rate = 1000;
	uint64_t t0;

	wt_fork(r, 0, &(struct wt_worker_opts){.name = "stop", .rw = RW_RANDREAD, .direct = true});
	wt_ready(r, 0);
	/* Stop in the middle of a long step: the worker must not finish it first. */
	wt_step(r, 1 * NSEC_PER_SEC, 30, &rate);
	usleep(200 * 1000);
	t0 = clock_now_ns();
	wt_rig_free(r); /* asserts exit status 0 within 1 s */
	print_message("stop: worker exited %.1f ms after the wake\n",
	              (double)(clock_now_ns() - t0) / 1e6);
}

static void test_bad_path_fails(void **state)
{
	struct wt_rig *r = wt_rig_new(1);
	char path[160];
	int status;

	snprintf(path, sizeof(path), "%s/no-such-dir/target", wt_dir);
	wt_fork(r, 0, &(struct wt_worker_opts){.path = path, .rw = RW_RANDREAD, .direct = true});
	assert_int_equal(wt_wait_state(r, 0), SHM_WORKER_FAILED);
	print_message("failed worker says: %s\n", r->slots[0].error);
	assert_non_null(strstr(r->slots[0].error, path));
	assert_int_equal(waitpid(r->pid[0], &status, 0), r->pid[0]);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0);
	r->pid[0] = -1;
	close(r->wake_fd[0]);
	close(r->notify_fd[0]);
	r->n = 0;
	wt_rig_free(r);
}

static int wt_setup(void **state)
{
	snprintf(wt_dir, sizeof(wt_dir), "/var/tmp/iocurve-test-worker-XXXXXX");
	return mkdtemp(wt_dir) ? 0 : -1;
}

static int wt_teardown(void **state)
{
	static const char *const names[] = {"layout", "randread",  "randwrite", "seqread",
	                                    "two-0",  "two-1",     "closed",    "replace",
	                                    "stop",   "streams-0", "streams-1", "streams-2"};
	char path[128];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", wt_dir, names[i]);
		unlink(path);
	}
	return rmdir(wt_dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_layout),
	    cmocka_unit_test(test_randread_rate),
	    cmocka_unit_test(test_randwrite_changes_data),
	    cmocka_unit_test(test_streams_one_process),
	    cmocka_unit_test(test_seqread),
	    cmocka_unit_test(test_two_workers),
	    cmocka_unit_test(test_closed_loop),
	    cmocka_unit_test(test_sized_queue_wait),
	    cmocka_unit_test(test_step_replaced),
	    cmocka_unit_test(test_stop_exits),
	    cmocka_unit_test(test_bad_path_fails),
	};

	return cmocka_run_group_tests(tests, wt_setup, wt_teardown);
}
