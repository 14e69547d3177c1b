/*
 * h_report — the HTML reports the routes answer with format=html
 * (GET /api/v1/compare, GET /api/v1/runs/{id}): the JSON they would
 * answer handed to daemon/report (report.h), sent as an attachment. A
 * comparison's report also shows the probes and specs of the sides' runs,
 * read here (runview_json: the run as GET shows it) for the first
 * MAX_REPORT_RUNS of them.
 */
#include "api.h"

#include <stdio.h>
#include <string.h>

#include "compare/runview.h"
#include "report/report.h"

#define MAX_REPORT_RUNS 64 /* runs whose probes and specs a report shows */

/* A run as a self-contained HTML report (report/report.h), an
 * attachment. */
void api_send_run_html(struct api_resp *resp, json_t *run)
{
	char *buf = NULL, name[64];
	size_t len = 0;

	if (report_run_html(run, &buf, &len) < 0) {
		json_decref(run);
		api_fail(resp, 500, NULL, "out of memory");
		return;
	}
	snprintf(name, sizeof(name), "storbench-run-%lld.html",
		 (long long)json_integer_value(json_object_get(run, "id")));
	api_send_file(resp, buf, len, API_HTML_TYPE, name);
	json_decref(run);
}

/* A comparison as a self-contained HTML report (report/report.h), with the
 * probes and specs of the sides' first MAX_REPORT_RUNS runs, an
 * attachment named after the runs (runs=), the field grouped by or the
 * hosts. */
void api_send_compare_html(struct api_req *req, struct api_resp *resp,
			   json_t *c)
{
	const char *runs = api_query_str(req, "runs"),
		   *group = api_query_str(req, "group_by");
	json_t *full = json_object(), *side, *r;
	char name[96] = "storbench-compare.html", key[32], *buf = NULL;
	size_t i, j, len = 0, n = 0;

	json_array_foreach(json_object_get(c, "sides"), i, side)
	{
		json_array_foreach(json_object_get(side, "runs"), j, r)
		{
			int64_t id =
				json_integer_value(json_object_get(r, "id"));
			json_t *run;
			snprintf(key, sizeof(key), "%lld", (long long)id);
			if (n == MAX_REPORT_RUNS || json_object_get(full, key))
				continue;
			if (runview_json(req->ctx->a, id, &run) == 0) {
				json_object_set_new(full, key, run);
				n++;
			}
		}
	}
	if (runs && strlen(runs) < sizeof(name) - 24) {
		snprintf(name, sizeof(name), "storbench-compare-%s.html", runs);
		for (char *p = name; *p; p++)
			if (*p == ',')
				*p = '-';
	} else if (group)
		snprintf(name, sizeof(name), "storbench-compare-by-%s.html",
			 group);
	else if (!runs)
		snprintf(name, sizeof(name),
			 "storbench-compare-latest-per-host.html");
	if (report_compare_html(c, full, &buf, &len) < 0)
		api_fail(resp, 500, NULL, "out of memory");
	else
		api_send_file(resp, buf, len, API_HTML_TYPE, name);
	json_decref(full);
	json_decref(c);
}
