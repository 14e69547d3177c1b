/*
 * test_units.c — units_parse_size and units_format_size.
 *
 * Parsing is checked against the byte counts the units stand for (binary
 * K/M/G/T and KiB…TiB are powers of 1024, KB…TB powers of 1000), against every
 * kind of text the header promises to refuse, and at the 63-bit limit.
 * Formatting is checked for exact text and for a round trip through parsing.
 */
#include "engine/units.h"
#include "test.h"

#include <errno.h>
#include <stdint.h>

#define KIB 1024ULL
#define MIB (1024ULL * KIB)
#define GIB (1024ULL * MIB)
#define TIB (1024ULL * GIB)

struct good {
	const char *text;
	uint64_t bytes;
};

static void test_parse_good(void)
{
	static const struct good cases[] = {
		{ "64MiB", 64 * MIB },
		{ "1GiB", GIB },
		{ "4k", 4 * KIB },
		{ "4K", 4 * KIB },
		{ "4KiB", 4 * KIB },
		{ "4kib", 4 * KIB },
		{ "1 GiB", GIB },
		{ "1gib", GIB },
		{ "2M", 2 * MIB },
		{ "3G", 3 * GIB },
		{ "2T", 2 * TIB },
		{ "2TiB", 2 * TIB },
		{ "1000000000", 1000000000ULL },
		{ "0", 0 },
		{ "1GB", 1000000000ULL },
		{ "1gb", 1000000000ULL },
		{ "1KB", 1000ULL },
		{ "5MB", 5000000ULL },
		{ "2TB", 2000000000000ULL },
		{ "512B", 512 },
		{ "512b", 512 },
		{ "007", 7 },
		/* the largest value that fits in 63 bits, in bytes and in TiB
		 */
		{ "9223372036854775807", 9223372036854775807ULL },
		{ "8388607TiB", 8388607ULL * TIB },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t got = 0xdeadbeef;
		int rc = units_parse_size(cases[i].text, &got);
		if (rc != 0 || got != cases[i].bytes)
			fprintf(stderr, "  case \"%s\"\n", cases[i].text);
		ASSERT_EQ(rc, 0);
		ASSERT_U64_EQ(got, cases[i].bytes);
	}
}

struct bad {
	const char *text;
	int rc;
};

static void test_parse_bad(void)
{
	static const struct bad cases[] = {
		{ "abc", -EINVAL },
		{ "", -EINVAL },
		{ "0x10", -EINVAL },
		{ "-1", -EINVAL },
		{ "+1", -EINVAL },
		{ "1.5GiB", -EINVAL },
		{ "1,5GiB", -EINVAL },
		{ "12 parsecs", -EINVAL },
		{ "GiB", -EINVAL },
		{ " 5", -EINVAL },
		{ "1  GiB", -EINVAL }, /* one space at most */
		{ "1GiBs", -EINVAL },
		{ "1Gi", -EINVAL },
		{ "1PiB", -EINVAL },
		{ "1e9", -EINVAL },
		{ "99999999999TiB", -ERANGE },
		{ "8388608TiB", -ERANGE }, /* exactly 2^63 */
		{ "9223372036854775808", -ERANGE },
		{ "99999999999999999999999", -ERANGE },
		{ "9223372036854775807k", -ERANGE },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t got = 0;
		int rc = units_parse_size(cases[i].text, &got);
		if (rc != cases[i].rc)
			fprintf(stderr, "  case \"%s\"\n", cases[i].text);
		ASSERT_EQ(rc, cases[i].rc);
	}
	{
		uint64_t got = 0;
		ASSERT_EQ(units_parse_size(NULL, &got), -EINVAL);
	}
}

static void test_format_exact(void)
{
	static const struct good cases[] = {
		{ "0B", 0 },
		{ "1B", 1 },
		{ "512B", 512 },
		{ "4100B", 4100 },
		{ "1000000000B", 1000000000ULL },
		{ "4KiB", 4 * KIB },
		{ "1536KiB", 1536 * KIB },
		{ "64MiB", 64 * MIB },
		{ "1GiB", GIB },
		{ "3TiB", 3 * TIB },
		{ "1024TiB", 1024 * TIB }, /* TiB is the largest unit */
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT_EQ(units_format_size(cases[i].bytes, buf, sizeof(buf)),
			  0);
		ASSERT_STR_EQ(buf, cases[i].text);
	}
	/* "64MiB" needs 6 bytes with its NUL */
	ASSERT_EQ(units_format_size(64 * MIB, buf, 6), 0);
	ASSERT_STR_EQ(buf, "64MiB");
	ASSERT_EQ(units_format_size(64 * MIB, buf, 5), -ENOSPC);
	ASSERT_EQ(units_format_size(64 * MIB, buf, 0), -ENOSPC);
}

static void test_format_round_trip(void)
{
	static const uint64_t mults[] = { 1,	   3,	KIB,	 7 * KIB, MIB,
					  5 * MIB, GIB, 9 * GIB, TIB };
	uint64_t x = 0x243f6a8885a308d3ULL;
	char buf[32];

	for (size_t i = 0; i < sizeof(mults) / sizeof(mults[0]); i++) {
		for (int k = 0; k < 200; k++) {
			uint64_t v, back = 0;
			/* a fixed LCG: the same numbers on every run */
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			v = ((x >> 33) % 100000) * mults[i];
			ASSERT_EQ(units_format_size(v, buf, sizeof(buf)), 0);
			ASSERT_EQ(units_parse_size(buf, &back), 0);
			ASSERT_U64_EQ(back, v);
		}
	}
	/* the largest value parse accepts survives the trip too */
	{
		uint64_t v = 8388607ULL * TIB, back = 0;
		ASSERT_EQ(units_format_size(v, buf, sizeof(buf)), 0);
		ASSERT_STR_EQ(buf, "8388607TiB");
		ASSERT_EQ(units_parse_size(buf, &back), 0);
		ASSERT_U64_EQ(back, v);
	}
}

TEST_MAIN(test_parse_good, test_parse_bad, test_format_exact,
	  test_format_round_trip)
