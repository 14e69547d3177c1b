/*
 * archive_gen — the archive's generation: a count that changes with every
 * write, so that an answer made from the archive can be kept until the
 * archive changes (the API's lists, api/listcache.c).
 *
 * Two kinds of write are counted. This process's: every connection has a
 * WAL hook, which SQLite calls after each commit, once the commit is
 * visible to every reader; it adds one to the process's count. Another
 * process's (`storbench import` into the archive a daemon serves): one
 * connection of the process's own, the watcher, which never writes, is
 * asked for PRAGMA data_version by archive_generation(a); that changes
 * when any other connection has committed, and a change adds one. (The
 * watcher sees this process's commits too: one more step each, harmless.)
 * A single watcher, not each connection's own data_version: a connection
 * has no baseline when it opens, and a burst of new ones would each have
 * to count as a change. The watcher opens on the first look and closes
 * with the process's last connection to the archive. So an answer kept at
 * generation g is current while the count is g: a write that ended before a
 * request began has moved the count by the time that request reads it.
 *
 * The WAL hook takes the place of SQLite's automatic checkpoint (which is
 * a WAL hook itself): it checkpoints as that does, from 1000 pages of log
 * on (PASSIVE: it never waits for readers).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "archive_int.h"

#define CHECKPOINT_PAGES 1000 /* SQLITE_DEFAULT_WAL_AUTOCHECKPOINT */

static atomic_ullong generation = 1;

/* The watcher: its connection, statement, file and last answer; under
 * mu. */
static struct {
	pthread_mutex_t mu;
	sqlite3 *db;
	sqlite3_stmt *st;
	char path[4096];
	long long seen;
	int users; /* connections open: the watcher closes with the last */
} w = { .mu = PTHREAD_MUTEX_INITIALIZER };

static int committed(void *arg, sqlite3 *db, const char *name, int pages)
{
	(void)arg;
	atomic_fetch_add(&generation, 1);
	if (pages >= CHECKPOINT_PAGES)
		sqlite3_wal_checkpoint(db, name);
	return SQLITE_OK;
}

void archive_gen_watch(struct archive *a)
{
	sqlite3_wal_hook(a->db, committed, NULL);
	pthread_mutex_lock(&w.mu);
	w.users++;
	pthread_mutex_unlock(&w.mu);
}

/* Closes the watcher; w.mu held. */
static void unwatch(void)
{
	sqlite3_finalize(w.st);
	sqlite3_close(w.db);
	w.st = NULL;
	w.db = NULL;
	w.path[0] = '\0';
}

void archive_gen_unwatch(void)
{
	pthread_mutex_lock(&w.mu);
	/* before the last connection closes, so that it is the last to
	 * close the file (it checkpoints and removes the log) */
	if (--w.users <= 0) {
		w.users = 0;
		unwatch();
	}
	pthread_mutex_unlock(&w.mu);
}

/* The watcher on path, opened when it is not (or on another file); 0, or
 * -EIO. w.mu held. */
static int watch(const char *path)
{
	if (w.db && strcmp(w.path, path) == 0)
		return 0;
	unwatch();
	if (strlen(path) >= sizeof(w.path) ||
	    sqlite3_open_v2(path, &w.db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(w.db, "PRAGMA data_version", -1, &w.st, NULL) !=
		    SQLITE_OK) {
		unwatch();
		return -EIO;
	}
	snprintf(w.path, sizeof(w.path), "%s", path);
	w.seen = -1; /* a new watcher: whatever it reads first is a change */
	return 0;
}

uint64_t archive_generation(struct archive *a)
{
	const char *path = a ? sqlite3_db_filename(a->db, "main") : NULL;
	long long v = -1;

	if (!path || !path[0])
		return atomic_load(&generation);
	pthread_mutex_lock(&w.mu);
	if (watch(path) == 0 && sqlite3_step(w.st) == SQLITE_ROW)
		v = sqlite3_column_int64(w.st, 0);
	if (w.st)
		sqlite3_reset(w.st);
	/* unknown (a failed read, a new watcher) counts as a change */
	if (v < 0 || v != w.seen)
		atomic_fetch_add(&generation, 1);
	w.seen = v;
	pthread_mutex_unlock(&w.mu);
	return atomic_load(&generation);
}
