/*
 * h_misc — the small resources: /healthz, /api/v1/profiles, the API's
 * OpenAPI document (/api/v1/openapi.json) and the embedded dashboard (/ and
 * /static/...). The document and the dashboard are compiled into the binary
 * (web_assets.h): nothing here reads a file at run time.
 */
#include "api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive.h"
#include "engine/units.h"
#include "jobs/plan.h"
#include "platform/fields.h"
#include "presets/preset.h"
#include "queue/jobq.h"
#include "web_assets.h"

void h_health(struct api_req *req, struct api_resp *resp)
{
	int queued = 0, running = 0;
	int rc = archive_queue_counts(req->ctx->a, &queued, &running);

	if (rc < 0) {
		api_fail(resp, 503, NULL, "the archive does not answer");
		return;
	}
	/* a job whose end waits to be written has ended */
	running -= jobq_unwritten(req->ctx->q, NULL);
	api_send_json(resp, 200,
		      json_pack("{s:s, s:s, s:{s:i, s:i}}", "status", "ok",
				"version", STORBENCH_VERSION, "queue", "queued",
				queued, "running", running));
}

/* A value of field f in words: sizes with their unit ("64MiB"). */
static void value_text(const struct field *f, json_t *v, char *buf, size_t len)
{
	size_t k;
	json_t *x;

	if (f->type == FIELD_BYTES && json_is_integer(v)) {
		units_format_size((uint64_t)json_integer_value(v), buf, len);
		return;
	}
	if (f->type == FIELD_LIST && json_is_array(v) && f->item) {
		snprintf(buf, len, "[");
		json_array_foreach(v, k, x)
		{
			size_t n = strlen(buf);
			value_text(f->item, x, buf + n + (k ? 2 : 0),
				   len - n - (k ? 2 : 0));
			if (k)
				memcpy(buf + n, ", ", 2);
		}
		k = strlen(buf);
		snprintf(buf + k, len - k, "]");
		return;
	}
	{
		char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		snprintf(buf, len, "%s", t ? t : "");
		free(t);
	}
}

/* The limits of f in words ("1 … 1024 I/Os"), or "". */
static void limits_text(const struct field *f, char *buf, size_t len)
{
	char lo[32], hi[32];

	buf[0] = '\0';
	if (f->type == FIELD_BYTES) {
		fields_bytes_text((uint64_t)f->min, lo, sizeof(lo));
		fields_bytes_text((uint64_t)f->max, hi, sizeof(hi));
		snprintf(buf, len, "%s … %s", lo, hi);
	} else if (f->type == FIELD_INT || f->type == FIELD_NUMBER) {
		/* whole limits without an exponent: 1000000, not 1e+06 */
		snprintf(lo, sizeof(lo),
			 f->min == (long long)f->min ? "%.0f" : "%g", f->min);
		snprintf(hi, sizeof(hi),
			 f->max == (long long)f->max ? "%.0f" : "%g", f->max);
		snprintf(buf, len, "%s%s … %s%s%s",
			 (f->flags & FIELD_ABOVE_MIN) ? "> " : "", lo, hi,
			 f->unit ? " " : "", f->unit ? f->unit : "");
	} else if (f->type == FIELD_ENUM) {
		for (size_t i = 0; f->choices[i]; i++) {
			size_t n = strlen(buf);
			snprintf(buf + n, len - n, "%s%s", i ? " | " : "",
				 f->choices[i]);
		}
	} else if (f->type == FIELD_LIST) {
		snprintf(buf, len, "a list of %u … %u", f->min_items,
			 f->max_items);
	} else if (f->type == FIELD_OBJECT) {
		for (size_t i = 0; i < f->n_sub; i++) {
			const struct field *g = &f->sub[i];
			size_t n = strlen(buf);
			snprintf(buf + n, len - n, "%s%s (%s)", i ? ", " : "",
				 g->name, g->def ? g->def : "");
		}
	}
}

/* A descriptor table as the older prose map {name: "help: limits
 * (default)"}: GET /api/v1/profiles' "options" and "test_fields". */
static json_t *prose(const struct field *fs, size_t n)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < n; i++) {
		char text[700], lim[200], def[300] = "";
		json_t *d =
			fs[i].def ? json_loads(fs[i].def, JSON_DECODE_ANY, NULL)
				  : NULL;
		if (d && fs[i].type != FIELD_OBJECT)
			value_text(&fs[i], d, def, sizeof(def));
		else if (fs[i].def_text)
			snprintf(def, sizeof(def), "%s", fs[i].def_text);
		limits_text(&fs[i], lim, sizeof(lim));
		snprintf(text, sizeof(text), "%s%s%s%s%s%s",
			 fs[i].help ? fs[i].help : "", lim[0] ? ": " : "", lim,
			 def[0] ? " (" : "", def, def[0] ? ")" : "");
		json_object_set_new(o, fs[i].name, json_string(text));
		json_decref(d);
	}
	return o;
}

