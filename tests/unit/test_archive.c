/*
 * test_archive.c — the SQLite archive: schema, queue states, runs and their
 * results as the API reads them, test-file records, and refusing a newer
 * schema. Databases live in a directory made under the current directory.
 *
 * JSON reads are checked with match(): the expectation is JSON text written
 * with ' for " and lists only the keys that matter; arrays must have the
 * expected length; numbers agree to 1e-12 relative. Expected figures are
 * worked out by hand from the stored counts.
 */
#include "archive/archive.h"
#include "jobs/plan.h"
#include "presets/preset.h"
#include "test.h"
#include "test_json.h"
#include "test_sums.h"

#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <unistd.h>

static char dir[PATH_MAX - 64];
static char db[PATH_MAX];
static int db_seq;

static struct job_spec spec(const char *target)
{
	return (struct job_spec){ .profile = "cdm-default",
				  .target = (char *)target,
				  .size = 64ULL << 20,
				  .iterations = 3,
				  .duration_s = 1.5,
				  .interval_s = 0.25,
				  .labels_json = "[\"a\",\"b\"]",
				  .notes = "note" };
}

/* An archive opened on a new database file in the temp dir. */
static struct archive *fresh(void)
{
	struct archive *a = NULL;

	snprintf(db, sizeof(db), "%s/db%d.sqlite", dir, ++db_seq);
	return archive_open(db, &a) == 0 ? a : NULL;
}

/* The whole file at path into buf (size n); its length, or -1. */
static long slurp(const char *path, unsigned char *buf, size_t n)
{
	FILE *f = fopen(path, "rb");
	size_t got;

	if (!f)
		return -1;
	got = fread(buf, 1, n, f);
	fclose(f);
	return got < n ? (long)got : -1;
}

/* JSON as the test expects it (test_json.h), numbers to 1e-12. */
static int match(json_t *actual, const char *expect_text)
{
	return json_match(actual, expect_text, 1e-12);
}

static int job_is(struct archive *a, int64_t id, const char *expect)
{
	json_t *j = NULL;
	int ok = archive_job_json(a, id, &j) == 0 && match(j, expect);

	json_decref(j);
	return ok;
}

static void test_schema(void)
{
	static unsigned char h[1 << 20];
	struct archive *a = fresh();

	ASSERT_TRUE(a != NULL);
	archive_close(a);
	ASSERT_TRUE(slurp(db, h, sizeof(h)) > 100);
	/* PRAGMA user_version: big-endian at offset 60 of the header */
	ASSERT_EQ((long)h[60] << 24 | h[61] << 16 | h[62] << 8 | h[63],
		  ARCHIVE_SCHEMA_VERSION);
	ASSERT_EQ(archive_open(db, &a), 0); /* reopening works */
	archive_close(a);
}

/* A run (probe, spec, warnings as JSON) of a newly claimed job. */
static int64_t new_run(struct archive *a, const char *host, int64_t *jid)
{
	struct job_spec s = spec("/t"), got;
	char probe[128];
	int64_t j, id, run = -1;

	snprintf(probe, sizeof(probe),
		 "{\"hostname\":\"%s\",\"fs_type\":\"ext4\"}", host);
	if (archive_job_insert(a, &s, &j) ||
	    archive_job_claim_next(a, &id, &got))
		return -1;
	job_spec_clear(&got);
	if (jid)
		*jid = j;
	if (archive_run_create(a, j, &s, "{\"profile\":\"cdm-default\"}", probe,
			       "io_uring", 1, "[\"slow\"]", &run))
		return -1;
	return run;
}

