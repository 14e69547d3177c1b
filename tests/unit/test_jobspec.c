/*
 * test_jobspec.c — validation of POST /api/v1/jobs bodies.
 *
 * The checks that touch the machine run against real directories made under
 * the current directory: "scratch" (reached through a symlink and "." so the
 * realpath is visible), "other", and a regular file. Every refusal must be a
 * 400 whose field names the culprit and whose detail mentions it, and must
 * leave the spec empty.
 */
#include "api.h"
#include "archive/archive.h"
#include "platform/confine.h"
#include "platform/creds.h"
#include "targets/target.h"
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[PATH_MAX];
static char scratch_real[PATH_MAX + 32], other[PATH_MAX + 32];
static char file[PATH_MAX + 32], link_path[PATH_MAX + 32];
static char scratch_arg[PATH_MAX + 64];
static char why[PATH_MAX + 256];

/* Appends to buf (size n), snprintf-style; exits if it would not fit. */
static void add(char *buf, size_t n, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(buf + len, n - len, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= n - len) {
		fprintf(stderr, "test_jobspec: body too long\n");
		exit(1);
	}
}

/* Appends n copies of c. */
static void add_rep(char *buf, size_t size, char c, size_t n)
{
	size_t len = strlen(buf);

	if (len + n >= size)
		exit(1);
	memset(buf + len, c, n);
	buf[len + n] = '\0';
}

static int spec_empty(const struct job_spec *s)
{
	return !s->profile && !s->target && !s->labels_json && !s->notes &&
	       !s->plan_json && !s->engine && s->size == 0 &&
	       s->iterations == 0;
}

/* Parses body and expects a 400 naming field, a detail that mentions the
 * field and needle, and an empty spec. */
static void expect_bad(const char *body, const char *field, const char *needle)
{
	struct job_spec s;
	struct api_problem p;
	int rc;

	memset(&p, 0, sizeof(p));
	rc = jobspec_parse(body, body ? strlen(body) : 0, scratch_arg, &s, &p);
	if (rc != -EINVAL || p.status != 400 || strcmp(p.field, field) ||
	    !strstr(p.detail, field) || !strstr(p.detail, needle))
		fprintf(stderr,
			"  body %.120s -> rc %d status %u field \"%s\" "
			"detail \"%s\"\n",
			body ? body : "(none)", rc, p.status, p.field,
			p.detail);
	ASSERT_EQ(rc, -EINVAL);
	ASSERT_EQ(p.status, 400);
	ASSERT_STR_EQ(p.field, field);
	ASSERT_TRUE(strstr(p.detail, field) != NULL);
	ASSERT_TRUE(strstr(p.detail, needle) != NULL);
	ASSERT_TRUE(spec_empty(&s));
}

static void test_defaults(void)
{
	const char *bodies[] = { "{}", " { } " };
	struct job_spec s;
	struct api_problem p = { 0 };

	/* no body at all is refused: an empty POST must not start a 1 GiB job
	 */
	expect_bad(NULL, "", "empty");
	expect_bad("", "", "empty");
	for (int i = 0; i < 2; i++) {
		size_t len = bodies[i] ? strlen(bodies[i]) : 0;
		ASSERT_EQ(jobspec_parse(bodies[i], len, scratch_arg, &s, &p),
			  0);
		ASSERT_STR_EQ(s.profile, "cdm-default");
		ASSERT_STR_EQ(s.target, scratch_real); /* realpath'd */
		ASSERT_U64_EQ(s.size, 1ULL << 30);
		ASSERT_EQ(s.iterations, 5);
		ASSERT_TRUE(s.duration_s == 5.0);
		ASSERT_TRUE(s.interval_s == 0.0);
		ASSERT_STR_EQ(s.labels_json, "[]");
		ASSERT_STR_EQ(s.notes, "");
		ASSERT_EQ(s.direct, 1);
		ASSERT_STR_EQ(s.engine, tgt_local_default(NULL, 0)->name);
		/* the profile's tests, written out in full */
		ASSERT_TRUE(strstr(s.plan_json,
				   "{\"name\":\"SEQ1M Q8T1\",\"pattern\":"
				   "\"sequential\",\"read_pct\":100,"
				   "\"block_size\":1048576,\"queue_depth\":8,"
				   "\"threads\":1,\"duration_s\":5.0,"
				   "\"io_size\":0,\"ramp_s\":0.0,\"sync\":"
				   "\"none\",\"data\":\"random\"}") ==
			    s.plan_json + 1);
		job_spec_clear(&s);
		ASSERT_TRUE(spec_empty(&s));
	}
}

