/* SPDX-License-Identifier: MIT */
/* Unit tests for a stream's file set: what each operation is given, and the set kept steady. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fset.h"

static struct mix_fileset fset_spec(uint32_t dirs, uint32_t depth, uint32_t files)
{
	struct mix_fileset f = {.dirs = dirs, .depth = depth, .files = files};

	f.sizes.n = 2;
	f.sizes.s[0] = (struct mix_size){4096, 70};
	f.sizes.s[1] = (struct mix_size){65536, 30};
	return f;
}

/* The names: leaf paths by depth, files f<i>, a stat gets a present file. */
static void test_paths(void **state)
{
	struct mix_fileset spec = fset_spec(3, 2, 4);
	struct fset fs;
	struct fset_pick pk;
	char p[FSET_PATH_MAX], p2[FSET_PATH_MAX];
	uint32_t len;

	(void)state;
	fset_virtual(&fs, &spec, 7, 1000);
	assert_int_equal(fs.nleaves, 9);
	assert_int_equal(fset_count_files(&fs), 36);
	for (int i = 0; i < 50; i++) {
		unsigned a, b, f;

		assert_true(fset_pick(&fs, FILEOP_STAT, &pk, p, p2, &len));
		assert_int_equal(sscanf(p, "d%u/d%u/f%u", &a, &b, &f), 3);
		assert_true(a < 3 && b < 3 && f < 4);
		fset_done(&fs, FILEOP_STAT, &pk, 0);
		assert_true(fset_pick(&fs, FILEOP_READDIR, &pk, p, p2, &len));
		assert_int_equal(sscanf(p, "d%u/d%u", &a, &b), 2);
		assert_null(strchr(p + 3, 'f'));
		fset_done(&fs, FILEOP_READDIR, &pk, 0);
		/* a whole-file read moves the file's size, as its place fixes it */
		assert_true(fset_pick(&fs, FILEOP_READ_FILE, &pk, p, p2, &len));
		assert_true(len == 4096 || len == 65536);
		fset_done(&fs, FILEOP_READ_FILE, &pk, (int)len);
	}
	fset_close(&fs);
}

/*
 * Creates and unlinks balance: an unlink removes a file, the next create makes that name
 * again (not a new one), and the count holds; with more creates than unlinks the set
 * grows by the difference exactly.
 */
static void test_balance(void **state)
{
	struct mix_fileset spec = fset_spec(2, 1, 5);
	struct fset fs;
	struct fset_pick pk;
	char p[FSET_PATH_MAX], p2[FSET_PATH_MAX], removed[FSET_PATH_MAX];
	uint32_t len;

	(void)state;
	fset_virtual(&fs, &spec, 1, 1000);
	for (int i = 0; i < 100; i++) {
		assert_true(fset_pick(&fs, FILEOP_UNLINK, &pk, p, p2, &len));
		snprintf(removed, sizeof(removed), "%s", p);
		assert_int_equal(fset_count_files(&fs), 9);
		fset_done(&fs, FILEOP_UNLINK, &pk, 0);
		assert_true(fset_pick(&fs, FILEOP_CREATE, &pk, p, p2, &len));
		assert_string_equal(p, removed);
		fset_done(&fs, FILEOP_CREATE, &pk, 0);
		assert_int_equal(fset_count_files(&fs), 10);
	}
	for (int i = 0; i < 7; i++) {
		assert_true(fset_pick(&fs, FILEOP_CREATE, &pk, p, p2, &len));
		assert_int_equal(p[3], 'c'); /* a new name, c<n>, in a leaf */
		fset_done(&fs, FILEOP_CREATE, &pk, 0);
	}
	assert_int_equal(fset_count_files(&fs), 17);
	/* a create that failed (ENOSPC) leaves the name to make again */
	assert_true(fset_pick(&fs, FILEOP_CREATE, &pk, p, p2, &len));
	fset_done(&fs, FILEOP_CREATE, &pk, -ENOSPC);
	assert_int_equal(fset_count_files(&fs), 17);
	assert_true(fset_pick(&fs, FILEOP_CREATE, &pk, p2, removed, &len));
	assert_string_equal(p2, p);
	fset_done(&fs, FILEOP_CREATE, &pk, 0);
	fset_close(&fs);
}

