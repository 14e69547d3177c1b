/*
 * plan — see plan.h for the test object and its rules.
 */
#include "plan.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

#define MAX_BLOCK (64U << 20)
#define MAX_IO_SIZE (64ULL << 40)

static const char *const test_fields[] = {
	"name", "pattern", "read_pct", "block_size", "queue_depth", "threads",
	"duration_s", "io_size", "ramp_s", "sync", "sync_every", "data",
	"sweep",
};

/* The numeric fields that may be a list (a sweep). */
static const char *const sweepable[] = {
	"read_pct", "block_size", "queue_depth", "threads", "duration_s",
	"io_size", "ramp_s", "sync_every",
};
#define N_SWEEPABLE (sizeof(sweepable) / sizeof(sweepable[0]))

static int fail(struct plan_error *e, size_t i, const char *field,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(struct plan_error *e, size_t i, const char *field,
		const char *fmt, ...)
{
	va_list ap;
	int n;

	snprintf(e->field, sizeof(e->field), "tests[%zu]%s%s", i,
		 field ? "." : "", field ? field : "");
	n = snprintf(e->detail, sizeof(e->detail), "%s: ", e->field);
	va_start(ap, fmt);
	vsnprintf(e->detail + n, sizeof(e->detail) - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int utf8_has_control(const char *s)
{
	for (const unsigned char *u = (const unsigned char *)s; *u; u++)
		if (*u < 0x20 || *u == 0x7f ||
		    (u[0] == 0xC2 && u[1] >= 0x80 && u[1] <= 0x9F))
			return 1;
	return 0;
}

/* Length of the valid UTF-8 sequence at s (RFC 3629), or 0 if invalid. */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4;
	else
		return 0;
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F; /* no surrogates */
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return n;
}

int utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = utf8_seq(p);
		if (n == 0)
			return 0;
		p += n;
	}
	return 1;
}

void utf8_sanitize(char *s)
{
	unsigned char *p = (unsigned char *)s;

	while (*p) {
		size_t n = utf8_seq(p);
		if (n == 0) {
			*p++ = '?';
			continue;
		}
		p += n;
	}
}

int json_to_bytes(json_t *v, uint64_t *out)
{
	if (json_is_integer(v)) {
		if (json_integer_value(v) < 0)
			return -EINVAL;
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (json_is_string(v))
		return units_parse_size(json_string_value(v), out);
	return -EINVAL;
}

/* An integer field in [min, max]; absent keeps *out. */
static int get_uint(json_t *o, const char *key, size_t i, long long min,
		    long long max, unsigned *out, struct plan_error *e)
{
	json_t *v = json_object_get(o, key);

	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < min ||
	    json_integer_value(v) > max)
		return fail(e, i, key, "must be an integer from %lld to %lld",
			    min, max);
	*out = (unsigned)json_integer_value(v);
	return 0;
}

static int get_seconds(json_t *o, const char *key, size_t i, double min,
		       double max, double *out, struct plan_error *e)
{
	json_t *v = json_object_get(o, key);

	if (!v)
		return 0;
	if (!json_is_number(v) || !isfinite(json_number_value(v)) ||
	    json_number_value(v) < min || json_number_value(v) > max)
		return fail(e, i, key, "must be a number of seconds from %g to %g",
			    min, max);
	*out = json_number_value(v);
	return 0;
}

/* One of names[] (index into *out); absent keeps *out. */
static int get_enum(json_t *o, const char *key, size_t i,
		    const char *const *names, size_t n, int *out,
		    struct plan_error *e)
{
	json_t *v = json_object_get(o, key);
	char known[128] = "";

	if (!v)
		return 0;
	for (size_t k = 0; json_is_string(v) && k < n; k++)
		if (strcmp(json_string_value(v), names[k]) == 0) {
			*out = (int)k;
			return 0;
		}
	for (size_t k = 0; k < n; k++)
		snprintf(known + strlen(known), sizeof(known) - strlen(known),
			 "%s\"%s\"", k ? ", " : "", names[k]);
	return fail(e, i, key, "must be one of %s", known);
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
		 w->pattern == WL_SEQUENTIAL ? "SEQ" : "RND", b,
		 w->queue_depth, w->threads);
	if (w->read_pct != 0 && w->read_pct != 100)
		snprintf(w->name + strlen(w->name),
			 sizeof(w->name) - strlen(w->name), " R%u",
			 w->read_pct);
}

