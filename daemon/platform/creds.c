/*
 * creds — see creds.h.
 */
#include "creds.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "log.h"
#include "sys.h"
#include "targets/smb.h"

static char store[PATH_MAX];

/* A connection to the store, or NULL (logged). */
static sqlite3 *db_open(void)
{
	sqlite3 *db = NULL;

	if (!store[0] ||
	    sqlite3_open_v2(store, &db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		log_error("credential store %s: %s", store,
			  db ? sqlite3_errmsg(db) : "cannot open");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, 5000);
	return db;
}

struct sqlite3 *creds_db_open(void)
{
	return db_open();
}

int creds_init(const char *path)
{
	sqlite3 *db;
	char *err = NULL;
	int fd, rc;

	if (snprintf(store, sizeof(store), "%s", path) >= (int)sizeof(store))
		return -ENAMETOOLONG;
	/* the file exists, ours only, before SQLite writes a byte to it */
	if ((fd = sys_open_private(path, SYS_OPEN_OWN)) < 0)
		return fd;
	close(fd);
	if (!(db = db_open()))
		return -EIO;
	rc = sqlite3_exec(
		db,
		"PRAGMA secure_delete=ON;"
		"CREATE TABLE IF NOT EXISTS credentials("
		" name TEXT PRIMARY KEY, user TEXT NOT NULL,"
		" password TEXT NOT NULL, domain TEXT NOT NULL,"
		" created_at TEXT NOT NULL, updated_at TEXT NOT NULL)",
		NULL, NULL, &err);
	if (rc != SQLITE_OK)
		log_error("credential store %s: %s", path, err ? err : "?");
	sqlite3_free(err);
	sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : -EIO;
}

int creds_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n < 1 || n > 64 || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0)
		return 0;
	return strspn(name,
		      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		      "0123456789._-") == n;
}

/* Prepares sql and binds ?1 … ?4 to name, user, password, domain. */
static sqlite3_stmt *prep4(sqlite3 *db, const char *sql, const char *name,
			   const char *user, const char *password,
			   const char *domain)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, user, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, password, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, domain, -1, SQLITE_STATIC);
	return st;
}

int creds_put(const char *name, const char *user, const char *password,
	      const char *domain, int replace, int *created)
{
	sqlite3 *db = db_open();
	sqlite3_stmt *st = NULL;
	int rc = -EIO, src;

	*created = 0;
	if (!db)
		return -EIO;
	/* secure_delete: a replaced password is overwritten on disk */
	sqlite3_exec(db, "PRAGMA secure_delete=ON", NULL, NULL, NULL);
	/* the INSERT and the UPDATE it may fall back to are one transaction:
	 * a DELETE in between cannot make a replace store nothing */
	if ((src = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL)) !=
	    SQLITE_OK) {
		log_error("credential store: %s", sqlite3_errmsg(db));
		sqlite3_close(db);
		return src == SQLITE_BUSY	     ? -EBUSY
		       : (src & 0xff) == SQLITE_FULL ? -ENOSPC
						     : -EIO;
	}
	if (!(st = prep4(db,
			 "INSERT INTO credentials VALUES (?1, ?2, ?3, ?4,"
			 " strftime('%Y-%m-%dT%H:%M:%SZ','now'),"
			 " strftime('%Y-%m-%dT%H:%M:%SZ','now'))",
			 name, user, password, domain)))
		goto out;
	src = sqlite3_step(st);
	sqlite3_finalize(st);
	st = NULL;
	if (src == SQLITE_DONE) {
		*created = 1;
		rc = 0;
		goto out;
	}
	if (src != SQLITE_CONSTRAINT) {
		if ((src & 0xff) == SQLITE_FULL)
			rc = -ENOSPC;
		goto out;
	}
	if (!replace) {
		rc = -EEXIST;
		goto out;
	}
	if (!(st = prep4(db,
			 "UPDATE credentials SET user=?2, password=?3,"
			 " domain=?4, updated_at="
			 "strftime('%Y-%m-%dT%H:%M:%SZ','now') WHERE name=?1",
			 name, user, password, domain)))
		goto out;
	src = sqlite3_step(st);
	rc = src == SQLITE_DONE		   ? 0
	     : (src & 0xff) == SQLITE_FULL ? -ENOSPC
					   : -EIO;
out:
	if (rc == -EIO || rc == -ENOSPC)
		log_error("credential store: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	if (sqlite3_exec(db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL,
			 NULL) != SQLITE_OK &&
	    rc == 0) {
		log_error("credential store: %s", sqlite3_errmsg(db));
		rc = -EIO;
		*created = 0;
	}
	sqlite3_close(db);
	return rc;
}

static void col_copy(sqlite3_stmt *st, int i, char *dst, size_t len)
{
	const unsigned char *v = sqlite3_column_text(st, i);

	snprintf(dst, len, "%s", v ? (const char *)v : "");
}

int creds_get(const char *name, struct smb_session *s)
{
	sqlite3 *db = db_open();
	sqlite3_stmt *st = NULL;
	int rc = -ENOENT;

	if (!db)
		return -EIO;
	if (sqlite3_prepare_v2(db,
			       "SELECT user, password, domain FROM credentials"
			       " WHERE name=?",
			       -1, &st, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return -EIO;
	}
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		col_copy(st, 0, s->user, sizeof(s->user));
		col_copy(st, 1, s->password, sizeof(s->password));
		col_copy(st, 2, s->domain, sizeof(s->domain));
		rc = 0;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

int creds_delete(const char *name)
{
	sqlite3 *db = db_open();
	sqlite3_stmt *st = NULL;
	int rc = -EIO;

	if (!db)
		return -EIO;
	sqlite3_exec(db, "PRAGMA secure_delete=ON", NULL, NULL, NULL);
	if (sqlite3_prepare_v2(db, "DELETE FROM credentials WHERE name=?", -1,
			       &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_DONE)
			rc = sqlite3_changes(db) ? 0 : -ENOENT;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

int creds_json(const char *name, json_t **out)
{
	sqlite3 *db = db_open();
	sqlite3_stmt *st = NULL;
	json_t *list = json_array();
	int rc = 0;

	*out = NULL;
	if (!db || !list) {
		sqlite3_close(db);
		json_decref(list);
		return db ? -ENOMEM : -EIO;
	}
	if (sqlite3_prepare_v2(
		    db,
		    "SELECT name, user, domain, created_at, updated_at"
		    " FROM credentials WHERE ?1 IS NULL OR name=?1"
		    " ORDER BY name",
		    -1, &st, NULL) != SQLITE_OK) {
		rc = -EIO;
		goto out;
	}
	if (name)
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t *o = json_pack(
			"{s:s, s:s, s:s, s:s, s:s}", "name",
			(const char *)sqlite3_column_text(st, 0), "user",
			(const char *)sqlite3_column_text(st, 1), "domain",
			(const char *)sqlite3_column_text(st, 2), "created_at",
			(const char *)sqlite3_column_text(st, 3), "updated_at",
			(const char *)sqlite3_column_text(st, 4));
		if (!o || json_array_append_new(list, o) < 0) {
			rc = -ENOMEM;
			goto out;
		}
	}
	if (name && json_array_size(list) == 0) {
		rc = -ENOENT;
		goto out;
	}
	*out = name ? json_incref(json_array_get(list, 0)) : json_incref(list);
out:
	json_decref(list);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}
