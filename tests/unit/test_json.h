/*
 * test_json.h — checking JSON the archive or the API produced against an
 * expectation written in the test: json_match(actual, "{'state':'done'}",
 * rel) — JSON text with ' for ", listing only the keys that matter; arrays
 * must have the expected length; numbers agree to rel (relative). On a
 * mismatch both are printed. Header-only, as test.h; needs Jansson.
 */
#ifndef STORBENCH_TEST_JSON_H
#define STORBENCH_TEST_JSON_H

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 when actual has everything expect has, numbers to rel. */
static inline int json_sub(json_t *actual, json_t *expect, double rel)
{
	const char *k;
	json_t *v;
	size_t i;

	if (json_is_number(expect))
		return json_is_number(actual) &&
		       fabs(json_number_value(actual) -
			    json_number_value(expect)) <=
			       rel * fabs(json_number_value(expect));
	if (!json_is_object(expect) && !json_is_array(expect))
		return json_equal(actual, expect);
	if (!actual || json_typeof(actual) != json_typeof(expect) ||
	    json_array_size(actual) != json_array_size(expect))
		return 0;
	json_object_foreach(expect, k, v)
	{
		if (!json_sub(json_object_get(actual, k), v, rel))
			return 0;
	}
	json_array_foreach(expect, i, v)
	{
		if (!json_sub(json_array_get(actual, i), v, rel))
			return 0;
	}
	return 1;
}

static inline int json_match(json_t *actual, const char *expect_text,
			     double rel)
{
	char *text = strdup(expect_text), *p, *got;
	json_t *expect;
	int ok;

	if (!text)
		return 0;
	for (p = text; *p; p++)
		if (*p == '\'')
			*p = '"';
	expect = json_loads(text, 0, NULL);
	if (!expect)
		fprintf(stderr, "  bad expectation %s\n", text);
	ok = expect && json_sub(actual, expect, rel);
	if (!ok) {
		got = actual ? json_dumps(actual, JSON_COMPACT) : NULL;
		fprintf(stderr, "  want %s\n  got  %s\n", text,
			got ? got : "-");
		free(got);
	}
	json_decref(expect);
	free(text);
	return ok;
}

#endif
