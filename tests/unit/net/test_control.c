/* SPDX-License-Identifier: MIT */
/* Unit tests for a control request's parts: its body set by type, the campaign it names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "control.h"

/* A request message lands in the Envelope case of its own type, as the daemon reads it. */
static void test_request_set(void **state)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Cancel cancel = IOCURVE__CANCEL__INIT;
	Iocurve__Mark mark = IOCURVE__MARK__INIT;
	Iocurve__StatusRequest status = IOCURVE__STATUS_REQUEST__INIT;

	assert_int_equal(control_request_set(&env, &cancel.base), 0);
	assert_int_equal(env.body_case, IOCURVE__ENVELOPE__BODY_CANCEL);
	assert_ptr_equal(env.cancel, &cancel);
	assert_int_equal(control_request_set(&env, &mark.base), 0);
	assert_int_equal(env.body_case, IOCURVE__ENVELOPE__BODY_MARK);
	assert_ptr_equal(env.mark, &mark);
	assert_int_equal(control_request_set(&env, &status.base), 0);
	assert_int_equal(env.body_case, IOCURVE__ENVELOPE__BODY_STATUS_REQUEST);
}

/* A message that is no body of an Envelope (a part of one) is refused. */
static void test_request_set_refuses_a_part(void **state)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Histogram h = IOCURVE__HISTOGRAM__INIT;

	assert_int_equal(control_request_set(&env, &h.base), -1);
	assert_int_equal(env.body_case, IOCURVE__ENVELOPE__BODY__NOT_SET);
}

/*
 * Every request that names a campaign gives its id field (the daemon checks its
 * bounds, the CLI's ID verbs fill it); the others, and no body at all, name none.
 */
static void test_request_id(void **state)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Cancel cancel = IOCURVE__CANCEL__INIT;
	Iocurve__Resume resume = IOCURVE__RESUME__INIT;
	Iocurve__Mark mark = IOCURVE__MARK__INIT;
	Iocurve__Watch watch = IOCURVE__WATCH__INIT;
	Iocurve__Submit submit = IOCURVE__SUBMIT__INIT;
	Iocurve__AgentsRequest agents = IOCURVE__AGENTS_REQUEST__INIT;

	assert_null(control_request_id(&env));
	control_request_set(&env, &cancel.base);
	assert_ptr_equal(control_request_id(&env), &cancel.id);
	control_request_set(&env, &resume.base);
	assert_ptr_equal(control_request_id(&env), &resume.id);
	control_request_set(&env, &mark.base);
	assert_ptr_equal(control_request_id(&env), &mark.id);
	control_request_set(&env, &watch.base);
	assert_ptr_equal(control_request_id(&env), &watch.id);
	control_request_set(&env, &submit.base);
	assert_null(control_request_id(&env));
	control_request_set(&env, &agents.base);
	assert_null(control_request_id(&env));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_request_set),
	    cmocka_unit_test(test_request_set_refuses_a_part),
	    cmocka_unit_test(test_request_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
