/*
 * test_profiles.c — the built-in presets.
 *
 * cdm-default must be CrystalDiskMark 8's default set in its run order. The
 * fields of every test are checked against its own name, parsed here
 * ("SEQ1M Q8T1": SEQ = sequential, 1M = 1 MiB blocks, Q8 = queue depth 8,
 * T1 = one thread), so a name and its numbers cannot drift apart.
 */
#include "profiles.h"
#include "test.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

struct parsed_name {
	enum wl_pattern pattern;
	uint32_t block_size;
	unsigned queue_depth;
	unsigned threads;
};

/* Parses "SEQ1M Q8T1" / "RND4K Q32T1". Returns 0 or -EINVAL. */
static int parse_test_name(const char *s, struct parsed_name *n)
{
	unsigned long v;
	char *end;

	if (strncmp(s, "SEQ", 3) == 0)
		n->pattern = WL_SEQUENTIAL;
	else if (strncmp(s, "RND", 3) == 0)
		n->pattern = WL_RANDOM;
	else
		return -EINVAL;
	s += 3;
	v = strtoul(s, &end, 10);
	if (end == s || v == 0)
		return -EINVAL;
	if (*end == 'K')
		v <<= 10;
	else if (*end == 'M')
		v <<= 20;
	else
		return -EINVAL;
	n->block_size = (uint32_t)v;
	s = end + 1;
	if (strncmp(s, " Q", 2) != 0)
		return -EINVAL;
	s += 2;
	v = strtoul(s, &end, 10);
	if (end == s || *end != 'T')
		return -EINVAL;
	n->queue_depth = (unsigned)v;
	s = end + 1;
	v = strtoul(s, &end, 10);
	if (end == s || *end != '\0')
		return -EINVAL;
	n->threads = (unsigned)v;
	return 0;
}

static void test_name_parser(void)
{
	struct parsed_name n;

	/* the parser itself, so the checks below rest on something */
	ASSERT_EQ(parse_test_name("RND4K Q32T16", &n), 0);
	ASSERT_EQ(n.pattern, WL_RANDOM);
	ASSERT_EQ(n.block_size, 4096);
	ASSERT_EQ(n.queue_depth, 32);
	ASSERT_EQ(n.threads, 16);
	ASSERT_EQ(parse_test_name("SEQ128K Q1T1", &n), 0);
	ASSERT_EQ(n.pattern, WL_SEQUENTIAL);
	ASSERT_EQ(n.block_size, 128 * 1024);
	ASSERT_EQ(parse_test_name("SEQ1M Q8", &n), -EINVAL);
	ASSERT_EQ(parse_test_name("XYZ1M Q8T1", &n), -EINVAL);
	ASSERT_EQ(parse_test_name("SEQ1G Q8T1", &n), -EINVAL);
}

static void test_cdm_default_plan(void)
{
	static const char *const names[] = {
	    "SEQ1M Q8T1",
	    "SEQ1M Q1T1",
	    "RND4K Q32T1",
	    "RND4K Q1T1",
	};
	const struct profile *p = profile_find("cdm-default");

	ASSERT_TRUE(p != NULL);
	ASSERT_STR_EQ(p->name, "cdm-default");
	ASSERT_STR_EQ(p->title, "CrystalDiskMark 8 default");
	ASSERT_EQ(p->n_tests, 8);
	for (size_t i = 0; i < 8; i++) {
		const struct profile_test *t = &p->tests[i];
		/* every read test first, then the same four as writes */
		ASSERT_STR_EQ(t->name, names[i % 4]);
		ASSERT_EQ(t->read_pct, i < 4 ? 100 : 0);
		ASSERT_EQ(t->block_size,
			  strncmp(t->name, "SEQ", 3) == 0 ? 1U << 20 : 4096U);
	}
}

