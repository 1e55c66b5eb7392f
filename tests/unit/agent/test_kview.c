/* SPDX-License-Identifier: MIT */
/*
 * The kernel's view: /sys/dev/block stat lines and /proc/self/mountstats parsed (a
 * captured text with two NFS mounts, one with an escaped space, as a fixture: there is no
 * NFS server here), and devices resolved on this machine: its root's disk, tmpfs none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "kview.h"

static char *test_fixture(const char *name)
{
	const char *src = getenv("IOCURVE_SOURCE");
	char path[4096];
	FILE *f;
	char *buf = calloc(1, 1 << 16);
	size_t n;

	snprintf(path, sizeof(path), "%s/tests/fixtures/kview/%s", src ? src : ".", name);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* A stat line: reads, their ms, writes, their ms, io_ticks and time_in_queue by field. */
static void test_stat(void **state)
{
	struct kview_counts c;

	(void)state;
	assert_int_equal(kview_parse_stat("   17085        5  1204512    10251   296614   214537  "
	                                  "5376352   352102        3   313460   397652        0   "
	                                  "     0        0        0    33791    35298\n",
	                                  &c),
	                 0);
	assert_int_equal(c.reads, 17085);
	assert_int_equal(c.writes, 296614);
	assert_int_equal(c.io_ms, 10251 + 352102);
	assert_int_equal(c.busy_ms, 313460);
	assert_int_equal(c.queue_ms, 397652);
	/* a kernel's line is never short: refused, not read as zeros */
	assert_int_equal(kview_parse_stat("1 2 3 4 5 6 7 8 9 10\n", &c), -1);
	assert_int_equal(kview_parse_stat("", &c), -1);
}

/* The mount's READ and WRITE lines only, by its mount point as mountstats escapes it. */
static void test_mountstats(void **state)
{
	char *text = test_fixture("mountstats");
	struct kview_counts c;

	(void)state;
	assert_int_equal(kview_parse_mountstats(text, "/mnt/nfs\\040bench", &c), 0);
	assert_int_equal(c.nfs_ops, 1000 + 2000);
	assert_int_equal(c.nfs_rtt_ms, 503927 + 48850);
	assert_int_equal(c.nfs_exec_ms, 505677 + 5230077);
	assert_int_equal(kview_parse_mountstats(text, "/mnt/other", &c), 0);
	assert_int_equal(c.nfs_ops, 77 + 5);
	assert_int_equal(c.nfs_rtt_ms, 900 + 50);
	assert_int_equal(c.nfs_exec_ms, 1000 + 60);
	/* a mount that is not there, or the unescaped name: not found */
	assert_int_equal(kview_parse_mountstats(text, "/mnt/nfs bench", &c), -1);
	assert_int_equal(kview_parse_mountstats(text, "/mnt", &c), -1);
	/* a mount without RPC statistics (not NFS) is found with none */
	assert_int_equal(kview_parse_mountstats(text, "/dev/shm", &c), 0);
	assert_int_equal(c.nfs_ops, 0);
	free(text);
}

/* This machine's devices: the root's disk is read and moves; tmpfs has none. */
static void test_resolve(void **state)
{
	struct kview kv;
	struct kview_counts d;
	struct stat st;
	char why[160];

	(void)state;
	assert_int_equal(stat("/dev/shm", &st), 0);
	kview_resolve(&kv, st.st_dev, why, sizeof(why));
	assert_int_equal(kv.kind, KVIEW_NONE);
	assert_non_null(strstr(why, "tmpfs"));
	assert_int_equal(stat("/", &st), 0);
	kview_resolve(&kv, st.st_dev, why, sizeof(why));
	if (kv.kind != KVIEW_BLOCK) {
		print_message("# / is on no block device (%s): the disk's part skipped\n", why);
		return;
	}
	assert_true(kv.name[0] != '\0');
	assert_non_null(strstr(kv.stat, kv.name));
	assert_false(kview_sample(&kv, &d)); /* the first sample is the base */
	assert_true(kview_sample(&kv, &d));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stat),
	    cmocka_unit_test(test_mountstats),
	    cmocka_unit_test(test_resolve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
