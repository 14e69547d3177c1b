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
};

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
		      struct workload *w, struct plan_error *e)
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
	return get_name(o, i, w, e);
}

int plan_parse(json_t *tests, const struct workload *def, struct plan *out,
	       struct plan_error *e)
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
	if (!(out->w = calloc(n, sizeof(*out->w))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if ((rc = parse_test(json_array_get(tests, i), i, def,
				     &out->w[i], e)) < 0) {
			plan_free(out);
			return rc;
		}
		out->n = i + 1;
		for (size_t j = 0; j < i; j++)
			if (strcmp(out->w[j].name, out->w[i].name) == 0 &&
			    strcmp(wl_rw_name(out->w[j].read_pct),
				   wl_rw_name(out->w[i].read_pct)) == 0) {
				fail(e, i, "name",
				     "\"%s\" (%s) is already test %zu; give "
				     "each test its own name",
				     out->w[i].name,
				     wl_rw_name(out->w[i].read_pct), j);
				plan_free(out);
				return -EINVAL;
			}
	}
	return 0;
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
