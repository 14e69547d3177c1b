/*
 * archive_schema — the archive's schema: the forward migrations, the repair
 * of an early version 2, and the version in PRAGMA user_version.
 *
 * migrations[v] takes a file from version v to v + 1; the array only ever
 * grows, and a shipped entry never changes (tests/fixtures/archive holds an
 * archive of every earlier version, and make-fixtures.py reads this array
 * as it was at each of their commits); a step that SQL cannot say (summing
 * up the stored results in C, as the API reads them) is fills[v], run right
 * after migrations[v]. archive_migrate() runs the missing
 * steps, checks the foreign keys and sets the new version in one
 * transaction, so a failed step leaves the file at its old version; the
 * keys are off during it, so a step may rebuild a table others refer to
 * (SQLite's twelve steps; 13 rebuilds runs). Calls archive_sql.c and
 * archive_sums.c (fills).
 */
#include <errno.h>
#include <stdio.h>

#include "archive_int.h"
#include "platform/log.h"

static const char *const migrations[] = {
	/* 1: queue, runs, results, test files */
	"CREATE TABLE jobs("
	" id INTEGER PRIMARY KEY,"
	" state TEXT NOT NULL CHECK (state IN ('queued','running','done',"
	"  'failed','cancelled','interrupted')),"
	" profile TEXT NOT NULL, target TEXT NOT NULL,"
	" size INTEGER NOT NULL, iterations INTEGER NOT NULL,"
	" duration_s REAL NOT NULL, interval_s REAL NOT NULL,"
	" labels TEXT NOT NULL DEFAULT '[]', notes TEXT NOT NULL DEFAULT '',"
	" created_at TEXT NOT NULL, started_at TEXT, finished_at TEXT,"
	" run_id INTEGER, error TEXT);"
	"CREATE INDEX jobs_state ON jobs(state, id);"
	"CREATE TABLE runs("
	" id INTEGER PRIMARY KEY,"
	" job_id INTEGER REFERENCES jobs(id) ON DELETE SET NULL,"
	" state TEXT NOT NULL CHECK (state IN ('running','done','failed',"
	"  'cancelled','interrupted')),"
	" profile TEXT NOT NULL, target TEXT NOT NULL, spec TEXT NOT NULL,"
	" labels TEXT NOT NULL DEFAULT '[]', notes TEXT NOT NULL DEFAULT '',"
	" engine_version TEXT NOT NULL, engine_target TEXT NOT NULL,"
	" direct INTEGER NOT NULL, probe TEXT NOT NULL,"
	" warnings TEXT NOT NULL DEFAULT '[]', hostname TEXT, fs_type TEXT,"
	" started_at TEXT NOT NULL, finished_at TEXT);"
	"CREATE TABLE results("
	" id INTEGER PRIMARY KEY,"
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" test TEXT NOT NULL, rw TEXT NOT NULL, pattern TEXT NOT NULL,"
	" block_size INTEGER NOT NULL, queue_depth INTEGER NOT NULL,"
	" threads INTEGER NOT NULL, iteration INTEGER NOT NULL,"
	" ios INTEGER NOT NULL, bytes INTEGER NOT NULL,"
	" lat_sum_ns INTEGER NOT NULL, window_ns INTEGER NOT NULL,"
	" seconds REAL NOT NULL, mb_s REAL NOT NULL, mib_s REAL NOT NULL,"
	" iops REAL NOT NULL, lat_mean_us REAL NOT NULL,"
	" UNIQUE (run_id, test, rw, iteration));"
	"CREATE TABLE test_files("
	" path TEXT PRIMARY KEY, job_id INTEGER, created_at TEXT NOT NULL);",
	/* 2: latency distribution per iteration, µs, and the process's CPU
	 * time during it, s (NULL for older rows) */
	"ALTER TABLE results ADD COLUMN cpu_user_s REAL;"
	"ALTER TABLE results ADD COLUMN cpu_sys_s REAL;"
	"ALTER TABLE results ADD COLUMN lat_stdev_us REAL;"
	"ALTER TABLE results ADD COLUMN lat_min_us REAL;"
	"ALTER TABLE results ADD COLUMN lat_p50_us REAL;"
	"ALTER TABLE results ADD COLUMN lat_p90_us REAL;"
	"ALTER TABLE results ADD COLUMN lat_p99_us REAL;"
	"ALTER TABLE results ADD COLUMN lat_p999_us REAL;"
	"ALTER TABLE results ADD COLUMN lat_p9999_us REAL;"
	"ALTER TABLE results ADD COLUMN lat_max_us REAL;"
	/* per-second counts of each iteration; rates are derived on read */
	"CREATE TABLE samples("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" test TEXT NOT NULL, rw TEXT NOT NULL, iteration INTEGER NOT NULL,"
	" second INTEGER NOT NULL, length_s REAL NOT NULL,"
	" read_ios INTEGER NOT NULL, read_bytes INTEGER NOT NULL,"
	" read_lat_sum_ns INTEGER NOT NULL, write_ios INTEGER NOT NULL,"
	" write_bytes INTEGER NOT NULL, write_lat_sum_ns INTEGER NOT NULL,"
	" PRIMARY KEY (run_id, test, rw, iteration, second));",
	/* 3: a job's tests written out in full (plan.h; NULL for older jobs:
	 * expand the profile), its back-end and direct I/O request; each
	 * iteration's whole latency histogram (hist_encode), so a test's
	 * percentiles over all its iterations are exact merges */
	"ALTER TABLE jobs ADD COLUMN plan TEXT;"
	"ALTER TABLE jobs ADD COLUMN engine TEXT;"
	"ALTER TABLE jobs ADD COLUMN direct INTEGER NOT NULL DEFAULT 1;"
	"ALTER TABLE results ADD COLUMN lat_hist BLOB;",
	/* 4: a preset's options; the sweep a result is a point of; why a
	 * measurement could not be made (a file-creation method the
	 * filesystem does not support) */
	"ALTER TABLE jobs ADD COLUMN options TEXT;"
	"ALTER TABLE results ADD COLUMN sweep_group TEXT;"
	"ALTER TABLE results ADD COLUMN sweep_field TEXT;"
	"ALTER TABLE results ADD COLUMN sweep_value REAL;"
	"ALTER TABLE results ADD COLUMN error TEXT;"
	"ALTER TABLE results ADD COLUMN allocated_bytes INTEGER;",
	/* 5: an SMB target's session: the credential's name and the
	 * protocol knobs (never a password) */
	"ALTER TABLE jobs ADD COLUMN smb TEXT;",
	/* 6: results imported from other tools (their numbers as printed,
	 * kept in mb_s, iops, lat_mean_us) and the original files */
	"ALTER TABLE results ADD COLUMN imported INTEGER NOT NULL DEFAULT 0;"
	"CREATE TABLE imports("
	" run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
	" tool TEXT NOT NULL, version TEXT NOT NULL, format TEXT NOT NULL,"
	" sha256 TEXT NOT NULL UNIQUE, filename TEXT, size INTEGER NOT NULL,"
	" original BLOB NOT NULL, imported_at TEXT NOT NULL);",
	/* 7: an interleaved comparison job's other targets (its runs are
	 * the runs whose job_id is the job's: indexed, as every job listing
	 * reads them) */
	"ALTER TABLE jobs ADD COLUMN compare_with TEXT;"
	"CREATE INDEX runs_job ON runs(job_id);",
	/* 8: each test of a run summed up (archive_sums.c): its shape, its
	 * best iteration's MB/s and IOPS, and per compared metric n, mean
	 * and sample sd over the iterations, with their values (vals:
	 * iterations x mb_s, iops, lat_mean_us, lat_p99_us, little-endian
	 * doubles, NaN for none); seq is the test's first result id, the
	 * order it ran in. Filled for the runs already stored by
	 * archive_sums_fill (fills[] below). Runs by state and start, as
	 * /metrics reads them. */
	"CREATE TABLE test_summaries("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" seq INTEGER NOT NULL, test TEXT NOT NULL, rw TEXT NOT NULL,"
	" pattern TEXT NOT NULL, block_size INTEGER NOT NULL,"
	" queue_depth INTEGER NOT NULL, threads INTEGER NOT NULL,"
	" sweep TEXT, iterations INTEGER NOT NULL, errors INTEGER NOT NULL,"
	" best_mb_s REAL, best_iops REAL,"
	" mb_s_n INTEGER NOT NULL, mb_s_mean REAL, mb_s_sd REAL,"
	" iops_n INTEGER NOT NULL, iops_mean REAL, iops_sd REAL,"
	" lat_mean_us_n INTEGER NOT NULL, lat_mean_us_mean REAL,"
	" lat_mean_us_sd REAL,"
	" lat_p99_us_n INTEGER NOT NULL, lat_p99_us_mean REAL,"
	" lat_p99_us_sd REAL, vals BLOB NOT NULL,"
	" PRIMARY KEY (run_id, test, rw));"
	"CREATE INDEX runs_state_started ON runs(state, started_at);",
	/* 9: a run's identity across archives (uuid: made with the run,
	 * kept when storbench's own run document is imported elsewhere, so
	 * a second import is known), and an imported file's runs (part:
	 * the run's place in its file; a DiskSpd text file may hold
	 * several, so the file's SHA-256 alone no longer names one) */
	"ALTER TABLE runs ADD COLUMN uuid TEXT;"
	"UPDATE runs SET uuid=" ARCHIVE_NEW_UUID ";"
	"CREATE UNIQUE INDEX runs_uuid ON runs(uuid);"
	"CREATE TABLE imports_v9("
	" run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
	" tool TEXT NOT NULL, version TEXT NOT NULL, format TEXT NOT NULL,"
	" sha256 TEXT NOT NULL, part INTEGER NOT NULL DEFAULT 0,"
	" filename TEXT, size INTEGER NOT NULL,"
	" original BLOB NOT NULL, imported_at TEXT NOT NULL,"
	" UNIQUE (sha256, part));"
	"INSERT INTO imports_v9(run_id, tool, version, format, sha256, part,"
	" filename, size, original, imported_at) SELECT run_id, tool,"
	" version, format, sha256, 0, filename, size, original, imported_at"
	" FROM imports;"
	"DROP TABLE imports;"
	"ALTER TABLE imports_v9 RENAME TO imports;",
	/* 10: an SMB run's wire baseline (daemon/wire/wire.h: TCP throughput to
	 * its file server, both ways, by iperf3), JSON; NULL for none */
	"ALTER TABLE runs ADD COLUMN wire TEXT;",
	/* 11: each second's host and device counters (archive_ctr.c), JSON
	 * objects as served; NULL where none were taken (an older run,
	 * another system, a target without a local block device) */
	"ALTER TABLE samples ADD COLUMN host TEXT;"
	"ALTER TABLE samples ADD COLUMN device TEXT;",
	/* 12: a test's preconditioning and SNIA PTS steady state
	 * (archive_steady.c): the measurement window's rounds (the
	 * iterations its summary sums up; NULL: every one) and the record
	 * as the run shows it, JSON text */
	"CREATE TABLE test_conditions("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" test TEXT NOT NULL, rw TEXT NOT NULL,"
	" window_first INTEGER, window_last INTEGER, record TEXT NOT NULL,"
	" PRIMARY KEY (run_id, test, rw));",
	/* 13: a run's id is never given to another run, so an old link
	 * never opens a newer run: the largest id was free again once its
	 * run was deleted. runs is rebuilt with AUTOINCREMENT by SQLite's
	 * twelve steps for a schema change (lang_altertable.html): foreign
	 * keys are off (archive_migrate), the new table has every column
	 * of 1, 9 and 10 in their order and every row with its id, the
	 * old one goes (its children keep their run_id and name "runs"),
	 * the new one takes its name, the indexes of 7, 8 and 9 are made
	 * again, and archive_migrate runs foreign_key_check before the
	 * commit. The next id is above every id the archive still names:
	 * the runs', and jobs.run_id, which no foreign key holds to a run
	 * (the other tables' run_id do, and the check proves it); a run
	 * deleted before this migration left no trace, and its id may
	 * still go to the next run, once. jobs keeps its ids as they are:
	 * nothing deletes a job (DELETE /api/v1/jobs/{id} cancels it), so
	 * its largest id is never freed. */
	"CREATE TABLE runs_v13("
	" id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" job_id INTEGER REFERENCES jobs(id) ON DELETE SET NULL,"
	" state TEXT NOT NULL CHECK (state IN ('running','done','failed',"
	"  'cancelled','interrupted')),"
	" profile TEXT NOT NULL, target TEXT NOT NULL, spec TEXT NOT NULL,"
	" labels TEXT NOT NULL DEFAULT '[]', notes TEXT NOT NULL DEFAULT '',"
	" engine_version TEXT NOT NULL, engine_target TEXT NOT NULL,"
	" direct INTEGER NOT NULL, probe TEXT NOT NULL,"
	" warnings TEXT NOT NULL DEFAULT '[]', hostname TEXT, fs_type TEXT,"
	" started_at TEXT NOT NULL, finished_at TEXT, uuid TEXT, wire TEXT);"
	"INSERT INTO runs_v13(id, job_id, state, profile, target, spec,"
	" labels, notes, engine_version, engine_target, direct, probe,"
	" warnings, hostname, fs_type, started_at, finished_at, uuid, wire)"
	" SELECT id, job_id, state, profile, target, spec, labels, notes,"
	" engine_version, engine_target, direct, probe, warnings, hostname,"
	" fs_type, started_at, finished_at, uuid, wire FROM runs;"
	"DROP TABLE runs;"
	"ALTER TABLE runs_v13 RENAME TO runs;"
	"CREATE INDEX runs_job ON runs(job_id);"
	"CREATE INDEX runs_state_started ON runs(state, started_at);"
	"CREATE UNIQUE INDEX runs_uuid ON runs(uuid);"
	"DELETE FROM sqlite_sequence WHERE name='runs';"
	"INSERT INTO sqlite_sequence(name, seq) SELECT 'runs', m FROM"
	" (SELECT max(id) AS m FROM (SELECT max(id) AS id FROM runs"
	"  UNION ALL SELECT max(run_id) FROM jobs)) WHERE m IS NOT NULL;",
	/* 14: what an imported file states beside its rates
	 * (archive_import.c): {bytes, ios, seconds, latency_us} as the API
	 * serves them, JSON text; NULL for a measured result and for one
	 * imported before */
	"ALTER TABLE results ADD COLUMN stated TEXT;",
	/* 15: the wall clock at a window's opening (struct result's
	 * start_unix_ns, ns since 1970 UTC), so a multi-host job's hosts'
	 * windows and seconds line up; NULL where unknown */
	"ALTER TABLE results ADD COLUMN start_unix_ns INTEGER;",
	/* 16: what this daemon's hub (serve --hub URL) has of its runs
	 * (archive_hub.c): a row per run and hub URL once the hub took the
	 * run (pushed: the hub's id of it) or refused it (a 4xx: its status
	 * and detail; not sent again); an ended run without a row for the
	 * hub is pending, so a restart finds it again */
	"CREATE TABLE hub_pushes("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" hub TEXT NOT NULL,"
	" state TEXT NOT NULL CHECK (state IN ('pushed','refused')),"
	" hub_run_id INTEGER, status INTEGER, detail TEXT,"
	" at TEXT NOT NULL,"
	" PRIMARY KEY (run_id, hub));",
	/* 17: multi-host jobs (daemon/fleet): a coordinator's job holds
	 * its hosts and the request each is sent (hosts, JSON), a member's
	 * job its coordinator and host name (fleet, JSON); fleet_members
	 * is where each host's job of a coordinator's job is, so that a
	 * coordinator started again cancels the jobs a crash left running
	 * on its hosts (settled: done that, or they ended) */
	"ALTER TABLE jobs ADD COLUMN hosts TEXT;"
	"ALTER TABLE jobs ADD COLUMN fleet TEXT;"
	"CREATE TABLE fleet_members("
	" job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,"
	" host TEXT NOT NULL, url TEXT NOT NULL, member_job INTEGER NOT NULL,"
	" settled INTEGER NOT NULL DEFAULT 0,"
	" PRIMARY KEY (job_id, host));",
	/* 18: a target's history (archive_history.c) reads its runs by
	 * target and profile in the order they started, one index range
	 * instead of every run's row */
	"CREATE INDEX runs_target ON runs(target, profile, started_at);",
};

