/*
 * peers — see peers.h. The peers table lives in the credentials' file
 * (creds_db_open), made on first use.
 */
#include "peers.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "os/os.h"
#include "peerhttp.h"
#include "platform/creds.h"
#include "platform/log.h"

static pthread_mutex_t self_mu = PTHREAD_MUTEX_INITIALIZER;
static struct peer self; /* under self_mu */

void peers_self_set(const char *url, const char *token)
{
	pthread_mutex_lock(&self_mu);
	snprintf(self.name, sizeof(self.name), "self");
	snprintf(self.url, sizeof(self.url), "%s", url);
	snprintf(self.token, sizeof(self.token), "%s", token ? token : "");
	pthread_mutex_unlock(&self_mu);
}

/* The store with its peers table, or NULL (logged). */
static sqlite3 *open_store(void)
{
	sqlite3 *db = creds_db_open();
	char *err = NULL;

	if (db && sqlite3_exec(db,
			       "PRAGMA secure_delete=ON;"
			       "CREATE TABLE IF NOT EXISTS peers("
			       " name TEXT PRIMARY KEY, url TEXT NOT NULL,"
			       " token TEXT NOT NULL, created_at TEXT NOT NULL,"
			       " updated_at TEXT NOT NULL)",
			       NULL, NULL, &err) != SQLITE_OK) {
		log_error("peer store: %s", err ? err : "?");
		sqlite3_free(err);
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

int peers_get(const char *name, struct peer *out)
{
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	int rc = -ENOENT;

	memset(out, 0, sizeof(*out));
	if (strcmp(name, "self") == 0) {
		pthread_mutex_lock(&self_mu);
		if (self.url[0]) {
			*out = self;
			rc = 0;
		}
		pthread_mutex_unlock(&self_mu);
		return rc;
	}
	if (!(db = open_store()))
		return -EIO;
	if (sqlite3_prepare_v2(db, "SELECT url, token FROM peers WHERE name=?1",
			       -1, &st, NULL) != SQLITE_OK)
		rc = -EIO;
	else {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW) {
			snprintf(out->name, sizeof(out->name), "%s", name);
			snprintf(out->url, sizeof(out->url), "%s",
				 (const char *)sqlite3_column_text(st, 0));
			snprintf(out->token, sizeof(out->token), "%s",
				 (const char *)sqlite3_column_text(st, 1));
			rc = 0;
		}
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

int peers_put(const char *name, const char *url, const char *token, int replace,
	      int *created)
{
	sqlite3 *db = open_store();
	sqlite3_stmt *st = NULL;
	int rc = -EIO, exists = 0, src;

	*created = 0;
	if (!db)
		return -EIO;
	/* whether it exists and the write are one transaction */
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		goto out;
	/* names are one peer whatever their case: a host's name is in its
	 * test files' names, and a share may not tell N2's from n2's */
	if (sqlite3_prepare_v2(db,
			       "SELECT name=?1 FROM peers WHERE name=?1"
			       " COLLATE NOCASE",
			       -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		exists = sqlite3_column_int(st, 0) ? 1 : 2;
	sqlite3_finalize(st);
	st = NULL;
	if ((exists == 1 && !replace) || exists == 2) {
		rc = -EEXIST;
		goto out;
	}
	if (sqlite3_prepare_v2(db,
			       "INSERT INTO peers VALUES (?1, ?2, ?3,"
			       " strftime('%Y-%m-%dT%H:%M:%SZ','now'),"
			       " strftime('%Y-%m-%dT%H:%M:%SZ','now'))"
			       " ON CONFLICT(name) DO UPDATE SET url=?2,"
			       " token=?3, updated_at=excluded.updated_at",
			       -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, url, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, token ? token : "", -1, SQLITE_STATIC);
	src = sqlite3_step(st);
	if (src == SQLITE_DONE &&
	    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK) {
		rc = 0;
		*created = !exists;
	} else if ((src & 0xff) == SQLITE_FULL) {
		rc = -ENOSPC;
	}
out:
	if (rc < 0)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

int peers_delete(const char *name)
{
	sqlite3 *db = open_store();
	sqlite3_stmt *st = NULL;
	int rc = -EIO;

	if (!db)
		return -EIO;
	if (sqlite3_prepare_v2(db, "DELETE FROM peers WHERE name=?1", -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_DONE)
			rc = sqlite3_changes(db) ? 0 : -ENOENT;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

int peers_json(const char *name, json_t **out)
{
	sqlite3 *db = open_store();
	sqlite3_stmt *st = NULL;
	json_t *list = json_array();
	int rc = 0;

	*out = NULL;
	if (!db || !list) {
		sqlite3_close(db);
		json_decref(list);
		return db ? -ENOMEM : -EIO;
	}
	pthread_mutex_lock(&self_mu);
	if (self.url[0] && (!name || strcmp(name, "self") == 0))
		json_array_append_new(list,
				      json_pack("{s:s, s:s, s:b, s:n, s:n}",
						"name", "self", "url", self.url,
						"token_set", self.token[0] != 0,
						"created_at", "updated_at"));
	pthread_mutex_unlock(&self_mu);
	if (sqlite3_prepare_v2(db,
			       "SELECT name, url, token != '', created_at,"
			       " updated_at FROM peers"
			       " WHERE ?1 IS NULL OR name=?1 ORDER BY name",
			       -1, &st, NULL) != SQLITE_OK) {
		rc = -EIO;
		goto out;
	}
	if (name)
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW)
		json_array_append_new(
			list,
			json_pack("{s:s, s:s, s:b, s:s, s:s}", "name",
				  (const char *)sqlite3_column_text(st, 0),
				  "url",
				  (const char *)sqlite3_column_text(st, 1),
				  "token_set", sqlite3_column_int(st, 2),
				  "created_at",
				  (const char *)sqlite3_column_text(st, 3),
				  "updated_at",
				  (const char *)sqlite3_column_text(st, 4)));
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

int peers_probe(const struct peer *p, int tries, struct peer_clock *out)
{
	memset(out, 0, sizeof(*out));
	if (tries < 1)
		tries = 1;
	if (tries > 16)
		tries = 16;
	for (int i = 0; i < tries; i++) {
		struct peer_reply r;
		json_t *ns;
		int rc = peerhttp_call(p->url, p->token, "GET", "/api/v1/clock",
				       NULL, 2000, &r);
		out->status = r.status;
		ns = json_object_get(r.json, "unix_ns");
		if (rc == 0 && r.status == 200 && json_is_integer(ns)) {
			double rtt = (double)(r.recv_ns - r.sent_ns) / 1e6;
			if (!out->reachable || rtt < out->rtt_ms) {
				/* the middle of the round trip, in two
				 * halves: no int64 overflow */
				int64_t mid = r.sent_ns / 2 + r.recv_ns / 2;
				out->rtt_ms = rtt;
				out->uncertainty_ms = rtt / 2;
				out->offset_ms =
					(double)(json_integer_value(ns) - mid) /
					1e6;
			}
			out->reachable = 1;
			snprintf(out->version, sizeof(out->version), "%s",
				 json_string_value(
					 json_object_get(r.json, "version"))
					 ?: "");
			snprintf(
				out->os, sizeof(out->os), "%s",
				json_string_value(json_object_get(r.json, "os"))
					?: "");
			snprintf(out->hostname, sizeof(out->hostname), "%s",
				 json_string_value(
					 json_object_get(r.json, "hostname"))
					 ?: "");
			snprintf(out->instance, sizeof(out->instance), "%s",
				 json_string_value(
					 json_object_get(r.json, "instance"))
					 ?: "");
		} else if (rc == 0 && (r.status == 401 || r.status == 403)) {
			snprintf(out->error, sizeof(out->error),
				 "%.64s refused the token (HTTP %ld): the "
				 "peer's "
				 "token is its DATA/api-token",
				 p->name, r.status);
			peer_reply_free(&r);
			break;
		} else if (!out->reachable) {
			snprintf(out->error, sizeof(out->error),
				 "%.64s did not answer: %.100s", p->name,
				 rc < 0	    ? r.error
				 : r.status ? "not a storbench clock"
					    : "no answer");
			if (rc < 0) {
				peer_reply_free(&r);
				break; /* do not wait 2 s five times */
			}
		}
		peer_reply_free(&r);
	}
	if (out->reachable)
		out->error[0] = '\0';
	return out->reachable ? 0 : -EHOSTUNREACH;
}

struct probe_arg {
	json_t *o;
	pthread_t tid;
	int started;
};

static void *probe_one(void *arg)
{
	struct probe_arg *a = arg;
	const char *name = json_string_value(json_object_get(a->o, "name"));
	struct peer p;
	struct peer_clock c;
	json_t *got;

	if (peers_get(name, &p) < 0) {
		json_object_set_new(a->o, "reachable", json_false());
		return NULL;
	}
	peers_probe(&p, 5, &c);
	os_wipe(&p, sizeof(p));
	got = json_pack(
		"{s:b, s:I, s:s?, s:s?, s:s?, s:s?, s:o, s:o, s:o}",
		"reachable", c.reachable, "status", (json_int_t)c.status,
		"error", c.error[0] ? c.error : NULL, "version",
		c.reachable ? c.version : NULL, "os", c.reachable ? c.os : NULL,
		"hostname", c.reachable ? c.hostname : NULL, "rtt_ms",
		c.reachable ? json_real(c.rtt_ms) : json_null(), "offset_ms",
		c.reachable ? json_real(c.offset_ms) : json_null(),
		"uncertainty_ms",
		c.reachable ? json_real(c.uncertainty_ms) : json_null());
	json_object_update(a->o, got);
	json_decref(got);
	return NULL;
}

void peers_probe_list(json_t *list)
{
	size_t n = json_array_size(list), i;
	struct probe_arg *a = calloc(n ? n : 1, sizeof(*a));

	if (!a)
		return;
	for (i = 0; i < n; i++) {
		a[i].o = json_array_get(list, i);
		a[i].started =
			pthread_create(&a[i].tid, NULL, probe_one, &a[i]) == 0;
		if (!a[i].started)
			probe_one(&a[i]);
	}
	for (i = 0; i < n; i++)
		if (a[i].started)
			pthread_join(a[i].tid, NULL);
	free(a);
}
