/*
 * import_native_stated — an imported iteration of a storbench run
 * document (import_native.h: import_native_stated): what another tool's
 * file stated beside its rates, as the API served it (bytes, ios, seconds,
 * latency_us {of, min, max, stdev, p50 … "p99.99", percentiles}), checked
 * against the importers' ranges (import.h) and written again with only
 * those members, so exporting a run and importing it gives the same run.
 */
#include "import_native.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "import.h"
#include "platform/fields.h"

/* The latency object's numbers (µs), beside "of" and "percentiles". */
static const char *const lat_keys[] = { "min", "max", "stdev", "p50",
					"p90", "p99", "p99.9", "p99.99" };

/* Is v a latency an importer takes (µs)? */
static int lat_ok(json_t *v)
{
	return json_is_number(v) &&
	       import_in_range(IMPORT_LAT_US, json_number_value(v));
}

/* Checks latency object l and copies it into o's "latency_us". */
static int latency(json_t *l, json_t *o, const char *path,
		   struct field_error *e)
{
	json_t *c = json_object(), *p = json_object(), *v;
	const char *key, *of = json_string_value(json_object_get(l, "of"));
	size_t known = 0;
	int rc = -ENOMEM;

	if (!c || !p)
		goto out;
	rc = -EINVAL;
	if (of && strcmp(of, "clat") && strcmp(of, "lat")) {
		field_fail(e, path, "latency_us.of: \"clat\" or \"lat\"");
		goto out;
	}
	if (of) {
		json_object_set_new(c, "of", json_string(of));
		known++;
	}
	for (size_t i = 0; i < sizeof(lat_keys) / sizeof(lat_keys[0]); i++) {
		if (!(v = json_object_get(l, lat_keys[i])))
			continue;
		if (!lat_ok(v)) {
			field_fail(e, path,
				   "latency_us.%s: a latency an importer "
				   "takes (µs)",
				   lat_keys[i]);
			goto out;
		}
		json_object_set(c, lat_keys[i], v);
		known++;
	}
	if ((v = json_object_get(l, "percentiles"))) {
		if (!json_is_object(v) ||
		    json_object_size(v) > IMPORT_MAX_PCT) {
			field_fail(e, path,
				   "latency_us.percentiles: an object of at "
				   "most %d levels",
				   IMPORT_MAX_PCT);
			goto out;
		}
		json_t *x;
		json_object_foreach(v, key, x)
		{
			char *end;
			double level = strtod(key, &end);
			if (*end || end == key || !(level > 0 && level < 100) ||
			    !lat_ok(x)) {
				field_fail(e, path,
					   "latency_us.percentiles.%.32s: a "
					   "level above 0 and below 100, and a "
					   "latency an importer takes (µs)",
					   key);
				goto out;
			}
			json_object_set(p, key, x);
		}
		json_object_set(c, "percentiles", p);
		known++;
	}
	if (known != json_object_size(l)) {
		field_fail(e, path,
			   "latency_us of an imported iteration: of, min, max, "
			   "stdev, p50, p90, p99, p99.9, p99.99 and "
			   "percentiles, nothing else");
		goto out;
	}
	if (json_object_size(c))
		json_object_set(o, "latency_us", c);
	rc = 0;
out:
	json_decref(c);
	json_decref(p);
	return rc;
}

int import_native_stated(json_t *it, const char *path, char **out,
			 struct field_error *e)
{
	static const struct {
		const char *key;
		enum import_field f;
	} n[] = { { "bytes", IMPORT_BYTES },
		  { "ios", IMPORT_COUNT },
		  { "seconds", IMPORT_SECONDS } };
	json_t *o = json_object(), *v;
	int rc = -ENOMEM;

	*out = NULL;
	if (!o)
		return -ENOMEM;
	for (size_t i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
		if (json_is_null(v = json_object_get(it, n[i].key)) || !v)
			continue;
		if (!json_is_number(v) ||
		    !import_in_range(n[i].f, json_number_value(v))) {
			rc = field_fail(e, path,
					"%s of an imported iteration: out of "
					"what an importer takes",
					n[i].key);
			goto out;
		}
		json_object_set(o, n[i].key, v);
	}
	v = json_object_get(it, "latency_us");
	if (json_is_object(v) && (rc = latency(v, o, path, e)) < 0)
		goto out;
	rc = 0;
	if (json_object_size(o) && !(*out = json_dumps(o, JSON_COMPACT)))
		rc = -ENOMEM;
out:
	json_decref(o);
	return rc;
}