static int get_name(json_t *o, size_t i, struct workload *w,
		    struct plan_error *e)
{
	json_t *v = json_object_get(o, "name");
	const char *s;

	if (!v) {
		default_name(w);
		return 0;
	}
	s = json_is_string(v) ? json_string_value(v) : NULL;
	if (!s || !s[0] || strlen(s) >= sizeof(w->name))
		return fail(e, i, "name", "must be a string of 1 to %zu bytes",
			    sizeof(w->name) - 1);
	if (utf8_has_control(s) || s[0] == ' ' || s[strlen(s) - 1] == ' ')
		return fail(e, i, "name", "may not hold control characters or "
					  "start or end with a space");
	snprintf(w->name, sizeof(w->name), "%s", s);
	return 0;
}

static int get_bytes(json_t *o, const char *key, size_t i, uint64_t *out,
		     struct plan_error *e)
{
	json_t *v = json_object_get(o, key);
	int rc;

	if (!v)
		return 0;
	rc = json_to_bytes(v, out);
	if (rc == -ERANGE)
		return fail(e, i, key, "too large");
	if (rc < 0)
		return fail(e, i, key, "must be bytes: an integer or a string "
				       "like \"4KiB\", \"1MiB\", \"1GiB\"");
	return 0;
}

/* The checks that need several fields at once. */
static int check_test(size_t i, const struct workload *w, json_t *o,
		      struct plan_error *e)
{
	char a[32];
	uint64_t buffers = (uint64_t)w->queue_depth * w->threads * w->block_size;

