/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for laying out worker files on a real 1 MiB tmpfs (root: a private mount
 * namespace of this process; skipped otherwise): a layout that runs out of space half
 * way removes the file it created and gives a found file back its size; the space
 * check counts what files already hold. Clones are laid out in /var/tmp (xattrs).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "layout.h"

static char test_dir[] = "/tmp/iocurve-layout.XXXXXX";
static bool test_mounted;

/* A 1 MiB tmpfs only this process sees: nothing outlives it, whatever happens. */
static int test_setup(void **state)
{
	(void)state;
	if (geteuid() != 0 || unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 || mkdtemp(test_dir) == NULL)
		return 0;
	test_mounted = mount("tmpfs", test_dir, "tmpfs", 0, "size=1m,mode=0700") == 0;
	return 0;
}

static int test_teardown(void **state)
{
	(void)state;
	/* Detached: even a descriptor a failed test left open does not keep it. */
	if (test_mounted)
		umount2(test_dir, MNT_DETACH);
	rmdir(test_dir);
	return 0;
}

static uint64_t tmpfs_free(void)
{
	struct statvfs v;

	assert_int_equal(statvfs(test_dir, &v), 0);
	return (uint64_t)v.f_bavail * v.f_frsize;
}

static void test_layout_enospc_removes_new_file(void **state)
{
	char path[128];
	uint64_t progress = 0, written = 0, before;
	struct error err;
	struct stat st;

	(void)state;
	if (!test_mounted)
		skip();
	before = tmpfs_free();
	snprintf(path, sizeof(path), "%s/new-w0.dat", test_dir);
	assert_int_equal(layout_open(path, 4 << 20, false, NULL, &progress, &written, &err), -1);
	assert_non_null(strstr(err.msg, "No space left on device"));
	assert_non_null(strstr(err.msg, path));
	assert_true(progress > 0); /* it did fail half way, not before writing */
	assert_int_equal(written, 0);
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(tmpfs_free(), before);
}

static void test_layout_enospc_keeps_found_file(void **state)
{
	static const char text[] = "found before the layout\n";
	char path[128], buf[64] = {0};
	uint64_t written = 0;
	struct error err;
	struct stat st;
	int fd;

	(void)state;
	if (!test_mounted)
		skip();
	snprintf(path, sizeof(path), "%s/old-w0.dat", test_dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	assert_int_equal(layout_open(path, 4 << 20, false, NULL, NULL, &written, &err), -1);
	assert_non_null(strstr(err.msg, "No space left on device"));
	/* Still there, at its own size: the layout overwrote it, it did not take it away. */
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, sizeof(text) - 1);
	assert_true((uint64_t)st.st_blocks * 512 <= 8192);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), (ssize_t)sizeof(text) - 1);
	close(fd);
	unlink(path);
}

static void test_layout_check_space(void **state)
{
	char path[128];
	uint64_t written = 0;
	struct error err;
	int dirfd, fd;

	(void)state;
	if (!test_mounted)
		skip();
	dirfd = open(test_dir, O_PATH | O_DIRECTORY);
	assert_true(dirfd >= 0);
	/* 2 x 768 KiB on 1 MiB: refused, naming the path, the need and the free bytes. */
	assert_int_equal(layout_check_space(dirfd, test_dir, "a", 2, 768 << 10, &err), -1);
	assert_non_null(strstr(err.msg, test_dir));
	assert_non_null(strstr(err.msg, "not enough free space"));
	assert_non_null(strstr(err.msg, "needs 1.5MiB more"));
	assert_non_null(strstr(err.msg, "(1572864 bytes needed,"));
	assert_int_equal(layout_check_space(dirfd, test_dir, "a", 2, 256 << 10, &err), 0);
	/* a-w0.dat laid out (512 KiB held): a second file of 512 KiB fits in what is left. */
	snprintf(path, sizeof(path), "%s/a-w0.dat", test_dir);
	fd = layout_open(path, 512 << 10, false, NULL, NULL, &written, &err);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(layout_check_space(dirfd, test_dir, "a", 2, 512 << 10, &err), 0);
	assert_int_equal(layout_check_space(dirfd, test_dir, "a", 3, 512 << 10, &err), -1);
	assert_non_null(strstr(err.msg, "512KiB of it already there"));
	unlink(path);
	close(dirfd);
}

