/*
 * test_jobspec_plan.c — the preset's part of a job request (jobspec_plan.c):
 * the custom profile's tests, every workload field, its defaults and the
 * names it makes; sweeps (a list in a numeric field) and their points;
 * the presets' options; and their refusals, each a 400 naming the field.
 * The fixture (directories, expect_bad) is test_jobspec.h's.
 */
#include "test_jobspec.h"

/* Parses body (must pass) and returns test i of its plan (a new ref). */
static json_t *plan_test(const char *body, size_t i, struct job_spec *s)
{
	struct api_problem p = { 0 };
	json_t *plan, *t;

	if (jobspec_parse(body, strlen(body), scratch_arg, s, &p) != 0) {
		fprintf(stderr, "  %s -> %s\n", body, p.detail);
		return NULL;
	}
	plan = json_loads(s->plan_json, 0, NULL);
	t = json_incref(json_array_get(plan, i));
	json_decref(plan);
	return t;
}

static void expect_test(const char *body, size_t i, const char *want)
{
	struct job_spec s;
	json_t *t = plan_test(body, i, &s), *w = json_loads(want, 0, NULL);

	ASSERT_TRUE(t != NULL && w != NULL);
	if (!json_equal(t, w)) {
		char *got = json_dumps(t, JSON_COMPACT);
		fprintf(stderr, "  want %s\n  got  %s\n", want, got);
		free(got);
	}
	ASSERT_TRUE(json_equal(t, w));
	json_decref(t);
	json_decref(w);
	job_spec_clear(&s);
}

/* The custom profile: every workload field, its defaults, generated names,
 * job-wide data/ramp applied to presets too, engine and direct. */
static void test_custom(void)
{
	struct job_spec s;
	json_t *t;

	expect_test("{\"profile\": \"custom\", \"tests\": [{}]}", 0,
		    "{\"name\":\"RND4K Q1T1\",\"pattern\":\"random\","
		    "\"read_pct\":100,\"block_size\":4096,\"queue_depth\":1,"
		    "\"threads\":1,\"duration_s\":5.0,\"io_size\":0,"
		    "\"ramp_s\":0.0,\"sync\":\"none\",\"data\":\"random\"}");
	expect_test(
		"{\"profile\": \"custom\", \"duration_s\": 2,"
		" \"data\": \"zeros\", \"ramp_s\": 1, \"tests\": ["
		" {\"pattern\": \"random\", \"read_pct\": 70,"
		"  \"block_size\": \"8KiB\", \"queue_depth\": 16,"
		"  \"threads\": 2, \"sync\": \"fdatasync\","
		"  \"sync_every\": 64},"
		" {\"name\": \"fill\", \"pattern\": \"sequential\","
		"  \"read_pct\": 0, \"block_size\": 1536,"
		"  \"io_size\": \"3MiB\", \"ramp_s\": 0, \"data\": \"repeat\","
		"  \"sync\": \"dsync\", \"duration_s\": 0.5}]}",
		0,
		"{\"name\":\"RND8K Q16T2 R70\",\"pattern\":\"random\","
		"\"read_pct\":70,\"block_size\":8192,\"queue_depth\":16,"
		"\"threads\":2,\"duration_s\":2.0,\"io_size\":0,"
		"\"ramp_s\":1.0,\"sync\":\"fdatasync\",\"sync_every\":64,"
		"\"data\":\"zeros\"}");
	expect_test("{\"profile\": \"custom\", \"tests\": ["
		    " {\"name\": \"fill\", \"pattern\": \"sequential\","
		    "  \"read_pct\": 0, \"block_size\": 1536,"
		    "  \"io_size\": \"3MiB\", \"data\": \"repeat\","
		    "  \"sync\": \"dsync\", \"duration_s\": 0.5}]}",
		    0,
		    "{\"name\":\"fill\",\"pattern\":\"sequential\","
		    "\"read_pct\":0,\"block_size\":1536,\"queue_depth\":1,"
		    "\"threads\":1,\"duration_s\":0.5,\"io_size\":3145728,"
		    "\"ramp_s\":0.0,\"sync\":\"dsync\",\"data\":\"repeat\"}");
	/* a preset takes the job-wide data pattern and ramp */
	expect_test("{\"data\": \"zeros\", \"ramp_s\": 2}", 7,
		    "{\"name\":\"RND4K Q1T1\",\"pattern\":\"random\","
		    "\"read_pct\":0,\"block_size\":4096,\"queue_depth\":1,"
		    "\"threads\":1,\"duration_s\":5.0,\"io_size\":0,"
		    "\"ramp_s\":2.0,\"sync\":\"none\",\"data\":\"zeros\"}");
	t = plan_test("{\"engine\": \"psync\", \"direct\": false}", 0, &s);
	ASSERT_TRUE(t != NULL);
	ASSERT_STR_EQ(s.engine, "psync");
	ASSERT_EQ(s.direct, 0);
	ASSERT_STR_EQ(s.profile, "cdm-default");
	json_decref(t);
	job_spec_clear(&s);
	t = plan_test("{\"profile\": \"custom\", \"engine\": \"null\","
		      " \"tests\": [{\"read_pct\": 0}]}",
		      0, &s);
	ASSERT_TRUE(t != NULL);
	ASSERT_STR_EQ(s.engine, "null");
	ASSERT_STR_EQ(s.profile, "custom");
	json_decref(t);
	job_spec_clear(&s);
}

