/*
 * h_peers — the clock this daemon reads (GET /api/v1/clock, what a
 * coordinator measures its offset from) and /api/v1/peers: the other
 * daemons multi-host jobs run on (fleet/peers.h). A peer's token goes in
 * and never comes out: answers say token_set, and each peer's live probe
 * (reachable, version, OS, host name, round trip, clock offset).
 */
#include "api.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "fleet/peerhttp.h"
#include "fleet/peers.h"
#include "os/os.h"
#include "platform/creds.h"
#include "platform/utf8.h"
#include "probe/probe.h"

static const char *const none[] = { NULL };

static pthread_once_t host_once = PTHREAD_ONCE_INIT;
static char hostname[256];
static const char *host_db;

/* This daemon's instance: random, made once per start, so that a
 * coordinator knows two peer names (or a peer and self) that reach the
 * same daemon. */
static char instance[33];

static void host_init(void)
{
	struct probe p;
	unsigned char r[16] = { 0 };

	if (probe_path(host_db, &p) == 0)
		snprintf(hostname, sizeof(hostname), "%s", p.hostname);
	if (os_random(r, sizeof(r)) != 0) /* then the time and the pid */
		snprintf((char *)r, sizeof(r), "%llx",
			 (unsigned long long)os_wall_ns());
	for (size_t i = 0; i < sizeof(r); i++)
		snprintf(instance + 2 * i, 3, "%02x", r[i]);
}

void h_clock(struct api_req *req, struct api_resp *resp)
{
	int64_t now;

	if (api_query_known(req, resp, none) < 0)
		return;
	host_db = req->ctx->db_path;
	pthread_once(&host_once, host_init);
	now = os_wall_ns();
	api_send_json(resp, 200,
		      json_pack("{s:I, s:s, s:s, s:s, s:s}", "unix_ns",
				(json_int_t)now, "version", STORBENCH_VERSION,
				"os", STORBENCH_OS, "hostname", hostname,
				"instance", instance));
}

/* The name in the path, or NULL (the answer sent). */
static const char *path_name(struct api_req *req, struct api_resp *resp)
{
	if (!req->rest ||
	    (!creds_name_ok(req->rest) && strcmp(req->rest, "self") != 0)) {
		api_fail(resp, 404, NULL, "no peer named \"%.64s\"",
			 req->rest ? req->rest : "");
		return NULL;
	}
	return req->rest;
}

/* A string member of at most max bytes without control characters, or ""
 * when absent and optional; NULL with the answer sent. */
static const char *member(struct api_resp *resp, json_t *root, const char *key,
			  size_t max, int required)
{
	json_t *v = json_object_get(root, key);
	const char *s;

	if (!v && !required)
		return "";
	if (!v) {
		api_fail(resp, 400, key, "%s: required", key);
		return NULL;
	}
	if (!json_is_string(v) || json_string_length(v) > max ||
	    strlen(s = json_string_value(v)) != json_string_length(v) ||
	    utf8_has_control(s)) {
		api_fail(resp, 400, key,
			 "%s: a string of at most %zu bytes without control "
			 "characters",
			 key, max);
		return NULL;
	}
	return s;
}

/* Adds the live probe to peer object o. */
static void probe_one(json_t *o)
{
	json_t *one = json_pack("[O]", o);

	peers_probe_list(one);
	json_decref(one);
}