static void test_queue_and_interrupt(void)
{
	struct archive *a = fresh();
	struct job_spec s1 = spec("/t1"), s2 = spec("/t2"), got;
	int64_t id1 = 0, id2 = 0, id3 = 0, id, run, failed;
	json_t *o = NULL;
	char want[96];
	int n = -1;

	ASSERT_TRUE(a != NULL);
	ASSERT_EQ(archive_job_insert(a, &s1, &id1), 0);
	ASSERT_EQ(archive_job_insert(a, &s2, &id2), 0);
	ASSERT_TRUE(id2 > id1);
	ASSERT_TRUE(job_is(a, id1, "{'state':'queued','labels':['a','b']}"));
	ASSERT_EQ(archive_job_claim_next(a, &id, &got), 0);
	ASSERT_EQ(id, id1); /* the oldest first, with its spec */
	ASSERT_STR_EQ(got.target, "/t1");
	ASSERT_STR_EQ(got.profile, "cdm-default");
	ASSERT_TRUE(got.size == 64ULL << 20 && got.iterations == 3);
	ASSERT_TRUE(got.duration_s == 1.5 && got.interval_s == 0.25);
	ASSERT_STR_EQ(got.labels_json, "[\"a\",\"b\"]");
	ASSERT_STR_EQ(got.notes, "note");
	job_spec_clear(&got);
	ASSERT_TRUE(job_is(a, id1, "{'state':'running'}"));
	ASSERT_TRUE(job_is(a, id2, "{'state':'queued','target':'/t2'}"));
	ASSERT_EQ(archive_job_claim_next(a, &id, &got), 0);
	ASSERT_EQ(id, id2);
	job_spec_clear(&got);
	ASSERT_TRUE(job_is(a, id2, "{'state':'running'}"));
	ASSERT_EQ(archive_job_claim_next(a, &id, &got), -ENOENT);
	ASSERT_TRUE(got.profile == NULL && got.target == NULL);

	/* cancel touches a queued job only */
	ASSERT_EQ(archive_job_insert(a, &s1, &id3), 0);
	ASSERT_EQ(archive_job_cancel_queued(a, id1), 0);
	ASSERT_TRUE(job_is(a, id1, "{'state':'running'}"));
	ASSERT_EQ(archive_job_cancel_queued(a, id3), 1);
	ASSERT_TRUE(job_is(a, id3, "{'state':'cancelled'}"));
	ASSERT_EQ(archive_job_cancel_queued(a, id3), 0);
	ASSERT_EQ(archive_job_claim_next(a, &id, &got), -ENOENT);

	/* finish: done without error, failed with one; a bad state: nothing */
	ASSERT_EQ(archive_job_finish(a, id1, 0, "done", NULL, NULL), 0);
	ASSERT_TRUE(job_is(a, id1, "{'state':'done','error':null}"));
	ASSERT_TRUE(archive_job_finish(a, id2, 0, "bogus", "x", NULL) < 0);
	ASSERT_TRUE(job_is(a, id2, "{'state':'running','error':null}"));
	ASSERT_EQ(archive_job_finish(a, id2, 0, "failed", "disk on fire", NULL),
		  0);
	ASSERT_TRUE(
		job_is(a, id2, "{'state':'failed','error':'disk on fire'}"));
	failed = id2;
	ASSERT_EQ(archive_job_json(a, 9999, &o), -ENOENT);

	/* at start-up, running jobs and runs become interrupted */
	run = new_run(a, "h", &id1);
	ASSERT_TRUE(run > 0);
	ASSERT_EQ(archive_job_insert(a, &s1, &id2), 0);
	ASSERT_EQ(archive_job_insert(a, &s1, &id3), 0);
	ASSERT_EQ(archive_job_claim_next(a, &id, &got), 0);
	job_spec_clear(&got);
	ASSERT_EQ(archive_interrupt_running(a, &n), 0);
	ASSERT_EQ(n, 2);
	snprintf(want, sizeof(want), "{'state':'interrupted','run_id':%lld}",
		 (long long)run);
	ASSERT_TRUE(job_is(a, id1, want));
	ASSERT_EQ(archive_run_json(a, run, &o), 0);
	ASSERT_TRUE(match(o, "{'state':'interrupted'}"));
	json_decref(o);
	ASSERT_TRUE(job_is(a, id2, "{'state':'interrupted'}"));
	ASSERT_TRUE(job_is(a, id3, "{'state':'queued'}"));
	ASSERT_TRUE(job_is(a, failed, "{'state':'failed'}")); /* ended */
	ASSERT_EQ(archive_interrupt_running(a, &n), 0);
	ASSERT_EQ(n, 0);
	archive_close(a);
}

