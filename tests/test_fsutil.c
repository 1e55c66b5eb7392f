/* SPDX-License-Identifier: MIT */
/* Unit tests for fs_mkdir_p: nested paths, existing directories, a file in the way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fsutil.h"

static bool test_fsutil_is_dir(const char *path, mode_t mode)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == mode;
}

static void test_fsutil_mkdir_p(void **state)
{
	char base[] = "/tmp/iocurve-fsutil-XXXXXX", path[512], file[256];
	struct error err = {{0}};
	FILE *f;

	assert_non_null(mkdtemp(base));
	snprintf(path, sizeof(path), "%s/a/b//c/", base);
	umask(022);
	assert_int_equal(fs_mkdir_p(path, 0755, &err), 0);
	snprintf(path, sizeof(path), "%s/a/b/c", base);
	assert_true(test_fsutil_is_dir(path, 0755));
	/* Again: every part exists, which is fine. */
	assert_int_equal(fs_mkdir_p(path, 0755, &err), 0);
	/* The mode is the caller's: a private directory stays private. */
	snprintf(path, sizeof(path), "%s/private", base);
	assert_int_equal(fs_mkdir_p(path, 0700, &err), 0);
	assert_true(test_fsutil_is_dir(path, 0700));

	/* A file in the way: the error names it. */
	snprintf(file, sizeof(file), "%s/a/file", base);
	f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/a/file/d", base);
	assert_int_equal(fs_mkdir_p(path, 0755, &err), -1);
	snprintf(path, sizeof(path), "cannot create %s: Not a directory", file);
	assert_string_equal(err.msg, path);
	assert_int_equal(fs_mkdir_p(file, 0755, &err), -1);
	assert_string_equal(err.msg, path);
	assert_int_equal(fs_mkdir_p("", 0755, &err), -1);

	unlink(file);
	snprintf(path, sizeof(path), "rm -r '%s'", base);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fsutil_mkdir_p),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
