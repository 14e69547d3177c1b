/*
 * test_jobspec.c — validation of POST /api/v1/jobs bodies: the job's own
 * fields (jobspec.c), its defaults and limits, targets and the allowed
 * roots, the SMB knobs, the baseline, unknown fields at any depth. The
 * preset's part (tests, sweeps, options) is test_jobspec_plan.c's.
 *
 * The checks that touch the machine run against real directories
 * (test_jobspec.h): "scratch" (reached through a symlink and "." so the
 * realpath is visible), "other", and a regular file. Every refusal must be a
 * 400 whose field names the culprit and whose detail mentions it, and must
 * leave the spec empty.
 */
#include "test_jobspec.h"

#include "platform/creds.h"
#include "targets/target.h"

/* Appends n copies of c. */
static void add_rep(char *buf, size_t size, char c, size_t n)
{
	size_t len = strlen(buf);

	if (len + n >= size)
		exit(1);
	memset(buf + len, c, n);
	buf[len + n] = '\0';
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
	  test_limits_allowed, test_refusals, test_engine_names,
	  test_confinement, test_unknown_fields, test_baseline_null,
	  test_cleanup)
