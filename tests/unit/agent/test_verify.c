/* SPDX-License-Identifier: MIT */
/* verify.c: blocks stamped with their header pass; damaged, zeroed or misplaced ones do not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "verify.h"

#define N   4
#define OFF (UINT64_C(1) << 20)

static unsigned char buf[N * VERIFY_BLOCK];

static void fill(void)
{
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	verify_stamp(buf, sizeof(buf), OFF, 3, 1234567890123);
}

/* The header is as verify.h lays it out: magic, crc32 of bytes 8.., offset, generation, worker. */
static void test_layout(void **state)
{
	uint32_t crc, worker;
	uint64_t off, gen;

	(void)state;
	fill();
	assert_memory_equal(buf + VERIFY_BLOCK, "iocv", 4);
	memcpy(&crc, buf + VERIFY_BLOCK + 4, 4);
	memcpy(&off, buf + VERIFY_BLOCK + 8, 8);
	memcpy(&gen, buf + VERIFY_BLOCK + 16, 8);
	memcpy(&worker, buf + VERIFY_BLOCK + 24, 4);
	assert_int_equal(crc, (uint32_t)crc32(0, buf + VERIFY_BLOCK + 8, VERIFY_BLOCK - 8));
	assert_int_equal(off, OFF + VERIFY_BLOCK);
	assert_int_equal(gen, 1234567890123);
	assert_int_equal(worker, 3);
}

static void test_damage(void **state)
{
	struct verify_bad bad;
	char words[256];

	(void)state;
	fill();
	assert_int_equal(verify_check(buf, sizeof(buf), OFF, &bad), 0);
	/* one byte of block 2's data */
	buf[2 * VERIFY_BLOCK + 1000] ^= 1;
	assert_int_equal(verify_check(buf, sizeof(buf), OFF, &bad), 1);
	assert_int_equal(bad.offset, OFF + 2 * VERIFY_BLOCK);
	assert_true(bad.header);
	assert_int_equal(bad.generation, 1234567890123);
	assert_int_not_equal(bad.crc_want, bad.crc_found);
	verify_words(&bad, "/t/a1-w3.dat", "a1", 3, words, sizeof(words));
	{
		char want[256];

		snprintf(
		    want, sizeof(want),
		    "data mismatch at offset %llu of /t/a1-w3.dat (a1, w3): expected generation "
		    "1234567890123 crc %08x, found %08x",
		    (unsigned long long)(OFF + 2 * VERIFY_BLOCK), bad.crc_want, bad.crc_found);
		assert_string_equal(words, want);
	}
	/* block 3 zeroed too: two bad, the first still block 2 */
	memset(buf + 3 * VERIFY_BLOCK, 0, VERIFY_BLOCK);
	assert_int_equal(verify_check(buf, sizeof(buf), OFF, &bad), 2);
	assert_int_equal(bad.offset, OFF + 2 * VERIFY_BLOCK);
	assert_int_equal(
	    verify_check(buf + 3 * VERIFY_BLOCK, VERIFY_BLOCK, OFF + 3 * VERIFY_BLOCK, &bad), 1);
	assert_false(bad.header);
	verify_words(&bad, "/t/a1-w3.dat", "a1", 3, words, sizeof(words));
	assert_non_null(strstr(words, "expected a verify header, found none"));
}

/* Whole blocks at another offset: a misplaced write, each block named. */
static void test_misplaced(void **state)
{
	struct verify_bad bad;
	char words[256];

	(void)state;
	fill();
	assert_int_equal(verify_check(buf, sizeof(buf), OFF + 8 * VERIFY_BLOCK, &bad), N);
	assert_int_equal(bad.offset, OFF + 8 * VERIFY_BLOCK);
	assert_int_equal(bad.header_off, OFF);
	verify_words(&bad, "/t/f", "a", 0, words, sizeof(words));
	assert_non_null(strstr(words, "expected its own block, found offset 1048576's"));
	/* a partial tail is neither stamped nor checked */
	assert_int_equal(verify_check(buf, VERIFY_BLOCK - 1, 0, &bad), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_layout),
	    cmocka_unit_test(test_damage),
	    cmocka_unit_test(test_misplaced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
