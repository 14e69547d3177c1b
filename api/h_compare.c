/*
 * h_compare — GET /api/v1/compare: runs side by side
 * (daemon/compare/compare.h).
 *
 *   ?runs=12,15[,…]            each run a side; the first is the baseline
 *   ?group_by=fs_type|cluster_size|label|server|target|write_cache|direct|
 *             size|engine|version|cow|hosts
 *        [&values=a,b,…]        the sides, in order (default: every value
 *                               found, in order of first appearance)
 *        [&profile=…&label=…&fs_type=…&target=…&server=…&host=…&from=…&to=…]
 *                               which runs count (from/to: started_at,
 *                               ISO 8601 prefixes compared as text)
 *   ?latest_per=host&profile=P [&values=h1,h2,…] [&the filters above]
 *                               each host's newest done run of profile P
 *                               (archive_runs_hosts: the latest started_at,
 *                               then the highest id) a side, named by its
 *                               host, in order of host (or of values)
 * Only finished (done) runs are grouped.
 */
#include "api.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive.h"
#include "compare/compare.h"

#define MAX_SIDES 16
#define MAX_RUNS_PER_SIDE 1000

/* The query parameters compare takes. */
static const char *const args[] = {
	"runs",	 "group_by", "latest_per", "values", "format", "profile",
	"label", "fs_type",  "target",	   "server", "host",   "cluster_size",
	"from",	 "to",	     "state",	   "sort",   NULL
};

/* The value of field of run r as text (NULL when it has none): its string,
 * or a number written into buf. */
static const char *run_value(json_t *r, const char *field, char *buf,
			     size_t len)
{
	json_t *v = json_object_get(r, field);

	if (json_is_string(v))
		return json_string_length(v) ? json_string_value(v) : NULL;
	if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%.0f", json_real_value(v));
	else
		return NULL;
	return buf;
}

struct sides {
	struct compare_side s[MAX_SIDES];
	int64_t *ids[MAX_SIDES];
	char *labels[MAX_SIDES];
	size_t n;
};

static void sides_free(struct sides *sd)
{
	for (size_t i = 0; i < sd->n; i++) {
		free(sd->ids[i]);
		free(sd->labels[i]);
	}
}

/* Side named label, made when missing (NULL when there are too many, or
 * no memory). */
static struct compare_side *side_for(struct sides *sd, const char *label,
				     int make)
{
	for (size_t i = 0; i < sd->n; i++)
		if (strcmp(sd->s[i].label, label) == 0)
			return &sd->s[i];
	if (!make || sd->n == MAX_SIDES)
		return NULL;
	sd->ids[sd->n] = calloc(MAX_RUNS_PER_SIDE, sizeof(int64_t));
	sd->labels[sd->n] = strdup(label);
	if (!sd->ids[sd->n] || !sd->labels[sd->n]) {
		free(sd->ids[sd->n]);
		free(sd->labels[sd->n]);
		return NULL;
	}
	sd->s[sd->n].label = sd->labels[sd->n];
	sd->s[sd->n].runs = sd->ids[sd->n];
	return &sd->s[sd->n++];
}

static void side_add(struct sides *sd, struct compare_side *s, int64_t id)
{
	size_t i = (size_t)(s - sd->s);

	if (s->n < MAX_RUNS_PER_SIDE)
		sd->ids[i][s->n++] = id;
}

/* ?runs=A,B,… */
static int sides_from_runs(const char *list, struct sides *sd,
			   struct api_resp *resp)
{
	const char *p = list;

	while (*p) {
		char *end, label[32];
		long long id;
		struct compare_side *s;
		errno = 0;
		id = strtoll(p, &end, 10);
		/* digits only: strtoll would take " 5" and "+5" too */
		if (*p < '1' || *p > '9' || id <= 0 || errno ||
		    (*end && *end != ',') || (*end == ',' && end[1] == '\0')) {
			api_fail(resp, 400, "runs",
				 "runs: a comma list of run ids, the baseline "
				 "first "
				 "(runs=12,15)");
			return -EINVAL;
		}
		snprintf(label, sizeof(label), "run %lld", id);
		if (side_for(sd, label, 0)) {
			api_fail(resp, 400, "runs",
				 "runs: run %lld is listed twice", id);
			return -EINVAL;
		}
		if (!(s = side_for(sd, label, 1))) {
			api_fail(resp, 400, "runs", "runs: at most %d runs",
				 MAX_SIDES);
			return -EINVAL;
		}
		side_add(sd, s, id);
		p = *end ? end + 1 : end;
	}
	return 0;
}