	if (w->block_size == 0 || w->block_size % 512 || w->block_size > MAX_BLOCK)
		return fail(e, i, "block_size",
			    "must be a multiple of 512 bytes from 512 B to 64 MiB");
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
		if (w->io_bytes > MAX_IO_SIZE)
			return fail(e, i, "io_size", "at most 64TiB");
		if (w->io_bytes / w->threads < w->block_size)
			return fail(e, i, "io_size",
				    "must be at least one block per thread");
		if (w->io_bytes % ((uint64_t)w->block_size * w->threads))
			return fail(e, i, "io_size",
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
		return fail(e, i, "sync", "applies to writes, and this test only "
					  "reads (read_pct 100)");
	if (json_object_get(o, "sync_every") && w->sync != WL_SYNC_FDATASYNC)
		return fail(e, i, "sync_every",
			    "applies only with sync \"fdatasync\"");
	return 0;
}

static int parse_test(json_t *o, size_t i, const struct workload *def,
		      int stored, struct workload *w, struct plan_error *e)
{
	static const char *const patterns[] = {"sequential", "random"};
	static const char *const syncs[] = {"none", "dsync", "fdatasync"};
	static const char *const datas[] = {"random", "zeros", "repeat"};
	const char *key;
	json_t *v;
	uint64_t bs = 4096;
	int pattern = WL_RANDOM, sync = WL_SYNC_NONE, data = (int)def->data;
	int rc;

	if (!json_is_object(o))
		return fail(e, i, NULL, "every test must be a JSON object");
	json_object_foreach(o, key, v)
	{
		size_t k, n = sizeof(test_fields) / sizeof(test_fields[0]);
		for (k = 0; k < n && strcmp(key, test_fields[k]) != 0; k++)
			;
		if (k == n)
			return fail(e, i, key,
				    "unknown field \"%.40s\" (known: name, "
				    "pattern, read_pct, block_size, "
				    "queue_depth, threads, duration_s, io_size, "
				    "ramp_s, sync, sync_every, data)",
				    key);
	}
	memset(w, 0, sizeof(*w));
	w->read_pct = 100;
	w->queue_depth = 1;
	w->threads = 1;
	w->file_size = def->file_size;
	w->duration_s = def->duration_s;
	w->ramp_s = def->ramp_s;
	w->sync_every = 1;
	if ((rc = get_enum(o, "pattern", i, patterns, 2, &pattern, e)) < 0 ||
	    (rc = get_uint(o, "read_pct", i, 0, 100, &w->read_pct, e)) < 0 ||
	    (rc = get_bytes(o, "block_size", i, &bs, e)) < 0 ||
	    (rc = get_uint(o, "queue_depth", i, 1, 1024, &w->queue_depth, e)) < 0 ||
	    (rc = get_uint(o, "threads", i, 1, 256, &w->threads, e)) < 0 ||
	    (rc = get_seconds(o, "duration_s", i, 0.5, 3600, &w->duration_s, e)) < 0 ||
	    (rc = get_bytes(o, "io_size", i, &w->io_bytes, e)) < 0 ||
	    (rc = get_seconds(o, "ramp_s", i, 0, 3600, &w->ramp_s, e)) < 0 ||
	    (rc = get_enum(o, "sync", i, syncs, 3, &sync, e)) < 0 ||
	    (rc = get_uint(o, "sync_every", i, 1, 1000000, &w->sync_every, e)) < 0 ||
	    (rc = get_enum(o, "data", i, datas, 3, &data, e)) < 0)
		return rc;
	if (bs > UINT32_MAX)
		bs = 0; /* refused below */
	/* the job-wide ramp is for time-based tests; a size-based one
	 * refuses only a ramp of its own */
	if (w->io_bytes && !json_object_get(o, "ramp_s"))
		w->ramp_s = 0;
	w->block_size = (uint32_t)bs;
	w->pattern = (enum wl_pattern)pattern;
	w->sync = (enum wl_sync)sync;
	w->data = (enum wl_data)data;
	if ((rc = check_test(i, w, o, e)) < 0)
		return rc;
	if ((v = json_object_get(o, "sweep")) != NULL && !stored)
		return fail(e, i, "sweep", "unknown field \"sweep\": make a sweep "
					   "by giving a numeric field a list");
	if (v) {
		/* a stored plan's point: {"group", "field", "value"} */
		json_t *g = json_object_get(v, "group"), *f = json_object_get(v, "field"),
		       *x = json_object_get(v, "value");
		if (!json_is_string(g) || !json_is_string(f) || !json_is_number(x) ||
		    strlen(json_string_value(g)) >= sizeof(w->group) ||
		    strlen(json_string_value(f)) >= sizeof(w->sweep_field))
			return fail(e, i, "sweep", "must be {\"group\": string, "
						   "\"field\": string, \"value\": "
						   "number} (make a sweep by giving a "
						   "field a list instead)");
		snprintf(w->group, sizeof(w->group), "%s", json_string_value(g));
		snprintf(w->sweep_field, sizeof(w->sweep_field), "%s",
			 json_string_value(f));
		w->sweep_value = json_number_value(x);
	}
	return get_name(o, i, w, e);
}

/* The value of the swept field at this point, as a number. */
static double sweep_value(const struct workload *w, const char *key)
{
	return strcmp(key, "read_pct") == 0      ? w->read_pct
	       : strcmp(key, "block_size") == 0  ? w->block_size
	       : strcmp(key, "queue_depth") == 0 ? w->queue_depth
	       : strcmp(key, "threads") == 0     ? w->threads
	       : strcmp(key, "duration_s") == 0  ? w->duration_s
	       : strcmp(key, "io_size") == 0     ? (double)w->io_bytes
	       : strcmp(key, "ramp_s") == 0      ? w->ramp_s
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
		block_text(w->block_size, b, sizeof(b)), snprintf(buf, len, " %s", b);
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
		     int stored, struct plan *out, struct plan_error *e)
{
	const char *key, *list_key = NULL;
	json_t *v, *list = NULL, *name;
	size_t n;
	int rc;

	json_object_foreach(json_is_object(o) ? o : NULL, key, v)
	{
		size_t k;
		if (!json_is_array(v))
			continue;
		for (k = 0; k < N_SWEEPABLE && strcmp(key, sweepable[k]); k++)
			;
		if (k == N_SWEEPABLE)
			return fail(e, i, key, "cannot be a list (these can: "
					       "read_pct, block_size, "
					       "queue_depth, threads, duration_s, "
					       "io_size, ramp_s, sync_every)");
		if (list_key)
			return fail(e, i, key, "only one field of a test may be "
					       "a list (%s is one already)",
				    list_key);
		list_key = key;
		list = v;
	}
	if (!list) {
		if (out->n == PLAN_MAX_TESTS)
			goto too_many;
		if ((rc = parse_test(o, i, def, stored, &out->w[out->n], e)) < 0)
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
				snprintf(detail, sizeof(detail), "%s%s", e->field,
					 why);
				snprintf(e->detail, sizeof(e->detail), "%s", detail);
			}
			return rc;
		}
		point_token(w, list_key, tok, sizeof(tok));
		if (json_is_string(name)) {
			snprintf(w->group, sizeof(w->group), "%s",
				 json_string_value(name));
			if (snprintf(w->name, sizeof(w->name), "%s%s",
				     w->group, tok) >= (int)sizeof(w->name))
				return fail(e, i, "name", "too long for a sweep: "
							  "the point's name "
							  "\"%s%s\" is over 31 "
							  "bytes",
					    w->group, tok);
		} else {
			snprintf(w->group, sizeof(w->group), "%s sweep %zu",
				 list_key, i + 1);
			if (strcmp(list_key, "read_pct") && strcmp(list_key, "threads") &&
			    strcmp(list_key, "queue_depth") &&
			    strcmp(list_key, "block_size"))
				snprintf(w->name + strlen(w->name),
					 sizeof(w->name) - strlen(w->name), "%s",
					 tok);
		}
		snprintf(w->sweep_field, sizeof(w->sweep_field), "%s", list_key);
		w->sweep_value = sweep_value(w, list_key);
		w->origin = (unsigned)i;
		for (size_t k = out->n - j; k < out->n; k++)
			if (out->w[k].sweep_value == w->sweep_value) {
				char pkey[24];
				snprintf(pkey, sizeof(pkey), "%s[%zu]", list_key, j);
				return fail(e, i, pkey, "repeats the value of %s[%zu] "
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
			    int stored, struct plan *out, struct plan_error *e)
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
		if ((rc = add_tests(json_array_get(tests, i), i, def, stored, out,
				    e)) < 0) {
			plan_free(out);
			return rc;
		}
		for (size_t a = first; a < out->n; a++)
			for (size_t b = 0; b < a; b++)
				if (strcmp(out->w[a].name, out->w[b].name) == 0 &&
				    strcmp(wl_rw_name(out->w[a].read_pct),
					   wl_rw_name(out->w[b].read_pct)) == 0) {
					fail(e, i, "name",
					     "\"%s\" (%s) is already in the "
					     "plan; give each test its own name",
					     out->w[a].name,
					     wl_rw_name(out->w[a].read_pct));
					plan_free(out);
					return -EINVAL;
				}
	}
	return 0;
}