/* An unlink never takes a file another operation has in flight; with none free it fails. */
static void test_exclusive(void **state)
{
	struct mix_fileset spec = fset_spec(1, 1, 3);
	struct fset fs;
	struct fset_pick held[3], pk;
	char p[FSET_PATH_MAX], p2[FSET_PATH_MAX], names[3][FSET_PATH_MAX];
	uint32_t len;

	(void)state;
	fset_virtual(&fs, &spec, 3, 1000);
	/* stats on the three files (shared: they may pick the same one; repeat until each held) */
	for (int n = 0, tries = 0; n < 3 && tries < 1000; tries++) {
		assert_true(fset_pick(&fs, FILEOP_STAT, &pk, p, p2, &len));
		if ((n > 0 && strcmp(p, names[0]) == 0) || (n > 1 && strcmp(p, names[1]) == 0)) {
			fset_done(&fs, FILEOP_STAT, &pk, 0);
			continue;
		}
		snprintf(names[n], sizeof(names[n]), "%s", p);
		held[n++] = pk;
	}
	assert_false(fset_pick(&fs, FILEOP_UNLINK, &pk, p, p2, &len));
	assert_string_equal(p, "none/none");
	fset_done(&fs, FILEOP_STAT, &held[1], 0);
	assert_true(fset_pick(&fs, FILEOP_UNLINK, &pk, p, p2, &len));
	assert_string_equal(p, names[1]);
	/* while it is in flight no operation is given that file */
	for (int i = 0; i < 50; i++) {
		struct fset_pick s;

		assert_true(fset_pick(&fs, FILEOP_STAT, &s, p2, p, &len));
		assert_string_not_equal(p2, names[1]);
		fset_done(&fs, FILEOP_STAT, &s, 0);
	}
	fset_done(&fs, FILEOP_UNLINK, &pk, 0);
	assert_int_equal(fset_count_files(&fs), 2);
	fset_close(&fs);
}

/* A rename goes f<i> -> f<i>.r -> f<i>; one that failed leaves the name as it was. */
static void test_rename(void **state)
{
	struct mix_fileset spec = fset_spec(1, 1, 1);
	struct fset fs;
	struct fset_pick pk;
	char p[FSET_PATH_MAX], p2[FSET_PATH_MAX];
	uint32_t len;

	(void)state;
	fset_virtual(&fs, &spec, 3, 1000);
	assert_true(fset_pick(&fs, FILEOP_RENAME, &pk, p, p2, &len));
	assert_string_equal(p, "d0/f0");
	assert_string_equal(p2, "d0/f0.r");
	fset_done(&fs, FILEOP_RENAME, &pk, 0);
	assert_true(fset_pick(&fs, FILEOP_RENAME, &pk, p, p2, &len));
	assert_string_equal(p, "d0/f0.r");
	assert_string_equal(p2, "d0/f0");
	fset_done(&fs, FILEOP_RENAME, &pk, -EIO);
	assert_true(fset_pick(&fs, FILEOP_STAT, &pk, p, p2, &len));
	assert_string_equal(p, "d0/f0.r");
	fset_done(&fs, FILEOP_STAT, &pk, 0);
	fset_close(&fs);
}

/* Creates past the agent's cap get no name: the operation fails, the set stays. */
static void test_cap(void **state)
{
	struct mix_fileset spec = fset_spec(1, 1, 4);
	struct fset fs;
	struct fset_pick pk;
	char p[FSET_PATH_MAX], p2[FSET_PATH_MAX];
	uint32_t len;

	(void)state;
	fset_virtual(&fs, &spec, 3, 6);
	for (int i = 0; i < 2; i++) {
		assert_true(fset_pick(&fs, FILEOP_CREATE, &pk, p, p2, &len));
		fset_done(&fs, FILEOP_CREATE, &pk, 0);
	}
	assert_int_equal(fset_count_files(&fs), 6);
	assert_false(fset_pick(&fs, FILEOP_CREATE, &pk, p, p2, &len));
	assert_null(pk.pool);
	assert_int_equal(fset_count_files(&fs), 6);
	fset_close(&fs);
}