/* Stores an iteration from counts, its derived fields deliberately wrong
 * (and best-looking early): what the archive reports must come from counts. */
static int put(struct archive *a, int64_t run, const struct plan_test *pt,
	       int it, uint64_t ios, uint64_t window_ns, uint64_t lat_ns)
{
	struct workload def = { .file_size = 1 << 30, .duration_s = 5 };
	struct plan plan;
	struct workload wl, *t = &wl;
	int rc;

	if (plan_from_tests(pt, 1, &def, &plan) < 0)
		return -ENOMEM;
	wl = plan.w[0];
	plan_free(&plan);
	struct result r = { .ios = ios,
			    .bytes = ios * t->block_size,
			    .lat_sum_ns = ios * lat_ns,
			    .window_ns = window_ns,
			    .seconds = -1,
			    .mb_s = 1e9 - it,
			    .mib_s = -1,
			    .iops = -1,
			    .lat_mean_us = -1 };
	rc = archive_result_insert(a, run, t, it, &r, NULL);
	return rc;
}

static void test_runs(void)
{
	struct archive *a = fresh();
	const struct preset *p = preset_find("cdm-default");
	json_t *o = NULL;
	int64_t run;

	ASSERT_TRUE(a != NULL && p != NULL);
	run = new_run(a, "h1", NULL);
	ASSERT_EQ(run, 1);
	/* SEQ1M Q8T1 read: 100, 300, 200 MiB in 1 s each, 5 ms per I/O */
	ASSERT_EQ(put(a, run, &p->tests[0], 1, 100, 1000000000, 5000000), 0);
	ASSERT_EQ(put(a, run, &p->tests[0], 2, 300, 1000000000, 5000000), 0);
	ASSERT_EQ(put(a, run, &p->tests[0], 3, 200, 1000000000, 5000000), 0);
	/* the same name written: a tie, the first wins */
	ASSERT_EQ(put(a, run, &p->tests[4], 1, 50, 1000000000, 1000), 0);
	ASSERT_EQ(put(a, run, &p->tests[4], 2, 50, 1000000000, 2000), 0);
	/* RND4K Q32T1 read: 25000 I/Os in 0.5 s, 300 µs each */
	ASSERT_EQ(put(a, run, &p->tests[2], 1, 25000, 500000000, 300000), 0);
	ASSERT_TRUE(put(a, run, &p->tests[2], 1, 1, 1, 1) < 0); /* UNIQUE */

	ASSERT_EQ(archive_run_json(a, run, &o), 0);
	ASSERT_TRUE(match(
		o,
		"{'state':'running','profile':'cdm-default','labels':['a','b'],"
		"'probe':{'hostname':'h1'},'spec':{'profile':'cdm-default'},"
		"'warnings':['slow'],'engine':{'version':'" STORBENCH_VERSION
		"','target':'io_uring','direct':true}}"));
	ASSERT_TRUE(match(
		json_object_get(o, "tests"),
		"[{'test':'SEQ1M Q8T1','rw':'read','pattern':'sequential',"
		" 'block_size':1048576,'queue_depth':8,'threads':1,"
		" 'iterations':[{'iteration':1,'mb_s':104.8576,'iops':100},"
		"  {'iteration':2},{'iteration':3,'mib_s':200}],"
		" 'best':{'iteration':2,'mb_s':314.5728,'mib_s':300,'iops':300,"
		"  "
		"'lat_mean_us':5000,'seconds':1,'bytes':314572800,'ios':300}},"
		"{'test':'SEQ1M Q8T1','rw':'write','iterations':[{},{}],"
		" 'best':{'iteration':1,'mb_s':52.4288,'lat_mean_us':1}},"
		"{'test':'RND4K Q32T1','rw':'read','pattern':'random',"
		" 'block_size':4096,'queue_depth':32,'iterations':[{}],"
		" 'best':{'iteration':1,'mb_s':204.8,'mib_s':195.3125,"
		"  'iops':50000,'lat_mean_us':300,'seconds':0.5}}]"));
	/* an iteration stored without a distribution serves latency_us null */
	ASSERT_TRUE(json_is_null(json_object_get(
		json_object_get(json_array_get(json_object_get(o, "tests"), 0),
				"best"),
		"latency_us")));
	json_decref(o);

	ASSERT_EQ(archive_run_json(a, run + 100, &o), -ENOENT);
	archive_close(a);
}

