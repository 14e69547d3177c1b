/*
 * test_tx.c — every change of more than one row (or more than one
 * statement) that the archive and the credential store make is one
 * transaction, so a kill between two statements cannot leave half of it.
 *
 * How: an SQLite auto-extension installs a statement trace on every
 * connection this process opens (the archive's and each of the credential
 * store's). For each call under test the trace counts the statements that
 * write (INSERT, UPDATE, DELETE, REPLACE, CREATE, ALTER, DROP, and PRAGMA
 * user_version=) and those of them that ran outside an explicit
 * transaction (sqlite3_get_autocommit). A call that writes more than once
 * must run every write inside BEGIN … COMMIT.
 */
#include "archive/archive.h"
#include "platform/creds.h"
#include "targets/smb.h"
#include "test.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sqlite3.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static char dir[PATH_MAX - 64];
static char path[PATH_MAX];

static int n_writes, n_bare; /* this call's writes; of them, outside BEGIN */
static char last_bare[256];

static int is_write(const char *sql)
{
	static const char *const verbs[] = { "INSERT",	"UPDATE", "DELETE",
					     "REPLACE", "CREATE", "ALTER",
					     "DROP" };

	while (isspace((unsigned char)*sql))
		sql++;
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (strncasecmp(sql, verbs[i], strlen(verbs[i])) == 0)
			return 1;
	return strncasecmp(sql, "PRAGMA user_version=", 20) == 0;
}

static int on_trace(unsigned type, void *ctx, void *p, void *x)
{
	sqlite3_stmt *st = p;
	const char *sql = x;

	(void)ctx;
	if (type != SQLITE_TRACE_STMT || !sql || !is_write(sql))
		return 0;
	n_writes++;
	if (sqlite3_get_autocommit(sqlite3_db_handle(st))) {
		n_bare++;
		snprintf(last_bare, sizeof(last_bare), "%s", sql);
	}
	return 0;
}

static int trace_init(sqlite3 *db, char **err, const void *api)
{
	(void)err;
	(void)api;
	sqlite3_trace_v2(db, SQLITE_TRACE_STMT, on_trace, NULL);
	return SQLITE_OK;
}

static void reset(void)
{
	n_writes = n_bare = 0;
	last_bare[0] = '\0';
}

/* The call just made wrote once, or wrote inside one transaction. */
#define ASSERT_ONE_TX(what)                                                    \
	do {                                                                   \
		if (n_writes > 1 && n_bare > 0)                                \
			TEST_FAIL_("%s: %d writes, %d outside a transaction "  \
				   "(%.120s)",                                 \
				   what, n_writes, n_bare, last_bare);         \
		reset();                                                       \
	} while (0)

static const struct workload w = { .name = "SEQ1M Q8T1",
				   .pattern = WL_SEQUENTIAL,
				   .read_pct = 100,
				   .block_size = 1 << 20,
				   .queue_depth = 8,
				   .threads = 1 };