static void test_full_body(void)
{
	char body[8192] = "";
	struct job_spec s;
	struct api_problem p = { 0 };

	add(body, sizeof(body),
	    "{\"target\": \"%s/.\", \"profile\": \"cdm-default\","
	    " \"size\": \"64MiB\", \"iterations\": 3, \"duration_s\": 1.5,"
	    " \"interval_s\": 2, \"labels\": [\"nvme\", \"r\\u00e9seau\"],"
	    " \"notes\": \"first try\"}",
	    other);
	ASSERT_EQ(jobspec_parse(body, strlen(body), scratch_arg, &s, &p), 0);
	ASSERT_STR_EQ(s.profile, "cdm-default");
	ASSERT_STR_EQ(s.target, other);
	ASSERT_U64_EQ(s.size, 64ULL << 20);
	ASSERT_EQ(s.iterations, 3);
	ASSERT_TRUE(s.duration_s == 1.5);
	ASSERT_TRUE(s.interval_s == 2.0);
	ASSERT_STR_EQ(s.labels_json, "[\"nvme\",\"r\xc3\xa9seau\"]");
	ASSERT_STR_EQ(s.notes, "first try");
	job_spec_clear(&s);

	/* bounds that are allowed; size as a plain number of bytes */
	body[0] = '\0';
	add(body, sizeof(body),
	    "{\"target\": \"%s\", \"size\": 8388608, \"iterations\": 100,"
	    " \"duration_s\": 3600, \"interval_s\": 0}",
	    link_path);
	ASSERT_EQ(jobspec_parse(body, strlen(body), "/nonexistent", &s, &p), 0);
	ASSERT_STR_EQ(s.target, scratch_real);
	ASSERT_U64_EQ(s.size, 8ULL << 20);
	ASSERT_EQ(s.iterations, 100);
	ASSERT_TRUE(s.duration_s == 3600.0);
	job_spec_clear(&s);
}

/* 64 characters of two bytes each pass; 32 labels pass; 4096 bytes pass. */
static void test_limits_allowed(void)
{
	char body[8192] = "";
	struct job_spec s;
	struct api_problem p = { 0 };

	add(body, sizeof(body), "{\"labels\": [\"");
	for (int i = 0; i < 64; i++)
		add(body, sizeof(body), "\xc3\xa9");
	add(body, sizeof(body), "\"");
	for (int i = 1; i < 32; i++)
		add(body, sizeof(body), ", \"l%d\"", i);
	add(body, sizeof(body), "], \"notes\": \"");
	add_rep(body, sizeof(body), 'n', 4096);
	add(body, sizeof(body), "\"}");
	ASSERT_EQ(jobspec_parse(body, strlen(body), scratch_arg, &s, &p), 0);
	ASSERT_EQ(strlen(s.notes), 4096);
	ASSERT_TRUE(strstr(s.labels_json, "\"l31\"]") != NULL);
	job_spec_clear(&s);

	/* notes count characters, not bytes: 2000 x "€" is 6000 bytes */
	body[0] = '\0';
	add(body, sizeof(body), "{\"notes\": \"");
	for (int i = 0; i < 2000; i++)
		add(body, sizeof(body), "\xe2\x82\xac");
	add(body, sizeof(body), "\"}");
	ASSERT_EQ(jobspec_parse(body, strlen(body), scratch_arg, &s, &p), 0);
	ASSERT_EQ(strlen(s.notes), 6000);
	job_spec_clear(&s);
}

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

/* Every back-end a job may name in this build is among the names the
 * document lists for all systems. */
static void test_engine_names(void)
{
	for (size_t i = 0; tgt_backends[i]; i++) {
		size_t k = 0;
		if (!(tgt_backends[i]->caps & TGT_CAP_BY_NAME))
			continue;
		while (tgt_engine_names[k] &&
		       strcmp(tgt_engine_names[k], tgt_backends[i]->name))
			k++;
		ASSERT_TRUE(tgt_engine_names[k] != NULL);
	}
}

