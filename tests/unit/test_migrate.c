/*
 * test_migrate.c — upgrading an archive from every schema an earlier
 * storbench wrote.
 *
 * Each fixture in tests/fixtures/archive (make-fixtures.py says how they
 * were made) is the schema of one earlier build, exactly as its migrations
 * created it, with rows that build would have written: a finished job and
 * its run with results (and, from the builds that had them, latency
 * columns, CPU time, samples, histograms, sweeps, an SMB job, an imported
 * run), a failed job, a queued one, and one left running by a kill with its
 * test file. The test makes a real SQLite file of it (in WAL mode, as the
 * daemon keeps it), opens it with archive_open() and checks: the schema is
 * current and the same as a new archive's, integrity and foreign keys hold,
 * every row reads back through the archive's own JSON with its values, and
 * the archive takes new jobs, runs, results and samples afterwards. A
 * migration that fails half-way must leave the file as it was.
 *
 * Version 2 has three fixtures: its migration gained columns and a table
 * after it had shipped, so archives of the first version-2 builds lack
 * them at every later version (archive_open adds them).
 */
#include "archive/archive.h"
#include "test.h"
#include "test_fixture.h"
#include "test_json.h"
#include "test_sums.h"

#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <unistd.h>

/* what a fixture's build had */
enum {
	F_LAT = 1 << 0,	    /* results.lat_*_us (v2) */
	F_CPU = 1 << 1,	    /* results.cpu_*_s (second v2 build) */
	F_SAMPLES = 1 << 2, /* the samples table (third v2 build) */
	F_PLAN = 1 << 3,    /* jobs.plan/engine/direct, results.lat_hist (v3) */
	F_OPTIONS =
		1 << 4, /* jobs.options, results sweep/error/allocated (v4) */
	F_SMB = 1 << 5, /* jobs.smb (v5) */
	F_IMPORTS = 1 << 6, /* results.imported, the imports table (v6) */
};

static char dir[PATH_MAX - 64];
static char db[PATH_MAX];
static char fresh_db[PATH_MAX];

/* Makes db (in dir) from fixture name plus extra SQL (may be NULL). */
static int build(const char *name, const char *extra)
{
	snprintf(db, sizeof(db), "%s/%s.sqlite", dir, name);
	return fixture_build(db, name, extra);
}

/* JSON as the test expects it (test_json.h), numbers to 1e-9. */
static int match(json_t *actual, const char *expect_text)
{
	return json_match(actual, expect_text, 1e-9);
}

static int job_is(struct archive *a, int64_t id, const char *expect)
{
	json_t *j = NULL;
	int ok = archive_job_json(a, id, &j) == 0 && match(j, expect);

	json_decref(j);
	return ok;
}

static int run_is(struct archive *a, int64_t id, const char *expect)
{
	json_t *j = NULL;
	int ok = archive_run_json(a, id, &j) == 0 && match(j, expect);

	json_decref(j);
	return ok;
}

static void collect(void *arg, const char *path)
{
	char *seen = arg;
	size_t len = strlen(seen);

	snprintf(seen + len, 512 - len, "%s;", path);
}

/* Rows every fixture has, as today's archive serves them. Figures are
 * worked out from the fixture's counts: SEQ1M Q8T1 read, 2000 and 2100 I/Os
 * of 1 MiB in 2 s at 4 ms; RND4K Q1T1 write, 1000 of 4 KiB in 0.1 s at
 * 100 µs. */
