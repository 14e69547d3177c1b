/*
 * import_native_check — what the field tables of import_native.c cannot
 * say of a storbench run document (import_native.h).
 */
#include "import_native.h"

#include <string.h>

#include "import.h"
#include "platform/fields.h"

static const char *str_of(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static double num_of(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

/* Is u a UUID as storbench writes one (random, version 4, lower-case hex,
 * 8-4-4-4-12)? */
static int uuid_ok(const char *u)
{
	for (int i = 0; i < 36; i++)
		if (i == 8 || i == 13 || i == 18 || i == 23
			    ? u[i] != '-'
			    : !strchr("0123456789abcdef", u[i]) || !u[i])
			return 0;
	/* version 4, the variant of RFC 4122 */
	return u[36] == '\0' && u[14] == '4' && strchr("89ab", u[19]);
}

/* What a field table cannot say of a document r: the uuid's shape, real
 * times in order, the spec's tests, an imported run's numbers. */
int import_native_check(json_t *r, struct field_error *e)
{
	const char *st = str_of(r, "started_at"),
		   *fin = str_of(r, "finished_at");
	json_t *spec = json_object_get(r, "spec"), *imp, *tests;

	if (!uuid_ok(str_of(r, "uuid")))
		return field_fail(e, "uuid",
				  "must be a UUID as storbench writes one "
				  "(lower-case hex, 8-4-4-4-12)");
	if (!import_date_ok(st))
		return field_fail(e, "started_at",
				  "must be a time, \"2026-11-30T07:00:00Z\"");
	if (!import_date_ok(fin))
		return field_fail(e, "finished_at",
				  "must be a time, \"2026-11-30T07:00:00Z\"");
	if (strncmp(fin, st, 19) < 0)
		return field_fail(e, "finished_at", "before started_at");
	tests = json_object_get(spec, "tests");
	if (tests && !json_is_array(tests) && !json_is_null(tests))
		return field_fail(e, "spec.tests", "must be a list");
	for (size_t i = 0; i < json_array_size(tests); i++)
		if (!json_is_object(json_array_get(tests, i)))
			return field_fail(e, "spec.tests",
					  "must be a list of tests (objects)");
	if (!(imp = json_object_get(spec, "imported")))
		return 0;
	if (!json_is_object(imp) ||
	    !json_is_string(json_object_get(imp, "tool")) ||
	    !import_format_find(str_of(imp, "format")) ||
	    !import_in_range(IMPORT_BEST_OF, num_of(imp, "best_of")
						     ? num_of(imp, "best_of")
						     : 1) ||
	    !import_in_range(IMPORT_TEST_SIZE, num_of(imp, "test_size")) ||
	    (json_is_string(json_object_get(imp, "date")) &&
	     !import_date_ok(str_of(imp, "date"))))
		return field_fail(e, "spec.imported",
				  "tool, format (cdm, fio, diskspd), best_of, "
				  "test_size or date out of what an importer "
				  "takes");
	return 0;
}