/* A list in a numeric field is a sweep: one test per value, grouped. */
static void test_sweeps(void)
{
	expect_test(
		"{\"profile\": \"custom\", \"tests\": [{\"name\": \"db\","
		" \"threads\": [4, 8, 12]}]}",
		1,
		"{\"name\":\"db T8\",\"pattern\":\"random\",\"read_pct\":100,"
		"\"block_size\":4096,\"queue_depth\":1,\"threads\":8,"
		"\"duration_s\":5.0,\"io_size\":0,\"ramp_s\":0.0,"
		"\"sync\":\"none\",\"data\":\"random\",\"sweep\":{\"group\":"
		"\"db\",\"field\":\"threads\",\"value\":8.0}}");
	/* unnamed: CrystalDiskMark names, plus the value where they hide it */
	expect_test(
		"{\"profile\": \"custom\", \"tests\": [{\"queue_depth\": 32},"
		" {\"block_size\": [\"4KiB\", \"1MiB\"]}]}",
		2,
		"{\"name\":\"RND1M "
		"Q1T1\",\"pattern\":\"random\",\"read_pct\":100,"
		"\"block_size\":1048576,\"queue_depth\":1,\"threads\":1,"
		"\"duration_s\":5.0,\"io_size\":0,\"ramp_s\":0.0,"
		"\"sync\":\"none\",\"data\":\"random\",\"sweep\":{\"group\":"
		"\"block_size sweep "
		"2\",\"field\":\"block_size\",\"value\":1048576.0}}");
	expect_test(
		"{\"profile\": \"custom\", \"tests\": [{\"duration_s\": [1, "
		"2]}]}",
		1,
		"{\"name\":\"RND4K Q1T1 duration_s=2\",\"pattern\":\"random\","
		"\"read_pct\":100,\"block_size\":4096,\"queue_depth\":1,"
		"\"threads\":1,\"duration_s\":2.0,\"io_size\":0,\"ramp_s\":0.0,"
		"\"sync\":\"none\",\"data\":\"random\",\"sweep\":{\"group\":"
		"\"duration_s sweep "
		"1\",\"field\":\"duration_s\",\"value\":2.0}}");
	expect_test(
		"{\"profile\": \"seq-sweep\", \"options\": {\"block_sizes\":"
		" [\"64KiB\", \"1MiB\"], \"queue_depth\": 4}}",
		3,
		"{\"name\":\"SEQ Q4T1 1M\",\"pattern\":\"sequential\","
		"\"read_pct\":0,\"block_size\":1048576,\"queue_depth\":4,"
		"\"threads\":1,\"duration_s\":5.0,\"io_size\":0,\"ramp_s\":0.0,"
		"\"sync\":\"none\",\"data\":\"random\",\"sweep\":{\"group\":"
		"\"SEQ Q4T1\",\"field\":\"block_size\",\"value\":1048576.0}}");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"threads\": [1, 2],"
		   " \"queue_depth\": [1, 2]}]}",
		   "tests[0].queue_depth", "only one field");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"pattern\": "
		   "[\"random\"]}]}",
		   "tests[0].pattern", "cannot be a list");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"threads\": [1, "
		   "300]}]}",
		   "tests[0].threads[1]", "1 to 256");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"threads\": []}]}",
		   "tests[0].threads", "1 to 64 values");
	expect_bad(
		"{\"profile\": \"custom\", \"tests\": [{\"threads\": [1, 1]}]}",
		"tests[0].threads[1]", "repeats");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"block_size\":"
		   " [\"4KiB\", 4096]}]}",
		   "tests[0].block_size[1]", "repeats");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"threads\": 1,"
		   " \"sweep\": {\"group\": \"g\", \"field\": \"threads\","
		   " \"value\": 8}}]}",
		   "tests[0].sweep", "list");
	expect_bad("{\"profile\": \"custom\", \"engine\": \"psync\", \"tests\":"
		   " [{}, {\"queue_depth\": 64, \"threads\": [1, 128]}]}",
		   "tests[1].threads", "4096");
	expect_bad("{\"profile\": \"seq-sweep\", \"options\": {\"block_sizes\":"
		   " [\"4KiB\", \"4KiB\"]}}",
		   "options.block_sizes[1]", "once");
	expect_bad("{\"profile\": \"mailbox-db\", \"options\": "
		   "{\"db_read_pct\": 100,"
		   " \"thresholds\": {\"db_write_mean_ms\": 1}}}",
		   "options.thresholds", "never makes");
	expect_bad("{\"profile\": \"seq-sweep\", \"options\": "
		   "{\"block_sizes\": [1000]}}",
		   "options.block_sizes[0]", "multiple of 512");
	expect_bad("{\"profile\": \"seq-sweep\", \"options\": {\"qd\": 1}}",
		   "options.qd", "unknown field \"qd\"");
	expect_bad("{\"profile\": \"cdm-peak\", \"options\": {}}", "options",
		   "takes none");
	expect_bad("{\"profile\": \"mailbox-db\", \"options\": {\"threads\": "
		   "[0]}}",
		   "options.threads[0]", "from 1");
	expect_bad(
		"{\"profile\": \"mailbox-db\", \"options\": {\"databases\": 2,"
		" \"threads\": [1]}}",
		"options.threads[0]", "one thread per");
	expect_bad("{\"profile\": \"mailbox-db\", \"options\": {\"thresholds\":"
		   " {\"db_read_mean_ms\": 0}}}",
		   "options.thresholds.db_read_mean_ms", "> 0");
	expect_bad("{\"profile\": \"mailbox-db\", \"options\": {\"thresholds\":"
		   " {\"latency\": 1}}}",
		   "options.thresholds.latency", "unknown field \"latency\"");
	expect_bad("{\"profile\": \"mailbox-db\", \"options\": "
		   "{\"database_paths\":"
		   " [\"/nonexistent-storbench\"]}}",
		   "options.database_paths[0]", "does not exist");
	expect_bad("{\"profile\": \"mailbox-db\", \"options\": {\"threads\": "
		   "[4, 4]}}",
		   "options.threads[1]", "once");
	expect_bad(
		"{\"profile\": \"mailbox-db\", \"options\": {\"database_size\":"
		" \"60TiB\"}}",
		"options.database_size", "free");
	expect_bad("{\"profile\": \"mailbox-db\", \"options\": {\"log_size\":"
		   " \"60TiB\"}}",
		   "options.log_size", "free");
	expect_bad("{\"profile\": \"file-create\", \"options\": {\"sizes\":"
		   " [\"64MiB\", 67108864]}}",
		   "options.sizes[1]", "once");
	expect_bad("{\"profile\": \"file-create\", \"options\": {\"sizes\": "
		   "[\"1GB\"]}}",
		   "options.sizes[0]", "whole MiB");
	expect_bad("{\"profile\": \"file-create\", \"options\": {\"sizes\": "
		   "[\"60TiB\"]}}",
		   "options.sizes[0]", "twice its size");
	expect_bad("{\"profile\": \"file-create\", \"size\": \"60TiB\"}",
		   "size", "does not fit");
}