/* Reuses test_runs' database: its run 1, plus 2 (one result) and 3 (none). */
static void test_runs_list(void)
{
	const struct preset *p = preset_find("cdm-default");
	struct archive *a = NULL;
	json_t *runs = NULL;
	int64_t total = 0;

	ASSERT_EQ(archive_open(db, &a), 0);
	ASSERT_EQ(new_run(a, "h2", NULL), 2);
	ASSERT_EQ(new_run(a, "h3", NULL), 3);
	ASSERT_EQ(put(a, 2, &p->tests[3], 1, 1000, 1000000000, 1000), 0);
	ASSERT_EQ(archive_runs_json(a, NULL, 10, 0, &runs, &total), 0);
	ASSERT_EQ(total, 3);
	ASSERT_TRUE(match(
		runs,
		"[{'id':3,'hostname':'h3','headline':[]},"
		"{'id':2,'headline':[{'test':'RND4K Q1T1','rw':'read',"
		" 'mb_s':4.096,'iops':1000}]},"
		"{'id':1,'hostname':'h1','fs_type':'ext4','state':'running',"
		" 'labels':['a','b'],'headline':["
		" {'test':'SEQ1M Q8T1','rw':'read','mb_s':314.5728,'iops':300},"
		" {'test':'SEQ1M Q8T1','rw':'write','mb_s':52.4288,'iops':50},"
		" {'test':'RND4K Q32T1','rw':'read','mb_s':204.8,"
		"  'iops':50000}]}]"));
	json_decref(runs);
	ASSERT_EQ(archive_runs_json(a, NULL, 1, 1, &runs, &total), 0);
	ASSERT_EQ(total, 3);
	ASSERT_TRUE(match(runs, "[{'id':2}]"));
	json_decref(runs);
	archive_close(a);
}

/* Reuses test_runs' database: every run's stored test summaries are its
 * iterations summed up (3 in one test, 2, 1, none); then a test with
 * latency distributions, a sweep and a measurement not made, each result
 * rewriting its test's summary as it is stored; deleting a run deletes
 * them. */