/* ?values=a,b,…: the sides, in this order (every piece of the comma list
 * counts); none when values is NULL. */
static int sides_from_values(const char *values, struct sides *sd,
			     struct api_resp *resp)
{
	for (const char *p = values; p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		char tok[API_QUERY_VALUE_MAX + 1];
		if (n == 0) {
			api_fail(resp, 400, "values",
				 "values: a comma list of values, none empty");
			return -EINVAL;
		}
		memcpy(tok, p, n);
		tok[n] = '\0';
		p = comma ? comma + 1 : NULL;
		if (side_for(sd, tok, 0)) {
			api_fail(resp, 400, "values",
				 "values: \"%.64s\" is listed twice", tok);
			return -EINVAL;
		}
		if (!side_for(sd, tok, 1)) {
			api_fail(resp, 400, "values", "values: at most %d",
				 MAX_SIDES);
			return -EINVAL;
		}
	}
	return 0;
}

/* ?group_by=field[&values=…] and the filters */
static int sides_from_groups(struct api_req *req, const char *field,
			     struct sides *sd, struct api_resp *resp)
{
	static const char *const fields[] = {
		"fs_type", "cluster_size", "label",  "server",
		"target",  "write_cache",  "direct", "size",
		"engine",  "version",	   "cow",    "hosts"
	};
	const size_t n_fields = sizeof(fields) / sizeof(fields[0]);
	const char *values = api_query_str(req, "values");
	struct run_filter f;
	json_t *runs, *r;
	size_t i, k;
	int rc, overflow = 0;

	for (k = 0; k < n_fields && strcmp(field, fields[k]) != 0; k++)
		;
	if (k == n_fields) {
		api_fail(resp, 400, "group_by",
			 "group_by: one of fs_type, cluster_size, label, "
			 "server, target, write_cache, direct, size, engine, "
			 "version, cow, hosts");
		return -EINVAL;
	}
	if ((rc = sides_from_values(values, sd, resp)) < 0 ||
	    (rc = api_run_filter(req, resp, &f)) < 0)
		return rc;
	/* only the field grouped by: a run is in the group of its labels */
	if ((rc = archive_runs_index_of(req->ctx->a, &f,
					k == 2 ? "labels" : fields[k], &runs)) <
	    0) {
		api_fail(resp, 500, NULL, "archive error listing runs");
		return rc;
	}
	json_array_foreach(runs, i, r)
	{
		int64_t id = json_integer_value(json_object_get(r, "id"));
		if (k == 2) { /* a run is in every group of its labels */
			json_t *l;
			size_t j;
			json_array_foreach(json_object_get(r, "labels"), j, l)
			{
				const char *name = json_string_value(l);
				struct compare_side *s =
					side_for(sd, name, !values);
				if (s)
					side_add(sd, s, id);
				else if (!values && !side_for(sd, name, 0))
					overflow = 1;
			}
		} else {
			char num[32];
			const char *v = run_value(r, field, num, sizeof(num));
			struct compare_side *s;
			if (v && (s = side_for(sd, v, !values)))
				side_add(sd, s, id);
			else if (v && !values)
				overflow = 1;
		}
	}
	json_decref(runs);
	if (overflow) {
		api_fail(resp, 400, "values",
			 "more than %d values of %s among the runs: pick the "
			 "sides with values= or narrow them with filters",
			 MAX_SIDES, field);
		return -EINVAL;
	}
	for (i = 0; i < sd->n; i++)
		if (sd->s[i].n == 0) {
			api_fail(resp, 404, "values",
				 "no finished run has %s \"%s\" (with the "
				 "filters given)",
				 field, sd->s[i].label);
			return -ENOENT;
		}
	return 0;
}

/* ?latest_per=host&profile=P[&values=…] and the filters: each host's
 * newest done run of profile P is a side, named by its host
 * (archive_runs_hosts: the latest started_at, then the highest id; runs
 * that name no host are left out). */
