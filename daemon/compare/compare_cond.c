/*
 * compare_cond — like for like, said out loud: the conditions each side's
 * runs ran under that a user may not have asked to compare (write cache,
 * direct or buffered I/O, test file size, back-end or tool, its version, the
 * hosts of a multi-host job), and a warning naming both values when the sides
 * differ in one the comparison is not grouped by. Each condition is also a
 * group_by key of GET /api/v1/compare (archive_runs_index gives it under the
 * same name). Also each side's list of runs, and the warnings a run earns on
 * its own (another tool's numbers, a run that did not finish). Calls nothing of
 * compare.c.
 */
#include "compare_int.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *key;  /* the group_by key */
	const char *what; /* in the warning */
} conds[] = {
	{ "write_cache", "write cache" },
	{ "direct", "direct or buffered I/O" },
	{ "size", "test file size (bytes)" },
	{ "engine", "back-end or tool" },
	{ "version", "engine or tool version" },
	{ "hosts", "hosts (a multi-host job's count and names)" },
};
#define N_CONDS (sizeof(conds) / sizeof(conds[0]))

/* Condition c of run as text into buf ("unknown" when the run does not
 * say). */
static void cond_value(json_t *run, size_t c, char *buf, size_t len)
{
	json_t *spec = json_object_get(run, "spec");
	json_t *eng = json_object_get(run, "engine");
	json_t *v;

	snprintf(buf, len, "unknown");
	switch (c) {
	case 0:
		v = json_object_get(json_object_get(run, "probe"),
				    "write_cache");
		if (json_is_string(v))
			snprintf(buf, len, "%s", json_string_value(v));
		break;
	case 1:
		if (json_is_boolean(json_object_get(eng, "direct")))
			snprintf(buf, len, "%s",
				 json_is_true(json_object_get(eng, "direct"))
					 ? "direct"
					 : "buffered");
		break;
	case 2:
		v = json_object_get(spec, "size");
		if (!json_is_integer(v))
			v = json_object_get(json_object_get(spec, "imported"),
					    "test_size");
		/* bytes, as group_by=size takes it */
		if (json_is_integer(v))
			snprintf(buf, len, "%lld",
				 (long long)json_integer_value(v));
		break;
	case 5: /* group_by=hosts groups by the count (the index's) */
		v = json_object_get(spec, "hosts");
		if (json_is_array(v) && json_array_size(v)) {
			size_t k = (size_t)snprintf(buf, len, "%zu (",
						    json_array_size(v)),
			       i;
			json_t *x;
			json_array_foreach(v, i, x) if (k < len) k +=
				(size_t)snprintf(buf + k, len - k, "%s%s",
						 i ? ", " : "",
						 json_string_value(x) ?: "?");
			if (k < len)
				snprintf(buf + k, len - k, ")");
		} else {
			snprintf(buf, len, "1 (this host)");
		}
		break;
	case 3:
	case 4:
		v = json_object_get(eng, c == 3 ? "target" : "version");
		if (json_is_string(v))
			snprintf(buf, len, "%s", json_string_value(v));
		break;
	}
}

void compare_conditions_add(json_t *side, json_t *run)
{
	for (size_t c = 0; c < N_CONDS; c++) {
		char v[128];
		json_t *vals = json_object_get(side, conds[c].key), *ids;
		if (!vals)
			json_object_set_new(side, conds[c].key,
					    vals = json_object());
		cond_value(run, c, v, sizeof(v));
		if (!(ids = json_object_get(vals, v)))
			json_object_set_new(vals, v, ids = json_array());
		json_array_append(ids, json_object_get(run, "id"));
	}
}

/* "\"write back\" (runs 1, 2)" for each value of one side, into buf at
 * *k. */
static void side_values(json_t *vals, char *buf, size_t len, size_t *k)
{
	const char *v;
	json_t *ids;
	int first = 1;

	json_object_foreach(vals, v, ids)
	{
		size_t n = json_array_size(ids);
		if (*k >= len)
			return;
		*k += (size_t)snprintf(buf + *k, len - *k, "%s\"%s\" (run%s",
				       first ? "" : " and ", v,
				       n == 1 ? "" : "s");
		for (size_t i = 0; i < n && i < 4 && *k < len; i++)
			*k += (size_t)snprintf(buf + *k, len - *k, "%s%lld",
					       i ? ", " : " ",
					       (long long)json_integer_value(
						       json_array_get(ids, i)));
		if (*k < len)
			*k += (size_t)snprintf(buf + *k, len - *k, "%s)",
					       n > 4 ? ", …" : "");
		first = 0;
	}
}

/* The one value a side ran under, or NULL when it has several. */
static const char *only_value(json_t *vals)
{
	return json_object_size(vals) == 1
		       ? json_object_iter_key(json_object_iter(vals))
		       : NULL;
}