static void test_summaries(void)
{
	const struct preset *p = preset_find("cdm-default");
	struct archive *a = NULL;
	static struct hist hist;
	struct workload w = { .name = "RND4K Q4T2",
			      .pattern = WL_RANDOM,
			      .read_pct = 100,
			      .block_size = 4096,
			      .queue_depth = 4,
			      .threads = 2,
			      .group = "qd",
			      .sweep_field = "queue_depth",
			      .sweep_value = 4 };
	struct result r = { .ios = 7000,
			    .bytes = 7000 * 4096,
			    .lat_sum_ns = 7000 * 123456ULL,
			    .window_ns = 700000000 };
	const struct archive_test_sum *ts = NULL;
	struct archive_reader *rd = NULL;
	char sql_db[PATH_MAX];
	size_t nt = 0;
	int64_t run, jid = 0;

	ASSERT_EQ(archive_open(db, &a), 0);
	for (int64_t id = 1; id <= 3; id++)
		ASSERT_TRUE(sums_agree(a, db, id));
	run = new_run(a, "h4", &jid);
	ASSERT_TRUE(run > 0);
	ASSERT_EQ(put(a, run, &p->tests[0], 1, 100, 1000000000, 5000000), 0);
	ASSERT_TRUE(sums_agree(a, db, run)); /* after each result */
	for (int it = 1; it <= 3; it++) {
		hist_init(&hist);
		for (int i = 0; i < 1000; i++)
			hist_add(&hist, (uint64_t)(50000 + 7000 * it + 37 * i));
		r.ios += 1111;
		r.window_ns += 3333333;
		result_finish(&r);
		ASSERT_EQ(archive_result_insert(a, run, &w, it, &r, &hist), 0);
		ASSERT_TRUE(sums_agree(a, db, run));
	}
	ASSERT_EQ(archive_result_insert_note(a, run, &w, 4, &r, NULL,
					     "not supported here", -1),
		  0);
	ASSERT_TRUE(sums_agree(a, db, run));
	ASSERT_EQ(archive_reader_open(a, &rd), 0);
	ASSERT_EQ(archive_reader_tests(rd, run, &ts, &nt), 0);
	ASSERT_EQ(nt, 2);
	ASSERT_STR_EQ(ts[1].test, "RND4K Q4T2");
	ASSERT_EQ(ts[1].iterations, 4);
	ASSERT_EQ(ts[1].errors, 1);
	ASSERT_STR_EQ(ts[1].sweep_json,
		      "{\"group\":\"qd\",\"field\":\"queue_depth\","
		      "\"value\":4.0}");
	ASSERT_TRUE(!isnan(ts[1].vals[3]) && isnan(ts[1].vals[15]));
	archive_reader_close(rd);
	/* a sum that disagrees with the iterations is caught */
	snprintf(sql_db, sizeof(sql_db), "%s", db);
	{
		sqlite3 *h = NULL;
		ASSERT_EQ(sqlite3_open(sql_db, &h), SQLITE_OK);
		ASSERT_EQ(sqlite3_exec(h,
				       "UPDATE test_summaries SET"
				       " iops_mean=iops_mean*1.000001"
				       " WHERE test='RND4K Q4T2'",
				       NULL, NULL, NULL),
			  SQLITE_OK);
		sqlite3_close(h);
	}
	ASSERT_TRUE(!sums_agree(a, db, run));
	ASSERT_EQ(archive_job_finish(a, jid, run, "done", NULL, NULL), 0);
	ASSERT_EQ(archive_run_delete(a, run), 0);
	ASSERT_EQ(archive_reader_open(a, &rd), 0);
	ASSERT_EQ(archive_reader_tests(rd, run, &ts, &nt), 0);
	ASSERT_EQ(nt, 0);
	archive_reader_close(rd);
	archive_close(a);
}

/* Each iteration's histogram is stored whole: the iteration serves its own
 * percentiles, and the test serves the merge over its iterations — which is
 * not any average of theirs (here: 100 I/Os at 10 µs, then 100 at 30 µs). */
static void test_latency_summary(void)
{
	struct archive *a = fresh();
	const struct preset *p = preset_find("cdm-default");
	struct workload w;
	struct hist *h = malloc(sizeof(*h));
	struct result r = { .ios = 100,
			    .bytes = 409600,
			    .lat_sum_ns = 1000000,
			    .window_ns = 1000000 };
	json_t *o = NULL, *t;
	int64_t run;

	struct workload def = { .file_size = 1 << 30, .duration_s = 5 };
	struct plan plan;

	ASSERT_TRUE(a != NULL && p != NULL && h != NULL);
	ASSERT_EQ(plan_from_tests(&p->tests[6], 1, &def, &plan), 0);
	w = plan.w[0];
	plan_free(&plan);
	run = new_run(a, "h1", NULL);
	result_finish(&r);
	hist_init(h);
	for (int i = 0; i < 100; i++)
		hist_add(h, 10000);
	ASSERT_EQ(archive_result_insert(a, run, &w, 1, &r, h), 0);
	hist_init(h);
	for (int i = 0; i < 100; i++)
		hist_add(h, 30000);
	ASSERT_EQ(archive_result_insert(a, run, &w, 2, &r, h), 0);
	ASSERT_EQ(archive_run_json(a, run, &o), 0);
	t = json_array_get(json_object_get(o, "tests"), 0);
	ASSERT_TRUE(match(
		json_object_get(t, "iterations"),
		"[{'latency_us':{'min':10,'p50':10,'p99':10,'max':10}},"
		" {'latency_us':{'min':30,'p50':30,'p99.9':30,'max':30}}]"));
	ASSERT_TRUE(match(json_object_get(t, "latency_us"),
			  "{'ios':200,'mean':20,'stdev':10,'min':10,'p90':30,"
			  " 'p99':30,'max':30}"));
	/* p50 is the 100th value: a 10 µs one, as its bucket's midpoint */
	ASSERT_NEAR_REL(json_real_value(json_object_get(
				json_object_get(t, "latency_us"), "p50")),
			10.0, 0.004);
	json_decref(o);
	free(h);
	archive_close(a);
}

