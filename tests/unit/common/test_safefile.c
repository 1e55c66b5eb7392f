/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the one safe writer (common/safefile.c): whatever is planted at a
 * name it writes (a symbolic link, a dangling one, a hard link to a file of ours, a
 * FIFO, another user's file) is refused by name and what it leads to is unchanged.
 */
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

#include "safefile.h"

#define VICTIM_TEXT "my notes\n"

struct test_safefile_dir {
	char base[64];   /* the directory written in */
	char victim[96]; /* a file of ours outside it */
	int fd;          /* base, O_DIRECTORY */
};

static int test_safefile_setup(void **state)
{
	struct test_safefile_dir *d = calloc(1, sizeof(*d));
	FILE *f;

	if (d == NULL)
		return -1;
	snprintf(d->base, sizeof(d->base), "/tmp/iocurve-safefile-XXXXXX");
	if (mkdtemp(d->base) == NULL)
		return -1;
	snprintf(d->victim, sizeof(d->victim), "%s.victim", d->base);
	f = fopen(d->victim, "w");
	if (f == NULL)
		return -1;
	fputs(VICTIM_TEXT, f);
	fclose(f);
	d->fd = open(d->base, O_RDONLY | O_DIRECTORY);
	*state = d;
	return d->fd < 0 ? -1 : 0;
}

static int test_safefile_teardown(void **state)
{
	struct test_safefile_dir *d = *state;
	char cmd[256];

	close(d->fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", d->base, d->victim);
	if (system(cmd) != 0)
		return -1;
	free(d);
	return 0;
}

/* The victim still holds what it held. */
static void test_safefile_victim_unchanged(const struct test_safefile_dir *d)
{
	char buf[64] = {0};
	FILE *f = fopen(d->victim, "r");

	assert_non_null(f);
	assert_true(fread(buf, 1, sizeof(buf) - 1, f) > 0);
	fclose(f);
	assert_string_equal(buf, VICTIM_TEXT);
}

static void test_safefile_hello(FILE *f, const void *arg)
{
	fputs(arg, f);
}

/* err.msg is "BASE/NAME: " followed by what. */
static void test_safefile_said(const struct test_safefile_dir *d, const struct error *err,
                               const char *name, const char *what)
{
	char want[512];

	snprintf(want, sizeof(want), "%s/%s: %s", d->base, name, what);
	if (strncmp(err->msg, want, strlen(want)) != 0)
		fail_msg("said \"%s\", not \"%s...\"", err->msg, want);
}

static void test_safefile_write_planted(void **state)
{
	struct test_safefile_dir *d = *state;
	struct error err = {{0}};
	char path[256];
	struct stat st;

	/* A symlink to a file of ours at the name: refused, the link and its target kept. */
	snprintf(path, sizeof(path), "%s/compare.html", d->base);
	assert_int_equal(symlink(d->victim, path), 0);
	assert_int_equal(safefile_write(d->base, "compare.html", test_safefile_hello, "x", &err),
	                 -1);
	test_safefile_said(d, &err, "compare.html", "refusing to replace a symbolic link");
	test_safefile_victim_unchanged(d);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	unlink(path);

	/* A FIFO: refused, not opened (it would wait for a reader). */
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(safefile_write(d->base, "compare.html", test_safefile_hello, "x", &err),
	                 -1);
	test_safefile_said(d, &err, "compare.html",
	                   "refusing to replace something not a regular file");
	unlink(path);

	/* Nothing there, then a file: written whole, replaced whole, no temp file left. */
	assert_int_equal(safefile_write(d->base, "compare.html", test_safefile_hello, "one", &err),
	                 0);
	assert_int_equal(safefile_write(d->base, "compare.html", test_safefile_hello, "two", &err),
	                 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 3);
	snprintf(path, sizeof(path), "test \"$(ls -A '%s')\" = compare.html", d->base);
	assert_int_equal(system(path), 0);
}

static void test_safefile_append_planted(void **state)
{
	struct test_safefile_dir *d = *state;
	struct error err = {{0}};
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/agent-local-0.log", d->base);

	/* A symlink to a file of ours, and a dangling one: refused, nothing written or made. */
	assert_int_equal(symlink(d->victim, path), 0);
	assert_int_equal(safefile_append(d->fd, d->base, "agent-local-0.log", 0, &err), -1);
	test_safefile_said(d, &err, "agent-local-0.log", "is a symbolic link");
	unlink(path);
	assert_int_equal(symlink("nowhere", path), 0);
	assert_int_equal(safefile_append(d->fd, d->base, "agent-local-0.log", 0, &err), -1);
	test_safefile_said(d, &err, "agent-local-0.log", "is a symbolic link");
	unlink(path);

	/* A hard link to a file of ours. */
	assert_int_equal(link(d->victim, path), 0);
	assert_int_equal(safefile_append(d->fd, d->base, "agent-local-0.log", 0, &err), -1);
	test_safefile_said(d, &err, "agent-local-0.log", "has another hard link");
	unlink(path);

	/* A FIFO: refused at once, not waited on. */
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(5);
	assert_int_equal(safefile_append(d->fd, d->base, "agent-local-0.log", 0, &err), -1);
	alarm(0);
	test_safefile_said(d, &err, "agent-local-0.log", "not a regular file");
	unlink(path);

	/* Another user's file (root only: chown). */
	if (geteuid() == 0) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		assert_true(fd >= 0);
		assert_int_equal(fchown(fd, 65534, 65534), 0);
		close(fd);
		assert_int_equal(safefile_append(d->fd, d->base, "agent-local-0.log", 0, &err), -1);
		test_safefile_said(d, &err, "agent-local-0.log", "not owned by this user");
		unlink(path);
	}
	test_safefile_victim_unchanged(d);

	/* A plain file of ours: appended to, blocking, and O_EXCL refuses it once there. */
	fd = safefile_append(d->fd, d->base, "agent-local-0.log", 0, &err);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFL) & (O_NONBLOCK | O_APPEND), O_APPEND);
	assert_int_equal(write(fd, "a\n", 2), 2);
	close(fd);
	fd = safefile_append(d->fd, d->base, "agent-local-0.log", 0, &err);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "b\n", 2), 2);
	assert_int_equal(lseek(fd, 0, SEEK_END), 4);
	close(fd);
	assert_int_equal(safefile_append(d->fd, d->base, "agent-local-0.log", O_EXCL, &err), -1);
}