/* Stores the peer the body describes under name (the body's when NULL). */
static void put(struct api_req *req, struct api_resp *resp, const char *name,
		int replace)
{
	json_t *root = NULL, *v, *out = NULL;
	const char *key, *url, *token;
	int created, rc;

	if (api_query_known(req, resp, none) < 0)
		return;
	if (!(root = api_body_object(req, resp,
				     "{\"name\", \"url\", \"token\"}")))
		goto out;
	json_object_foreach(root, key, v)
	{
		if (strcmp(key, "url") && strcmp(key, "token") &&
		    (name || strcmp(key, "name"))) {
			api_fail(resp, 400, key,
				 "unknown field \"%.64s\" (known: %surl, "
				 "token)",
				 key, name ? "" : "name, ");
			goto out;
		}
	}
	if (!name && !(name = member(resp, root, "name", 64, 1)))
		goto out;
	if (!creds_name_ok(name) || strcmp(name, "self") == 0) {
		api_fail(resp, 400, "name",
			 "name: 1 to 64 letters, digits, '.', '_' or '-', not "
			 "\".\", \"..\" or \"self\" (this daemon)");
		goto out;
	}
	if (!(url = member(resp, root, "url", 512, 1)) ||
	    !(token = member(resp, root, "token", 255, 0)))
		goto out;
	if (!peerhttp_url_ok(url)) {
		api_fail(resp, 400, "url",
			 "url: the peer's base URL, http:// or https:// with a "
			 "host and no query, fragment or blank "
			 "(http://node2:8080)");
		goto out;
	}
	rc = peers_put(name, url, token, replace, &created);
	if (rc == -EEXIST) {
		api_fail(resp, 409, "name",
			 "name: a peer \"%s\" exists (names are one whatever "
			 "their case: test files on a shared directory carry "
			 "them); PUT /api/v1/peers/NAME with its name as "
			 "listed replaces it",
			 name);
		goto out;
	}
	if (rc < 0 || peers_json(name, &out) < 0) {
		api_fail_store(resp, rc < 0 ? rc : -EIO,
			       "the peer store failed");
		goto out;
	}
	snprintf(resp->location, sizeof(resp->location), "/api/v1/peers/%s",
		 name);
	probe_one(out);
	api_send_json(resp, created ? 201 : 200, out);
out:
	/* the body held a token: leave no copy in our memory */
	if (root)
		json_object_foreach(root, key, v) if (json_is_string(v)) memset(
			(char *)json_string_value(v), 0, json_string_length(v));
	json_decref(root);
}

void h_peers_create(struct api_req *req, struct api_resp *resp)
{
	put(req, resp, NULL, 0);
}

void h_peers_put(struct api_req *req, struct api_resp *resp)
{
	if (req->rest && !creds_name_ok(req->rest)) {
		api_fail(resp, 400, "name",
			 "name: 1 to 64 letters, digits, '.', '_' or '-'");
		return;
	}
	put(req, resp, req->rest, 1);
}

void h_peers_list(struct api_req *req, struct api_resp *resp)
{
	json_t *list;

	if (api_query_known(req, resp, none) < 0)
		return;
	if (peers_json(NULL, &list) < 0) {
		api_fail(resp, 500, NULL, "the peer store failed");
		return;
	}
	peers_probe_list(list);
	api_send_json(resp, 200, json_pack("{s:o}", "peers", list));
}

void h_peers_get(struct api_req *req, struct api_resp *resp)
{
	const char *name;
	json_t *o;
	int rc;

	if (api_query_known(req, resp, none) < 0 ||
	    !(name = path_name(req, resp)))
		return;
	if ((rc = peers_json(name, &o)) < 0) {
		api_fail(resp, rc == -ENOENT ? 404 : 500, NULL,
			 rc == -ENOENT ? "no peer named \"%s\""
				       : "the peer store failed (%s)",
			 name);
		return;
	}
	probe_one(o);
	api_send_json(resp, 200, o);
}

void h_peers_delete(struct api_req *req, struct api_resp *resp)
{
	const char *name;
	int rc;

	if (api_query_known(req, resp, none) < 0 ||
	    !(name = path_name(req, resp)))
		return;
	if (strcmp(name, "self") == 0) {
		api_fail(resp, 409, NULL,
			 "self is this daemon: it cannot be removed");
		return;
	}
	if ((rc = peers_delete(name)) < 0) {
		api_fail(resp, rc == -ENOENT ? 404 : 500, NULL,
			 rc == -ENOENT ? "no peer named \"%s\""
				       : "the peer store failed (%s)",
			 name);
		return;
	}
	resp->status = 204;
}