static void test_archive_writes(void)
{
	struct job_spec got, s = { .profile = "cdm-default",
				   .target = "/t",
				   .size = 1 << 30,
				   .iterations = 1,
				   .duration_s = 1,
				   .labels_json = "[]",
				   .notes = "" };
	struct engine_sample smp_s[2] = {
		{ .ios = { 1, 0 }, .bytes = { 1 << 20, 0 } },
		{ .ios = { 2, 0 }, .bytes = { 2 << 20, 0 } }
	};
	struct engine_samples smp = {
		.s = smp_s, .cap = 2, .n = 2, .last_s = 1
	};
	struct result r = { .ios = 3,
			    .bytes = 3 << 20,
			    .window_ns = 2000000000 };
	struct archive_import_result ir = { .name = "SEQ1M Q8T1",
					    .rw = "read",
					    .pattern = "sequential",
					    .block_size = 1 << 20,
					    .queue_depth = 8,
					    .threads = 1,
					    .mb_s = 100,
					    .iops = -1,
					    .lat_mean_us = -1 };
	struct archive_import_in in = { .tool = "CrystalDiskMark",
					.version = "8.0.4",
					.format = "cdm",
					.profile = "imported",
					.target = "D:",
					.notes = "",
					.spec_json = "{}",
					.labels_json = "[]",
					.probe_json = "{}",
					.started_at = "",
					.sha256 = "ab",
					.filename = "x.txt",
					.original = "x",
					.len = 1,
					.results = &ir,
					.n = 1 };
	struct archive *a = NULL;
	int64_t id = 0, id2 = 0, run = 0, imp = 0;
	int n;

	snprintf(path, sizeof(path), "%s/archive.sqlite", dir);
	reset();
	ASSERT_EQ(archive_open(path, &a), 0);
	ASSERT_TRUE(n_writes > 1); /* the migrations, traced */
	ASSERT_ONE_TX("archive_open (new)");
	archive_close(a);
	ASSERT_EQ(archive_open(path, &a), 0);
	ASSERT_ONE_TX("archive_open (current)");

	ASSERT_EQ(archive_job_insert(a, &s, &id), 0);
	ASSERT_ONE_TX("archive_job_insert");
	ASSERT_EQ(archive_job_insert(a, &s, &id2), 0);
	reset();
	ASSERT_EQ(archive_job_claim_next(a, &id, &got), 0);
	job_spec_clear(&got);
	ASSERT_ONE_TX("archive_job_claim_next");
	ASSERT_EQ(archive_run_create(a, id, &s, "{}", "{}", "io_uring", 1, "[]",
				     &run),
		  0);
	ASSERT_TRUE(n_writes >= 2);
	ASSERT_ONE_TX("archive_run_create");
	ASSERT_EQ(archive_run_warn(a, run, "w"), 0);
	ASSERT_ONE_TX("archive_run_warn");
	ASSERT_EQ(archive_sample_put(a, run, &w, 1, 0, &smp_s[0], NULL), 0);
	ASSERT_ONE_TX("archive_sample_put");
	ASSERT_EQ(archive_samples_insert(a, run, &w, 1, &smp), 0);
	ASSERT_ONE_TX("archive_samples_insert");
	ASSERT_EQ(archive_iteration_insert(a, run, &w, 2, &r, NULL, &smp), 0);
	ASSERT_TRUE(n_writes >= 3);
	ASSERT_ONE_TX("archive_iteration_insert");
	ASSERT_EQ(archive_result_insert(a, run, &w, 3, &r, NULL), 0);
	ASSERT_ONE_TX("archive_result_insert");
	ASSERT_EQ(archive_testfile_add(a, "/t/f", id), 0);
	ASSERT_ONE_TX("archive_testfile_add");
	ASSERT_EQ(archive_testfile_remove(a, "/t/f"), 0);
	ASSERT_ONE_TX("archive_testfile_remove");
	ASSERT_EQ(archive_run_update(a, run, "[\"x\"]", "n"), 0);
	ASSERT_ONE_TX("archive_run_update");
	ASSERT_EQ(archive_job_finish(a, id, run, "done", NULL, NULL), 0);
	ASSERT_TRUE(n_writes >= 2);
	ASSERT_ONE_TX("archive_job_finish");
	ASSERT_EQ(archive_job_cancel_queued(a, id2), 1);
	ASSERT_ONE_TX("archive_job_cancel_queued");
	ASSERT_EQ(archive_interrupt_running(a, &n), 0);
	ASSERT_ONE_TX("archive_interrupt_running");
	ASSERT_EQ(archive_import(a, &in, &imp), 0);
	ASSERT_TRUE(n_writes >= 3);
	ASSERT_ONE_TX("archive_import");
	ASSERT_EQ(archive_import(a, &in, &id2), -EEXIST);
	ASSERT_EQ(id2, imp);
	ASSERT_ONE_TX("archive_import (again)");
	ASSERT_EQ(archive_run_delete(a, imp), 0);
	ASSERT_ONE_TX("archive_run_delete (imported)");
	ASSERT_EQ(archive_run_delete(a, run), 0);
	ASSERT_TRUE(n_writes >= 2);
	ASSERT_ONE_TX("archive_run_delete");
	archive_close(a);
	unlink(path);
}

static void test_creds_writes(void)
{
	struct smb_session sess;
	int created = -1;

	snprintf(path, sizeof(path), "%s/credentials.db", dir);
	ASSERT_EQ(creds_init(path), 0);
	reset();
	ASSERT_EQ(creds_put("filer1", "bench", "pw1", "CORP", 0, &created), 0);
	ASSERT_EQ(created, 1);
	ASSERT_ONE_TX("creds_put (new)");
	/* exists: the INSERT fails, the UPDATE replaces, in one transaction */
	ASSERT_EQ(creds_put("filer1", "bench2", "pw2", "CORP", 1, &created), 0);
	ASSERT_EQ(created, 0);
	ASSERT_TRUE(n_writes == 2);
	ASSERT_ONE_TX("creds_put (replace)");
	ASSERT_EQ(creds_put("filer1", "x", "y", "z", 0, &created), -EEXIST);
	ASSERT_ONE_TX("creds_put (exists)");
	memset(&sess, 0, sizeof(sess));
	ASSERT_EQ(creds_get("filer1", &sess), 0);
	ASSERT_STR_EQ(sess.user, "bench2");
	ASSERT_STR_EQ(sess.password, "pw2");
	explicit_bzero(&sess, sizeof(sess));
	ASSERT_EQ(creds_delete("filer1"), 0);
	ASSERT_ONE_TX("creds_delete");
	ASSERT_EQ(creds_delete("filer1"), -ENOENT);
	unlink(path);
}