/* What a migration cannot say in SQL: fills[v] runs after migrations[v]
 * (NULL: nothing), in the same transaction. */
static int (*const fills[])(struct archive *a) = {
	[7] = archive_sums_fill,
};
#define N_FILLS ((int)(sizeof(fills) / sizeof(fills[0])))

#define N_MIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))
_Static_assert(N_MIGRATIONS == ARCHIVE_SCHEMA_VERSION,
	       "ARCHIVE_SCHEMA_VERSION is the number of migrations");

/*
 * Columns and tables that an earlier build added to migration 2 after it
 * had shipped as version 2 (results.cpu_user_s and cpu_sys_s, the samples
 * table): an archive made by the first version-2 build lacks them at any
 * later version. Adds what is missing; part of the caller's transaction.
 * *n receives how many objects were added.
 */
static int repair_v2(struct archive *a, int *n)
{
	sqlite3_stmt *st;
	int cpu = 1, samples = 1, rc;

	*n = 0;
	if ((rc = archive_prep(a,
			       "SELECT (SELECT count(*) FROM pragma_table_info("
			       "'results') WHERE name='cpu_user_s'),"
			       " (SELECT count(*) FROM sqlite_schema WHERE"
			       " type='table' AND name='samples')",
			       &st)) < 0)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW) {
		cpu = sqlite3_column_int(st, 0);
		samples = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	if (!cpu) {
		if ((rc = archive_exec(
			     a,
			     "ALTER TABLE results ADD COLUMN cpu_user_s REAL;"
			     "ALTER TABLE results ADD COLUMN cpu_sys_s "
			     "REAL;")) < 0)
			return rc;
		*n += 2;
	}
	if (!samples) {
		if ((rc = archive_exec(
			     a,
			     "CREATE TABLE samples("
			     " run_id INTEGER NOT NULL REFERENCES runs(id)"
			     "  ON DELETE CASCADE,"
			     " test TEXT NOT NULL, rw TEXT NOT NULL,"
			     " iteration INTEGER NOT NULL,"
			     " second INTEGER NOT NULL, length_s REAL NOT NULL,"
			     " read_ios INTEGER NOT NULL,"
			     " read_bytes INTEGER NOT NULL,"
			     " read_lat_sum_ns INTEGER NOT NULL,"
			     " write_ios INTEGER NOT NULL,"
			     " write_bytes INTEGER NOT NULL,"
			     " write_lat_sum_ns INTEGER NOT NULL,"
			     " PRIMARY KEY (run_id, test, rw, iteration,"
			     "  second));")) < 0)
			return rc;
		*n += 1;
	}
	return 0;
}

