/*
 * archive_gen — the archive's generation: a count that changes with every
 * write, so that an answer made from the archive can be kept until the
 * archive changes (the API's lists, api/listcache.c).
 *
 * Two kinds of write are counted. This process's: every connection has a
 * WAL hook, which SQLite calls after each commit, once the commit is
 * visible to every reader; it adds one to a count the process's
 * connections share. Another process's (`storbench import` into the
 * archive a daemon serves): archive_generation(a) asks a's connection for
 * PRAGMA data_version, which changes when any other connection has
 * committed, and adds one when it differs from what a saw before; a
 * connection's first look, when it opens, adds one too (a write before it
 * opened may be one no other connection has seen yet). So an answer kept at
 * generation g is current while the count is g: a write that ended before a
 * request began has moved the count before that request reads it.
 *
 * The WAL hook takes the place of SQLite's automatic checkpoint (which is
 * a WAL hook itself): it checkpoints as that does, from 1000 pages of log
 * on (PASSIVE: it never waits for readers).
 */
#include <stdatomic.h>

#include "archive_int.h"

#define CHECKPOINT_PAGES 1000 /* SQLITE_DEFAULT_WAL_AUTOCHECKPOINT */

static atomic_ullong generation = 1;

static int committed(void *arg, sqlite3 *db, const char *name, int pages)
{
	(void)arg;
	atomic_fetch_add(&generation, 1);
	if (pages >= CHECKPOINT_PAGES)
		sqlite3_wal_checkpoint(db, name);
	return SQLITE_OK;
}

/* Asks a's connection for PRAGMA data_version: moves the generation when
 * the answer differs from the last (or is unknown: a failed read, a first
 * look, which may follow another process's write no connection saw). */
static void look(struct archive *a)
{
	long long v = -1;

	if (!a->dv && sqlite3_prepare_v3(a->db, "PRAGMA data_version", -1,
					 SQLITE_PREPARE_PERSISTENT, &a->dv,
					 NULL) != SQLITE_OK)
		a->dv = NULL;
	if (a->dv && sqlite3_step(a->dv) == SQLITE_ROW)
		v = sqlite3_column_int64(a->dv, 0);
	if (a->dv)
		sqlite3_reset(a->dv);
	if (v < 0 || v != a->data_version)
		atomic_fetch_add(&generation, 1);
	a->data_version = v;
}

void archive_gen_watch(struct archive *a)
{
	a->data_version = -1;
	sqlite3_wal_hook(a->db, committed, NULL);
	look(a); /* the first look: when the connection opens, not when it
		    first serves (a burst of new connections would move the
		    generation under each other's answers) */
}

uint64_t archive_generation(struct archive *a)
{
	if (a)
		look(a);
	return atomic_load(&generation);
}