static void collect(void *arg, const char *path)
{
	char *seen = arg;
	size_t len = strlen(seen);

	snprintf(seen + len, 256 - len, "%s;", path);
}

static void test_testfiles(void)
{
	struct archive *a = fresh();
	char seen[256] = "";

	ASSERT_TRUE(a != NULL);
	ASSERT_EQ(archive_testfile_add(a, "/x/sb-1.dat", 1), 0);
	ASSERT_EQ(archive_testfile_add(a, "/y/sb-2.dat", 2), 0);
	ASSERT_EQ(archive_testfile_add(a, "/x/sb-1.dat", 3), 0); /* no twin */
	ASSERT_EQ(archive_testfile_each(a, collect, seen), 0);
	ASSERT_EQ(strlen(seen), strlen("/x/sb-1.dat;/y/sb-2.dat;"));
	ASSERT_TRUE(strstr(seen, "/x/sb-1.dat;") &&
		    strstr(seen, "/y/sb-2.dat;"));
	ASSERT_EQ(archive_testfile_remove(a, "/x/sb-1.dat"), 0);
	ASSERT_EQ(archive_testfile_remove(a, "/nope"), 0);
	seen[0] = '\0';
	ASSERT_EQ(archive_testfile_each(a, collect, seen), 0);
	ASSERT_STR_EQ(seen, "/y/sb-2.dat;");
	archive_close(a);
}

/* A deleted run's id is never another run's (issue 31: an old link opened
 * a newer run): runs 1, 2 and 3, the newest deleted, the next is 4, and
 * after a reopen the newest deleted again, the next is 5. */
static void test_run_ids_never_reused(void)
{
	struct archive *a = fresh();
	int64_t jid[4] = { 0 };
	json_t *o = NULL;

	ASSERT_TRUE(a != NULL);
	for (int i = 1; i <= 3; i++) {
		ASSERT_EQ(new_run(a, "h", &jid[i]), i);
		ASSERT_EQ(archive_job_finish(a, jid[i], i, "done", NULL, NULL),
			  0);
	}
	ASSERT_EQ(archive_run_delete(a, 3), 0);
	ASSERT_EQ(archive_run_json(a, 3, &o), -ENOENT);
	ASSERT_EQ(new_run(a, "h", &jid[3]), 4);
	ASSERT_EQ(archive_job_finish(a, jid[3], 4, "done", NULL, NULL), 0);
	archive_close(a);
	ASSERT_EQ(archive_open(db, &a), 0);
	ASSERT_EQ(archive_run_delete(a, 4), 0);
	ASSERT_EQ(new_run(a, "h", NULL), 5);
	ASSERT_EQ(archive_run_json(a, 3, &o), -ENOENT);
	ASSERT_EQ(archive_run_json(a, 4, &o), -ENOENT);
	archive_close(a);
}

/* What a hub has of the runs (migration 16): runs 1 … 4, 1 and 2 ended,
 * 3 ended after, 4 still running. The pending are the ended without a
 * row, oldest first, from after a run; a row for one hub leaves the run
 * pending for another; a deleted run takes its row along. */