/* The whole of path, read (size bytes); freed by the caller. */
static unsigned char *test_read_file(const char *path, size_t size)
{
	unsigned char *buf = malloc(size);
	int fd = open(path, O_RDONLY);

	assert_non_null(buf);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, buf, size, 0), (ssize_t)size);
	close(fd);
	return buf;
}

/* layout_open of path as clone (NULL: no clone); *written gets what it laid out. */
static void test_clone_open(const char *path, size_t size, const char *clone, uint64_t *written)
{
	struct datagen_config dc = {0};
	struct error err = {{0}};
	int fd;

	if (clone != NULL)
		snprintf(dc.clone, sizeof(dc.clone), "%s", clone);
	fd = layout_open(path, size, false, &dc, NULL, written, &err);
	if (fd < 0)
		fail_msg("%s", err.msg);
	close(fd);
}

/*
 * data: {clone: NAME} on a real file system (xattrs): files of other paths (other
 * agents, workers) are byte-identical, a longer one starts with the same image, the
 * xattr names the clone; the same clone is reused, another one or none is laid out
 * again, and so is a file whose xattr names the clone but whose data is not its (an
 * image copied by hand with the xattr forged).
 */
static void test_layout_clone(void **state)
{
	char dir[] = "/var/tmp/iocurve-clone.XXXXXX", p[4][160], xattr[128];
	unsigned char *a, *b;
	uint64_t written = 0;
	const size_t size = 1 << 20;
	ssize_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (int i = 0; i < 4; i++)
		snprintf(p[i], sizeof(p[i]), "%s/local-%d-w%d.dat", dir, i / 2, i % 2);
	test_clone_open(p[0], size, "golden", &written);
	assert_int_equal(written, size);
	test_clone_open(p[1], size, "golden", &written);
	test_clone_open(p[2], 2 * size, "golden", &written);
	assert_int_equal(written, 2 * size);
	a = test_read_file(p[0], size);
	b = test_read_file(p[1], size);
	assert_memory_equal(a, b, size);
	free(b);
	b = test_read_file(p[2], size); /* the first half of a file twice as long */
	assert_memory_equal(a, b, size);
	free(b);
	n = getxattr(p[0], "user.iocurve.layout", xattr, sizeof(xattr) - 1);
	assert_true(n > 0);
	xattr[n] = '\0';
	assert_string_equal(xattr, "size=1048576 compress=0 dedupe=0 clone=golden");

	/* Laid out before as this clone: reused. */
	test_clone_open(p[1], size, "golden", &written);
	assert_int_equal(written, 0);
	/* Another clone, or none: another image. */
	test_clone_open(p[1], size, "other", &written);
	assert_int_equal(written, size);
	b = test_read_file(p[1], size);
	assert_memory_not_equal(a, b, 4096);
	free(b);
	test_clone_open(p[3], size, NULL, &written);
	assert_int_equal(written, size);
	b = test_read_file(p[3], size);
	assert_memory_not_equal(a, b, 4096);
	free(b);
	/* Its xattr forged to name the clone: the blocks read back are not the clone's. */
	snprintf(xattr, sizeof(xattr), "size=1048576 compress=0 dedupe=0 clone=golden");
	assert_int_equal(setxattr(p[3], "user.iocurve.layout", xattr, strlen(xattr), 0), 0);
	test_clone_open(p[3], size, "golden", &written);
	assert_int_equal(written, size);
	b = test_read_file(p[3], size);
	assert_memory_equal(a, b, size);
	free(b);
	free(a);
	for (int i = 0; i < 4; i++)
		unlink(p[i]);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_layout_enospc_removes_new_file),
	    cmocka_unit_test(test_layout_enospc_keeps_found_file),
	    cmocka_unit_test(test_layout_check_space),
	    cmocka_unit_test(test_layout_clone),
	};

	return cmocka_run_group_tests(tests, test_setup, test_teardown);
}