static void check_rows(struct archive *a, unsigned f)
{
	char want[2048], seen[512] = "";
	json_t *o = NULL;
	int64_t total = 0;
	const char *lat_seq = (f & F_LAT) ? "{'p50':3500,'p99':4500,'max':4500,"
					    "'stdev':500,'min':3500}"
					  : "null";

	ASSERT_TRUE(job_is(
		a, 1,
		"{'id':1,'state':'done','profile':'cdm-default',"
		"'target':'/srv/bench','size':1073741824,"
		"'iterations':2,'duration_s':5,'interval_s':0,"
		"'labels':['ext4','before'],"
		"'notes':'nvme0 on firmware 3B2QGXA7, it\\u0027s the baseline',"
		"'created_at':'2026-11-02T09:00:00Z',"
		"'started_at':'2026-11-02T09:00:01Z',"
		"'finished_at':'2026-11-02T09:04:10Z','run_id':1,"
		"'error':null,'direct':true}"));
	ASSERT_TRUE(job_is(
		a, 1,
		(f & F_PLAN) ? "{'engine':'io_uring','tests':[{'name':"
			       "'SEQ1M Q8T1','block_size':1048576},"
			       "{'name':'RND4K Q1T1','read_pct':0}]}"
			     : "{'engine':null,'tests':null,'options':null}"));
	ASSERT_TRUE(job_is(a, 2,
			   "{'state':'failed','run_id':null,'error':"
			   "'target /srv/gone: No such file or directory'}"));
	ASSERT_TRUE(job_is(a, 3,
			   "{'state':'queued','size':67108864,"
			   "'labels':['after'],'started_at':null}"));
	ASSERT_TRUE(job_is(
		a, 3, (f & F_PLAN) ? "{'direct':false}" : "{'direct':true}"));
	ASSERT_TRUE(job_is(a, 4, "{'state':'running','run_id':2}"));

	snprintf(
		want, sizeof(want),
		"{'id':1,'job_id':1,'state':'done','profile':'cdm-default',"
		"'target':'/srv/bench','labels':['ext4','before'],"
		"'started_at':'2026-11-02T09:00:05Z',"
		"'finished_at':'2026-11-02T09:04:10Z',"
		"'spec':{'profile':'cdm-default','size':1073741824},"
		"'engine':{'version':'0.1.0','target':'io_uring','direct':true}"
		","
		"'warnings':['a warning kept'],"
		"'probe':{'hostname':'bench1','fs_type':'ext4',"
		" 'device_model':'Samsung SSD 980 PRO 1TB','rotational':false},"
		"'import':null,"
		"'tests':[{'test':'SEQ1M "
		"Q8T1','rw':'read','pattern':'sequential',"
		" 'block_size':1048576,'queue_depth':8,'threads':1,"
		" 'iterations':[{'iteration':1,'ios':2000,'bytes':2097152000,"
		"  'mb_s':1048.576,'iops':1000,'lat_mean_us':4000,'seconds':2,"
		"  'latency_us':%s,'cpu_user_s':%s},"
		"  {'iteration':2,'ios':2100,'mb_s':1101.0048,'iops':1050}],"
		" 'best':{'iteration':2,'mib_s':1050},"
		" 'latency_us':%s},"
		" {'test':'RND4K Q1T1','rw':'write','pattern':'random',"
		" 'block_size':4096,'queue_depth':1,"
		" 'iterations':[{'iteration':1,'ios':1000,'mb_s':40.96,"
		"  "
		"'iops':10000,'lat_mean_us':100,'seconds':0.1,'cpu_sys_s':%s}],"
		" 'best':{'iteration':1}}]}",
		lat_seq, (f & F_CPU) ? "0.02" : "null",
		/* merged from the stored histograms (v3 on) */
		(f & F_PLAN) ? "{'ios':4100,'mean':4000,'p50':3500,'max':4500}"
			     : "null",
		(f & F_CPU) ? "0.05" : "null");
	ASSERT_TRUE(run_is(a, 1, want));
	ASSERT_TRUE(run_is(a, 2,
			   "{'state':'running','job_id':4,'finished_at':null,"
			   "'tests':[{'test':'SEQ1M Q8T1','iterations':"
			   "[{'iteration':1,'ios':2000}]}]}"));

	ASSERT_EQ(archive_runs_json(a, NULL, 50, 0, &o, &total), 0);
	ASSERT_EQ(total, 2 + !!(f & F_OPTIONS) + !!(f & F_IMPORTS));
	ASSERT_TRUE(match(json_array_get(o, (size_t)total - 1),
			  "{'id':1,'hostname':'bench1','fs_type':'ext4',"
			  "'cluster_size':4096,'server':'bench1',"
			  "'headline':[{'test':'SEQ1M Q8T1','rw':'read',"
			  "'mb_s':1101.0048,'iops':1050},{'test':'RND4K Q1T1',"
			  "'rw':'write','mb_s':40.96,'iops':10000}]}"));
	json_decref(o);

	/* migration 8 summed up every run's tests from its results */
	for (int64_t id = 1; id <= 2 + !!(f & F_OPTIONS) + !!(f & F_IMPORTS);
	     id++)
		ASSERT_TRUE(sums_agree(a, db, id));

	ASSERT_EQ(archive_samples_json(a, 1, &o), 0);
	if (f & F_SAMPLES)
		ASSERT_TRUE(match(
			o, "[{'test':'SEQ1M Q8T1','rw':'read',"
			   "'iteration':1,'t_s':0,'length_s':1,"
			   "'read':{'iops':1000,'mb_s':1048.576,"
			   "'lat_mean_us':4000},'write':{'iops':0,"
			   "'lat_mean_us':null}},"
			   "{'iteration':1,'t_s':1},{'iteration':2,'t_s':0},"
			   "{'iteration':2,'t_s':1,'read':{'iops':1100}}]"));
	else
		ASSERT_TRUE(match(o, "[]"));
	json_decref(o);
	ASSERT_EQ(archive_samples_json(a, 2, &o), 0);
	ASSERT_EQ(json_array_size(o), (f & F_SAMPLES) ? 3 : 0);
	json_decref(o);

	ASSERT_EQ(archive_testfile_each(a, collect, seen), 0);
	ASSERT_STR_EQ(seen, "/srv/bench/storbench-4-1a2b3c4d.tmp;");

	if (f & F_OPTIONS) {
		ASSERT_TRUE(job_is(a, 5,
				   "{'profile':'seq-sweep','run_id':3,"
				   "'options':{'block_sizes':[4096,1048576],"
				   "'queue_depth':8}}"));
		ASSERT_TRUE(run_is(
			a, 3,
			"{'profile':'seq-sweep','tests':["
			"{'test':'SEQ4K Q8T1','sweep':{'group':'seq',"
			" 'field':'block_size','value':4096},"
			" 'best':{'iops':50000,'mb_s':204.8}},"
			"{'test':'SEQ1M Q8T1','sweep':{'value':1048576},"
			" 'iterations':[{'allocated_bytes':1073741824}]}]}"));
	}
	if (f & F_SMB)
		ASSERT_TRUE(job_is(a, 6,
				   "{'target':'smb://filer1/bench/dir',"
				   "'smb':{'credential':'filer1',"
				   "'max_protocol':'SMB3_02',"
				   "'require_signing':true}}"));
	if (f & F_IMPORTS) {
		void *orig = NULL;
		size_t len = 0;
		char name[64];

		ASSERT_TRUE(run_is(a, 4,
				   "{'profile':'imported','import':{"
				   "'tool':'CrystalDiskMark','version':'8.0.4',"
				   "'filename':'ssd.txt','size':5},"
				   "'tests':[{'test':'SEQ1M Q8T1','best':{"
				   "'mb_s':7012.5,'iops':6687.6,"
				   "'lat_mean_us':1194.51,'ios':null}}]}"));
		ASSERT_EQ(archive_import_original(a, 4, &orig, &len, name,
						  sizeof(name)),
			  0);
		ASSERT_TRUE(len == 5 && memcmp(orig, "hello", 5) == 0);
		ASSERT_STR_EQ(name, "ssd.txt");
		free(orig);
		/* migration 9 rebuilt the table: the file is its first part */
		query_text(db, "SELECT run_id, part FROM imports", want,
			   sizeof(want));
		ASSERT_STR_EQ(want, "4|0;");
	}
	/* migration 9: every run has its own uuid (version 4) */
	query_text(db,
		   "SELECT count(*), count(DISTINCT uuid),"
		   " sum(uuid GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]"
		   "[0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]"
		   "-4[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]"
		   "-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]"
		   "[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]') FROM runs",
		   want, sizeof(want));
	snprintf(seen, sizeof(seen), "%lld|%lld|%lld;", (long long)total,
		 (long long)total, (long long)total);
	ASSERT_STR_EQ(want, seen);
	/* migration 10: runs have a wire baseline column, empty on old runs,
	 * and their JSON no "wire" member */
	query_text(db, "SELECT count(*) FROM runs WHERE wire IS NULL", want,
		   sizeof(want));
	snprintf(seen, sizeof(seen), "%lld;", (long long)total);
	ASSERT_STR_EQ(want, seen);
	{
		json_t *j = NULL;
		ASSERT_EQ(archive_run_json(a, 1, &j), 0);
		ASSERT_TRUE(json_object_get(j, "wire") == NULL);
		json_decref(j);
	}
	/* migration 11: seconds have host and device counter columns, empty
	 * on every second stored before it */
	query_text(db,
		   "SELECT count(*) FROM samples"
		   " WHERE host IS NOT NULL OR device IS NOT NULL",
		   want, sizeof(want));
	ASSERT_STR_EQ(want, "0;");
	/* migration 12: the steady-state records' table, empty */
	query_text(db, "SELECT count(*) FROM test_conditions", want,
		   sizeof(want));
	ASSERT_STR_EQ(want, "0;");
	/* migration 13: the next run's id is above every run's */
	query_text(db, "SELECT seq FROM sqlite_sequence WHERE name='runs'",
		   want, sizeof(want));
	snprintf(seen, sizeof(seen), "%lld;", (long long)total);
	ASSERT_STR_EQ(want, seen);
	/* migration 16: what a hub has of the runs, empty: every ended run
	 * is pending for a hub this archive never pushed to */
	query_text(db, "SELECT count(*) FROM hub_pushes", want, sizeof(want));
	ASSERT_STR_EQ(want, "0;");
}