static void test_hub(void)
{
	static const char hub[] = "http://hub:8080", other[] = "http://b:1";
	struct archive *a = fresh();
	int64_t jid[5] = { 0 }, id = 0;
	json_t *o = NULL;

	ASSERT_TRUE(a != NULL);
	for (int i = 1; i <= 4; i++)
		ASSERT_EQ(new_run(a, i == 4 ? "h2" : "h1", &jid[i]), i);
	ASSERT_EQ(archive_job_finish(a, jid[1], 1, "done", NULL, NULL), 0);
	ASSERT_EQ(archive_job_finish(a, jid[2], 2, "failed", "x", NULL), 0);
	ASSERT_EQ(archive_hub_next(a, hub, 0, &id), 0);
	ASSERT_EQ(id, 1);
	ASSERT_EQ(archive_hub_next(a, hub, 1, &id), 0);
	ASSERT_EQ(id, 2);
	ASSERT_EQ(archive_hub_next(a, hub, 2, &id), -ENOENT);
	ASSERT_EQ(archive_hub_mark(a, 1, hub, 1, 17, 201, NULL), 0);
	ASSERT_EQ(archive_hub_mark(a, 2, hub, 0, 0, 422, "body: no"), 0);
	ASSERT_EQ(archive_hub_mark(a, 9, hub, 1, 18, 201, NULL), -ENOENT);
	ASSERT_EQ(archive_hub_next(a, hub, 0, &id), -ENOENT);
	ASSERT_EQ(archive_hub_next(a, other, 0, &id), 0);
	ASSERT_EQ(id, 1);
	ASSERT_EQ(archive_job_finish(a, jid[3], 3, "cancelled", "c", NULL), 0);
	ASSERT_EQ(archive_hub_next(a, hub, 0, &id), 0);
	ASSERT_EQ(id, 3);
	ASSERT_EQ(archive_hub_json(a, hub, 10, &o), 0);
	ASSERT_TRUE(match(o, "{'pushed':1,'pending':1,'refused':1,'running':1,"
			     "'refusals':[{'run_id':2,'status':422,"
			     "'detail':'body: no'}]}"));
	json_decref(o);
	ASSERT_EQ(archive_run_delete(a, 2), 0);
	ASSERT_EQ(archive_hub_json(a, hub, 10, &o), 0);
	ASSERT_TRUE(match(o, "{'pushed':1,'pending':1,'refused':0,"
			     "'refusals':[]}"));
	json_decref(o);
	archive_close(a);
}

/* Reuses test_hub's database: runs 1, 3 of h1 (ended), 4 of h2 (running),
 * grouped by host, with the filters applied. */
static void test_hosts(void)
{
	struct run_filter f = { .state = "running" };
	struct archive *a = NULL;
	json_t *g = NULL;

	ASSERT_EQ(archive_open(db, &a), 0);
	ASSERT_EQ(archive_runs_hosts(a, NULL, &g), 0);
	/* the same started_at (within a second): the highest id is newest */
	ASSERT_TRUE(match(g, "[{'host':'h1','runs':2,'latest_run_id':3},"
			     "{'host':'h2','runs':1,'latest_run_id':4}]"));
	json_decref(g);
	ASSERT_EQ(archive_runs_hosts(a, &f, &g), 0);
	ASSERT_TRUE(match(g, "[{'host':'h2','runs':1,'latest_run_id':4}]"));
	json_decref(g);
	f = (struct run_filter){ .host = "h1" };
	ASSERT_EQ(archive_runs_hosts(a, &f, &g), 0);
	ASSERT_TRUE(match(g, "[{'host':'h1','runs':2}]"));
	json_decref(g);
	archive_close(a);
}

