/*
 * plan — see plan.h for the test object and its rules: a test's parsing,
 * its checks across fields, a sweep's points and the stored form (the
 * descriptors are plan_fields.c).
 */
#include "plan.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/units.h"
#include "platform/utf8.h"
#include "steady.h"

static int fail(struct field_error *e, size_t i, const char *field,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(struct field_error *e, size_t i, const char *field,
		const char *fmt, ...)
{
	va_list ap;
	int n;

	e->status = 400;
	snprintf(e->field, sizeof(e->field), "tests[%zu]%s%s", i,
		 field ? "." : "", field ? field : "");
	n = snprintf(e->detail, sizeof(e->detail), "%s: ", e->field);
	va_start(ap, fmt);
	vsnprintf(e->detail + n, sizeof(e->detail) - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* "4K", "1M", "12K", "1536B": CrystalDiskMark's way of writing a block. */
static void block_text(uint32_t bs, char *buf, size_t len)
{
	if (bs % (1U << 20) == 0)
		snprintf(buf, len, "%uM", bs >> 20);
	else if (bs % 1024 == 0)
		snprintf(buf, len, "%uK", bs >> 10);
	else
		snprintf(buf, len, "%uB", bs);
}

static void default_name(struct workload *w)
{
	char b[16];

	block_text(w->block_size, b, sizeof(b));
	snprintf(w->name, sizeof(w->name), "%s%s Q%uT%u",
		 w->pattern == WL_SEQUENTIAL ? "SEQ" : "RND", b, w->queue_depth,
		 w->threads);
	if (w->read_pct != 0 && w->read_pct != 100)
		snprintf(w->name + strlen(w->name),
			 sizeof(w->name) - strlen(w->name), " R%u",
			 w->read_pct);
}

/* The checks that need several fields at once. */
static int check_test(size_t i, const struct workload *w, json_t *o,
		      struct field_error *e)
{
	char a[32];
	uint64_t buffers =
		(uint64_t)w->queue_depth * w->threads * w->block_size;

	if ((uint64_t)w->block_size * w->threads > w->file_size) {
		units_format_size(w->file_size, a, sizeof(a));
		return fail(e, i, "block_size",
			    "%u threads of %u-byte blocks do not fit in the "
			    "%s test file (each thread needs a block)",
			    w->threads, w->block_size, a);
	}
	if (buffers > PLAN_MAX_BUFFERS) {
		units_format_size(buffers, a, sizeof(a));
		return fail(e, i, "queue_depth",
			    "queue_depth × threads × block_size is %s of I/O "
			    "buffers; at most 1 GiB",
			    a);
	}
	if (w->io_bytes) {
		if (w->io_bytes / w->threads < w->block_size)
			return fail(e, i, "io_size",
				    "must be at least one block per thread");
		if (w->io_bytes % ((uint64_t)w->block_size * w->threads))
			return fail(
				e, i, "io_size",
				"must be a whole number of blocks per thread: "
				"a multiple of threads × block_size = %llu "
				"bytes",
				(unsigned long long)w->block_size * w->threads);
		if (w->ramp_s > 0)
			return fail(e, i, "ramp_s",
				    "a ramp applies to time-based tests only "
				    "(io_size is set)");
	}
	if (w->sync != WL_SYNC_NONE && w->read_pct == 100)
		return fail(e, i, "sync",
			    "applies to writes, and this test only "
			    "reads (read_pct 100)");
	if (json_object_get(o, "sync_every") && w->sync != WL_SYNC_FDATASYNC)
		return fail(e, i, "sync_every",
			    "applies only with sync \"fdatasync\"");
	return 0;
}

static uint64_t int_of(json_t *o, const char *key)
{
	return (uint64_t)json_integer_value(json_object_get(o, key));
}

static int enum_of(json_t *o, const char *key, const char *const *names,
		   int def)
{
	int k = fields_index_of(names,
				json_string_value(json_object_get(o, key)));

	return k >= 0 ? k : def;
}

/* Into *s: the members the test sent (raw), normalized (v), over def's. */
static int merge_steady(json_t *raw, json_t *v, const struct wl_steady *def,
			const char *at, struct wl_steady *s,
			struct field_error *e)
{
	json_t *m = steady_json(def), *x;
	const char *k;
	int rc;

	if (!json_is_object(m)) {
		json_decref(m);
		return steady_from_json(v, at, s, e);
	}
	json_object_foreach(raw, k, x)
		json_object_set(m, k, json_object_get(v, k));
	rc = steady_from_json(m, at, s, e);
	json_decref(m);
	return rc;
}

/* precondition and steady_state: the test's, else the job's (def), a
 * test's steady_state members over the job's; an explicit null turns it
 * off for the test. With steady state, every round is one iteration of
 * round_s. o is the test as sent, n normalized. */
static int parse_steady(json_t *o, json_t *n, size_t i,
			const struct workload *def, struct workload *w,
			struct field_error *e)
{
	char at[40];
	json_t *v = json_object_get(n, "steady_state"),
	       *raw = json_object_get(o, "steady_state");
	int rc;

	w->precondition = (enum wl_precondition)enum_of(
		n, "precondition", steady_precondition_names,
		(int)def->precondition);
	w->steady = def->steady;
	snprintf(at, sizeof(at), "tests[%zu].steady_state", i);
	if (json_is_null(raw)) {
		w->steady.on = 0;
		if (w->precondition == WL_PRE_WORKLOAD)
			return fail(e, i,
				    json_object_get(o, "precondition")
					    ? "precondition"
					    : "steady_state",
				    "precondition workload is rounds of the "
				    "test until steady, and steady_state null "
				    "turns them off: give one or the other");
	} else if (v && (rc = merge_steady(raw, v, &def->steady, at, &w->steady,
					   e)) < 0)
		return rc;
	if (w->precondition == WL_PRE_WORKLOAD && !w->steady.on)
		steady_defaults(&w->steady);
	if (!w->steady.on)
		return 0;
	if (w->io_bytes)
		/* name what the test sent: its steady state or precondition,
		 * else its io_size against the job's */
		return fail(e, i,
			    raw ? "steady_state"
			    : json_object_get(o, "precondition")
				    ? "precondition"
				    : "io_size",
			    "steady-state rounds are time-based; io_size must "
			    "be 0");
	if (json_object_get(n, "duration_s"))
		return fail(e, i, "duration_s",
			    "does not apply with steady_state: each round is "
			    "steady_state.round_s long");
	w->duration_s = w->steady.round_s;
	return 0;
}

static int parse_test(json_t *o, size_t i, const struct workload *def,
		      int stored, struct workload *w, struct field_error *e)
{
	char at[32];
	json_t *n = NULL, *v, *sweep = NULL;
	int rc;

	snprintf(at, sizeof(at), "tests[%zu]", i);
	if (!json_is_object(o))
		return fail(e, i, NULL, "every test must be a JSON object");
	if ((v = json_object_get(o, "sweep")) != NULL && !stored)
		return fail(e, i, "sweep",
			    "unknown field \"sweep\": make a sweep "
			    "by giving a numeric field a list");
	if (v) {
		/* a stored plan's point: checked below, not a request field */
		sweep = v;
		if (!(o = json_copy(o)))
			return -ENOMEM;
		json_object_del(o, "sweep");
	}
	rc = fields_check_object(plan_test_fields, plan_n_test_fields, o, at,
				 NULL, &n, e);
	if (rc < 0)
		goto out;
	memset(w, 0, sizeof(*w));
	w->pattern = (enum wl_pattern)enum_of(n, "pattern", plan_pattern_names,
					      WL_RANDOM);
	w->read_pct = (unsigned)int_of(n, "read_pct");
	w->block_size = (uint32_t)int_of(n, "block_size");
	w->queue_depth = (unsigned)int_of(n, "queue_depth");
	w->threads = (unsigned)int_of(n, "threads");
	w->file_size = def->file_size;
	w->duration_s = (v = json_object_get(n, "duration_s"))
				? json_number_value(v)
				: def->duration_s;
	w->io_bytes = int_of(n, "io_size");
	/* the job-wide ramp is for time-based tests; a size-based one
	 * refuses only a ramp of its own */
	w->ramp_s = (v = json_object_get(n, "ramp_s")) ? json_number_value(v)
		    : w->io_bytes		       ? 0
						       : def->ramp_s;
	w->sync =
		(enum wl_sync)enum_of(n, "sync", plan_sync_names, WL_SYNC_NONE);
	w->sync_every = (unsigned)int_of(n, "sync_every");
	w->data = (enum wl_data)enum_of(n, "data", plan_data_names,
					(int)def->data);
	if ((rc = parse_steady(o, n, i, def, w, e)) < 0 ||
	    (rc = check_test(i, w, o, e)) < 0)
		goto out;
	if (sweep) {
		/* a stored plan's point: {"group", "field", "value"} */
		json_t *g = json_object_get(sweep, "group"),
		       *f = json_object_get(sweep, "field"),
		       *x = json_object_get(sweep, "value");
		if (!json_is_string(g) || !json_is_string(f) ||
		    !json_is_number(x) ||
		    strlen(json_string_value(g)) >= sizeof(w->group) ||
		    strlen(json_string_value(f)) >= sizeof(w->sweep_field)) {
			rc = fail(e, i, "sweep",
				  "must be {\"group\": string, "
				  "\"field\": string, \"value\": "
				  "number} (make a sweep by giving a "
				  "field a list instead)");
			goto out;
		}
		snprintf(w->group, sizeof(w->group), "%s",
			 json_string_value(g));
		snprintf(w->sweep_field, sizeof(w->sweep_field), "%s",
			 json_string_value(f));
		w->sweep_value = json_number_value(x);
	}
	if ((v = json_object_get(n, "name")))
		snprintf(w->name, sizeof(w->name), "%s", json_string_value(v));
	else
		default_name(w);
out:
	json_decref(n);
	if (sweep)
		json_decref(o);
	return rc;
}

/* The value of the swept field at this point, as a number. */
static double sweep_value(const struct workload *w, const char *key)
{
	return strcmp(key, "read_pct") == 0	 ? w->read_pct
	       : strcmp(key, "block_size") == 0	 ? w->block_size
	       : strcmp(key, "queue_depth") == 0 ? w->queue_depth
	       : strcmp(key, "threads") == 0	 ? w->threads
	       : strcmp(key, "duration_s") == 0	 ? w->duration_s
	       : strcmp(key, "io_size") == 0	 ? (double)w->io_bytes
	       : strcmp(key, "ramp_s") == 0	 ? w->ramp_s
						 : w->sync_every;
}

/* " T8", " Q32", " 64K", " R70", " duration_s=2": a point's name suffix. */
static void point_token(const struct workload *w, const char *key, char *buf,
			size_t len)
{
	char b[16];

	if (strcmp(key, "threads") == 0)
		snprintf(buf, len, " T%u", w->threads);
	else if (strcmp(key, "queue_depth") == 0)
		snprintf(buf, len, " Q%u", w->queue_depth);
	else if (strcmp(key, "read_pct") == 0)
		snprintf(buf, len, " R%u", w->read_pct);
	else if (strcmp(key, "block_size") == 0)
		block_text(w->block_size, b, sizeof(b)),
			snprintf(buf, len, " %s", b);
	else
		snprintf(buf, len, " %s=%g", key, sweep_value(w, key));
}

/*
 * Appends the test(s) of request object o (tests[i]) to out: one, or one
 * per value when a field is a list (a sweep). A sweep's points share a
 * group (the test's name, or "<field> sweep <i+1>") and are named after it
 * with the point's value ("db T8"), or by default CrystalDiskMark style
 * (plus "field=value" when the name would not show the value).
 */
static int add_tests(json_t *o, size_t i, const struct workload *def,
		     int stored, struct plan *out, struct field_error *e)
{
	const char *key, *list_key = NULL;
	json_t *v, *list = NULL, *name;
	size_t n;
	int rc;

	json_object_foreach(json_is_object(o) ? o : NULL, key, v)
	{
		const struct field *f;
		if (!json_is_array(v))
			continue;
		f = fields_find(plan_test_fields, plan_n_test_fields, key);
		if (!f || !(f->flags & FIELD_SWEEP)) {
			char can[200] = "";
			for (size_t k = 0; k < plan_n_test_fields; k++)
				if (plan_test_fields[k].flags & FIELD_SWEEP)
					snprintf(can + strlen(can),
						 sizeof(can) - strlen(can),
						 "%s%s", can[0] ? ", " : "",
						 plan_test_fields[k].name);
			return fail(e, i, key,
				    "cannot be a list (these can: %s)", can);
		}
		if (list_key)
			return fail(e, i, key,
				    "only one field of a test may be "
				    "a list (%s is one already)",
				    list_key);
		list_key = key;
		list = v;
	}
	if (!list) {
		if (out->n == PLAN_MAX_TESTS)
			goto too_many;
		if ((rc = parse_test(o, i, def, stored, &out->w[out->n], e)) <
		    0)
			return rc;
		out->w[out->n].origin = (unsigned)i;
		out->n++;
		return 0;
	}
	n = json_array_size(list);
	if (n < 1 || n > PLAN_MAX_TESTS)
		return fail(e, i, list_key, "a list of 1 to %d values",
			    PLAN_MAX_TESTS);
	name = json_object_get(o, "name");
	for (size_t j = 0; j < n; j++) {
		json_t *point = json_copy(o);
		struct workload *w;
		char tok[40];

		if (!point)
			return -ENOMEM;
		if (out->n == PLAN_MAX_TESTS) {
			json_decref(point);
			goto too_many;
		}
		w = &out->w[out->n];
		json_object_set(point, list_key, json_array_get(list, j));
		json_object_del(point, "name");
		rc = parse_test(point, i, def, stored, w, e);
		json_decref(point);
		if (rc < 0) {
			/* name the element: tests[0].threads[1] */
			const char *why = strstr(e->detail, ": ");
			char detail[sizeof(e->detail)];
			size_t fl = strlen(e->field);
			if (fl + 8 < sizeof(e->field) && why &&
			    strstr(e->field, list_key)) {
				snprintf(e->field + fl, sizeof(e->field) - fl,
					 "[%zu]", j);
				snprintf(detail, sizeof(detail), "%s%s",
					 e->field, why);
				snprintf(e->detail, sizeof(e->detail), "%s",
					 detail);
			}
			return rc;
		}
		point_token(w, list_key, tok, sizeof(tok));
		if (json_is_string(name)) {
			snprintf(w->group, sizeof(w->group), "%s",
				 json_string_value(name));
			if (snprintf(w->name, sizeof(w->name), "%s%s", w->group,
				     tok) >= (int)sizeof(w->name))
				return fail(e, i, "name",
					    "too long for a sweep: "
					    "the point's name "
					    "\"%s%s\" is over 31 "
					    "bytes",
					    w->group, tok);
		} else {
			snprintf(w->group, sizeof(w->group), "%s sweep %zu",
				 list_key, i + 1);
			if (strcmp(list_key, "read_pct") &&
			    strcmp(list_key, "threads") &&
			    strcmp(list_key, "queue_depth") &&
			    strcmp(list_key, "block_size"))
				snprintf(w->name + strlen(w->name),
					 sizeof(w->name) - strlen(w->name),
					 "%s", tok);
		}
		snprintf(w->sweep_field, sizeof(w->sweep_field), "%s",
			 list_key);
		w->sweep_value = sweep_value(w, list_key);
		w->origin = (unsigned)i;
		for (size_t k = out->n - j; k < out->n; k++)
			if (out->w[k].sweep_value == w->sweep_value) {
				char pkey[24];
				snprintf(pkey, sizeof(pkey), "%s[%zu]",
					 list_key, j);
				return fail(e, i, pkey,
					    "repeats the value of %s[%zu] "
					    "(each point of a sweep once)",
					    list_key, k - (out->n - j));
			}
		out->n++;
	}
	return 0;
too_many:
	snprintf(e->field, sizeof(e->field), "tests");
	snprintf(e->detail, sizeof(e->detail),
		 "tests: at most %d tests, counting every point of a sweep",
		 PLAN_MAX_TESTS);
	return -EINVAL;
}

static int parse_plan_tests(json_t *tests, const struct workload *def,
			    int stored, struct plan *out, struct field_error *e)
{
	size_t n = json_array_size(tests);
	int rc;

	memset(out, 0, sizeof(*out));
	if (!json_is_array(tests) || n == 0 || n > PLAN_MAX_TESTS) {
		snprintf(e->field, sizeof(e->field), "tests");
		snprintf(e->detail, sizeof(e->detail),
			 "tests: must be an array of 1 to %d test objects",
			 PLAN_MAX_TESTS);
		return -EINVAL;
	}
	if (!(out->w = calloc(PLAN_MAX_TESTS, sizeof(*out->w))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t first = out->n;
		if ((rc = add_tests(json_array_get(tests, i), i, def, stored,
				    out, e)) < 0) {
			plan_free(out);
			return rc;
		}
		for (size_t a = first; a < out->n; a++)
			for (size_t b = 0; b < a; b++)
				if (strcmp(out->w[a].name, out->w[b].name) ==
					    0 &&
				    strcmp(wl_rw_name(out->w[a].read_pct),
					   wl_rw_name(out->w[b].read_pct)) ==
					    0) {
					fail(e, i, "name",
					     "\"%s\" (%s) is already in the "
					     "plan; give each test its own "
					     "name",
					     out->w[a].name,
					     wl_rw_name(out->w[a].read_pct));
					plan_free(out);
					return -EINVAL;
				}
	}
	return 0;
}

int plan_parse(json_t *tests, const struct workload *def, struct plan *out,
	       struct field_error *e)
{
	return parse_plan_tests(tests, def, 0, out, e);
}

int plan_parse_stored(json_t *tests, const struct workload *def,
		      struct plan *out, struct field_error *e)
{
	return parse_plan_tests(tests, def, 1, out, e);
}

int plan_from_tests(const struct plan_test *t, size_t n,
		    const struct workload *def, struct plan *out)
{
	memset(out, 0, sizeof(*out));
	if (!(out->w = calloc(n ? n : 1, sizeof(*out->w))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct workload *w = &out->w[i];
		snprintf(w->name, sizeof(w->name), "%s", t[i].name);
		w->pattern = t[i].pattern;
		w->read_pct = t[i].read_pct;
		w->block_size = t[i].block_size;
		w->queue_depth = t[i].queue_depth;
		w->threads = t[i].threads;
		w->file_size = def->file_size;
		w->duration_s = def->duration_s;
		w->ramp_s = def->ramp_s;
		w->data = def->data;
		w->sync_every = 1;
		w->origin = (unsigned)i;
		w->precondition = def->precondition;
		w->steady = def->steady;
		if (w->steady.on)
			w->duration_s = w->steady.round_s;
	}
	out->n = n;
	return 0;
}

json_t *plan_json(const struct plan *p)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < p->n; i++) {
		const struct workload *w = &p->w[i];
		json_t *t = json_pack(
			"{s:s, s:s, s:i, s:I, s:i, s:i, s:f, s:I, s:f, s:s, "
			"s:s}",
			"name", w->name, "pattern", wl_pattern_name(w->pattern),
			"read_pct", (int)w->read_pct, "block_size",
			(json_int_t)w->block_size, "queue_depth",
			(int)w->queue_depth, "threads", (int)w->threads,
			"duration_s", w->duration_s, "io_size",
			(json_int_t)w->io_bytes, "ramp_s", w->ramp_s, "sync",
			wl_sync_name(w->sync), "data", wl_data_name(w->data));
		if (t && w->sync == WL_SYNC_FDATASYNC)
			json_object_set_new(t, "sync_every",
					    json_integer(w->sync_every));
		if (t && w->precondition != WL_PRE_NONE)
			json_object_set_new(
				t, "precondition",
				json_string(steady_precondition_names
						    [w->precondition]));
		if (t && w->steady.on) {
			/* its rounds' length is round_s */
			json_object_del(t, "duration_s");
			json_object_set_new(t, "steady_state",
					    steady_json(&w->steady));
		}
		if (t && w->sweep_field[0])
			json_object_set_new(t, "sweep",
					    json_pack("{s:s, s:s, s:f}",
						      "group", w->group,
						      "field", w->sweep_field,
						      "value", w->sweep_value));
		if (!t || json_array_append_new(a, t) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

void plan_free(struct plan *p)
{
	free(p->w);
	memset(p, 0, sizeof(*p));
}