/* After the upgrade the archive carries on: the start-up interrupts the
 * job a kill left running, the queued job runs with new results and
 * samples, and a new job with every field is stored. */
static void check_carries_on(struct archive *a, unsigned f)
{
	struct job_spec got, s = { .profile = "custom",
				   .target = "/srv/bench",
				   .size = 16 << 20,
				   .iterations = 1,
				   .duration_s = 1,
				   .interval_s = 0,
				   .labels_json = "[\"new\"]",
				   .notes = "after the upgrade",
				   .plan_json = "[{\"name\":\"RND4K Q4T1\"}]",
				   .engine = "psync",
				   .direct = 0,
				   .options_json = "{\"x\":1}",
				   .smb_json = "{\"credential\":\"c\"}",
				   .compare_with_json = "[\"/srv/b\"]" };
	const struct workload w = { .name = "SEQ1M Q8T1",
				    .pattern = WL_SEQUENTIAL,
				    .read_pct = 100,
				    .block_size = 1 << 20,
				    .queue_depth = 8,
				    .threads = 1 };
	struct engine_sample smp_s[2] = {
		{ .ios = { 300, 0 },
		  .bytes = { 300 << 20, 0 },
		  .lat_sum_ns = { 300 * 2000000ULL, 0 } },
		{ .ios = { 100, 0 },
		  .bytes = { 100 << 20, 0 },
		  .lat_sum_ns = { 100 * 2000000ULL, 0 } }
	};
	struct engine_samples smp = {
		.s = smp_s, .cap = 2, .n = 2, .last_s = 0.5
	};
	struct result r = { .ios = 400,
			    .bytes = 400ULL << 20,
			    .lat_sum_ns = 400 * 2000000ULL,
			    .window_ns = 1500000000ULL };
	static struct hist hist; /* 32 KiB: not the stack */
	struct hist *h = &hist;
	int64_t id = 0, run = 0, jid = 0;
	json_t *o = NULL;
	char want[256];
	int n = -1;

	hist_init(h);
	for (int i = 0; i < 400; i++)
		hist_add(h, 2000000);
	result_finish(&r);

	ASSERT_EQ(archive_interrupt_running(a, &n), 0);
	ASSERT_EQ(n, 1);
	ASSERT_TRUE(job_is(a, 4,
			   "{'state':'interrupted','run_id':2,"
			   "'error':'the daemon stopped while this job ran'}"));
	ASSERT_TRUE(run_is(a, 2,
			   "{'state':'interrupted','tests':[{'iterations':"
			   "[{'iteration':1,'ios':2000}]}]}"));

	ASSERT_EQ(archive_job_claim_next(a, &id, &got), 0);
	ASSERT_EQ(id, 3);
	ASSERT_STR_EQ(got.profile, "cdm-default");
	ASSERT_TRUE(got.size == 67108864 && got.iterations == 1);
	ASSERT_TRUE((got.plan_json != NULL) == !!(f & F_PLAN));
	ASSERT_EQ(archive_run_create(a, 3, &got,
				     "{\"profile\":\"cdm-default\"}",
				     "{\"hostname\":\"bench1\"}", "io_uring", 1,
				     "[]", &run),
		  0);
	job_spec_clear(&got);
	ASSERT_TRUE(run > 0);
	/* a second streamed while it ran, then the iteration whole */
	ASSERT_EQ(archive_sample_put(a, run, &w, 1, 0, &smp_s[0], NULL), 0);
	ASSERT_EQ(archive_iteration_insert(a, run, &w, 1, &r, h, &smp), 0);
	ASSERT_EQ(archive_job_finish(a, 3, run, "done", NULL, NULL), 0);
	snprintf(want, sizeof(want), "{'state':'done','run_id':%lld}",
		 (long long)run);
	ASSERT_TRUE(job_is(a, 3, want));
	ASSERT_TRUE(run_is(a, run,
			   "{'state':'done','tests':[{'test':'SEQ1M Q8T1',"
			   "'best':{'ios':400,'iops':266.6666666666667},"
			   "'latency_us':{'ios':400,'p50':2000}}]}"));
	ASSERT_TRUE(sums_agree(a, db, run));
	ASSERT_EQ(archive_samples_json(a, run, &o), 0);
	ASSERT_TRUE(match(o, "[{'t_s':0,'length_s':1,'read':{'iops':300}},"
			     "{'t_s':1,'length_s':0.5,'read':{'iops':200}}]"));
	json_decref(o);

	ASSERT_EQ(archive_job_insert(a, &s, &jid), 0);
	ASSERT_TRUE(job_is(a, jid,
			   "{'state':'queued','profile':'custom',"
			   "'labels':['new'],'notes':'after the upgrade',"
			   "'tests':[{'name':'RND4K Q4T1'}],"
			   "'engine':'psync','direct':false,"
			   "'options':{'x':1},'smb':{'credential':'c'},"
			   "'compare_with':['/srv/b'],'runs':[]}"));
}

