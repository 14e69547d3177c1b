/*
 * archive_gen — the archive's generation: a count that changes with every
 * write, so that an answer made from the archive can be kept until the
 * archive changes (the API's lists, api/listcache.c).
 *
 * Two kinds of write are counted. This process's: every connection has a
 * WAL hook, which SQLite calls after each commit, once the commit is
 * visible to every reader; it adds one to the process's count. Another
 * process's (`storbench import` into the archive a daemon serves): seen in
 * the wal-index header, the first 96 bytes of the archive's wal-index (two
 * copies of a 48-byte header, https://www.sqlite.org/walformat.html),
 * which every commit of any process rewrites (its counter iChange goes up
 * by one, its frame count and checksum change) before the commit returns,
 * and which a reader of any process learns the commit from.
 * archive_generation(a) reads those bytes where SQLite itself maps them
 * and adds one when they differ from the last read: a few loads, no lock,
 * no system call, as the list routes need (a lock held across a SQLite
 * call on every request made their p99 the time a preempted holder waits
 * for the CPU: 50 ms under 64 clients on one CPU). A torn read (a commit
 * writing the header meanwhile) differs too: one more step, harmless.
 *
 * The mapping is SQLite's own, asked for through the VFS's public file
 * methods (SQLITE_FCNTL_FILE_POINTER, then xShmMap of region 0 without
 * extending it) on one connection of the process's own, the watcher,
 * which never writes: opened and read once, it holds the wal-index open
 * and mapped (SQLite keeps a region where it is until the process's last
 * connection to the file lets it go). No file of SQLite's is opened or
 * closed by us: closing any descriptor of the -shm file would drop every
 * POSIX lock this process holds on it, SQLite's included, and another
 * process would then take itself for the only user and truncate the file
 * under everyone's mappings. The watcher closes with the process's last
 * connection to the archive. Where the mapping cannot be had (a VFS
 * without shared memory), the watcher is asked for PRAGMA data_version
 * under a lock on every look instead (it changes when any other
 * connection has committed): the same answer, slower. A single watcher,
 * not each connection's own data_version: a connection has no baseline
 * when it opens, and a burst of new ones would each count as a change.
 * So an answer kept at generation g is current while the count is g: a
 * write that ended before a request began has moved the count by the
 * time that request reads it.
 *
 * The WAL hook takes the place of SQLite's automatic checkpoint (which is
 * a WAL hook itself): it checkpoints as that does, from 1000 pages of log
 * on (PASSIVE: it never waits for readers).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive_int.h"

#define CHECKPOINT_PAGES 1000  /* SQLITE_DEFAULT_WAL_AUTOCHECKPOINT */
#define WAL_INDEX_HEADER 96    /* two copies of SQLite's 48-byte WalIndexHdr */
#define WAL_INDEX_REGION 32768 /* SQLite's WALINDEX_PGSZ: region 0 holds it */

static atomic_ullong generation = 1;

/* A wal-index header's view, published whole (never changed once seen by
 * other threads) and unmapped only when the process's last connection
 * closes: a thread that loaded it may still be reading it. */
struct view {
	char path[4096];	  /* the archive file's */
	const unsigned char *hdr; /* WAL_INDEX_HEADER bytes, mapped */
	struct view *older;	  /* views of files watched before */
};

/* The view in use (NULL: none, or the file's could not be made), and a
 * digest of its bytes at the last look. */
static _Atomic(struct view *) current;
static atomic_ullong hdr_seen;

/* The watcher: its connection, statement, file and last answer, and every
 * view made; under mu. */
