/* SPDX-License-Identifier: MIT */
/* Unit tests for what a path lives on: the longest mount point, escapes, a later mount. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mounts.h"

static const char test_mountinfo[] =
    "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
    "25 22 0:21 / /proc rw,nosuid shared:12 - proc proc rw\n"
    "30 22 0:25 / /mnt/nas rw,relatime shared:5 - nfs4 filer:/vol/a rw,vers=4.2\n"
    "31 30 0:26 / /mnt/nas/fast\\040tier rw master:7 - xfs /dev/nvme0n1 rw,noatime\n"
    "40 22 0:30 / /var/tmp rw - tmpfs tmpfs rw,size=1024k\n"
    "41 22 0:31 / /var/tmp rw - ext4 /dev/vdb rw\n";

static void test_mounts_longest(void **state)
{
	char buf[256];

	(void)state;
	assert_int_equal(mounts_describe(test_mountinfo, "/home/u/data", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/dev/vda ext4 rw,relatime");
	assert_int_equal(mounts_describe(test_mountinfo, "/mnt/nas/run1", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "filer:/vol/a nfs4 rw,relatime");
	/* an escaped space in the mount point; not fooled by a name that only starts alike */
	assert_int_equal(mounts_describe(test_mountinfo, "/mnt/nas/fast tier/x", buf, sizeof(buf)),
	                 0);
	assert_string_equal(buf, "/dev/nvme0n1 xfs rw");
	assert_int_equal(mounts_describe(test_mountinfo, "/mnt/nas/fastest", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "filer:/vol/a nfs4 rw,relatime");
	/* a later mount on the same point hides the earlier one */
	assert_int_equal(mounts_describe(test_mountinfo, "/var/tmp/iocurve", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/dev/vdb ext4 rw");
	/* nothing holds a relative path; a malformed line is skipped */
	assert_int_equal(mounts_describe("garbage\n", "/x", buf, sizeof(buf)), -1);
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mounts_longest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