/* How the run page draws a preset's summary rows. */
static json_t *summary_view(const struct preset *p)
{
	const struct preset_rows *r = p->rows;
	json_t *cols = json_array();

	for (size_t i = 0; i < r->n_columns; i++) {
		const struct preset_column *c = &r->columns[i];
		json_t *o = json_pack("{s:s, s:s, s:i, s:i}", "key", c->key,
				      "title", c->title, "digits", c->digits,
				      "axis", c->axis);
		if (c->limit)
			json_object_set_new(o, "limit", json_string(c->limit));
		json_array_append_new(cols, o);
	}
	return json_pack(
		"{s:s, s:s, s:s, s:s, s:s*, s:o, s:s*, s:s*, s:s, s:s*}", "key",
		p->summary_key, "title", r->title, "x", r->x, "y", r->y_title,
		"y2", r->y2_title, "columns", cols, "verdict", r->verdict_key,
		"reasons", r->reasons_key, "kind", r->kind, "verdicts",
		r->verdicts_key);
}

static json_t *profile_json(const struct preset *p)
{
	json_t *tests = json_array(), *e, *fields = json_object();

	for (size_t j = 0; j < p->n_tests; j++) {
		const struct plan_test *t = &p->tests[j];
		json_array_append_new(
			tests,
			json_pack("{s:s, s:s, s:s, s:i, s:i, s:i}", "test",
				  t->name, "rw", wl_rw_name(t->read_pct),
				  "pattern", wl_pattern_name(t->pattern),
				  "block_size", (int)t->block_size,
				  "queue_depth", (int)t->queue_depth, "threads",
				  (int)t->threads));
	}
	e = json_pack("{s:s, s:s, s:s, s:{s:I, s:i, s:f, s:f}, s:o}", "name",
		      p->name, "kind", p->kind, "title", p->title, "defaults",
		      "size", (json_int_t)p->defaults.size, "iterations",
		      p->defaults.iterations, "duration_s",
		      p->defaults.duration_s, "interval_s",
		      p->defaults.interval_s, "tests", tests);
	if (p->flags & PRESET_TESTS) {
		json_object_set_new(
			e, "test_fields",
			prose(plan_test_fields, plan_n_test_fields));
		json_object_set_new(
			fields, "tests",
			fields_describe(plan_test_fields, plan_n_test_fields));
	}
	if (p->n_options) {
		json_object_set_new(e, "options",
				    prose(p->options, p->n_options));
		json_object_set_new(fields, "options",
				    fields_describe(p->options, p->n_options));
	}
	json_object_set_new(e, "view", json_string(p->view));
	json_object_set_new(e, "interleave",
			    json_boolean(p->flags & PRESET_INTERLEAVE));
	json_object_set_new(e, "fields", fields);
	if (p->rows)
		json_object_set_new(e, "summary", summary_view(p));
	return e;
}

void h_profiles(struct api_req *req, struct api_resp *resp)
{
	static const char *const none[] = { NULL };
	const struct preset *p;
	json_t *list;

	if (api_query_known(req, resp, none) < 0)
		return;
	jobspec_init();
	list = json_array();
	for (size_t i = 0; (p = preset_at(i)) != NULL; i++)
		json_array_append_new(list, profile_json(p));
	api_send_json(
		resp, 200,
		json_pack("{s:o, s:o}", "profiles", list, "job_fields",
			  fields_describe(jobspec_fields, jobspec_n_fields)));
}

/* GET /api/v1/openapi.json: the document openapi.c builds once from the
 * embedded fragments (the JSON files of api/openapi/) and the field
 * tables. */
void h_openapi(struct api_req *req, struct api_resp *resp)
{
	static const char *const none[] = { NULL };
	const char *doc, *why = NULL;
	size_t len = 0;

	if (api_query_known(req, resp, none) < 0)
		return;
	if (!(doc = api_openapi_text(&len, &why))) {
		api_fail(resp, 500, NULL,
			 "the OpenAPI document cannot be built: %s", why);
		return;
	}
	resp->status = 200;
	resp->content_type = "application/json; charset=utf-8";
	resp->static_body = (const unsigned char *)doc;
	resp->len = len;
}

void h_static(struct api_req *req, struct api_resp *resp)
{
	const char *want = req->rest ? req->rest : "index.html";

	for (const struct web_asset *a = web_assets; a->path; a++) {
		if (strcmp(a->path, want) != 0)
			continue;
		resp->status = 200;
		resp->content_type = a->content_type;
		resp->static_body = a->data;
		resp->len = a->size;
		return;
	}
	api_fail(resp, 404, NULL, "no such file: %s", req->path);
}
