/* SPDX-License-Identifier: MIT */
/* Unit tests for fs_mkdir_p: nested paths, existing directories, a file in the way. */
#include <errno.h>
#include <fcntl.h>
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

/* No symlink is followed, at the last component or one above it; a plain file opens. */
static void test_fsutil_open_nofollow(void **state)
{
	char dir[] = "/tmp/iocurve-fsutil-XXXXXX", path[128];
	int dirfd, fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/victim", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(symlink("victim", path), 0);
	snprintf(path, sizeof(path), "%s/sub", dir);
	assert_int_equal(symlink(".", path), 0);
	dirfd = open(dir, O_PATH | O_DIRECTORY);
	assert_true(dirfd >= 0);

	errno = 0;
	assert_int_equal(fs_open_nofollow(dirfd, "link", O_RDWR | O_CREAT | O_TRUNC, 0600), -1);
	assert_int_equal(errno, ELOOP);
	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(fs_open_nofollow(AT_FDCWD, path, O_RDWR | O_TRUNC, 0), -1);
	snprintf(path, sizeof(path), "%s/sub/victim", dir);
	assert_int_equal(fs_open_nofollow(AT_FDCWD, path, O_RDWR | O_TRUNC, 0), -1);
	assert_int_equal(fs_open_nofollow(dirfd, "../victim", O_RDONLY, 0), -1);
	fd = fs_open_nofollow(dirfd, "victim", O_RDONLY, 0);
	assert_true(fd >= 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/victim", dir);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 1); /* untouched by the refused O_TRUNC opens */

	close(dirfd);
	unlink(path);
	snprintf(path, sizeof(path), "%s/link", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sub", dir);
	unlink(path);
	rmdir(dir);
}

/* A new directory must be made by us: an existing one, a symlink to one, a dangling link fail. */
static void test_fsutil_mkdir_new(void **state)
{
	char dir[] = "/tmp/iocurve-fsutil-XXXXXX", path[160], cmd[200];
	struct error err;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a/b/new/", dir);
	fd = fs_mkdir_new(path, 0755, &err);
	assert_true(fd >= 0);
	close(fd);
	assert_true(test_fsutil_is_dir(path, 0755));
	assert_int_equal(fs_mkdir_new(path, 0755, &err), -1);
	assert_non_null(strstr(err.msg, "new/ already exists: refusing"));
	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(symlink("a", path), 0);
	assert_int_equal(fs_mkdir_new(path, 0755, &err), -1);
	assert_non_null(strstr(err.msg, "link already exists"));
	snprintf(path, sizeof(path), "%s/dangling", dir);
	assert_int_equal(symlink("nowhere", path), 0);
	assert_int_equal(fs_mkdir_new(path, 0755, &err), -1);
	snprintf(path, sizeof(path), "%s/nowhere", dir);
	assert_int_equal(access(path, F_OK), -1);

	/* An existing directory again: ours and not a link. */
	snprintf(path, sizeof(path), "%s/a", dir);
	fd = fs_open_own_dir(path, &err);
	assert_true(fd >= 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(fs_open_own_dir(path, &err), -1);
	assert_non_null(strstr(err.msg, "link: is a symbolic link: refusing to write through it"));
	if (geteuid() == 0) {
		snprintf(path, sizeof(path), "%s/a", dir);
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_int_equal(fs_open_own_dir(path, &err), -1);
		assert_non_null(strstr(err.msg, "a belongs to uid 65534, not to us (uid 0)"));
	}
	snprintf(cmd, sizeof(cmd), "rm -r '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fsutil_mkdir_p),
	    cmocka_unit_test(test_fsutil_open_nofollow),
	    cmocka_unit_test(test_fsutil_mkdir_new),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