static void test_custom_refusals(void)
{
	char body[8192] = "";

	expect_bad("{\"profile\": \"custom\"}", "tests", "tests array");
	expect_bad("{\"tests\": [{}]}", "tests", "custom");
	expect_bad("{\"profile\": \"custom\", \"tests\": []}", "tests",
		   "1 to 64");
	expect_bad("{\"profile\": \"custom\", \"tests\": {}}", "tests",
		   "array");
	expect_bad("{\"profile\": \"custom\", \"tests\": [3]}", "tests[0]",
		   "object");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{}, {\"qd\": 3}]}",
		   "tests[1].qd", "unknown field \"qd\"");
	expect_bad(
		"{\"profile\": \"custom\", \"tests\": [{\"io_size\": 5000}]}",
		"tests[0].io_size", "whole number of blocks");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"io_size\": 12288,"
		   " \"threads\": 2}]}",
		   "tests[0].io_size", "8192 bytes");
	expect_bad(
		"{\"profile\": \"custom\", \"tests\": [{\"sync\": \"dsync\"}]}",
		"tests[0].sync", "only reads");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"name\": "
		   "\"a\\u0085b\"}]}",
		   "tests[0].name", "control");
	expect_bad(
		"{\"profile\": \"custom\", \"tests\": [{\"name\": \" lead\"}]}",
		"tests[0].name", "space");
	expect_bad("{\"profile\": \"custom\", \"engine\": \"psync\", \"tests\":"
		   " [{\"queue_depth\": 1024, \"threads\": 8}]}",
		   "tests[0].queue_depth", "4096");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"pattern\": "
		   "\"seq\"}]}",
		   "tests[0].pattern", "\"sequential\", \"random\"");
	expect_bad(
		"{\"profile\": \"custom\", \"tests\": [{\"read_pct\": 101}]}",
		"tests[0].read_pct", "0 to 100");
	expect_bad(
		"{\"profile\": \"custom\", \"tests\": [{\"read_pct\": 50.5}]}",
		"tests[0].read_pct", "integer");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"block_size\": "
		   "1000}]}",
		   "tests[0].block_size", "multiple of 512");
	expect_bad(
		"{\"profile\": \"custom\", \"tests\": [{\"block_size\": 0}]}",
		"tests[0].block_size", "multiple of 512");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"block_size\": "
		   "\"128MiB\"}]}",
		   "tests[0].block_size", "64 MiB");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"block_size\": "
		   "\"big\"}]}",
		   "tests[0].block_size", "bytes");
	expect_bad("{\"profile\": \"custom\", \"size\": \"8MiB\", \"tests\":"
		   " [{\"block_size\": \"4MiB\", \"threads\": 4}]}",
		   "tests[0].block_size", "do not fit");
	expect_bad(
		"{\"profile\": \"custom\", \"tests\": [{\"queue_depth\": 0}]}",
		"tests[0].queue_depth", "1 to 1024");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"queue_depth\": "
		   "1025}]}",
		   "tests[0].queue_depth", "1 to 1024");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"threads\": 257}]}",
		   "tests[0].threads", "1 to 256");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"block_size\": "
		   "\"1MiB\","
		   " \"queue_depth\": 1024, \"threads\": 2}]}",
		   "tests[0].queue_depth", "1 GiB");
	expect_bad(
		"{\"profile\": \"custom\", \"tests\": [{\"duration_s\": 0.1}]}",
		"tests[0].duration_s", "0.5");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"ramp_s\": -1}]}",
		   "tests[0].ramp_s", "0 to 3600");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"io_size\": "
		   "\"1KiB\"}]}",
		   "tests[0].io_size", "one block per thread");
	expect_bad(
		"{\"profile\": \"custom\", \"tests\": [{\"io_size\": \"1GiB\","
		" \"ramp_s\": 1}]}",
		"tests[0].ramp_s", "time-based");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"sync\": "
		   "\"always\"}]}",
		   "tests[0].sync", "\"fdatasync\"");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"read_pct\": 0,"
		   " \"sync_every\": 8}]}",
		   "tests[0].sync_every", "only with sync");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"sync\": "
		   "\"fdatasync\","
		   " \"read_pct\": 50, \"sync_every\": 0}]}",
		   "tests[0].sync_every", "1 to 1000000");
	expect_bad(
		"{\"profile\": \"custom\", \"tests\": [{\"data\": \"ones\"}]}",
		"tests[0].data", "\"repeat\"");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"name\": \"\"}]}",
		   "tests[0].name", "1 to 31");
	expect_bad(
		"{\"profile\": \"custom\", \"tests\": [{\"name\": \"a\\nb\"}]}",
		"tests[0].name", "control");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{}, "
		   "{\"queue_depth\": 1}]}",
		   "tests[1].name", "already in the plan");
	expect_bad("{\"data\": \"ones\"}", "data", "zeros");
	expect_bad("{\"ramp_s\": 4000}", "ramp_s", "3600");
	expect_bad("{\"engine\": \"libaio\"}", "engine", "psync");
	/* the other system's back-end: named in the choices, refused here */
	expect_bad("{\"engine\": \"iocp\"}", "engine",
		   "iocp is a back-end of storbench on another system "
		   "(io_uring: Linux, iocp: Windows); this one has io_uring, "
		   "psync, null");
	expect_bad("{\"direct\": 1}", "direct", "buffered");
	add(body, sizeof(body), "{\"profile\": \"custom\", \"tests\": [");
	for (int i = 0; i < 65; i++)
		add(body, sizeof(body), "%s{\"queue_depth\": %d}", i ? "," : "",
		    i + 1);
	add(body, sizeof(body), "]}");
	expect_bad(body, "tests", "1 to 64");
}

TEST_MAIN(test_setup, test_custom, test_sweeps, test_custom_refusals,
	  test_cleanup)
