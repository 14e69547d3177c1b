/*
 * routes — the route table: method, path pattern, handler. A pattern segment
 * "{id}" matches a positive decimal integer (into req->id); a final "*"
 * matches the rest of the path (into req->rest). A path that matches with
 * another method gets 405, no match 404 — both as problem+json.
 */
#include "api.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct route {
	const char *method;
	const char *pattern;
	api_handler fn;
};

static const struct route routes[] = {
	{ "GET", "/healthz", h_health },
	{ "POST", "/api/v1/jobs", h_jobs_create },
	{ "GET", "/api/v1/jobs", h_jobs_list },
	{ "GET", "/api/v1/jobs/{id}", h_jobs_get },
	{ "DELETE", "/api/v1/jobs/{id}", h_jobs_cancel },
	{ "POST", "/api/v1/jobs/{id}/go", h_jobs_go },
	{ "GET", "/api/v1/runs", h_runs_list },
	{ "GET", "/api/v1/runs/{id}", h_runs_get },
	{ "GET", "/api/v1/runs/{id}/samples", h_runs_samples },
	{ "PATCH", "/api/v1/runs/{id}", h_runs_patch },
	{ "DELETE", "/api/v1/runs/{id}", h_runs_delete },
	{ "GET", "/api/v1/compare", h_compare },
	{ "GET", "/api/v1/history", h_history },
	{ "POST", "/api/v1/import", h_import },
	{ "GET", "/api/v1/runs/{id}/original", h_runs_original },
	{ "GET", "/api/v1/profiles", h_profiles },
	{ "GET", "/api/v1/openapi.json", h_openapi },
	{ "GET", "/api/v1/events", h_events },
	{ "GET", "/metrics", h_metrics },
	{ "GET", "/api/v1/hub", h_hub },
	{ "POST", "/api/v1/credentials", h_creds_create },
	{ "GET", "/api/v1/credentials", h_creds_list },
	{ "GET", "/api/v1/credentials/*", h_creds_get },
	{ "PUT", "/api/v1/credentials/*", h_creds_put },
	{ "DELETE", "/api/v1/credentials/*", h_creds_delete },
	{ "GET", "/api/v1/clock", h_clock },
	{ "POST", "/api/v1/peers", h_peers_create },
	{ "GET", "/api/v1/peers", h_peers_list },
	{ "GET", "/api/v1/peers/*", h_peers_get },
	{ "PUT", "/api/v1/peers/*", h_peers_put },
	{ "DELETE", "/api/v1/peers/*", h_peers_delete },
	{ "GET", "/", h_static },
	{ "GET", "/static/*", h_static },
};

/* Does path match pattern? Fills *id / *rest. */
static int match(const char *pattern, const char *path, int64_t *id,
		 const char **rest)
{
	const char *p = pattern, *s = path;

	while (*p) {
		if (p[0] == '*' && p[1] == '\0') {
			*rest = s;
			return 1;
		}
		if (strncmp(p, "{id}", 4) == 0) {
			char *end;
			long long v;
			if (*s < '1' || *s > '9')
				return 0;
			errno = 0;
			v = strtoll(s, &end, 10);
			if (errno || v <= 0)
				return 0;
			*id = v;
			s = end;
			p += 4;
			continue;
		}
		if (*p != *s)
			return 0;
		p++;
		s++;
	}
	return *s == '\0';
}

/* Appends method to the comma list in resp->allow, once. */
static void add_allow(struct api_resp *resp, const char *method)
{
	size_t n = strlen(resp->allow);

	if (strstr(resp->allow, method))
		return;
	snprintf(resp->allow + n, sizeof(resp->allow) - n, "%s%s",
		 n ? ", " : "", method);
}

void api_dispatch(struct api_req *req, struct api_resp *resp)
{
	int path_known = 0;

	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		int64_t id = 0;
		const char *rest = NULL;
		if (!match(routes[i].pattern, req->path, &id, &rest))
			continue;
		path_known = 1;
		resp->route = routes[i].pattern; /* a 405 is counted on it */
		add_allow(resp, routes[i].method);
		if (strcmp(routes[i].method, "GET") == 0)
			add_allow(resp, "HEAD");
		if (strcmp(routes[i].method, req->method) != 0 &&
		    !(strcmp(req->method, "HEAD") == 0 &&
		      strcmp(routes[i].method, "GET") == 0))
			continue;
		req->id = id;
		req->rest = rest;
		resp->allow[0] = '\0';
		resp->route = routes[i].pattern;
		routes[i].fn(req, resp);
		return;
	}
	if (path_known)
		api_fail(resp, 405, NULL, "%s is not allowed on %s",
			 req->method, req->path);
	else
		api_fail(resp, 404, NULL, "no such resource: %s", req->path);
}