static void test_refusals(void)
{
	char body[8192];

	expect_bad("{\"size\": ", "", "malformed JSON");
	expect_bad("{\"colour\": \"red\"}", "colour", "colour");
	expect_bad("{\"profile\": \"atto\"}", "profile", "profile");
	expect_bad("{\"profile\": 7}", "profile", "profile");
	snprintf(body, sizeof(body), "{\"target\": \"%s/nope\"}", dir);
	expect_bad(body, "target", "does not exist");
	snprintf(body, sizeof(body), "{\"target\": \"%s\"}", file);
	expect_bad(body, "target", "not a directory");
	expect_bad("{\"target\": \"scratch\"}", "target", "absolute");
	expect_bad("{\"target\": 1}", "target", "target");
	expect_bad("{\"size\": \"abc\"}", "size", "size");
	expect_bad("{\"size\": 0}", "size", "size");
	expect_bad("{\"size\": -1048576}", "size", "size");
	expect_bad("{\"size\": \"0\"}", "size", "size");
	expect_bad("{\"size\": \"1GB\"}", "size", "multiple of 1 MiB");
	expect_bad("{\"size\": \"4MiB\"}", "size", "size");
	expect_bad("{\"size\": \"65TiB\"}", "size", "size");
	expect_bad("{\"size\": \"60TiB\"}", "size", "free");
	expect_bad("{\"size\": 1.5}", "size", "size");
	expect_bad("{\"iterations\": -1}", "iterations", "iterations");
	expect_bad("{\"iterations\": 0}", "iterations", "iterations");
	expect_bad("{\"iterations\": 1.5}", "iterations", "iterations");
	expect_bad("{\"iterations\": 101}", "iterations", "iterations");
	expect_bad("{\"iterations\": \"5\"}", "iterations", "iterations");
	expect_bad("{\"duration_s\": 0}", "duration_s", "duration_s");
	expect_bad("{\"duration_s\": 0.4}", "duration_s", "0.5");
	expect_bad("{\"duration_s\": 1e-300}", "duration_s", "duration_s");
	expect_bad("{\"labels\": [\"a\", \"a\"]}", "labels", "duplicate");
	expect_bad("{\"labels\": [\"a\\tb\"]}", "labels", "control");
	expect_bad("{\"labels\": [\" a\"]}", "labels", "space");
	expect_bad("{\"labels\": [\"x\\u009b31m\"]}", "labels", "control");
	expect_bad("{\"target\": \"/proc\"}", "target", "without storage");
	expect_bad("{\"duration_s\": \"5\"}", "duration_s", "duration_s");
	expect_bad("{\"duration_s\": 3600.5}", "duration_s", "duration_s");
	expect_bad("{\"interval_s\": -1}", "interval_s", "interval_s");
	expect_bad("{\"labels\": \"fast\"}", "labels", "labels");
	expect_bad("{\"labels\": [\"ok\", 3]}", "labels", "labels");
	expect_bad("{\"labels\": [\"\"]}", "labels", "labels");
	expect_bad("{\"notes\": 5}", "notes", "notes");
	expect_bad("[]", "", "object");
	expect_bad("\"a string\"", "", "malformed JSON");
	/* a JSON-level error: no field, but the detail names the key */
	expect_bad("{\"size\": \"64MiB\", \"size\": \"128MiB\"}", "",
		   "duplicate");
	expect_bad("{\"size\": \"64MiB\", \"size\": \"128MiB\"}", "", "size");

	body[0] = '\0';
	add(body, sizeof(body), "{\"labels\": [\"l0\"");
	for (int i = 1; i < 33; i++)
		add(body, sizeof(body), ", \"l%d\"", i);
	add(body, sizeof(body), "]}");
	expect_bad(body, "labels", "32");

	body[0] = '\0';
	add(body, sizeof(body), "{\"labels\": [\"");
	add_rep(body, sizeof(body), 'x', 65);
	add(body, sizeof(body), "\"]}");
	expect_bad(body, "labels", "64");

	body[0] = '\0';
	add(body, sizeof(body), "{\"notes\": \"");
	add_rep(body, sizeof(body), 'n', 4097);
	add(body, sizeof(body), "\"}");
	expect_bad(body, "notes", "4096");
}