int archive_user_version(struct archive *a, int *version)
{
	sqlite3_stmt *st;
	int rc, src;

	*version = 0;
	if ((rc = archive_prep(a, "PRAGMA user_version", &st)) < 0)
		return rc;
	src = sqlite3_step(st);
	if (src == SQLITE_ROW)
		*version = sqlite3_column_int(st, 0);
	else
		rc = archive_sql_err(a, src, "user_version");
	sqlite3_finalize(st);
	return rc;
}

/*
 * PRAGMA foreign_key_check over the whole file, as the twelve steps of a
 * table rebuild end: with the keys off no step was held to them. 0 when
 * every row's parent is there; -EIO (the first few rows logged) when one
 * is not, which fails the migration: the archive stays as it was.
 */
static int keys_hold(struct archive *a, const char *path)
{
	sqlite3_stmt *st;
	int n = 0, rc, src;

	if ((rc = archive_prep(a, "PRAGMA foreign_key_check", &st)) < 0)
		return rc;
	while ((src = sqlite3_step(st)) == SQLITE_ROW) {
		if (n++ < 5)
			log_error("archive %s: %s row %lld names a %s row "
				  "that is not there",
				  path,
				  (const char *)sqlite3_column_text(st, 0),
				  (long long)sqlite3_column_int64(st, 1),
				  (const char *)sqlite3_column_text(st, 2));
	}
	if (src != SQLITE_DONE)
		rc = archive_sql_err(a, src, "foreign_key_check");
	else if (n)
		rc = -EIO;
	sqlite3_finalize(st);
	return rc;
}

