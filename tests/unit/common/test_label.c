/* SPDX-License-Identifier: MIT */
/* Unit tests for agent labels: KEY=VALUE, formatting, matching, copies and the wire. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "label.h"

static void test_label_parse_format(void **state)
{
	struct label *v = NULL;
	struct error err;
	size_t n = 0;
	char buf[128];

	assert_int_equal(label_parse("zone=a", &v, &n, &err), 0);
	assert_int_equal(label_parse("rack=r1=x", &v, &n, &err), 0);
	assert_int_equal(label_parse("empty=", &v, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[1].key, "rack");
	assert_string_equal(v[1].value, "r1=x");
	assert_string_equal(v[2].value, "");
	assert_int_equal(label_parse("novalue", &v, &n, &err), -1);
	assert_string_equal(err.msg, "label 'novalue': expected KEY=VALUE");
	assert_int_equal(label_parse("=x", &v, &n, &err), -1);
	assert_int_equal(n, 3);
	label_format(v, n, ",", buf, sizeof(buf));
	assert_string_equal(buf, "zone=a,rack=r1=x,empty=");
	label_format(v, 0, ",", buf, sizeof(buf));
	assert_string_equal(buf, "");
	label_format(v, n, ", ", buf, 8);
	assert_string_equal(buf, "zone=a,");
	label_free(v, n);
}

static void test_label_include(void **state)
{
	struct label have[] = {{"zone", "a"}, {"disk", "nvme"}}, want[] = {{"disk", "nvme"}};
	struct label other[] = {{"zone", "b"}};

	assert_true(label_include(have, 2, want, 1));
	assert_true(label_include(have, 2, NULL, 0));
	assert_false(label_include(have, 2, other, 1));
	assert_false(label_include(NULL, 0, want, 1));
}

static void test_label_wire(void **state)
{
	struct label v[] = {{"zone", "a"}, {"disk", "nvme"}};
	Iocurve__Hello h = IOCURVE__HELLO__INIT, *back;
	struct label *c, *copy;
	uint8_t buf[256];
	size_t len;

	h.labels = label_to_wire(v, 2);
	h.n_labels = 2;
	len = iocurve__hello__pack(&h, buf);
	free(h.labels);
	back = iocurve__hello__unpack(NULL, len, buf);
	assert_non_null(back);
	c = label_from_wire(back->labels, back->n_labels);
	iocurve__hello__free_unpacked(back, NULL);
	assert_string_equal(c[0].key, "zone");
	assert_string_equal(c[1].value, "nvme");
	copy = label_copy(c, 2);
	label_free(c, 2);
	assert_true(label_include(copy, 2, v, 2));
	label_free(copy, 2);
	assert_null(label_copy(NULL, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_label_parse_format),
	    cmocka_unit_test(test_label_include),
	    cmocka_unit_test(test_label_wire),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
