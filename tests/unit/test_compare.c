/*
 * test_compare — which test compare_versus picks, and what it answers, on
 * synthetic side values whose right answer is known: the rounds of an
 * interleaved job are paired; two or more runs a side are tested over
 * their runs' figures (the same distribution: within noise; a clear shift:
 * significant, and never inside the noise band); one run a side with no
 * noise estimate in the archive cannot tell, and says what would. What
 * changed between sides of real archived runs (compare_changed): only the
 * fields that differ, a pooled side's distinct values in run order, null
 * where a side does not state it, booleans in words, -ENOENT for no run.
 */
#include "compare/compare_int.h"
#include "test.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive/archive.h"
#include "queue/interleave.h"

static const struct metric mb = { "mb_s", "10^6 B/s", 1, "more",
				  "less", "MB/s",     0 };
static char dir[512];
static struct cval_sets values;
static struct compare_noise nc = { .values = &values };

/* Side values: runs × its iterations, run r's iteration i = base × (1 +
 * spread × f(r, i)) where f is a fixed, zero-mean pattern; with rounds, each
 * iteration is round i of job 7. */
static json_t *side(double base, double spread, int runs, int its, int rounds,
		    int first_id)
{
	static const double f[] = { 0.8, -1.1, 0.3, -0.4, 1.2,	-0.9,
				    0.1, -0.6, 0.7, 0.2,  -0.3, 0.5 };
	json_t *s = json_pack("{s:I, s:{}}", "mb_s",
			      (json_int_t)compare_vals_new(&values), "series");

	for (int r = 0; r < runs; r++) {
		for (int i = 0; i < its; i++) {
			double v = base * (1 + spread * f[(r * its + i) % 12]);
			compare_vals_add(&values, s, "mb_s", v, first_id + r,
					 rounds ? 7 : 0, rounds ? i + 1 : 0);
		}
	}
	return s;
}

static const char *str(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k)) ?: "";
}

static void setup(void)
{
	char db[600];

	test_scratch(dir, sizeof(dir), "storbench-compare");
	snprintf(db, sizeof(db), "%s/a.db", dir);
	ASSERT_EQ(archive_open(db, &nc.a), 0);
	nc.series = json_object();
}

static void test_rounds_are_paired(void)
{
	json_t *a = side(1000, 0.05, 1, 5, 1, 1),
	       *b = side(1000, 0.05, 1, 5, 1, 2);
	json_t *o = compare_versus(&nc, &mb, a, b, "T", "read");

	ASSERT_STR_EQ(str(o, "test"), "paired");
	/* the same pattern on both sides: every round's difference is 0 */
	ASSERT_STR_EQ(str(o, "verdict"), "within noise");
	ASSERT_TRUE(json_integer_value(
			    json_array_get(json_object_get(o, "n"), 0)) == 5);
	ASSERT_TRUE(strstr(str(o, "how"), "5 interleaved rounds") != NULL);
	json_decref(o);
	json_decref(b);
	/* a side 8 % faster in every round (its own ±0.5 %): significant */
	b = side(1080, 0.05, 1, 5, 1, 2);
	json_array_set_new(json_array_get(json_object_get(b, "mb_s"), 2), 0,
			   json_real(1080 * (1 + 0.05 * 0.3) * 1.005));
	o = compare_versus(&nc, &mb, a, b, "T", "read");
	ASSERT_STR_EQ(str(o, "verdict"), "significant");
	ASSERT_TRUE(json_is_true(json_object_get(o, "better")));
	ASSERT_TRUE(fabs(json_real_value(json_object_get(o, "delta_pct"))) >
		    json_real_value(json_object_get(o, "noise_band_pct")));
	json_decref(o);
	json_decref(a);
	json_decref(b);
}

