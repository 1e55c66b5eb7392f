/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for saferead: what is planted at a name a reader opens (a symbolic link,
 * a FIFO, a device, another user's file, an endless line) is refused by name and at
 * once, never followed, waited on or read without a bound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "saferead.h"

static char dir[] = "/tmp/iocurve-saferead.XXXXXX";

static char *at(const char *name)
{
	static char paths[2][256]; /* two at once: symlink(at(a), at(b)) */
	static int turn;
	char *path = paths[turn++ % 2];

	snprintf(path, 256, "%s/%s", dir, name);
	return path;
}

static void put(const char *name, const char *text)
{
	FILE *f = fopen(at(name), "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A regular file reads whole; one that is not there says so with ENOENT. */
static void test_regular(void **state)
{
	struct error err;
	size_t len = 0;
	char *s;

	(void)state;
	put("plain", "hello\n");
	s = saferead_all(AT_FDCWD, dir, "plain", 100, 0, &len, &err);
	assert_non_null(s);
	assert_string_equal(s, "hello\n");
	assert_int_equal(len, 6);
	free(s);
	assert_null(saferead_all(AT_FDCWD, dir, "none", 100, 0, &len, &err));
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err.msg, "/none: cannot read: No such file or directory"));
}

/* A symbolic link, even to a regular file, is not followed. */
static void test_symlink(void **state)
{
	struct error err;

	(void)state;
	put("target", "secret\n");
	assert_int_equal(symlink(at("target"), at("link")), 0);
	assert_null(saferead_all(AT_FDCWD, dir, "link", 100, 0, NULL, &err));
	assert_non_null(strstr(err.msg, "/link: is a symbolic link; refusing to read it"));
	/* /dev/zero behind a link: refused before a byte is read */
	assert_int_equal(symlink("/dev/zero", at("zero")), 0);
	assert_int_equal(saferead_open(AT_FDCWD, dir, "zero", 0, &err), -1);
	assert_non_null(strstr(err.msg, "/zero: is a symbolic link"));
}

/* Beneath a directory fd, a link anywhere on the way is refused too. */
static void test_symlink_beneath(void **state)
{
	struct error err;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);

	(void)state;
	assert_true(dfd >= 0);
	assert_int_equal(mkdir(at("real"), 0755), 0);
	put("real/f", "x\n");
	assert_int_equal(symlink("real", at("via")), 0);
	assert_int_equal(saferead_open(dfd, NULL, "via/f", 0, &err), -1);
	assert_non_null(strstr(err.msg, "via/f: is a symbolic link"));
	int fd = saferead_open(dfd, NULL, "real/f", 0, &err);
	assert_true(fd >= 0);
	close(fd);
	close(dfd);
}

/* A FIFO is refused at once (the open does not wait for a writer). */
static void test_fifo(void **state)
{
	struct error err;

	(void)state;
	assert_int_equal(mkfifo(at("fifo"), 0644), 0);
	alarm(5); /* a hang fails the test instead of holding it */
	assert_null(saferead_fopen(AT_FDCWD, dir, "fifo", 0, &err));
	alarm(0);
	assert_non_null(strstr(err.msg, "/fifo: not a regular file (a FIFO); refusing to read it"));
}

/* A device or a directory is not a file to read either. */
static void test_not_regular(void **state)
{
	struct error err;

	(void)state;
	assert_int_equal(saferead_open(AT_FDCWD, NULL, "/dev/zero", 0, &err), -1);
	assert_string_equal(
	    err.msg, "/dev/zero: not a regular file (a character device); refusing to read it");
	assert_int_equal(saferead_open(AT_FDCWD, NULL, dir, 0, &err), -1);
	assert_non_null(strstr(err.msg, "not a regular file (a directory)"));
}

/* A whole file is read up to max bytes; a longer one is refused by name and size. */
static void test_max(void **state)
{
	struct error err;
	char *s;

	(void)state;
	put("ten", "0123456789");
	s = saferead_all(AT_FDCWD, dir, "ten", 10, 0, NULL, &err);
	assert_non_null(s);
	assert_string_equal(s, "0123456789");
	free(s);
	assert_null(saferead_all(AT_FDCWD, dir, "ten", 9, 0, NULL, &err));
	assert_non_null(strstr(err.msg, "/ten: longer than 9 bytes; refusing to read it"));
	put("empty", "");
	s = saferead_all(AT_FDCWD, dir, "empty", 9, 0, NULL, &err);
	assert_non_null(s);
	assert_string_equal(s, "");
	free(s);
}

/* SAFEREAD_OWN: another user's file is refused (needs root to make one). */
static void test_own(void **state)
{
	struct error err;
	int fd;

	(void)state;
	if (geteuid() != 0)
		skip();
	put("theirs", "x\n");
	assert_int_equal(chown(at("theirs"), 65534, 65534), 0);
	fd = saferead_open(AT_FDCWD, dir, "theirs", 0, &err);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(saferead_open(AT_FDCWD, dir, "theirs", SAFEREAD_OWN, &err), -1);
	assert_non_null(strstr(err.msg, "/theirs: belongs to uid 65534, not to us (uid 0)"));
}

/* Lines as getline gives them, up to max bytes with the newline; longer is refused. */
static void test_lines(void **state)
{
	struct error err;
	char *buf = NULL;
	size_t cap = 0;
	FILE *f;

	(void)state;
	put("lines", "ab\n12345\nlast");
	f = saferead_fopen(AT_FDCWD, dir, "lines", 0, &err);
	assert_non_null(f);
	assert_int_equal(saferead_line(f, &buf, &cap, 6), 3);
	assert_string_equal(buf, "ab\n");
	assert_int_equal(saferead_line(f, &buf, &cap, 6), 6); /* exactly max with its newline */
	assert_string_equal(buf, "12345\n");
	assert_int_equal(saferead_line(f, &buf, &cap, 6), 4); /* the last, without newline */
	assert_string_equal(buf, "last");
	assert_int_equal(saferead_line(f, &buf, &cap, 6), 0);
	fclose(f);
	f = saferead_fopen(AT_FDCWD, dir, "lines", 0, &err);
	assert_non_null(f);
	assert_int_equal(saferead_line(f, &buf, &cap, 5), 3);
	assert_int_equal(saferead_line(f, &buf, &cap, 5), SAFEREAD_TOO_LONG);
	assert_true(cap <= 128); /* what it held stayed within the bound */
	fclose(f);
	free(buf);
}

/* An endless line (a big file of zeros, no newline) stops at the bound. */
static void test_endless_line(void **state)
{
	struct error err;
	char *buf = NULL;
	size_t cap = 0;
	FILE *f;
	int fd;

	(void)state;
	fd = open(at("zeros"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 64 << 20), 0); /* 64 MiB of zeros, sparse */
	close(fd);
	f = saferead_fopen(AT_FDCWD, dir, "zeros", 0, &err);
	assert_non_null(f);
	assert_int_equal(saferead_line(f, &buf, &cap, 1 << 20), SAFEREAD_TOO_LONG);
	assert_true(cap <= 2u << 20);
	fclose(f);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_regular),
	    cmocka_unit_test(test_symlink),
	    cmocka_unit_test(test_symlink_beneath),
	    cmocka_unit_test(test_fifo),
	    cmocka_unit_test(test_not_regular),
	    cmocka_unit_test(test_max),
	    cmocka_unit_test(test_own),
	    cmocka_unit_test(test_lines),
	    cmocka_unit_test(test_endless_line),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
