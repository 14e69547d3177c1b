/*
 * h_history — GET /api/v1/history: a target's history
 * (daemon/compare/history.h).
 *
 *   ?target=T&profile=P&test=NAME&rw=read|write|mix
 *    [&metric=mb_s|iops|lat_mean_us|lat_p99_us] [&host=H]
 *
 * target, profile and test are matched exactly as the runs state them
 * (GET /api/v1/runs/{id}: target, profile, tests[].test); host is the
 * runs' hostname, for a hub's archive that holds several machines' runs of
 * one path.
 */
#include "api.h"

#include <errno.h>
#include <string.h>

#include "compare/history.h"

static const char *const args[] = { "target", "profile", "test", "rw",
				    "metric", "host",	 NULL };

void h_history(struct api_req *req, struct api_resp *resp)
{
	static const char *const need[] = { "target", "profile", "test", "rw" };
	struct archive_history_q q = {
		.target = api_query_str(req, "target"),
		.profile = api_query_str(req, "profile"),
		.test = api_query_str(req, "test"),
		.rw = api_query_str(req, "rw"),
		.host = api_query_str(req, "host"),
		.metric = api_query_str(req, "metric"),
	};
	const char *given[] = { q.target, q.profile, q.test, q.rw };
	char err[512] = "";
	json_t *out = NULL;
	int rc;

	if (api_query_known(req, resp, args) < 0)
		return;
	for (size_t i = 0; i < 4; i++)
		if (!given[i] || !given[i][0]) {
			api_fail(resp, 400, need[i],
				 "%s: required (target, profile, test and rw "
				 "name the series, as a run states them)",
				 need[i]);
			return;
		}
	if (q.host && !q.host[0]) {
		api_fail(resp, 400, "host",
			 "host: a host's name (the runs' hostname), or leave "
			 "it out for every host");
		return;
	}
	if (strcmp(q.rw, "read") && strcmp(q.rw, "write") &&
	    strcmp(q.rw, "mix")) {
		api_fail(resp, 400, "rw", "rw: read, write or mix");
		return;
	}
	rc = history_json(req->ctx->a, &q, &out, err, sizeof(err));
	if (rc == -EINVAL)
		api_fail(resp, 400, "metric",
			 "metric: mb_s, iops, lat_mean_us or lat_p99_us");
	else if (rc == -ENOENT)
		api_fail(resp, 404, "target", "%s", err);
	else if (rc < 0)
		api_fail(resp, api_status_from_errno(rc), NULL,
			 "archive error reading the history");
	else
		api_send_json(resp, 200, out);
}