static void test_runs_level(void)
{
	/* three runs a side of one iteration each, ±5 % apart: the same
	 * values in another order are within noise */
	json_t *a = side(1000, 0.05, 3, 1, 0, 1),
	       *b = side(1000, 0.05, 3, 1, 0, 4);
	json_t *o;

	/* b's runs in another order: the same values, a different pairing */
	json_array_append(json_object_get(b, "mb_s"),
			  json_array_get(json_object_get(b, "mb_s"), 0));
	json_array_remove(json_object_get(b, "mb_s"), 0);
	o = compare_versus(&nc, &mb, a, b, "T", "read");
	ASSERT_STR_EQ(str(o, "test"), "runs");
	ASSERT_STR_EQ(str(o, "verdict"), "within noise");
	ASSERT_TRUE(strstr(str(o, "how"), "3 vs 3") != NULL);
	json_decref(o);
	json_decref(b);
	/* 30 % faster: found */
	b = side(1300, 0.05, 3, 1, 0, 4);
	o = compare_versus(&nc, &mb, a, b, "T", "read");
	ASSERT_STR_EQ(str(o, "verdict"), "significant");
	ASSERT_NEAR_REL(json_real_value(json_object_get(o, "delta_pct")), 30,
			1e-6);
	json_decref(o);
	json_decref(a);
	json_decref(b);
}

static void test_one_run_cannot_tell(void)
{
	/* one run a side, five iterations each, far apart — but nothing says
	 * how far two runs of these targets fall apart anyway */
	json_t *a = side(1000, 0.01, 1, 5, 0, 1),
	       *b = side(1200, 0.01, 1, 5, 0, 2);
	json_t *o = compare_versus(&nc, &mb, a, b, "T", "read");

	ASSERT_STR_EQ(str(o, "verdict"), "cannot tell");
	ASSERT_TRUE(json_is_null(json_object_get(o, "test")));
	ASSERT_TRUE(json_is_null(json_object_get(o, "p")));
	ASSERT_TRUE(strstr(str(o, "how"), "one more run of each side") != NULL);
	ASSERT_NEAR_REL(json_real_value(json_object_get(o, "delta_pct")), 20,
			1e-6);
	json_decref(o);
	json_decref(a);
	json_decref(b);
}

static void test_mixed_keys_not_paired(void)
{
	/* only one side has rounds: not paired; one run a side: cannot tell */
	json_t *a = side(1000, 0.05, 1, 5, 1, 1),
	       *b = side(1000, 0.05, 1, 5, 0, 2);
	json_t *o = compare_versus(&nc, &mb, a, b, "T", "read");

	ASSERT_STR_EQ(str(o, "verdict"), "cannot tell");
	json_decref(o);
	json_decref(a);
	json_decref(b);
}

static void teardown(void)
{
	static const char *const files[] = { "a.db", "a.db-wal", "a.db-shm" };
	char path[700];

	archive_close(nc.a);
	json_decref(nc.series);
	compare_vals_free(&values);
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	ASSERT_EQ(rmdir(dir), 0);
}

/* The rounds' order is balanced: over 2 × n rounds of n sides, the ends
 * go first equally often, and each side makes its file in each place
 * equally often; round 1 makes the files in the sides' order (their runs are
 * numbered in it), and every round is a permutation of the sides. */
static void test_round_order_balanced(void)
{
	for (size_t n = 2; n <= 4; n++) {
		int turn[4][4] = { { 0 } }, made[4][4] = { { 0 } };
		for (int r = 1; r <= 2 * (int)n; r++) {
			unsigned seen_t = 0, seen_m = 0;
			for (size_t j = 0; j < n; j++) {
				size_t t = interleave_turn(n, r, 0, j);
				size_t m = interleave_maker(n, r, j);
				ASSERT_TRUE(t < n && m < n);
				seen_t |= 1u << t;
				seen_m |= 1u << m;
				turn[t][j == 0]++;
				made[m][j]++;
				if (r == 1)
					ASSERT_EQ(m, j);
			}
			ASSERT_EQ(seen_t, (1u << n) - 1);
			ASSERT_EQ(seen_m, (1u << n) - 1);
		}
		/* A B C / C B A: the first and the last side go first n
		 * times each in 2 × n rounds, a middle one never */
		for (size_t k = 0; k < n; k++) {
			ASSERT_EQ(turn[k][1],
				  k == 0 || k == n - 1 ? (int)n : 0);
			for (size_t j = 0; j < n; j++)
				ASSERT_EQ(made[k][j], 2);
		}
	}
	/* two sides, two tests: round 1 A B then B A, round 2 the reverse */
	ASSERT_EQ(interleave_turn(2, 1, 0, 0), 0);
	ASSERT_EQ(interleave_turn(2, 1, 1, 0), 1);
	ASSERT_EQ(interleave_turn(2, 2, 0, 0), 1);
	ASSERT_EQ(interleave_maker(2, 2, 0), 1);
}