static void setup(void)
{
	char real[PATH_MAX - 64];
	int fd;

	test_scratch(dir, sizeof(dir), "jobspec_test");
	/* canonical from here on (the cwd itself may sit behind a symlink) */
	if (!realpath(dir, real) ||
	    snprintf(dir, sizeof(dir), "%s", real) >= (int)sizeof(dir)) {
		perror("test_jobspec: realpath");
		exit(1);
	}
	snprintf(scratch_real, sizeof(scratch_real), "%s/scratch", dir);
	snprintf(other, sizeof(other), "%s/other", dir);
	snprintf(file, sizeof(file), "%s/file.txt", dir);
	snprintf(link_path, sizeof(link_path), "%s/link", dir);
	snprintf(scratch_arg, sizeof(scratch_arg), "%s/./", link_path);
	fd = open(file, O_CREAT | O_WRONLY, 0600);
	if (mkdir(scratch_real, 0700) || mkdir(other, 0700) || fd < 0 ||
	    symlink("scratch", link_path)) {
		perror("test_jobspec: setup");
		exit(1);
	}
	close(fd);
	/* the daemon's --allow: the test's folder, and /proc (to reach the
	 * "filesystem without storage" refusal behind the root check) */
	if (confine_allow(dir, why, sizeof(why)) < 0 ||
	    confine_allow("/proc", why, sizeof(why)) < 0) {
		fprintf(stderr, "test_jobspec: %s\n", why);
		exit(1);
	}
}

static void test_setup(void)
{
	struct stat st;

	setup();
	ASSERT_EQ(lstat(link_path, &st), 0);
	ASSERT_TRUE(S_ISLNK(st.st_mode));
	ASSERT_TRUE(strcmp(scratch_arg, scratch_real) != 0);
}

static void test_cleanup(void)
{
	ASSERT_EQ(unlink(link_path), 0);
	ASSERT_EQ(unlink(file), 0);
	ASSERT_EQ(rmdir(scratch_real), 0);
	ASSERT_EQ(rmdir(other), 0);
	ASSERT_EQ(rmdir(dir), 0);
}

/* SMB fields: refused on a local target, required on a share, checked
 * before any connection is tried. */
static void test_smb_fields(void)
{
	expect_bad("{\"credential\": \"f\"}", "credential",
		   "only for an smb://");
	expect_bad("{\"smb\": {}}", "smb", "only for an smb://");
	expect_bad("{\"target\": \"smb://127.0.0.1:1/s\"}", "credential",
		   "required for an smb:// target");
	expect_bad("{\"target\": \"smb://127.0.0.1:1/s\", \"credential\": 7}",
		   "credential", "name of a stored credential");
	expect_bad("{\"target\": \"smb://127.0.0.1:1/s\", \"credential\": \"a "
		   "b\"}",
		   "credential", "name of a stored credential");
	/* no store in this test: no credential of that name */
	expect_bad(
		"{\"target\": \"smb://127.0.0.1:1/s\", \"credential\": \"f\"}",
		"credential", "no credential named");
}

/* A baseline is only for a share; null is none, on any target (as
 * steady_state's null). */
static void test_baseline_null(void)
{
	const char *body = "{\"baseline\": null, \"size\": \"8MiB\"}";
	struct job_spec s;
	struct api_problem p = { 0 };

	expect_bad("{\"baseline\": {}}", "baseline", "only for an smb://");
	ASSERT_EQ(jobspec_parse(body, strlen(body), scratch_arg, &s, &p), 0);
	ASSERT_TRUE(s.smb_json == NULL);
	job_spec_clear(&s);
}

/*
 * Every unknown field is a 400 whose field names it where it is, at any
 * depth: the body, a test, a preset's options, the thresholds, the smb
 * object (checked once the credential is found: a store with one here).
 */