static void check_upgrade(const char *name, unsigned f)
{
	struct archive *a = NULL;

	ASSERT_EQ(build(name, NULL), 0);
	ASSERT_EQ(archive_open(db, &a), 0);
	ASSERT_TRUE(schema_current(db, fresh_db));
	check_rows(a, f);
	if (test_failed_) {
		archive_close(a);
		return;
	}
	check_carries_on(a, f);
	archive_close(a);
	if (test_failed_)
		return;
	/* a second open finds nothing to do and changes nothing */
	ASSERT_EQ(archive_open(db, &a), 0);
	ASSERT_TRUE(schema_current(db, fresh_db));
	ASSERT_TRUE(job_is(a, 1, "{'state':'done','run_id':1}"));
	archive_close(a);
}

static void test_v1(void)
{
	check_upgrade("v1", 0);
}
static void test_v2_lat(void)
{
	check_upgrade("v2-lat", F_LAT);
}
static void test_v2_cpu(void)
{
	check_upgrade("v2-cpu", F_LAT | F_CPU);
}
static void test_v2(void)
{
	check_upgrade("v2", F_LAT | F_CPU | F_SAMPLES);
}
static void test_v3(void)
{
	check_upgrade("v3", F_LAT | F_CPU | F_SAMPLES | F_PLAN);
}
static void test_v4(void)
{
	check_upgrade("v4", F_LAT | F_CPU | F_SAMPLES | F_PLAN | F_OPTIONS);
}
static void test_v5(void)
{
	check_upgrade("v5",
		      F_LAT | F_CPU | F_SAMPLES | F_PLAN | F_OPTIONS | F_SMB);
}
static void test_v6(void)
{
	check_upgrade("v6", F_LAT | F_CPU | F_SAMPLES | F_PLAN | F_OPTIONS |
				    F_SMB | F_IMPORTS);
}