struct import_call {
	struct archive *a;
	const struct archive_import_in *in;
	int64_t run_id;
	int rc;
};

static void *import_thread(void *arg)
{
	struct import_call *c = arg;

	c->rc = archive_import(c->a, c->in, &c->run_id);
	return NULL;
}

/*
 * Two imports of one file at once make one run: the second asks whether
 * the file is there inside its own transaction, so it answers -EEXIST with
 * the first one's run (asked before BEGIN, it saw nothing, then failed on
 * the UNIQUE sha256 with -EIO). The first import is another connection
 * holding its transaction open while the archive's import starts.
 */
static void test_import_race(void)
{
	struct archive_import_result ir = { .name = "SEQ1M Q8T1",
					    .rw = "read",
					    .pattern = "sequential",
					    .block_size = 1 << 20,
					    .queue_depth = 8,
					    .threads = 1,
					    .mb_s = 100,
					    .iops = -1,
					    .lat_mean_us = -1 };
	struct archive_import_in in = { .tool = "CrystalDiskMark",
					.version = "8.0.4",
					.format = "cdm",
					.profile = "imported",
					.target = "D:",
					.notes = "",
					.spec_json = "{}",
					.labels_json = "[]",
					.probe_json = "{}",
					.started_at = "",
					.sha256 = "race",
					.filename = "x.txt",
					.original = "x",
					.len = 1,
					.results = &ir,
					.n = 1 };
	struct import_call c = { .in = &in, .rc = 1 };
	struct timespec wait = { 0, 300000000 };
	sqlite3 *other = NULL;
	sqlite3_stmt *st = NULL;
	int64_t first = 0;
	pthread_t tid;

	sqlite3_reset_auto_extension(); /* no trace: two threads below */
	snprintf(path, sizeof(path), "%s/race.sqlite", dir);
	ASSERT_EQ(archive_open(path, &c.a), 0);
	ASSERT_EQ(sqlite3_open(path, &other), SQLITE_OK);
	sqlite3_busy_timeout(other, 5000);
	ASSERT_EQ(sqlite3_exec(
			  other,
			  "BEGIN IMMEDIATE;"
			  "INSERT INTO runs(state, profile, target, spec,"
			  " engine_version, engine_target, direct, probe,"
			  " started_at) VALUES ('done', 'imported', 'D:',"
			  " '{}', '8.0.4', 'CrystalDiskMark', 1, '{}',"
			  " '2026-11-30T00:00:00Z');"
			  "INSERT INTO imports(run_id, tool, version, format,"
			  " sha256, size, original, imported_at) VALUES"
			  " (last_insert_rowid(), 'CrystalDiskMark', '8.0.4',"
			  " 'cdm', 'race', 1, X'78', '2026-11-30T00:00:00Z');",
			  NULL, NULL, NULL),
		  SQLITE_OK);
	first = sqlite3_last_insert_rowid(other);
	ASSERT_EQ(pthread_create(&tid, NULL, import_thread, &c), 0);
	nanosleep(&wait, NULL); /* the import waits for the lock */
	ASSERT_EQ(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	pthread_join(tid, NULL);
	ASSERT_EQ(c.rc, -EEXIST);
	ASSERT_EQ(c.run_id, first);
	ASSERT_EQ(sqlite3_prepare_v2(other, "SELECT count(*) FROM runs", -1,
				     &st, NULL),
		  SQLITE_OK);
	ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
	ASSERT_EQ(sqlite3_column_int(st, 0), 1);
	sqlite3_finalize(st);
	sqlite3_close(other);
	archive_close(c.a);
	unlink(path);
}

static void test_setup(void)
{
	char cwd[PATH_MAX - 128];

	ASSERT_TRUE(getcwd(cwd, sizeof(cwd)) != NULL);
	snprintf(dir, sizeof(dir), "%s/tx_test.XXXXXX", cwd);
	ASSERT_TRUE(mkdtemp(dir) != NULL);
	ASSERT_EQ(sqlite3_auto_extension((void (*)(void))trace_init),
		  SQLITE_OK);
}

static void test_cleanup(void)
{
	sqlite3_reset_auto_extension();
	ASSERT_EQ(rmdir(dir), 0);
}

TEST_MAIN(test_setup, test_archive_writes, test_creds_writes, test_import_race,
	  test_cleanup)
