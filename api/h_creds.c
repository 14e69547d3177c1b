/*
 * h_creds — /api/v1/credentials: the SMB credentials jobs name. A password
 * goes in and never comes out: answers carry name, user, domain and dates
 * (daemon/platform/creds.h keeps them in their own 0600 file).
 */
#include "api.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "platform/creds.h"
#include "platform/utf8.h"

static const char *const none[] = { NULL }; /* no route here takes a query */

/* A string field of at most max bytes without control characters; "" when
 * absent and not required. Returns its value or NULL (the problem set). */
static const char *str_field(json_t *root, const char *key, size_t max,
			     int required, struct api_problem *p)
{
	json_t *v = json_object_get(root, key);
	const char *s;

	if (!v && !required)
		return "";
	if (!v) {
		api_problem_set(p, 400, key, "%s: required", key);
		return NULL;
	}
	if (!json_is_string(v) || json_string_length(v) > max ||
	    strlen(s = json_string_value(v)) != json_string_length(v) ||
	    utf8_has_control(s) ||
	    (required && !*s && strcmp(key, "password"))) {
		api_problem_set(p, 400, key,
				"%s: must be a string of %s%zu bytes without "
				"control characters",
				key,
				required && strcmp(key, "password")
					? "1 to "
					: "at most ",
				max);
		return NULL;
	}
	return s;
}

/* Stores the credential the body describes under name (from the body when
 * name is NULL). */
static void put(struct api_req *req, struct api_resp *resp, const char *name,
		int replace)
{
	static const char *const known[] = { "name", "user", "password",
					     "domain" };
	struct api_problem p = { 0 };
	json_t *root = NULL, *v, *out = NULL;
	const char *key, *user, *pw, *domain;
	int created, rc;

	if (api_query_known(req, resp, none) < 0)
		goto out;
	if (!(root = api_body_object(req, resp,
				     "{\"name\", \"user\", \"password\", "
				     "\"domain\"}")))
		goto out;
	json_object_foreach(root, key, v)
	{
		size_t i;
		for (i = 0; i < 4 && strcmp(key, known[i]) != 0; i++)
			;
		if (i == 4 || (i == 0 && name)) {
			api_fail(resp, 400, key,
				 "unknown field \"%.64s\" (known: %suser, "
				 "password, domain)",
				 key, name ? "" : "name, ");
			goto out;
		}
	}
	if (!name && !(name = str_field(root, "name", 64, 1, &p)))
		goto problem;
	if (!creds_name_ok(name)) {
		api_fail(resp, 400, "name",
			 "name: 1 to 64 letters, digits, '.', '_' or '-', not "
			 "\".\" or \"..\"");
		goto out;
	}
	if (!(user = str_field(root, "user", 127, 1, &p)) ||
	    !(pw = str_field(root, "password", 255, 1, &p)) ||
	    !(domain = str_field(root, "domain", 127, 0, &p)))
		goto problem;
	rc = creds_put(name, user, pw, domain, replace, &created);
	if (rc == -EEXIST) {
		api_fail(resp, 409, "name",
			 "name: a credential \"%s\" exists; PUT "
			 "/api/v1/credentials/%s replaces it",
			 name, name);
		goto out;
	}
	if (rc < 0 || creds_json(name, &out) < 0) {
		api_fail_store(resp, rc < 0 ? rc : -EIO,
			       "the credential store failed");
		goto out;
	}
	snprintf(resp->location, sizeof(resp->location),
		 "/api/v1/credentials/%s", name);
	api_send_json(resp, created ? 201 : 200, out);
	goto out;
problem:
	api_send_problem(resp, &p);
out:
	/* the body held a password: leave no copy in our memory */
	if (root)
		json_object_foreach(root, key, v) if (json_is_string(v)) memset(
			(char *)json_string_value(v), 0, json_string_length(v));
	json_decref(root);
}

/* The name in the path, or NULL (the answer sent). */
static const char *path_name(struct api_req *req, struct api_resp *resp)
{
	if (!req->rest || !creds_name_ok(req->rest)) {
		api_fail(resp, 404, NULL, "no credential named \"%.64s\"",
			 req->rest ? req->rest : "");
		return NULL;
	}
	return req->rest;
}

void h_creds_create(struct api_req *req, struct api_resp *resp)
{
	put(req, resp, NULL, 0);
}

void h_creds_put(struct api_req *req, struct api_resp *resp)
{
	/* a name in the path that could never be stored is the caller's
	 * mistake (400), not a missing credential */
	if (req->rest && !creds_name_ok(req->rest)) {
		api_fail(resp, 400, "name",
			 "name: 1 to 64 letters, digits, '.', '_' or '-', not "
			 "\".\" or \"..\"");
		return;
	}
	put(req, resp, req->rest, 1);
}

void h_creds_list(struct api_req *req, struct api_resp *resp)
{
	json_t *list;

	if (api_query_known(req, resp, none) < 0)
		return;
	if (creds_json(NULL, &list) < 0) {
		api_fail(resp, 500, NULL, "the credential store failed");
		return;
	}
	api_send_json(resp, 200, json_pack("{s:o}", "credentials", list));
}

void h_creds_get(struct api_req *req, struct api_resp *resp)
{
	const char *name;
	json_t *o;
	int rc;

	if (api_query_known(req, resp, none) < 0 ||
	    !(name = path_name(req, resp)))
		return;
	if ((rc = creds_json(name, &o)) < 0) {
		api_fail(resp, rc == -ENOENT ? 404 : 500, NULL,
			 rc == -ENOENT ? "no credential named \"%s\""
				       : "the credential store failed (%s)",
			 name);
		return;
	}
	api_send_json(resp, 200, o);
}

void h_creds_delete(struct api_req *req, struct api_resp *resp)
{
	const char *name;
	int rc;

	if (api_query_known(req, resp, none) < 0 ||
	    !(name = path_name(req, resp)))
		return;
	if ((rc = creds_delete(name)) < 0) {
		api_fail(resp, rc == -ENOENT ? 404 : 500, NULL,
			 rc == -ENOENT ? "no credential named \"%s\""
				       : "the credential store failed (%s)",
			 name);
		return;
	}
	resp->status = 204;
}