/* The fixtures cover every version before this one but 7 to 17: an
 * archive of version 7, 8 or 9 is what the v6 fixture is after that
 * migration (the summaries 8 fills are the ones every upgrade here
 * fills), and 10 to 18 run on every fixture: 10 and 11 add empty columns,
 * 12 the empty test_conditions table, 13 rebuilds runs under the rows of
 * every other table (test_upgrade_keeps_run_ids), 14 and 15 add a column
 * an older result leaves NULL, 16 the empty hub_pushes table, 17 two job
 * columns and the empty fleet_members table, 18 an index of runs. No
 * fixture holds what a build of version 10 to 17 wrote in those (13 copies
 * runs.wire whole). */
static void test_every_version(void)
{
	ASSERT_EQ(ARCHIVE_SCHEMA_VERSION, 18);
}

/* A new run of a new job (or of the oldest queued one), the job then
 * ended done so that the run may be deleted: the run's id, or -1. */
static int64_t one_run(struct archive *a)
{
	struct job_spec got, s = { .profile = "custom",
				   .target = "/srv/bench",
				   .size = 1 << 20,
				   .iterations = 1,
				   .duration_s = 1,
				   .labels_json = "[]",
				   .notes = "" };
	int64_t jid, id, run = -1;

	if (archive_job_insert(a, &s, &jid) ||
	    archive_job_claim_next(a, &id, &got))
		return -1;
	job_spec_clear(&got);
	if (archive_run_create(a, id, &s, "{}", "{}", "io_uring", 1, "[]",
			       &run) ||
	    archive_job_finish(a, id, run, "done", NULL, NULL))
		return -1;
	return run;
}

