/* SPDX-License-Identifier: MIT */
/* Unit tests for the allow-list's NFS exports and an NFS target's checks (agent/nfstarget.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "allow.h"
#include "nfstarget.h"

/* An export allowed covers itself and what is beneath it, and nothing else. */
static void test_nfs_covers(void **state)
{
	struct allow a = {0};
	struct error err;
	char r[4096];

	(void)state;
	assert_int_equal(allow_add(&a, "nfs://10.0.0.5/srv/vol1", &err), 0);
	assert_int_equal(allow_add(&a, "/", &err), 0);
	assert_int_equal(allow_check(&a, "nfs://10.0.0.5/srv/vol1", r, sizeof(r), &err), 0);
	assert_string_equal(r, "nfs://10.0.0.5/srv/vol1");
	assert_int_equal(allow_check(&a, "nfs://10.0.0.5/srv/vol1/run/a", r, sizeof(r), &err), 0);
	/* a sibling whose name starts the same, another host, the export's parent */
	assert_int_equal(allow_check(&a, "nfs://10.0.0.5/srv/vol10", r, sizeof(r), &err), -1);
	assert_non_null(strstr(err.msg, "outside the allowed paths"));
	assert_int_equal(allow_check(&a, "nfs://10.0.0.6/srv/vol1", r, sizeof(r), &err), -1);
	assert_int_equal(allow_check(&a, "nfs://10.0.0.5/srv", r, sizeof(r), &err), -1);
	/* '/' allows every local path, no export */
	allow_free(&a);
	assert_int_equal(allow_add(&a, "/", &err), 0);
	assert_int_equal(allow_check(&a, "nfs://10.0.0.5/srv/vol1", r, sizeof(r), &err), -1);
	allow_free(&a);
}

/* A path that walks out of the export, or is not plain, is refused in words. */
static void test_nfs_plain(void **state)
{
	struct allow a = {0};
	struct error err;
	char r[4096];

	(void)state;
	assert_int_equal(allow_add(&a, "nfs://nfs1/export", &err), 0);
	assert_int_equal(allow_check(&a, "nfs://nfs1/export/../etc", r, sizeof(r), &err), -1);
	assert_non_null(strstr(err.msg, "'.' or '..' part"));
	assert_int_equal(allow_check(&a, "nfs://nfs1/export//x", r, sizeof(r), &err), -1);
	assert_int_equal(allow_check(&a, "nfs://nfs1@evil/export", r, sizeof(r), &err), -1);
	assert_non_null(strstr(err.msg, "host"));
	assert_int_equal(allow_add(&a, "nfs://nfs1/export/../", &err), -1);
	assert_int_equal(allow_add(&a, "nfs:///export", &err), -1);
	allow_free(&a);
}

/* The plan's URL must be its server's export; root's credentials need the agent's word. */
static void test_nfs_target(void **state)
{
	Iocurve__NfsTarget n = IOCURVE__NFS_TARGET__INIT;
	struct engine_nfs_params p;
	struct allow a = {0};
	struct error err;
	char r[4096];

	(void)state;
	assert_int_equal(allow_add(&a, "nfs://127.0.0.1/srv/x", &err), 0);
	n.server = "127.0.0.1";
	n.export = "/srv/x";
	n.uid = n.gid = 1000;
	assert_int_equal(
	    nfstarget_check(&a, false, &n, "nfs://127.0.0.1/srv/x/run", &p, r, sizeof(r), &err), 0);
	assert_int_equal(p.connections, 1);
	assert_int_equal(p.version, 3);
	assert_int_equal(p.uid, 1000);
	/* allowed at the export: every directory beneath it may be made */
	assert_string_equal(p.allowed, "");
	/* the URL names another export than the one the plan mounts */
	assert_int_equal(
	    nfstarget_check(&a, false, &n, "nfs://127.0.0.1/srv/y/run", &p, r, sizeof(r), &err),
	    -1);
	assert_non_null(strstr(err.msg, "not within export /srv/x"));
	n.uid = 0;
	assert_int_equal(
	    nfstarget_check(&a, false, &n, "nfs://127.0.0.1/srv/x/run", &p, r, sizeof(r), &err),
	    -1);
	assert_non_null(strstr(err.msg, "--allow-nfs-root"));
	assert_int_equal(
	    nfstarget_check(&a, true, &n, "nfs://127.0.0.1/srv/x/run", &p, r, sizeof(r), &err), 0);
	/* allowed at a directory within the export: that directory is the server's to have */
	assert_int_equal(allow_add(&a, "nfs://127.0.0.1/srv/x/team/a", &err), 0);
	assert_int_equal(nfstarget_check(&a, true, &n, "nfs://127.0.0.1/srv/x/team/a/run", &p, r,
	                                 sizeof(r), &err),
	                 0);
	assert_string_equal(p.allowed, "team/a");
	assert_string_equal(allow_nfs_cover(&a, "nfs://127.0.0.1/srv/x/team/a/run"),
	                    "nfs://127.0.0.1/srv/x/team/a");
	/* no settings: an older coordinator's URL is not taken for a path */
	assert_int_equal(
	    nfstarget_check(&a, true, NULL, "nfs://127.0.0.1/srv/x/run", &p, r, sizeof(r), &err),
	    -1);
	allow_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nfs_covers),
	    cmocka_unit_test(test_nfs_plain),
	    cmocka_unit_test(test_nfs_target),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