/* Between steps the set is put back: its creates taken away, its unlinks made again. */
static void test_restore(void **state)
{
	struct mix_fileset spec = fset_spec(2, 1, 5);
	struct fset fs;
	struct fset_pick pk;
	char p[FSET_PATH_MAX], p2[FSET_PATH_MAX];
	uint64_t made, removed;
	uint32_t len;

	(void)state;
	fset_virtual(&fs, &spec, 5, 1000);
	for (int i = 0; i < 3; i++) {
		assert_true(fset_pick(&fs, FILEOP_UNLINK, &pk, p, p2, &len));
		fset_done(&fs, FILEOP_UNLINK, &pk, 0);
	}
	for (int i = 0; i < 7; i++) {
		assert_true(fset_pick(&fs, FILEOP_CREATE, &pk, p, p2, &len));
		fset_done(&fs, FILEOP_CREATE, &pk, 0);
	}
	assert_true(fset_pick(&fs, FILEOP_RENAME, &pk, p, p2, &len));
	fset_done(&fs, FILEOP_RENAME, &pk, 0);
	assert_true(fset_pick(&fs, FILEOP_MKDIR, &pk, p, p2, &len));
	fset_done(&fs, FILEOP_MKDIR, &pk, 0);
	assert_int_equal(fset_count_files(&fs), 14);
	assert_int_equal(fset_restore(&fs, &made, &removed), 0);
	/* the 3 unlinked were made again by creates: 4 c-files and the mkdir's e1 go */
	assert_int_equal(made, 0);
	assert_int_equal(removed, 5);
	assert_int_equal(fset_count_files(&fs), 10);
	/* every file of the layout named as laid out, none renamed */
	for (int i = 0; i < 40; i++) {
		assert_true(fset_pick(&fs, FILEOP_STAT, &pk, p, p2, &len));
		assert_null(strstr(p, ".r"));
		assert_int_equal(p[3], 'f');
		fset_done(&fs, FILEOP_STAT, &pk, 0);
	}
	/* the next step's create makes a name the restore took away */
	assert_true(fset_pick(&fs, FILEOP_CREATE, &pk, p, p2, &len));
	assert_int_equal(p[3], 'c');
	fset_done(&fs, FILEOP_CREATE, &pk, 0);
	fset_close(&fs);
}