static void test_fields_match_names(void)
{
	const struct profile *p;
	size_t i, checked = 0;

	for (i = 0; (p = profile_at(i)) != NULL; i++) {
		ASSERT_TRUE(i < 64); /* profile_at must end with NULL */
		ASSERT_TRUE(profile_find(p->name) == p);
		/* the other kinds make their tests from the job's options */
		ASSERT_EQ(p->n_tests > 0, p->kind == PROFILE_TESTS);
		/* CrystalDiskMark 3 named its tests differently ("4K QD32") */
		if (strcmp(p->name, "cdm3") == 0)
			continue;
		for (size_t j = 0; j < p->n_tests; j++) {
			const struct profile_test *t = &p->tests[j];
			struct parsed_name n;
			if (parse_test_name(t->name, &n) != 0)
				fprintf(stderr, "  %s: \"%s\"\n", p->name,
					t->name);
			ASSERT_EQ(parse_test_name(t->name, &n), 0);
			ASSERT_EQ(t->pattern, n.pattern);
			ASSERT_EQ(t->block_size, n.block_size);
			ASSERT_EQ(t->queue_depth, n.queue_depth);
			ASSERT_EQ(t->threads, n.threads);
			ASSERT_TRUE(t->read_pct == 0 || t->read_pct == 100);
			checked++;
		}
		ASSERT_TRUE(profile_find(p->name) == p);
	}
	ASSERT_TRUE(i >= 8);
	ASSERT_TRUE(checked >= 16);
}

static void test_cdm_default_defaults(void)
{
	const struct profile *p = profile_find("cdm-default");

	ASSERT_TRUE(p != NULL);
	ASSERT_U64_EQ(p->size, 1ULL << 30);
	ASSERT_EQ(p->iterations, 5);
	ASSERT_TRUE(p->duration_s == 5.0);
	ASSERT_TRUE(p->interval_s == 0.0);
}

static void test_find_and_at(void)
{
	ASSERT_TRUE(profile_find("no-such-profile") == NULL);
	ASSERT_TRUE(profile_find("") == NULL);
	ASSERT_TRUE(profile_find("cdm-default ") == NULL);
	ASSERT_TRUE(profile_find("cdm") == NULL);
	ASSERT_TRUE(profile_at(0) != NULL);
	ASSERT_TRUE(profile_at((size_t)-1) == NULL);
}

static void test_max_block(void)
{
	static const struct profile_test tests[] = {
	    {"RND4K Q1T1", WL_RANDOM, 100, 4096, 1, 1},
	    {"SEQ64K Q1T1", WL_SEQUENTIAL, 100, 65536, 1, 1},
	    {"SEQ8K Q1T1", WL_SEQUENTIAL, 0, 8192, 1, 1},
	};
	struct profile mine = {.name = "t", .tests = tests, .n_tests = 3};
	struct profile empty = {.name = "e", .tests = tests, .n_tests = 0};

	ASSERT_EQ(profile_max_block(profile_find("cdm-default")), 1U << 20);
	ASSERT_EQ(profile_max_block(&mine), 65536);
	mine.n_tests = 1;
	ASSERT_EQ(profile_max_block(&mine), 4096);
	ASSERT_EQ(profile_max_block(&empty), 0);
}

static void test_workload(void)
{
	const struct profile *p = profile_find("cdm-default");
	struct workload w;

	ASSERT_TRUE(p != NULL);
	memset(&w, 0xA5, sizeof(w));
	profile_workload(&p->tests[6], 64ULL << 20, 2.5, &w);
	ASSERT_STR_EQ(w.name, "RND4K Q32T1");
	ASSERT_EQ(w.pattern, WL_RANDOM);
	ASSERT_EQ(w.read_pct, 0);
	ASSERT_EQ(w.block_size, 4096);
	ASSERT_EQ(w.queue_depth, 32);
	ASSERT_EQ(w.threads, 1);
	ASSERT_U64_EQ(w.file_size, 64ULL << 20);
	ASSERT_TRUE(w.duration_s == 2.5);
	ASSERT_STR_EQ(wl_rw_name(w.read_pct), "write");
	ASSERT_STR_EQ(wl_rw_name(p->tests[0].read_pct), "read");
	ASSERT_STR_EQ(wl_pattern_name(p->tests[0].pattern), "sequential");
}

TEST_MAIN(test_name_parser, test_cdm_default_plan, test_fields_match_names,
	  test_cdm_default_defaults, test_find_and_at, test_max_block,
	  test_workload)