static void test_newer_schema_refused(void)
{
	static unsigned char before[65536], after[65536];
	struct archive *a = (struct archive *)&a;
	char sql[128], wal[PATH_MAX + 8];
	sqlite3 *h = NULL;
	long nb;

	snprintf(db, sizeof(db), "%s/future.sqlite", dir);
	snprintf(sql, sizeof(sql),
		 "CREATE TABLE future(x);"
		 "PRAGMA user_version=%d;",
		 ARCHIVE_SCHEMA_VERSION + 1);
	ASSERT_EQ(sqlite3_open(db, &h), SQLITE_OK);
	ASSERT_EQ(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	nb = slurp(db, before, sizeof(before));
	ASSERT_TRUE(nb > 100);

	ASSERT_EQ(archive_open(db, &a), -EPROTO);
	ASSERT_TRUE(a == NULL);
	/* not migrated, not switched to WAL: byte for byte the same */
	ASSERT_EQ(slurp(db, after, sizeof(after)), nb);
	ASSERT_TRUE(memcmp(before, after, (size_t)nb) == 0);
	snprintf(wal, sizeof(wal), "%s-wal", db);
	ASSERT_TRUE(access(wal, F_OK) != 0);
}

/* The generation moves with every commit, this process's (the WAL hook)
 * and another's (a plain SQLite connection: seen in the wal-index
 * header), and not without one. */
static void test_generation(void)
{
	struct archive *a = fresh(), *b = NULL;
	struct job_spec s = spec("/mnt/x");
	sqlite3 *other = NULL;
	uint64_t g;
	int64_t id;

	ASSERT_TRUE(a != NULL);
	ASSERT_EQ(archive_open(db, &b), 0); /* a second connection */
	g = archive_generation(a);
	ASSERT_EQ(archive_generation(a), g); /* nothing written */
	ASSERT_EQ(archive_generation(b), g);
	ASSERT_EQ(archive_job_insert(a, &s, &id), 0);
	ASSERT_TRUE(archive_generation(NULL) > g); /* a's own commit */
	g = archive_generation(a);
	ASSERT_TRUE(archive_generation(b) >= g); /* b sees a's commit too */
	g = archive_generation(b);
	ASSERT_EQ(archive_generation(a), g);
	ASSERT_EQ(archive_generation(b), g);
	/* a write through a connection without the hook, as another process's
	 */
	ASSERT_EQ(sqlite3_open_v2(db, &other, SQLITE_OPEN_READWRITE, NULL),
		  SQLITE_OK);
	sqlite3_busy_timeout(other, 5000);
	ASSERT_EQ(sqlite3_exec(other,
			       "UPDATE jobs SET profile='custom' WHERE id=1",
			       NULL, NULL, NULL),
		  SQLITE_OK);
	ASSERT_EQ(archive_generation(NULL), g); /* not seen yet */
	ASSERT_TRUE(archive_generation(a) > g); /* seen by a's look */
	g = archive_generation(b);
	ASSERT_EQ(archive_generation(a), g);
	/* every one of many such commits is seen, through log restarts
	 * (a checkpoint that empties the log: the next commit writes the
	 * log from its start again, the wal-index header starts over) */
	for (int i = 0; i < 60; i++) {
		char sql[96];
		snprintf(sql, sizeof(sql),
			 "UPDATE jobs SET size=%d WHERE id=1;%s", 4096 + i,
			 i % 10 == 9 ? "PRAGMA wal_checkpoint(TRUNCATE);" : "");
		ASSERT_EQ(sqlite3_exec(other, sql, NULL, NULL, NULL),
			  SQLITE_OK);
		ASSERT_TRUE(archive_generation(i % 2 ? a : b) > g);
		g = archive_generation(a);
		ASSERT_EQ(archive_generation(b), g); /* and nothing else */
	}
	sqlite3_close(other);
	/* seen by a look at the wal-index header, not by asking SQLite
	 * under a lock */
	ASSERT_EQ(archive_generation_lockfree(), 1);
	archive_close(b);
	archive_close(a);
}

static void test_setup(void)
{
	test_scratch(dir, sizeof(dir), "archive_test");
}

/* Removes the databases (closed cleanly: no -wal or -shm) and the dir. */
static void test_cleanup(void)
{
	for (int i = 1; i <= db_seq; i++) {
		snprintf(db, sizeof(db), "%s/db%d.sqlite", dir, i);
		ASSERT_EQ(unlink(db), 0);
	}
	snprintf(db, sizeof(db), "%s/future.sqlite", dir);
	ASSERT_EQ(unlink(db), 0);
	ASSERT_EQ(rmdir(dir), 0);
}

TEST_MAIN(test_setup, test_schema, test_queue_and_interrupt, test_runs,
	  test_runs_list, test_summaries, test_latency_summary, test_testfiles,
	  test_run_ids_never_reused, test_hub, test_hosts,
	  test_newer_schema_refused, test_generation, test_cleanup)
