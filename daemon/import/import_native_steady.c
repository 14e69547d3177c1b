/*
 * import_native_steady — a storbench run document's preconditioning and
 * SNIA PTS steady-state records (each test's "precondition" and
 * "steady_state", archive_steady.c) read back for archive_run_restore:
 * every member checked by its descriptor, the window within the rounds the
 * test holds, members the tables do not know dropped.
 */
#include "import_native.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive.h"
#include "jobs/steady.h"
#include "platform/fields.h"

static const char *const fill_kinds[] = { "fill", "workload", NULL };

static const struct field pre_fields[] = {
	{ "kind", FIELD_ENUM, .choices = fill_kinds },
	{ "bytes", FIELD_INT, "B", .min = 0, .max = FIELD_EXACT_MAX,
	  .flags = FIELD_NULLABLE },
	{ "seconds", FIELD_NUMBER, "s", .min = 0, .max = 1e9,
	  .flags = FIELD_NULLABLE },
	{ "mb_s", FIELD_NUMBER, "MB/s", .min = 0, .max = 1e9,
	  .flags = FIELD_NULLABLE },
	{ "purge", FIELD_STRING, .max = 1024, .flags = FIELD_NULLABLE },
};

static const struct field state_fields[] = {
	{ "reached", FIELD_BOOL, .help = "within the limits" },
	{ "reached_round", FIELD_INT, .min = 1, .max = 1000,
	  .flags = FIELD_NULLABLE },
	{ "rounds", FIELD_INT, .min = 1, .max = 1000 },
	{ "tracking", FIELD_BOOL, .flags = FIELD_NULLABLE },
};

#define NUM(name)                                                              \
	{                                                                      \
		name, FIELD_NUMBER, .min = -1e18, .max = 1e18,                 \
				    .flags = FIELD_NULLABLE                    \
	}
static const struct field window_fields[] = {
	{ "first", FIELD_INT, .min = 1, .max = 1000 },
	{ "last", FIELD_INT, .min = 1, .max = 1000 },
	NUM("mean"),
	NUM("min"),
	NUM("max"),
	NUM("range"),
	NUM("range_pct"),
	NUM("slope"),
	NUM("excursion"),
	NUM("excursion_pct"),
};

static const struct field result_fields[] = {
	NUM("iops"),
	NUM("mb_s"),
	NUM("lat_mean_us"),
};

/* Removes o's members that no table of fs[0 … n) and more[0 … m) has. */
static void keep_known(json_t *o, const struct field *fs, size_t n,
		       const struct field *more, size_t m)
{
	const char *key;
	json_t *v;
	void *tmp;

	json_object_foreach_safe(o, tmp, key, v)
	{
		(void)v;
		if (!fields_find(fs, n, key) &&
		    !(more && fields_find(more, m, key)) &&
		    strcmp(key, "measurement") && strcmp(key, "result"))
			json_object_del(o, key);
	}
}

/* Test t's record (at "tests[i]") into *c; c->record NULL: none. */
static int read_cond(json_t *t, size_t i, struct archive_restore_cond *c,
		     struct field_error *e)
{
	json_t *pre = json_object_get(t, "precondition"),
	       *ss = json_object_get(t, "steady_state"), *m;
	size_t rounds = json_array_size(json_object_get(t, "iterations"));
	char at[64];

	memset(c, 0, sizeof(*c));
	if (!json_is_object(pre) && !json_is_object(ss))
		return 0;
	if (!(c->record = json_object()))
		return -ENOMEM;
	c->test = json_string_value(json_object_get(t, "test"));
	c->rw = json_string_value(json_object_get(t, "rw"));
	if (json_is_object(pre)) {
		snprintf(at, sizeof(at), "tests[%zu].precondition", i);
		if (fields_check_members(pre_fields, FIELDS_N(pre_fields), pre,
					 at, e) < 0)
			return -EINVAL;
		pre = json_deep_copy(pre);
		keep_known(pre, pre_fields, FIELDS_N(pre_fields), NULL, 0);
		json_object_set_new(c->record, "precondition", pre);
	}
	if (!json_is_object(ss))
		return 0;
	snprintf(at, sizeof(at), "tests[%zu].steady_state", i);
	if (fields_check_members(steady_fields, STEADY_N_FIELDS, ss, at, e) <
		    0 ||
	    fields_check_members(state_fields, FIELDS_N(state_fields), ss, at,
				 e) < 0)
		return -EINVAL;
	m = json_object_get(ss, "measurement");
	snprintf(at, sizeof(at), "tests[%zu].steady_state.measurement", i);
	if (fields_check_members(window_fields, FIELDS_N(window_fields), m, at,
				 e) < 0)
		return -EINVAL;
	c->window_first = (int)json_integer_value(json_object_get(m, "first"));
	c->window_last = (int)json_integer_value(json_object_get(m, "last"));
	if (c->window_first > c->window_last || (size_t)c->window_last > rounds)
		return field_fail(e, at,
				  "rounds %d … %d are not a window of the "
				  "test's %zu iterations",
				  c->window_first, c->window_last, rounds);
	snprintf(at, sizeof(at), "tests[%zu].steady_state.result", i);
	if (fields_check_members(result_fields, FIELDS_N(result_fields),
				 json_object_get(ss, "result"), at, e) < 0)
		return -EINVAL;
	ss = json_deep_copy(ss);
	keep_known(ss, steady_fields, STEADY_N_FIELDS, state_fields,
		   FIELDS_N(state_fields));
	keep_known(json_object_get(ss, "measurement"), window_fields,
		   FIELDS_N(window_fields), NULL, 0);
	keep_known(json_object_get(ss, "result"), result_fields,
		   FIELDS_N(result_fields), NULL, 0);
	json_object_set_new(c->record, "steady_state", ss);
	return 0;
}

int import_native_conds(json_t *tests, struct archive_restore_cond **out,
			size_t *n, struct field_error *e)
{
	size_t k = json_array_size(tests), i;
	struct archive_restore_cond *c = calloc(k ? k : 1, sizeof(*c));
	int rc = 0;

	*out = c;
	*n = 0;
	if (!c)
		return -ENOMEM;
	for (i = 0; i < k && rc == 0; i++) {
		rc = read_cond(json_array_get(tests, i), i, &c[*n], e);
		if (c[*n].record)
			(*n)++;
	}
	return rc;
}

void import_native_conds_free(struct archive_restore_cond *c, size_t n)
{
	for (size_t i = 0; c && i < n; i++)
		json_decref(c[i].record);
	free(c);
}