static void test_safefile_create_planted(void **state)
{
	struct test_safefile_dir *d = *state;
	struct error err = {{0}};
	char path[256], gone[256], want[600];
	struct stat st;
	FILE *f;

	/* A dangling symlink at a key's name: nothing is made where it points. */
	snprintf(path, sizeof(path), "%s/node.key", d->base);
	snprintf(gone, sizeof(gone), "%s/stolen.key", d->base);
	assert_int_equal(symlink(gone, path), 0);
	assert_null(safefile_create(path, 0600, &err));
	snprintf(want, sizeof(want), "%s: already exists; refusing to overwrite it", path);
	assert_string_equal(err.msg, want);
	assert_int_equal(lstat(gone, &st), -1);
	unlink(path);

	/* Made new with exactly the mode asked, whatever the umask. */
	umask(077);
	f = safefile_create(path, 0644, &err);
	assert_non_null(f);
	fclose(f);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	umask(022);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_safefile_write_planted, test_safefile_setup,
	                                    test_safefile_teardown),
	    cmocka_unit_test_setup_teardown(test_safefile_append_planted, test_safefile_setup,
	                                    test_safefile_teardown),
	    cmocka_unit_test_setup_teardown(test_safefile_create_planted, test_safefile_setup,
	                                    test_safefile_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