static void test_unknown_fields(void)
{
	char path[PATH_MAX + 64];
	int created;

	snprintf(path, sizeof(path), "%s/credentials.db", dir);
	ASSERT_EQ(creds_init(path), 0);
	ASSERT_EQ(creds_put("stored", "u", "p", "", 0, &created), 0);
	expect_bad("{\"colour\": \"red\"}", "colour", "unknown field");
	expect_bad("{\"Target\": \"/\"}", "Target", "unknown field");
	expect_bad("{\"profile\": \"custom\", \"tests\": [{\"qd\": 1}]}",
		   "tests[0].qd", "unknown field");
	expect_bad("{\"profile\": \"seq-sweep\", \"options\": {\"sizes\": []}}",
		   "options.sizes", "unknown field");
	expect_bad(
		"{\"profile\": \"mailbox-db\", \"options\": {\"paths\": []}}",
		"options.paths", "unknown field");
	expect_bad("{\"profile\": \"file-create\", \"options\": {\"size\": 1}}",
		   "options.size", "unknown field");
	expect_bad("{\"profile\": \"mailbox-db\", \"options\": {\"thresholds\":"
		   " {\"db_read_mean\": 1}}}",
		   "options.thresholds.db_read_mean", "unknown field");
	expect_bad("{\"target\": \"smb://127.0.0.1:1/s\", \"credential\": "
		   "\"stored\", \"smb\": {\"signing\": true}}",
		   "smb.signing", "unknown field");
	ASSERT_EQ(unlink(path), 0);
}

/* Parses body, expects a refusal with status, field and needle. */
static void expect_refused(const char *body, unsigned status, const char *field,
			   const char *needle)
{
	struct job_spec s;
	struct api_problem p = { 0 };
	int rc = jobspec_parse(body, strlen(body), scratch_arg, &s, &p);

	if (rc != -EINVAL || p.status != status || strcmp(p.field, field) ||
	    !strstr(p.detail, needle))
		fprintf(stderr, "  body %.200s -> rc %d %u %s: %s\n", body, rc,
			p.status, p.field, p.detail);
	ASSERT_EQ(rc, -EINVAL);
	ASSERT_EQ(p.status, status);
	ASSERT_STR_EQ(p.field, field);
	ASSERT_TRUE(strstr(p.detail, needle) != NULL);
	ASSERT_TRUE(spec_empty(&s));
}

/* Targets and paths outside the allowed roots (confine.h), and the reserve:
 * each refused with its own sentence. */
static void test_confinement(void)
{
	char body[PATH_MAX * 3], esc[PATH_MAX + 64];

	expect_refused("{\"target\": \"/etc\"}", 403, "target",
		       "outside the allowed roots");
	snprintf(body, sizeof(body), "{\"target\": \"%s/../..\"}", other);
	expect_refused(body, 403, "target", "\"..\"");
	snprintf(esc, sizeof(esc), "%s/escape", other);
	ASSERT_EQ(symlink("/etc", esc), 0);
	snprintf(body, sizeof(body), "{\"target\": \"%s\"}", esc);
	expect_refused(body, 403, "target", "a symlink leads out");
	ASSERT_EQ(unlink(esc), 0);
	expect_refused("{\"target\": \"/dev/null\"}", 403, "target",
		       "outside the allowed roots");
	snprintf(body, sizeof(body),
		 "{\"profile\": \"mailbox-db\", \"target\": \"%s\", "
		 "\"options\": {\"database_paths\": [\"%s\", \"/etc\"]}}",
		 other, other);
	expect_refused(body, 403, "options.database_paths[1]",
		       "outside the allowed roots");
	/* a reserve of 90 %: no filesystem here has that much free */
	ASSERT_EQ(confine_set_reserve("90%", why, sizeof(why)), 0);
	snprintf(body, sizeof(body), "{\"target\": \"%s\", \"size\": \"8MiB\"}",
		 other);
	expect_refused(body, 400, "size", "reserve (90 %)");
	ASSERT_EQ(confine_set_reserve("10%", why, sizeof(why)), 0);
}

TEST_MAIN(test_smb_fields, test_setup, test_defaults, test_full_body,
	  test_limits_allowed, test_custom, test_sweeps, test_custom_refusals,
	  test_refusals, test_engine_names, test_confinement,
	  test_unknown_fields, test_baseline_null, test_cleanup)