void compare_conditions_warn(json_t *cond, const struct compare_side *sides,
			     size_t n, const char *grouped_by, json_t *warnings)
{
	for (size_t c = 0; c < N_CONDS; c++) {
		json_t *base =
			json_object_get(json_array_get(cond, 0), conds[c].key);
		int differ = 0;
		char text[1200];
		size_t k = 0;

		if (grouped_by && strcmp(grouped_by, conds[c].key) == 0)
			continue; /* what the sides are */
		for (size_t s = 0; s < n; s++) {
			json_t *vals = json_object_get(json_array_get(cond, s),
						       conds[c].key);
			const char *v = only_value(vals), *b = only_value(base);
			if (!v || !b || strcmp(v, b) != 0)
				differ = 1;
		}
		if (!differ)
			continue;
		k += (size_t)snprintf(text, sizeof(text),
				      "not like for like: the sides differ in "
				      "%s, which they are not grouped by — ",
				      conds[c].what);
		for (size_t s = 0; s < n && k < sizeof(text); s++) {
			k += (size_t)snprintf(text + k, sizeof(text) - k,
					      "%s%s: ", s ? "; " : "",
					      sides[s].label);
			side_values(json_object_get(json_array_get(cond, s),
						    conds[c].key),
				    text, sizeof(text), &k);
		}
		if (k < sizeof(text))
			snprintf(text + k, sizeof(text) - k,
				 ". group_by=%s compares them apart",
				 conds[c].key);
		json_array_append_new(warnings, json_string(text));
	}
}

int compare_run_listed(json_t *runs, json_t *warnings, json_t *imports,
		       json_t *run)
{
	json_array_append_new(
		runs, json_pack("{s:O?, s:b, s:O?, s:O?, s:O?, s:O?, "
				"s:O?, s:O?}",
				"id", json_object_get(run, "id"), "imported",
				compare_run_foreign(run), "state",
				json_object_get(run, "state"), "profile",
				json_object_get(run, "profile"), "target",
				json_object_get(run, "target"), "labels",
				json_object_get(run, "labels"), "fs_type",
				json_object_get(json_object_get(run, "probe"),
						"fs_type"),
				"engine",
				json_object_get(json_object_get(run, "engine"),
						"target")));
	if (compare_run_foreign(run)) {
		json_t *imp = json_object_get(json_object_get(run, "spec"),
					      "imported");
		const char *tool =
			json_string_value(json_object_get(imp, "tool"))
				?: "another tool";
		long long best =
			json_integer_value(json_object_get(imp, "best_of"));
		char key[160];
		json_t *e;
		snprintf(key, sizeof(key), "%s\x1f%lld", tool, best);
		if (!(e = json_object_get(imports, key)))
			json_object_set_new(
				imports, key,
				e = json_pack("{s:s, s:I, s:[]}", "tool", tool,
					      "best_of", (json_int_t)best,
					      "runs"));
		json_array_append(json_object_get(e, "runs"),
				  json_object_get(run, "id"));
	}
	if (strcmp(json_string_value(json_object_get(run, "state")) ?: "",
		   "done") != 0) {
		char w[160];
		snprintf(w, sizeof(w),
			 "run %lld ended %s: only its finished "
			 "iterations are compared",
			 (long long)json_integer_value(
				 json_object_get(run, "id")),
			 json_string_value(json_object_get(run, "state"))
				 ?: "?");
		json_array_append_new(warnings, json_string(w));
	}
	return compare_run_foreign(run);
}

void compare_imports_warn(json_t *imports, json_t *warnings)
{
	const char *key;
	json_t *e;

	json_object_foreach(imports, key, e)
	{
		json_t *ids = json_object_get(e, "runs");
		size_t n = json_array_size(ids), k = 0;
		char w[600];
		k += (size_t)snprintf(w, sizeof(w), "run%s", n == 1 ? "" : "s");
		for (size_t i = 0; i < n && k < sizeof(w); i++)
			k += (size_t)snprintf(w + k, sizeof(w) - k, "%s%lld",
					      !i	   ? " "
					      : i + 1 == n ? " and "
							   : ", ",
					      (long long)json_integer_value(
						      json_array_get(ids, i)));
		if (k < sizeof(w))
			snprintf(w + k, sizeof(w) - k,
				 " %s imported from %s: each number is the "
				 "best of %lld, with no spread; several "
				 "imported runs per side are tested over runs, "
				 "one is not",
				 n == 1 ? "was" : "were",
				 json_string_value(json_object_get(e, "tool")),
				 (long long)json_integer_value(
					 json_object_get(e, "best_of")));
		json_array_append_new(warnings, json_string(w));
	}
}

int compare_run_foreign(json_t *run)
{
	json_t *imp = json_object_get(run, "import");

	return json_is_object(imp) &&
	       strcmp(json_string_value(json_object_get(imp, "format")) ?: "",
		      "storbench") != 0;
}