/*
 * The migration's transaction: every step from the file's version to
 * N_MIGRATIONS, the foreign keys checked, and the new user_version commit
 * together, or (a step or the check fails) nothing does and the file stays
 * at its old version.
 */
static int migrate_tx(struct archive *a, const char *path)
{
	char pragma[64];
	int version, repaired = 0, rc;

	if ((rc = archive_exec(a, "BEGIN IMMEDIATE")) < 0)
		return rc;
	/* again inside the transaction: another process may have migrated */
	if ((rc = archive_user_version(a, &version)) < 0)
		goto out;
	if (version > N_MIGRATIONS) {
		rc = -EPROTO;
		goto out;
	}
	/* before the migrations after 2: they may change what it adds
	 * (11 adds columns to samples) */
	if (version >= 2 && (rc = repair_v2(a, &repaired)) < 0)
		goto out;
	for (int v = version; v < N_MIGRATIONS; v++) {
		if ((rc = archive_exec(a, migrations[v])) < 0 ||
		    (v < N_FILLS && fills[v] && (rc = fills[v](a)) < 0)) {
			log_error("archive %s: migration to version %d failed; "
				  "left at version %d",
				  path, v + 1, version);
			goto out;
		}
	}
	if (version < N_MIGRATIONS && (rc = keys_hold(a, path)) < 0) {
		log_error("archive %s: rows name rows that are not there; "
			  "left at version %d",
			  path, version);
		goto out;
	}
	if (repaired)
		log_warn("archive %s: added %d object(s) an early version 2 "
			 "lacked",
			 path, repaired);
	snprintf(pragma, sizeof(pragma), "PRAGMA user_version=%d;",
		 N_MIGRATIONS);
	if (version < N_MIGRATIONS && (rc = archive_exec(a, pragma)) < 0)
		goto out;
	if (version < N_MIGRATIONS && version > 0)
		log_info("archive %s: schema version %d -> %d", path, version,
			 N_MIGRATIONS);
out:
	return archive_tx_end(a, rc);
}

/*
 * Foreign keys are off during the migration's transaction, always, and on
 * again after it, however it ended. Off: a step may rebuild a table others
 * refer to (13 rebuilds runs), and with the keys on its DROP TABLE would
 * delete every child row through ON DELETE CASCADE; SQLite's twelve steps
 * begin so. Always: whether a rebuild is among the steps is known only
 * from the version read inside the transaction (another process may have
 * migrated since archive_open read it), and foreign_keys is a no-op inside
 * a transaction; keys_hold checks what the steps wrote instead. Must be
 * called outside a transaction, for that reason.
 */
int archive_migrate(struct archive *a, const char *path)
{
	int rc, on;

	if (!sqlite3_get_autocommit(a->db))
		return -EINVAL;
	if ((rc = archive_exec(a, "PRAGMA foreign_keys=OFF")) < 0)
		return rc;
	rc = migrate_tx(a, path);
	on = archive_exec(a, "PRAGMA foreign_keys=ON");
	return rc < 0 ? rc : on;
}
