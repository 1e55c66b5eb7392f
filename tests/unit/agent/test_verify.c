/* SPDX-License-Identifier: MIT */
/* verify.c: blocks stamped with their header pass; damaged, zeroed or misplaced ones do not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <xxhash.h>
#include <zlib.h>

#include "verify.h"

#define N   4
#define OFF (UINT64_C(1) << 20)

static unsigned char buf[N * VERIFY_BLOCK];

static void fill_with(enum verify_sum sum)
{
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	verify_stamp(buf, sizeof(buf), OFF, 3, 1234567890123, sum);
}

static void fill(void)
{
	fill_with(VERIFY_SUM_CRC32);
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
	assert_int_equal(bad.sum, VERIFY_SUM_CRC32);
	assert_true(bad.sum_want != bad.sum_found);
	verify_words(&bad, "/t/a1-w3.dat", "a1", 3, words, sizeof(words));
	{
		char want[256];

		snprintf(
		    want, sizeof(want),
		    "data mismatch at offset %llu of /t/a1-w3.dat (a1, w3): expected generation "
		    "1234567890123 crc %08x, found %08x",
		    (unsigned long long)(OFF + 2 * VERIFY_BLOCK), (unsigned)bad.sum_want,
		    (unsigned)bad.sum_found);
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

/*
 * xxh64: byte 26 names it, the 64-bit sum split over bytes 4..7 (low) and 28..31 (high),
 * XXH64 of bytes 8..27 seeding that of 32..4095; a crc32 header is as it always was
 * (worker 32 bits wide with byte 26..31 zero).
 */
static void test_xxh64(void **state)
{
	struct verify_bad bad;
	uint32_t lo, hi, crc_hdr[2];
	uint64_t want;
	char words[256], expect[256];

	(void)state;
	fill();
	memcpy(crc_hdr, buf + 24, 8);
	assert_int_equal(crc_hdr[0], 3);
	assert_int_equal(crc_hdr[1], 0);
	fill_with(VERIFY_SUM_XXH64);
	assert_memory_equal(buf, "iocv", 4);
	assert_int_equal(buf[24], 3);
	assert_int_equal(buf[26], VERIFY_SUM_XXH64);
	memcpy(&lo, buf + 4, 4);
	memcpy(&hi, buf + 28, 4);
	want = XXH64(buf + VERIFY_HEADER, VERIFY_BLOCK - VERIFY_HEADER, XXH64(buf + 8, 20, 0));
	assert_true(((uint64_t)hi << 32 | lo) == want);
	assert_int_equal(verify_check(buf, sizeof(buf), OFF, &bad), 0);
	/* a byte of block 1's data, and block 3's generation: each fails, xxh64 named */
	buf[VERIFY_BLOCK + 2000] ^= 0x40;
	buf[3 * VERIFY_BLOCK + 16] ^= 1;
	assert_int_equal(verify_check(buf, sizeof(buf), OFF, &bad), 2);
	assert_int_equal(bad.offset, OFF + VERIFY_BLOCK);
	assert_int_equal(bad.sum, VERIFY_SUM_XXH64);
	verify_words(&bad, "/t/a1-w3.dat", "a1", 3, words, sizeof(words));
	snprintf(expect, sizeof(expect),
	         "data mismatch at offset %llu of /t/a1-w3.dat (a1, w3): expected generation "
	         "1234567890123 xxh64 %016llx, found %016llx",
	         (unsigned long long)(OFF + VERIFY_BLOCK), (unsigned long long)bad.sum_want,
	         (unsigned long long)bad.sum_found);
	assert_string_equal(words, expect);
	/* a reader checks with the header's checksum: crc32 blocks beside xxh64 ones */
	fill_with(VERIFY_SUM_XXH64);
	verify_stamp(buf + VERIFY_BLOCK, VERIFY_BLOCK, OFF + VERIFY_BLOCK, 3, 1, VERIFY_SUM_CRC32);
	assert_int_equal(verify_check(buf, sizeof(buf), OFF, &bad), 0);
	/* a checksum this build does not know is a mismatch that says so */
	buf[2 * VERIFY_BLOCK + 26] = 9;
	assert_int_equal(verify_check(buf, sizeof(buf), OFF, &bad), 1);
	verify_words(&bad, "/t/f", "a", 0, words, sizeof(words));
	assert_non_null(strstr(words, "expected a header of crc32 or xxh64, found checksum 9"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_layout),
	    cmocka_unit_test(test_damage),
	    cmocka_unit_test(test_misplaced),
	    cmocka_unit_test(test_xxh64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