static int sides_latest_per(struct api_req *req, const char *per,
			    struct sides *sd, struct api_resp *resp)
{
	static const char *const not_here[] = { "state", "sort" };
	const char *values = api_query_str(req, "values");
	struct run_filter f;
	json_t *hosts, *h;
	size_t i;
	int rc, overflow = 0;

	if (strcmp(per, "host") != 0) {
		api_fail(resp, 400, "latest_per",
			 "latest_per: host (each host's newest done run of "
			 "the profile is a side)");
		return -EINVAL;
	}
	for (i = 0; i < sizeof(not_here) / sizeof(not_here[0]); i++)
		if (api_query_str(req, not_here[i])) {
			api_fail(resp, 400, not_here[i],
				 "%s: latest_per=host takes each host's newest "
				 "done run",
				 not_here[i]);
			return -EINVAL;
		}
	if ((rc = sides_from_values(values, sd, resp)) < 0 ||
	    (rc = api_run_filter(req, resp, &f)) < 0)
		return rc;
	if (!f.profile) {
		api_fail(resp, 400, "profile",
			 "profile: latest_per=host compares each host's newest "
			 "done run of one profile; name it (profile=custom)");
		return -EINVAL;
	}
	f.state = "done";
	if ((rc = archive_runs_hosts(req->ctx->a, &f, &hosts)) < 0) {
		api_fail(resp, 500, NULL, "archive error listing runs");
		return rc;
	}
	json_array_foreach(hosts, i, h)
	{
		const char *name =
			json_string_value(json_object_get(h, "host"));
		struct compare_side *s;
		if (!name || !name[0])
			continue; /* the runs that name no host */
		if ((s = side_for(sd, name, !values)))
			side_add(sd, s,
				 json_integer_value(
					 json_object_get(h, "latest_run_id")));
		else if (!values)
			overflow = 1;
	}
	json_decref(hosts);
	if (overflow) {
		api_fail(resp, 400, "values",
			 "more than %d hosts have a done run of profile %s: "
			 "pick the sides with values= or narrow them with "
			 "filters",
			 MAX_SIDES, f.profile);
		return -EINVAL;
	}
	for (i = 0; i < sd->n; i++)
		if (sd->s[i].n == 0) {
			api_fail(resp, 404, "values",
				 "host \"%s\" has no done run of profile %s "
				 "(with the filters given)",
				 sd->s[i].label, f.profile);
			return -ENOENT;
		}
	if (sd->n < 2) {
		api_fail(resp, 400, "latest_per",
			 "latest_per=host: a comparison needs two hosts with a "
			 "done run of profile %s (with the filters given); "
			 "found %zu%s%.64s%s",
			 f.profile, sd->n, sd->n ? " (\"" : "",
			 sd->n ? sd->s[0].label : "", sd->n ? "\")" : "");
		return -EINVAL;
	}
	return 0;
}

/* A comparison as CSV: a row per test, metric and side (the baseline's
 * delta columns empty); `judged_by` is the test that judged the delta. */
static void send_compare_csv(struct api_resp *resp, json_t *c)
{
	static const char *const cols[] = {
		"test",		  "rw",		"metric",
		"unit",		  "better",	"side",
		"label",	  "baseline",	"n",
		"mean",		  "sd",		"delta",
		"delta_pct",	  "p",		"verdict",
		"judged_by",	  "ci_low_pct", "ci_high_pct",
		"noise_band_pct", "how"
	};
	json_t *rows = json_array(), *t, *m;
	size_t i, j;

	json_array_foreach(json_object_get(c, "tests"), i, t)
	{
		json_array_foreach(json_object_get(t, "metrics"), j, m)
		{
			json_t *sides = json_object_get(m, "sides");
			for (size_t s = 0; s < json_array_size(sides); s++) {
				json_t *sv = json_array_get(sides, s);
				json_t *vs = json_array_get(
					json_object_get(m, "vs_baseline"), s);
				json_array_append_new(
					rows,
					json_pack(
						"[O?, O?, O?, O?, O?, I, O?, "
						"b, O?, O?, O?, O?, O?, O?, "
						"O?, O?, O?, O?, O?, O?]",
						json_object_get(t, "test"),
						json_object_get(t, "rw"),
						json_object_get(m, "metric"),
						json_object_get(m, "unit"),
						json_object_get(m, "better"),
						(json_int_t)s,
						json_object_get(
							json_array_get(
								json_object_get(
									c,
									"side"
									"s"),
								s),
							"label"),
						s == 0,
						json_object_get(sv, "n"),
						json_object_get(sv, "mean"),
						json_object_get(sv, "sd"),
						json_object_get(vs, "delta"),
						json_object_get(vs,
								"delta_pct"),
						json_object_get(vs, "p"),
						json_object_get(vs, "verdict"),
						json_object_get(vs, "test"),
						json_array_get(
							json_object_get(
								vs, "ci_pct"),
							0),
						json_array_get(
							json_object_get(
								vs, "ci_pct"),
							1),
						json_object_get(
							vs, "noise_band_pct"),
						json_object_get(vs, "how")));
			}
		}
	}
	api_send_csv(resp, cols, sizeof(cols) / sizeof(cols[0]), rows,
		     "storbench-compare.csv");
	json_decref(c);
}

