/*
 * creds — the SMB credentials the daemon keeps (user, password, domain),
 * stored by name and named by jobs ("credential": "filer1").
 *
 * Design: a SQLite file of its own, DATA/credentials.db, created with mode
 * 0600, apart from the archive: copying or sharing the archive
 * (storbench.db) never carries a password, and nothing the API returns,
 * the log writes or a run stores holds one. Each call opens its own
 * connection, so any thread may call.
 */
#ifndef STORBENCH_CREDS_H
#define STORBENCH_CREDS_H

#include <jansson.h>

struct smb_session;

/* Where the store lives (before any other call; creates it, mode 0600).
 * Returns 0 or a negative errno. */
int creds_init(const char *path);

/* A new connection to the store's file (0600, apart from the archive) for
 * another kind of secret kept beside the credentials (fleet/peers.c: the
 * peers' tokens), or NULL (logged). The caller closes it (sqlite3_close). */
struct sqlite3;
struct sqlite3 *creds_db_open(void);

/* Is name a valid credential name: 1 to 64 of [A-Za-z0-9._-]? */
int creds_name_ok(const char *name);

/* Stores name (replace: 1 overwrites, 0 fails with -EEXIST). *created
 * says whether it was new. Returns 0 or a negative errno. */
int creds_put(const char *name, const char *user, const char *password,
	      const char *domain, int replace, int *created);

/* Fills the user, password and domain of s from name. Returns 0 or
 * -ENOENT. */
int creds_get(const char *name, struct smb_session *s);

/* Removes name. Returns 0 or -ENOENT. */
int creds_delete(const char *name);

/* name, user, domain, created_at, updated_at of one credential (never the
 * password) into *out; or of all, as an array, when name is NULL.
 * Returns 0, -ENOENT, or another negative errno. */
int creds_json(const char *name, json_t **out);

#endif