/* Every run's id, job, state and start, and how many rows of each table
 * that refers to it name it. */
#define RUNS_SQL                                                               \
	"SELECT id, job_id, state, started_at,"                                \
	" (SELECT count(*) FROM results WHERE run_id=runs.id),"                \
	" (SELECT count(*) FROM samples WHERE run_id=runs.id),"                \
	" (SELECT count(*) FROM imports WHERE run_id=runs.id)"                 \
	" FROM runs ORDER BY id"

/*
 * Migration 13 rebuilds runs: a version-6 archive whose run 3 was deleted
 * keeps runs 1, 2 and 4 with their ids, jobs, results, seconds and
 * imported file (and the summaries 8 made of them). Then the bug it
 * mends: the newest run deleted, the next run's id is still a new one.
 */
static void test_upgrade_keeps_run_ids(void)
{
	static char before[1024], after[1024];
	struct archive *a = NULL;

	ASSERT_EQ(build("v6", "DELETE FROM results WHERE run_id=3;"
			      "UPDATE jobs SET run_id=NULL WHERE run_id=3;"
			      "DELETE FROM runs WHERE id=3;"),
		  0);
	query_text(db, RUNS_SQL, before, sizeof(before));
	ASSERT_EQ(archive_open(db, &a), 0);
	query_text(db, RUNS_SQL, after, sizeof(after));
	ASSERT_STR_EQ(after, before);
	query_text(db, "SELECT id FROM runs ORDER BY id", after, sizeof(after));
	ASSERT_STR_EQ(after, "1;2;4;");
	ASSERT_TRUE(sums_agree(a, db, 1) && sums_agree(a, db, 2) &&
		    sums_agree(a, db, 4));
	ASSERT_TRUE(run_is(a, 4, "{'import':{'filename':'ssd.txt'}}"));
	ASSERT_EQ(one_run(a), 5);
	ASSERT_EQ(archive_run_delete(a, 5), 0);
	ASSERT_EQ(one_run(a), 6);
	archive_close(a);
}

/* jobs.run_id is held to no run by a key: a job that still names run 4,
 * whose row is gone, keeps 4 from the next run as well. */
static void test_upgrade_skips_id_a_job_names(void)
{
	struct archive *a = NULL;
	char v[64];

	ASSERT_EQ(build("v6", "DELETE FROM results WHERE run_id=4;"
			      "DELETE FROM imports WHERE run_id=4;"
			      "DELETE FROM runs WHERE id=4;"
			      "UPDATE jobs SET run_id=4 WHERE id=2;"),
		  0);
	ASSERT_EQ(archive_open(db, &a), 0);
	query_text(db, "SELECT seq FROM sqlite_sequence WHERE name='runs'", v,
		   sizeof(v));
	ASSERT_STR_EQ(v, "4;");
	ASSERT_EQ(one_run(a), 5);
	archive_close(a);
}

/*
 * A version-6 archive with a second of run 9, which is not there (written
 * by hand, keys off): every step goes through, foreign_key_check finds the
 * row, and nothing of the upgrade stays: the file is byte for byte what it
 * was, at version 6, runs without AUTOINCREMENT. Without the row it opens.
 */