/* ?format=json|csv|html: 0, 1 (csv), 2 (html), or -1 (the problem
 * sent). */
static int want_format(struct api_req *req, struct api_resp *resp)
{
	const char *f = api_query_str(req, "format");

	if (!f || strcmp(f, "json") == 0)
		return 0;
	if (strcmp(f, "csv") == 0)
		return 1;
	if (strcmp(f, "html") == 0)
		return 2;
	api_fail(resp, 400, "format", "format: json, csv or html");
	return -1;
}

void h_compare(struct api_req *req, struct api_resp *resp)
{
	const char *runs = api_query_str(req, "runs"),
		   *group = api_query_str(req, "group_by"),
		   *latest = api_query_str(req, "latest_per");
	struct sides sd = { 0 };
	char err[128] = "";
	json_t *out;
	int rc, csv;

	if (api_query_known(req, resp, args) < 0 ||
	    (csv = want_format(req, resp)) < 0)
		return;
	if (!!runs + !!group + !!latest != 1) {
		api_fail(resp, 400,
			 latest && (runs || group) ? "latest_per"
			 : runs			   ? "group_by"
						   : "runs",
			 "give either runs=A,B,… (the first is the baseline), "
			 "group_by=fs_type|cluster_size|label|server|target|"
			 "write_cache|direct|size|engine|version|cow|hosts or "
			 "latest_per=host&profile=P");
		return;
	}
	if (runs) {
		static const char *const filters[] = {
			"values", "profile", "label", "fs_type",
			"target", "server",  "host",  "cluster_size",
			"from",	  "to",	     "state", "sort"
		};
		for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]);
		     i++)
			if (api_query_str(req, filters[i])) {
				api_fail(resp, 400, filters[i],
					 "%s: filters and values go with "
					 "group_by; "
					 "runs= names its runs itself",
					 filters[i]);
				goto out;
			}
	}
	rc = runs     ? sides_from_runs(runs, &sd, resp)
	     : latest ? sides_latest_per(req, latest, &sd, resp)
		      : sides_from_groups(req, group, &sd, resp);
	if (rc < 0)
		goto out;
	if (sd.n < 2) {
		int one = !runs && sd.n == 1; /* name the value found */
		api_fail(resp, 400, runs ? "runs" : "group_by",
			 "a comparison needs at least two sides; found "
			 "%zu%s%.64s%s",
			 sd.n, one ? " (\"" : "", one ? sd.s[0].label : "",
			 one ? "\": every run has that value)" : "");
		goto out;
	}
	rc = compare_json(req->ctx->a, sd.s, sd.n, latest ? "host" : group,
			  &out, err, sizeof(err));
	if (rc == -ENOENT)
		api_fail(resp, 404, "runs", "%s", err);
	else if (rc < 0)
		api_fail(resp, 500, NULL, "the comparison failed: %s",
			 strerror(-rc));
	else if (csv == 2)
		api_send_compare_html(req, resp, out);
	else if (csv)
		send_compare_csv(resp, out);
	else
		api_send_json(resp, 200, out);
out:
	sides_free(&sd);
}