static struct {
	pthread_mutex_t mu;
	sqlite3 *db;
	sqlite3_stmt *st;
	char path[4096];
	long long seen;
	int users; /* connections open: the watcher closes with the last */
	struct view *views; /* newest first */
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

/* FNV-1a over the header's bytes as they are now: word by word, each
 * word read once (another process may be writing them). */
static uint64_t header_digest(const unsigned char *hdr)
{
	const _Atomic uint32_t *word = (const _Atomic uint32_t *)hdr;
	uint64_t h = 14695981039346656037ULL;

	for (size_t i = 0; i < WAL_INDEX_HEADER / 4; i++) {
		h ^= atomic_load_explicit(&word[i], memory_order_relaxed);
		h *= 1099511628211ULL;
	}
	/* what is read after this returns is no older than the header */
	atomic_thread_fence(memory_order_acquire);
	return h;
}

/* One look at the header: a change moves the count, before the new
 * digest is stored, so that a thread that finds the new digest stored
 * finds the count moved too. */
static void look(const unsigned char *hdr)
{
	uint64_t h = header_digest(hdr);

	if (h != atomic_load(&hdr_seen)) {
		atomic_fetch_add(&generation, 1);
		atomic_store(&hdr_seen, h);
	}
}

/* Closes the watcher; w.mu held. Its views are kept until the last
 * connection closes (all = 1). */
static void unwatch(int all)
{
	atomic_store(&current, NULL);
	sqlite3_finalize(w.st);
	sqlite3_close(w.db);
	w.st = NULL;
	w.db = NULL;
	w.path[0] = '\0';
	while (all && w.views) {
		struct view *v = w.views;
		w.views = v->older;
		free(v);
	}
}

void archive_gen_unwatch(void)
{
	pthread_mutex_lock(&w.mu);
	/* before the last connection closes, so that it is the last to
	 * close the file (it checkpoints and removes the log and the
	 * wal-index) */
	if (--w.users <= 0) {
		w.users = 0;
		unwatch(1);
	}
	pthread_mutex_unlock(&w.mu);
}

/* The view of path's wal-index header, made once the watcher has read
 * (and so holds the wal-index open and mapped): its digest now is the
 * baseline, and the count moves once after it (whatever was committed
 * before the baseline). Without a view, PRAGMA data_version answers.
 * w.mu held. */
static void make_view(const char *path)
{
	sqlite3_file *f = NULL;
	void volatile *region = NULL;
	struct view *v;

	if (sqlite3_file_control(w.db, "main", SQLITE_FCNTL_FILE_POINTER, &f) !=
		    SQLITE_OK ||
	    !f || !f->pMethods || f->pMethods->iVersion < 2 ||
	    !f->pMethods->xShmMap ||
	    f->pMethods->xShmMap(f, 0, WAL_INDEX_REGION, 0, &region) !=
		    SQLITE_OK ||
	    !region || !(v = calloc(1, sizeof(*v))))
		return;
	v->hdr = (const unsigned char *)region;
	snprintf(v->path, sizeof(v->path), "%s", path);
	v->older = w.views;
	w.views = v;
	atomic_store(&hdr_seen, header_digest(v->hdr));
	atomic_fetch_add(&generation, 1);
	atomic_store(&current, v);
}

/* The watcher on path, opened when it is not (or on another file); 0, or
 * -EIO. w.mu held. */
static int watch(const char *path)
{
	if (w.db && strcmp(w.path, path) == 0)
		return 0;
	unwatch(0);
	if (strlen(path) >= sizeof(w.path) ||
	    sqlite3_open_v2(path, &w.db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(w.db, "PRAGMA data_version", -1, &w.st, NULL) !=
		    SQLITE_OK) {
		unwatch(0);
		return -EIO;
	}
	snprintf(w.path, sizeof(w.path), "%s", path);
	w.seen = -1; /* a new watcher: whatever it reads first is a change */
	if (sqlite3_step(w.st) == SQLITE_ROW)
		make_view(path);
	sqlite3_reset(w.st);
	return 0;
}

uint64_t archive_generation(struct archive *a)
{
	const char *path = a ? sqlite3_db_filename(a->db, "main") : NULL;
	struct view *v;
	long long dv = -1;

	if (!path || !path[0])
		return atomic_load(&generation);
	v = atomic_load(&current);
	if (v && strcmp(v->path, path) == 0) {
		look(v->hdr);
		return atomic_load(&generation);
	}
	pthread_mutex_lock(&w.mu);
	if (watch(path) == 0 && (v = atomic_load(&current))) {
		look(v->hdr);
		pthread_mutex_unlock(&w.mu);
		return atomic_load(&generation);
	}
	if (w.st && sqlite3_step(w.st) == SQLITE_ROW)
		dv = sqlite3_column_int64(w.st, 0);
	if (w.st)
		sqlite3_reset(w.st);
	/* unknown (a failed read, a new watcher) counts as a change */
	if (dv < 0 || dv != w.seen)
		atomic_fetch_add(&generation, 1);
	w.seen = dv;
	pthread_mutex_unlock(&w.mu);
	return atomic_load(&generation);
}

int archive_generation_lockfree(void)
{
	return atomic_load(&current) != NULL;
}