int plan_parse(json_t *tests, const struct workload *def, struct plan *out,
	       struct plan_error *e)
{
	return parse_plan_tests(tests, def, 0, out, e);
}

int plan_parse_stored(json_t *tests, const struct workload *def,
		      struct plan *out, struct plan_error *e)
{
	return parse_plan_tests(tests, def, 1, out, e);
}

int plan_from_profile(const struct profile *p, const struct workload *def,
		      struct plan *out)
{
	memset(out, 0, sizeof(*out));
	if (!(out->w = calloc(p->n_tests, sizeof(*out->w))))
		return -ENOMEM;
	for (size_t i = 0; i < p->n_tests; i++) {
		struct workload *w = &out->w[i];
		profile_workload(&p->tests[i], def->file_size, def->duration_s, w);
		w->ramp_s = def->ramp_s;
		w->data = def->data;
		w->sync_every = 1;
		w->origin = (unsigned)i;
	}
	out->n = p->n_tests;
	return 0;
}

json_t *plan_json(const struct plan *p)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < p->n; i++) {
		const struct workload *w = &p->w[i];
		json_t *t = json_pack(
			"{s:s, s:s, s:i, s:I, s:i, s:i, s:f, s:I, s:f, s:s, s:s}",
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
		if (t && w->sweep_field[0])
			json_object_set_new(t, "sweep",
					    json_pack("{s:s, s:s, s:f}", "group",
						      w->group, "field",
						      w->sweep_field, "value",
						      w->sweep_value));
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
