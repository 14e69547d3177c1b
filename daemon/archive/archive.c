/*
 * archive — see archive.h for the design.
 *
 * This file opens and closes the connection: archive_open() refuses a
 * schema newer than this build's before anything touches the file, then
 * sets the connection's pragmas, migrates (archive_schema.c) and only then
 * turns on WAL, which rewrites the file's header. The rest of the archive
 * is in the files archive_int.h lists, with the direction of their calls.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "archive_int.h"
#include "platform/log.h"

void job_spec_clear(struct job_spec *s)
{
	free(s->profile);
	free(s->target);
	free(s->labels_json);
	free(s->notes);
	free(s->plan_json);
	free(s->engine);
	free(s->options_json);
	free(s->smb_json);
	free(s->compare_with_json);
	free(s->hosts_json);
	free(s->fleet_json);
	memset(s, 0, sizeof(*s));
}

void archive_library_init(void)
{
	/* no global memory statistics: SQLite takes a process-wide mutex on
	 * every allocation for them, and the API's threads queued on it */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

int archive_open(const char *path, struct archive **out)
{
	struct archive *a = calloc(1, sizeof(*a));
	int version = 0, rc = 0, src;

	*out = NULL;
	if (!a)
		return -ENOMEM;
	src = sqlite3_open_v2(path, &a->db,
			      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				      SQLITE_OPEN_NOMUTEX,
			      NULL);
	if (src != SQLITE_OK) {
		rc = a->db ? archive_sql_err(a, src, path) : -ENOMEM;
		goto out;
	}
	sqlite3_busy_timeout(a->db, 5000);
	/* the version first: a newer archive is refused before anything
	 * (journal_mode=WAL rewrites the file header) touches it */
	if ((rc = archive_user_version(a, &version)) < 0)
		goto out;
	if (version > ARCHIVE_SCHEMA_VERSION) {
		log_error("archive %s has schema version %d; this storbench "
			  "knows up to %d",
			  path, version, ARCHIVE_SCHEMA_VERSION);
		rc = -EPROTO;
		goto out;
	}
	/* settings of this connection: foreign keys on (archive_migrate
	 * turns them off for its transaction and on again after it); WAL
	 * (which is the file's) only once the schema is current, so a
	 * failed migration leaves the file as it was */
	if ((rc = archive_exec(a, "PRAGMA foreign_keys=ON;")) < 0 ||
	    (rc = archive_migrate(a, path)) < 0 ||
	    (rc = archive_exec(
		     a,
		     "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")) <
		    0)
		goto out;
	/* reads straight from the page cache, shared by every connection,
	 * rather than a private copy of each page through read(): a compare
	 * over thousands of runs reads much of the file */
	archive_exec(a, "PRAGMA mmap_size=268435456;");
	archive_gen_watch(a);
	a->watched = 1;
out:
	if (rc < 0) {
		archive_close(a);
		return rc;
	}
	*out = a;
	return 0;
}

int archive_settle(struct archive *a)
{
	if (sqlite3_get_autocommit(a->db))
		return 0;
	archive_exec(a, "ROLLBACK");
	return 1;
}

void archive_close(struct archive *a)
{
	if (!a)
		return;
	if (a->watched)
		archive_gen_unwatch();
	sqlite3_close(a->db);
	free(a);
}
