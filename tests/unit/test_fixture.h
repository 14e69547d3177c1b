/*
 * test_fixture.h — the archive fixtures of tests/fixtures/archive as real
 * SQLite files, and what a file holds read with plain SQLite, not through
 * the archive's code: its rows, and whether its schema is current. For
 * test_migrate.c (FIXTURES_DIR names the folder).
 */
#ifndef STORBENCH_TEST_FIXTURE_H
#define STORBENCH_TEST_FIXTURE_H

#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive/archive.h"

#ifndef FIXTURES_DIR
#error "FIXTURES_DIR names tests/fixtures/archive"
#endif

/* The whole file at path, malloc'd and NUL-terminated; *n its length. */
static char *slurp(const char *path, long *n)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)len + 1))) {
		if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
			free(buf);
			buf = NULL;
		} else {
			buf[len] = '\0';
			*n = len;
		}
	}
	fclose(f);
	return buf;
}

/* Makes the SQLite file db from fixture name (plus extra SQL, may be
 * NULL), in WAL mode as the daemon had it. Returns 0 or -1. */
static int fixture_build(const char *db, const char *name, const char *extra)
{
	char path[PATH_MAX];
	sqlite3 *h = NULL;
	char *sql, *msg = NULL;
	long n;
	int ok;

	snprintf(path, sizeof(path), "%s/%s.sql", FIXTURES_DIR, name);
	unlink(db);
	if (!(sql = slurp(path, &n))) {
		fprintf(stderr, "  cannot read %s\n", path);
		return -1;
	}
	ok = sqlite3_open(db, &h) == SQLITE_OK &&
	     sqlite3_exec(h, "PRAGMA journal_mode=WAL", NULL, NULL, &msg) ==
		     SQLITE_OK &&
	     sqlite3_exec(h, sql, NULL, NULL, &msg) == SQLITE_OK &&
	     (!extra || sqlite3_exec(h, extra, NULL, NULL, &msg) == SQLITE_OK);
	if (!ok)
		fprintf(stderr, "  %s: %s\n", name,
			msg ? msg : sqlite3_errmsg(h));
	sqlite3_free(msg);
	sqlite3_close(h);
	free(sql);
	return ok ? 0 : -1;
}

/* The rows of sql on file path as one text: columns '|', rows ';'. */
static void query_text(const char *path, const char *sql, char *out, size_t len)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	size_t k = 0;

	out[0] = '\0';
	/* read-write: a read-only connection leaves the -wal file behind */
	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE, NULL) !=
		    SQLITE_OK ||
	    sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(out, len, "error: %s", sqlite3_errmsg(h));
		sqlite3_close(h);
		return;
	}
	while (sqlite3_step(st) == SQLITE_ROW && k < len) {
		for (int i = 0; i < sqlite3_column_count(st) && k < len; i++) {
			const unsigned char *v = sqlite3_column_text(st, i);
			k += (size_t)snprintf(out + k, len - k, "%s%s",
					      i ? "|" : "",
					      v ? (const char *)v : "NULL");
		}
		if (k < len)
			k += (size_t)snprintf(out + k, len - k, ";");
	}
	sqlite3_finalize(st);
	sqlite3_close(h);
}

/* Every table's columns (name, type, NOT NULL, default, key) and every
 * index, by name: what a schema is, whatever order ALTER TABLE added the
 * columns in. */
#define SCHEMA_SQL                                                             \
	"SELECT m.type, m.name, p.name, p.type, p.\"notnull\", p.dflt_value,"  \
	" p.pk FROM sqlite_schema m, pragma_table_info(m.name) p"              \
	" WHERE m.type='table' UNION ALL SELECT type, name, tbl_name, NULL,"   \
	" NULL, NULL, NULL FROM sqlite_schema WHERE type='index'"              \
	" ORDER BY 1, 2, 3"

/* user_version, integrity, foreign keys and the schema of the file at
 * path against those of fresh, a new archive. */
static int schema_current(const char *path, const char *fresh)
{
	static char got[16384], want[16384];
	char v[64];

	query_text(path, "PRAGMA user_version", v, sizeof(v));
	if (strtol(v, NULL, 10) != ARCHIVE_SCHEMA_VERSION) {
		fprintf(stderr, "  user_version %s\n", v);
		return 0;
	}
	query_text(path, "PRAGMA integrity_check", v, sizeof(v));
	if (strcmp(v, "ok;") != 0) {
		fprintf(stderr, "  integrity_check %s\n", v);
		return 0;
	}
	query_text(path, "PRAGMA foreign_key_check", got, sizeof(got));
	if (got[0]) {
		fprintf(stderr, "  foreign_key_check %s\n", got);
		return 0;
	}
	query_text(path, SCHEMA_SQL, got, sizeof(got));
	query_text(fresh, SCHEMA_SQL, want, sizeof(want));
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "  schema\n  got  %s\n  want %s\n", got, want);
		return 0;
	}
	return 1;
}

#endif