/* The layout on disk: the files at their sizes, e0, and what a run added taken away. */
static void test_layout(void **state)
{
	struct mix_fileset spec = fset_spec(2, 2, 3);
	char dir[] = "/tmp/iocurve-fset.XXXXXX", path[256];
	struct fset fs;
	uint64_t written = 0, progress = 0;
	struct error err;
	struct stat st;
	int dfd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(fset_layout(&fs, dfd, "a-w0.set", "a-w0.set", &spec, 9, 1000, &progress,
	                             &written, &err),
	                 0);
	assert_int_equal(fset_count_files(&fs), 12);
	assert_int_equal(written, progress);
	assert_true(written >= 12 * 4096);
	/* a run's leavings: a create, a rename, a removal, an mkdir */
	assert_int_equal(mkdirat(fs.fd, "d1/d0/e4", 0755), 0);
	close(openat(fs.fd, "d1/d0/c9", O_CREAT | O_WRONLY, 0644));
	assert_int_equal(renameat(fs.fd, "d0/d1/f2", fs.fd, "d0/d1/f2.r"), 0);
	assert_int_equal(unlinkat(fs.fd, "d1/d1/f0", 0), 0);
	fset_close(&fs);
	assert_int_equal(fset_layout(&fs, dfd, "a-w0.set", "a-w0.set", &spec, 9, 1000, &progress,
	                             &written, &err),
	                 0);
	/* only the removed file written again */
	assert_true(written == 4096 || written == 65536);
	snprintf(path, sizeof(path), "%s/a-w0.set/d0/d1/f2", dir);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/a-w0.set/d1/d0/c9", dir);
	assert_int_not_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/a-w0.set/d1/d0/e4", dir);
	assert_int_not_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/a-w0.set/d1/d1/e0", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	/* after a step: what its unlinks took made again on disk, its creates taken away */
	{
		struct fset_pick pk;
		char p[FSET_PATH_MAX], p2[FSET_PATH_MAX];
		uint64_t made, removed;
		uint32_t len;

		for (int i = 0; i < 12; i++) {
			assert_true(fset_pick(&fs, FILEOP_UNLINK, &pk, p, p2, &len));
			assert_int_equal(unlinkat(fs.fd, p, 0), 0);
			fset_done(&fs, FILEOP_UNLINK, &pk, 0);
		}
		assert_true(fset_pick(&fs, FILEOP_CREATE, &pk, p, p2, &len));
		close(openat(fs.fd, p, O_CREAT | O_WRONLY, 0644));
		fset_done(&fs, FILEOP_CREATE, &pk, 0);
		assert_int_equal(fset_restore(&fs, &made, &removed), 0);
		assert_int_equal(made, 11);
		assert_int_equal(removed, 0);
		for (uint32_t leaf = 0; leaf < 4; leaf++)
			for (uint32_t f = 0; f < 3; f++) {
				snprintf(path, sizeof(path), "%s/a-w0.set/d%u/d%u/f%u", dir,
				         leaf / 2, leaf % 2, f);
				assert_int_equal(stat(path, &st), 0);
				assert_int_equal(st.st_size, fset_size_of(&spec, 9, leaf, f));
			}
	}
	fset_close(&fs);
	close(dfd);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

/* "d1/d2/..." of a path: its leaf's number in a 3 x 3 set. */
static unsigned leaf_of(const char *path)
{
	unsigned a, b;

	assert_int_equal(sscanf(path, "d%u/d%u", &a, &b), 2);
	return a * 3 + b;
}

/*
 * A stream lists no directory it is changing and changes none it is listing: an NFS
 * server (NFS-Ganesha) failed a READDIRPLUS with ENOENT when an unlink of the same
 * stream took a name from under it (nfs_knees, once in 141,597 operations).
 */
static void test_listing_apart(void **state)
{
	struct mix_fileset spec = fset_spec(3, 2, 4);
	struct fset fs;
	struct fset_pick changing[9], listing, pk;
	char p[FSET_PATH_MAX], p2[FSET_PATH_MAX];
	unsigned changed;
	uint32_t len;

	(void)state;
	fset_virtual(&fs, &spec, 5, 1000);
	/* an unlink in flight: no listing of its directory */
	assert_true(fset_pick(&fs, FILEOP_UNLINK, &changing[0], p, p2, &len));
	changed = leaf_of(p);
	for (int i = 0; i < 200; i++) {
		assert_true(fset_pick(&fs, FILEOP_READDIR, &pk, p, p2, &len));
		assert_int_not_equal(leaf_of(p), changed);
		fset_done(&fs, FILEOP_READDIR, &pk, 0);
	}
	fset_done(&fs, FILEOP_UNLINK, &changing[0], 0);
	/* a listing in flight: no unlink, create or mkdir in its directory */
	assert_true(fset_pick(&fs, FILEOP_READDIR, &listing, p, p2, &len));
	changed = leaf_of(p);
	for (int i = 0; i < 200; i++) {
		enum fileop op = i % 3 == 0   ? FILEOP_UNLINK
		                 : i % 3 == 1 ? FILEOP_CREATE
		                              : FILEOP_MKDIR;

		assert_true(fset_pick(&fs, op, &pk, p, p2, &len));
		assert_int_not_equal(leaf_of(p), changed);
		fset_done(&fs, op, &pk, 0);
	}
	fset_done(&fs, FILEOP_READDIR, &listing, 0);
	/* all settled: every directory may be listed again, the one changed before too */
	{
		bool seen[9] = {false};

		for (int i = 0; i < 400; i++) {
			assert_true(fset_pick(&fs, FILEOP_READDIR, &pk, p, p2, &len));
			seen[leaf_of(p)] = true;
			fset_done(&fs, FILEOP_READDIR, &pk, 0);
		}
		for (int l = 0; l < 9; l++)
			assert_true(seen[l]);
	}
	/* every directory changing: a listing still goes out (as before), never refused */
	changed = 0;
	for (unsigned tries = 0; changed < 9 && tries < 1000; tries++) {
		assert_true(fset_pick(&fs, FILEOP_UNLINK, &changing[changed], p, p2, &len));
		if (fs.leaf_changing[leaf_of(p)] == 1)
			changed++;
		else
			fset_done(&fs, FILEOP_UNLINK, &changing[changed], -EBUSY);
	}
	assert_int_equal(changed, 9);
	assert_true(fset_pick(&fs, FILEOP_READDIR, &pk, p, p2, &len));
	fset_done(&fs, FILEOP_READDIR, &pk, 0);
	for (int n = 0; n < 9; n++)
		fset_done(&fs, FILEOP_UNLINK, &changing[n], 0);
	for (int l = 0; l < 9; l++)
		assert_int_equal(fs.leaf_changing[l] + fs.leaf_listed[l], 0);
	fset_close(&fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_paths),     cmocka_unit_test(test_balance),
	    cmocka_unit_test(test_exclusive), cmocka_unit_test(test_rename),
	    cmocka_unit_test(test_cap),       cmocka_unit_test(test_restore),
	    cmocka_unit_test(test_layout),    cmocka_unit_test(test_listing_apart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
