/*
 * test_presets.c — the preset registry and the built-in presets' tables.
 *
 * Every table in the registry is valid and found by its own name; the ones
 * with fixed tests make their tests from nothing but the table. cdm-default
 * must be CrystalDiskMark 8's default set in its run order. The
 * fields of every test are checked against its own name, parsed here
 * ("SEQ1M Q8T1": SEQ = sequential, 1M = 1 MiB blocks, Q8 = queue depth 8,
 * T1 = one thread), so a name and its numbers cannot drift apart.
 */
#include "jobs/plan.h"
#include "presets/preset.h"
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
	const struct preset *p = preset_find("cdm-default");

	ASSERT_TRUE(p != NULL);
	ASSERT_STR_EQ(p->name, "cdm-default");
	ASSERT_STR_EQ(p->title, "CrystalDiskMark 8 default");
	ASSERT_EQ(p->n_tests, 8);
	for (size_t i = 0; i < 8; i++) {
		const struct plan_test *t = &p->tests[i];
		/* every read test first, then the same four as writes */
		ASSERT_STR_EQ(t->name, names[i % 4]);
		ASSERT_EQ(t->read_pct, i < 4 ? 100 : 0);
		ASSERT_EQ(t->block_size,
			  strncmp(t->name, "SEQ", 3) == 0 ? 1U << 20 : 4096U);
	}
}

static void test_fields_match_names(void)
{
	const struct preset *p;
	size_t i, checked = 0;

	for (i = 0; (p = preset_at(i)) != NULL; i++) {
		ASSERT_TRUE(i < 64); /* preset_at must end with NULL */
		ASSERT_EQ(preset_validate(p), 0);
		ASSERT_TRUE(preset_find(p->name) == p);
		/* the other kinds make their tests from the job's options */
		ASSERT_EQ(p->n_tests > 0, strcmp(p->kind, "tests") == 0);
		/* CrystalDiskMark 3 named its tests differently ("4K QD32") */
		if (strcmp(p->name, "cdm3") == 0)
			continue;
		for (size_t j = 0; j < p->n_tests; j++) {
			const struct plan_test *t = &p->tests[j];
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
		ASSERT_TRUE(preset_find(p->name) == p);
	}
	ASSERT_TRUE(i >= 8);
	ASSERT_TRUE(checked >= 16);
}

static void test_cdm_default_defaults(void)
{
	const struct preset *p = preset_find("cdm-default");

	ASSERT_TRUE(p != NULL);
	ASSERT_U64_EQ(p->defaults.size, 1ULL << 30);
	ASSERT_EQ(p->defaults.iterations, 5);
	ASSERT_TRUE(p->defaults.duration_s == 5.0);
	ASSERT_TRUE(p->defaults.interval_s == 0.0);
}

static void test_find_and_at(void)
{
	struct preset broken = *preset_find("cdm-default");

	ASSERT_TRUE(preset_find("no-such-profile") == NULL);
	ASSERT_TRUE(preset_find("") == NULL);
	ASSERT_TRUE(preset_find(NULL) == NULL);
	ASSERT_TRUE(preset_find("cdm-default ") == NULL);
	ASSERT_TRUE(preset_find("cdm") == NULL);
	ASSERT_TRUE(preset_at(0) != NULL);
	ASSERT_TRUE(preset_at((size_t)-1) == NULL);
	/* a table without a runner, a view or the version is refused */
	broken.run = NULL;
	ASSERT_EQ(preset_validate(&broken), -EINVAL);
	broken = *preset_find("cdm-default");
	broken.view = NULL;
	ASSERT_EQ(preset_validate(&broken), -EINVAL);
	broken = *preset_find("cdm-default");
	broken.version = PRESET_VERSION + 1;
	ASSERT_EQ(preset_validate(&broken), -EINVAL);
	ASSERT_EQ(preset_validate(NULL), -EINVAL);
}

static void test_max_block(void)
{
	static const struct plan_test tests[] = {
		{ "RND4K Q1T1", WL_RANDOM, 100, 4096, 1, 1 },
		{ "SEQ64K Q1T1", WL_SEQUENTIAL, 100, 65536, 1, 1 },
		{ "SEQ8K Q1T1", WL_SEQUENTIAL, 0, 8192, 1, 1 },
	};
	struct preset mine = { .name = "t", .tests = tests, .n_tests = 3 };
	struct preset empty = { .name = "e", .tests = tests, .n_tests = 0 };

	ASSERT_EQ(preset_max_block(preset_find("cdm-default")), 1U << 20);
	ASSERT_EQ(preset_max_block(&mine), 65536);
	mine.n_tests = 1;
	ASSERT_EQ(preset_max_block(&mine), 4096);
	ASSERT_EQ(preset_max_block(&empty), 0);
}

static void test_workload(void)
{
	const struct preset *p = preset_find("cdm-default");
	struct workload def = { .file_size = 64ULL << 20,
				.duration_s = 2.5,
				.ramp_s = 1,
				.data = WL_DATA_ZEROS };
	struct plan plan;
	struct workload w;

	ASSERT_TRUE(p != NULL);
	ASSERT_EQ(plan_from_tests(p->tests, p->n_tests, &def, &plan), 0);
	ASSERT_EQ(plan.n, 8);
	w = plan.w[6];
	ASSERT_EQ(w.origin, 6);
	ASSERT_TRUE(w.ramp_s == 1);
	ASSERT_EQ(w.data, WL_DATA_ZEROS);
	plan_free(&plan);
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

/* What other parts read from the tables: a runner and a view for every
 * preset; every option has help; a summary comes with its key and the rows
 * compare and the run page read; a preset's own metrics come with their
 * kind. */
static void test_tables_complete(void)
{
	const struct preset *p;

	for (size_t i = 0; (p = preset_at(i)) != NULL; i++) {
		ASSERT_TRUE(p->run != NULL);
		ASSERT_TRUE(strlen(p->view) > 0);
		for (size_t k = 0; k < p->n_options; k++) {
			ASSERT_TRUE(p->options[k].help != NULL);
			ASSERT_TRUE(p->options[k].name != NULL);
		}
		if (p->summary) {
			ASSERT_TRUE(p->summary_key != NULL);
			ASSERT_TRUE(p->rows != NULL && p->rows->n_metrics > 0);
			ASSERT_TRUE(p->rows->row_name != NULL);
		}
		if (p->metrics)
			ASSERT_TRUE(p->compare_kind != NULL &&
				    p->n_metrics > 0);
		/* a preset that takes tests makes none of its own */
		if (p->flags & PRESET_TESTS)
			ASSERT_EQ(p->n_tests, 0);
	}
}

TEST_MAIN(test_name_parser, test_tables_complete, test_cdm_default_plan,
	  test_fields_match_names, test_cdm_default_defaults, test_find_and_at,
	  test_max_block, test_workload)