/* A run in nc.a's archive with probe (JSON text), its back-end and direct
 * I/O; its id, or -1. */
static int64_t archived(const char *probe, const char *engine, int direct)
{
	struct job_spec js = { .profile = "custom",
			       .target = "/t",
			       .size = 8ULL << 20,
			       .iterations = 1,
			       .duration_s = 1,
			       .labels_json = "[]",
			       .notes = "" },
			got = { 0 };
	int64_t job = 0, claimed = 0, run = -1;

	if (archive_job_insert(nc.a, &js, &job) ||
	    archive_job_claim_next(nc.a, &claimed, &got))
		return -1;
	job_spec_clear(&got);
	if (archive_run_create(nc.a, job, &js,
			       "{\"profile\":\"custom\",\"size\":8388608}",
			       probe, engine, direct, "[]", &run))
		return -1;
	return run;
}

static void test_what_changed(void)
{
	int64_t a = archived("{\"kernel\":\"6.1.0-18-amd64\",\"fs_type\":"
			     "\"ext4\",\"scheduler\":\"none\","
			     "\"cpus\":8,\"smb\":null}",
			     "io_uring", 1);
	int64_t b = archived("{\"kernel\":\"6.1.0-21-amd64\",\"fs_type\":"
			     "\"ext4\",\"scheduler\":\"none\",\"cpus\":8,"
			     "\"firmware_rev\":\"4B2QGXA7\"}",
			     "io_uring", 0);
	int64_t c = archived("{\"kernel\":\"6.1.0-26-amd64\",\"fs_type\":"
			     "\"ext4\",\"scheduler\":\"none\",\"cpus\":8,"
			     "\"smb\":{\"signing\":true}}",
			     "io_uring", 0);
	int64_t one[] = { a }, two[] = { b, c }, none[] = { 999999 };
	struct compare_side sides[] = { { "before", one, 1 },
					{ "after", two, 2 } };
	json_t *ch = NULL, *want;

	ASSERT_TRUE(a > 0 && b > 0 && c > 0);
	ASSERT_EQ(compare_changed(nc.a, sides, 2, &ch), 0);
	want = json_loads(
		"[{\"field\": \"probe.kernel\", \"label\": \"kernel\","
		"  \"values\": [\"6.1.0-18-amd64\","
		"             \"6.1.0-21-amd64, 6.1.0-26-amd64\"]},"
		" {\"field\": \"probe.firmware_rev\", \"label\": \"firmware\","
		"  \"values\": [null, \"4B2QGXA7\"]},"
		" {\"field\": \"probe.smb.signing\", \"label\": \"SMB "
		"signing\","
		"  \"values\": [null, \"on\"]},"
		" {\"field\": \"engine.direct\", \"label\": \"direct I/O\","
		"  \"values\": [\"direct\", \"buffered\"]}]",
		0, NULL);
	ASSERT_TRUE(want != NULL);
	if (!json_equal(ch, want)) {
		char *got = json_dumps(ch, JSON_COMPACT);
		fprintf(stderr, "changed: %s\n", got);
		free(got);
	}
	ASSERT_TRUE(json_equal(ch, want));
	json_decref(ch);
	json_decref(want);
	/* a side against itself: nothing changed */
	sides[1] = sides[0];
	ASSERT_EQ(compare_changed(nc.a, sides, 2, &ch), 0);
	ASSERT_EQ(json_array_size(ch), 0);
	json_decref(ch);
	/* the same runs pooled in another order: the same values, no change
	 * (the kernels were "21, 26" against "26, 21" in run order) */
	{
		int64_t cb[] = { c, b };
		struct compare_side swapped[] = { { "bc", two, 2 },
						  { "cb", cb, 2 } };
		ASSERT_EQ(compare_changed(nc.a, swapped, 2, &ch), 0);
		ASSERT_EQ(json_array_size(ch), 0);
		json_decref(ch);
	}
	sides[1] = (struct compare_side){ "gone", none, 1 };
	ASSERT_EQ(compare_changed(nc.a, sides, 2, &ch), -ENOENT);
	ASSERT_TRUE(ch == NULL);
}

TEST_MAIN(setup, test_rounds_are_paired, test_what_changed, test_runs_level,
	  test_one_run_cannot_tell, test_mixed_keys_not_paired,
	  test_round_order_balanced, teardown)