static void test_failed_key_check_rolls_back(void)
{
	struct archive *a = (struct archive *)&a;
	char *before, *after, v[64];
	long nb = 0, na = 0;

	ASSERT_EQ(build("v6", "INSERT INTO samples VALUES (9,'SEQ1M Q8T1',"
			      "'read',1,0,1.0,1,4096,1000,0,0,0);"),
		  0);
	before = slurp(db, &nb);
	ASSERT_TRUE(before != NULL && nb > 100);
	ASSERT_TRUE(archive_open(db, &a) < 0);
	ASSERT_TRUE(a == NULL);
	after = slurp(db, &na);
	ASSERT_TRUE(after != NULL && na == nb &&
		    memcmp(before, after, (size_t)nb) == 0);
	free(before);
	free(after);
	query_text(db, "PRAGMA user_version", v, sizeof(v));
	ASSERT_STR_EQ(v, "6;");
	query_text(db,
		   "SELECT count(*) FROM sqlite_schema WHERE"
		   " name='sqlite_sequence' OR sql LIKE '%AUTOINCREMENT%'",
		   v, sizeof(v));
	ASSERT_STR_EQ(v, "0;");
	query_text(db, "DELETE FROM samples WHERE run_id=9", v, sizeof(v));
	ASSERT_EQ(archive_open(db, &a), 0);
	archive_close(a);
	ASSERT_TRUE(schema_current(db, fresh_db));
}

/*
 * A version-1 archive that already holds a table named `imports`: the
 * upgrade gets through migrations 2 to 5 and the first statement of 6, then
 * fails. Nothing of it may stay: the file is byte for byte what it was,
 * still version 1, and still opens with the old build's schema.
 */
static void test_failed_migration_rolls_back(void)
{
	struct archive *a = (struct archive *)&a;
	char *before, *after, v[4096];
	long nb = 0, na = 0;

	ASSERT_EQ(build("v1", "CREATE TABLE imports(x);"), 0);
	before = slurp(db, &nb);
	ASSERT_TRUE(before != NULL && nb > 100);
	ASSERT_TRUE(archive_open(db, &a) < 0);
	ASSERT_TRUE(a == NULL);
	after = slurp(db, &na);
	ASSERT_TRUE(after != NULL);
	ASSERT_EQ(na, nb);
	ASSERT_TRUE(memcmp(before, after, (size_t)nb) == 0);
	free(before);
	free(after);
	query_text(db, "PRAGMA user_version", v, sizeof(v));
	ASSERT_STR_EQ(v, "1;");
	query_text(db,
		   "SELECT count(*) FROM pragma_table_info('results')"
		   " WHERE name IN ('lat_p50_us','cpu_user_s','imported')",
		   v, sizeof(v));
	ASSERT_STR_EQ(v, "0;");
	query_text(db,
		   "SELECT count(*) FROM sqlite_schema WHERE name='samples'", v,
		   sizeof(v));
	ASSERT_STR_EQ(v, "0;");
	query_text(db, "PRAGMA integrity_check", v, sizeof(v));
	ASSERT_STR_EQ(v, "ok;");
	query_text(db, "SELECT id, state FROM jobs ORDER BY id", v, sizeof(v));
	ASSERT_STR_EQ(v, "1|done;2|failed;3|queued;4|running;");
}

static void test_setup(void)
{
	char cwd[PATH_MAX - 128];
	struct archive *a = NULL;

	ASSERT_TRUE(getcwd(cwd, sizeof(cwd)) != NULL);
	snprintf(dir, sizeof(dir), "%s/migrate_test.XXXXXX", cwd);
	ASSERT_TRUE(mkdtemp(dir) != NULL);
	/* a new archive: the schema every upgrade must arrive at */
	snprintf(fresh_db, sizeof(fresh_db), "%s/fresh.sqlite", dir);
	ASSERT_EQ(archive_open(fresh_db, &a), 0);
	archive_close(a);
}

static void test_cleanup(void)
{
	static const char *const names[] = { "fresh",  "v1", "v2-lat",
					     "v2-cpu", "v2", "v3",
					     "v4",     "v5", "v6" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(db, sizeof(db), "%s/%s.sqlite", dir, names[i]);
		ASSERT_EQ(unlink(db), 0);
	}
	ASSERT_EQ(rmdir(dir), 0);
}

TEST_MAIN(test_setup, test_every_version, test_v1, test_v2_lat, test_v2_cpu,
	  test_v2, test_v3, test_v4, test_v5, test_v6,
	  test_upgrade_keeps_run_ids, test_upgrade_skips_id_a_job_names,
	  test_failed_key_check_rolls_back, test_failed_migration_rolls_back,
	  test_cleanup)
