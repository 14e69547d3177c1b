/*
 * test_fields.c — field descriptors (daemon/platform/fields.h): what a table
 * lets through, what it refuses and how the refusal reads (the field's path
 * first), the defaults it fills in, and the same table as data
 * (fields_describe) and as a JSON Schema (fields_schema).
 */
#include "platform/fields.h"
#include "test.h"

#include <errno.h>
#include <string.h>

static const char *const colours[] = { "red", "green", NULL };
static const struct field block = { .type = FIELD_BYTES,
				    .unit = "B",
				    .min = 512,
				    .max = 64 << 20,
				    .step = 512 };
static const struct field name_item = {
	.type = FIELD_STRING, .min = 1, .max = 8, .flags = FIELD_CLEAN
};
static const struct field limits[] = {
	{ .name = "read_ms",
	  .type = FIELD_NUMBER,
	  .unit = "ms",
	  .min = 0,
	  .max = 1000,
	  .def = "20",
	  .flags = FIELD_NULLABLE | FIELD_ABOVE_MIN,
	  .help = "read latency" },
	{ .name = "write_ms",
	  .type = FIELD_NUMBER,
	  .unit = "ms",
	  .min = 0,
	  .max = 1000,
	  .def = "null",
	  .flags = FIELD_NULLABLE | FIELD_ABOVE_MIN,
	  .help = "write latency" },
};
static const struct field table[] = {
	{ .name = "qd",
	  .type = FIELD_INT,
	  .unit = "I/Os",
	  .min = 1,
	  .max = 1024,
	  .def = "8",
	  .help = "queue depth",
	  .flags = FIELD_SWEEP },
	{ .name = "secs",
	  .type = FIELD_NUMBER,
	  .unit = "s",
	  .min = 0.5,
	  .max = 3600,
	  .def_text = "the job's",
	  .help = "window" },
	{ .name = "colour",
	  .type = FIELD_ENUM,
	  .choices = colours,
	  .def = "\"red\"",
	  .help = "a colour" },
	{ .name = "on", .type = FIELD_BOOL, .help = "true: on; false: off" },
	{ .name = "sizes",
	  .type = FIELD_LIST,
	  .item = &block,
	  .min_items = 1,
	  .max_items = 3,
	  .flags = FIELD_UNIQUE,
	  .def = "[4096]",
	  .help = "block sizes" },
	{ .name = "size",
	  .type = FIELD_BYTES,
	  .unit = "B",
	  .min = 8 << 20,
	  .max = 1ULL << 40,
	  .step = 1 << 20,
	  .help = "a file" },
	{ .name = "names",
	  .type = FIELD_LIST,
	  .item = &name_item,
	  .min_items = 0,
	  .max_items = 2,
	  .help = "labels" },
	{ .name = "notes",
	  .type = FIELD_STRING,
	  .min = 0,
	  .max = 10,
	  .help = "text" },
	{ .name = "limits",
	  .type = FIELD_OBJECT,
	  .sub = limits,
	  .n_sub = 2,
	  .def = "{}",
	  .help = "thresholds" },
};

/* Checks text against the table as "options": 0 and the normalized
 * object, or the refusal. */
static int check(const char *text, json_t **out, struct field_error *e)
{
	json_t *o = json_loads(text, 0, NULL);
	int rc;

	if (!o) {
		fprintf(stderr, "  not JSON: %s\n", text);
		return -EBADMSG;
	}
	memset(e, 0, sizeof(*e));
	rc = fields_check_object(table, FIELDS_N(table), o, "options", "test",
				 out, e);
	json_decref(o);
	return rc;
}

/* Expects text refused at field with a detail holding needle. */
static void refused(const char *text, const char *field, const char *needle)
{
	struct field_error e;
	json_t *out = NULL;
	int rc = check(text, &out, &e);

	if (rc != -EINVAL || strcmp(e.field, field) != 0 ||
	    strncmp(e.detail, field, strlen(field)) != 0 ||
	    !strstr(e.detail, needle))
		fprintf(stderr, "  %s -> %d %s: %s\n", text, rc, e.field,
			e.detail);
	ASSERT_EQ(rc, -EINVAL);
	ASSERT_EQ(e.status, 400);
	ASSERT_STR_EQ(e.field, field);
	ASSERT_TRUE(strncmp(e.detail, field, strlen(field)) == 0);
	ASSERT_TRUE(strstr(e.detail, needle) != NULL);
	ASSERT_TRUE(out == NULL);
}

static void test_defaults_and_normal_form(void)
{
	struct field_error e;
	json_t *out;

	ASSERT_EQ(check("{}", &out, &e), 0);
	/* defaults filled, nested too; no default, no member */
	ASSERT_EQ(json_integer_value(json_object_get(out, "qd")), 8);
	ASSERT_STR_EQ(json_string_value(json_object_get(out, "colour")), "red");
	ASSERT_EQ(json_integer_value(
			  json_array_get(json_object_get(out, "sizes"), 0)),
		  4096);
	ASSERT_TRUE(json_number_value(json_object_get(
			    json_object_get(out, "limits"), "read_ms")) == 20);
	ASSERT_TRUE(json_is_null(
		json_object_get(json_object_get(out, "limits"), "write_ms")));
	ASSERT_TRUE(json_object_get(out, "secs") == NULL);
	ASSERT_TRUE(json_object_get(out, "on") == NULL);
	json_decref(out);
	/* sizes with units become bytes */
	ASSERT_EQ(
		check("{\"sizes\": [\"4KiB\", \"1MiB\"], \"size\": \"1GiB\","
		      " \"notes\": \"a\\nb\", \"limits\": {\"read_ms\": null}}",
		      &out, &e),
		0);
	ASSERT_EQ(json_integer_value(
			  json_array_get(json_object_get(out, "sizes"), 1)),
		  1 << 20);
	ASSERT_EQ(json_integer_value(json_object_get(out, "size")), 1 << 30);
	ASSERT_TRUE(json_is_null(
		json_object_get(json_object_get(out, "limits"), "read_ms")));
	json_decref(out);
}

static void test_refusals(void)
{
	refused("{\"colour\": \"red\", \"qd\": 0}", "options.qd",
		"an integer from 1 to 1024");
	refused("{\"qd\": 2.5}", "options.qd", "integer");
	refused("{\"qd\": \"8\"}", "options.qd", "integer");
	refused("{\"secs\": 0.4}", "options.secs", "seconds from 0.5 to 3600");
	refused("{\"secs\": -1e300}", "options.secs", "seconds");
	refused("{\"colour\": \"blue\"}", "options.colour",
		"\"red\", \"green\"");
	refused("{\"on\": 1}", "options.on", "true or false (true: on");
	refused("{\"sizes\": []}", "options.sizes", "1 to 3 values");
	refused("{\"sizes\": [1000]}", "options.sizes[0]",
		"multiple of 512 bytes");
	refused("{\"sizes\": [\"big\"]}", "options.sizes[0]", "bytes");
	refused("{\"sizes\": [\"128MiB\"]}", "options.sizes[0]", "64 MiB");
	refused("{\"sizes\": [\"4KiB\", 4096]}", "options.sizes[1]",
		"duplicate");
	refused("{\"size\": \"1GB\"}", "options.size", "whole MiB");
	refused("{\"size\": \"1GB\"}", "options.size", "multiple of 1 MiB");
	refused("{\"size\": \"4MiB\"}", "options.size", "8 MiB to 1 TiB");
	refused("{\"names\": [\" x\"]}", "options.names[0]", "control");
	refused("{\"names\": [\"a\\u009bb\"]}", "options.names[0]", "control");
	refused("{\"names\": [\"123456789\"]}", "options.names[0]", "1 to 8");
	refused("{\"notes\": \"12345678901\"}", "options.notes", "0 to 10");
	refused("{\"limits\": {\"read_ms\": 0}}", "options.limits.read_ms",
		"> 0");
	refused("{\"limits\": {\"read_ms\": 1001}}", "options.limits.read_ms",
		"or null");
	refused("{\"limits\": 3}", "options.limits", "object");
	refused("{\"limits\": {\"latency\": 1}}", "options.limits.latency",
		"unknown field \"latency\"");
	refused("{\"qdepth\": 1}", "options.qdepth",
		"unknown field \"qdepth\" for test (known: qd, secs, colour");
}

static void test_describe(void)
{
	json_t *d = fields_describe(table, FIELDS_N(table)), *x;

	ASSERT_EQ(json_array_size(d), FIELDS_N(table));
	x = json_array_get(d, 0);
	ASSERT_STR_EQ(json_string_value(json_object_get(x, "name")), "qd");
	ASSERT_STR_EQ(json_string_value(json_object_get(x, "type")), "int");
	ASSERT_STR_EQ(json_string_value(json_object_get(x, "unit")), "I/Os");
	ASSERT_TRUE(json_number_value(json_object_get(x, "max")) == 1024);
	ASSERT_EQ(json_integer_value(json_object_get(x, "default")), 8);
	ASSERT_TRUE(json_is_true(json_object_get(x, "sweep")));
	x = json_array_get(d, 1);
	ASSERT_STR_EQ(json_string_value(json_object_get(x, "default_text")),
		      "the job's");
	ASSERT_TRUE(json_object_get(x, "default") == NULL);
	x = json_array_get(d, 4);
	ASSERT_STR_EQ(json_string_value(json_object_get(x, "type")), "list");
	ASSERT_STR_EQ(json_string_value(json_object_get(
			      json_object_get(x, "item"), "type")),
		      "bytes");
	ASSERT_EQ(json_integer_value(
			  json_object_get(json_object_get(x, "item"), "step")),
		  512);
	x = json_array_get(d, 8);
	ASSERT_EQ(json_array_size(json_object_get(x, "fields")), 2);
	ASSERT_TRUE(json_is_true(json_object_get(
		json_array_get(json_object_get(x, "fields"), 0), "nullable")));
	json_decref(d);
}

static void test_schema(void)
{
	json_t *s = fields_schema(table, FIELDS_N(table)), *p, *x;

	ASSERT_STR_EQ(json_string_value(json_object_get(s, "type")), "object");
	ASSERT_TRUE(json_is_false(json_object_get(s, "additionalProperties")));
	p = json_object_get(s, "properties");
	/* a sweepable field: the value or a list of them */
	x = json_object_get(p, "qd");
	ASSERT_EQ(json_array_size(json_object_get(x, "oneOf")), 2);
	ASSERT_STR_EQ(json_string_value(json_object_get(x, "x-unit")), "I/Os");
	ASSERT_TRUE(json_number_value(json_object_get(
			    json_array_get(json_object_get(x, "oneOf"), 0),
			    "maximum")) == 1024);
	x = json_object_get(p, "secs");
	ASSERT_STR_EQ(json_string_value(json_object_get(x, "type")), "number");
	ASSERT_TRUE(strstr(json_string_value(json_object_get(x, "description")),
			   "Default: the job's") != NULL);
	x = json_object_get(
		json_object_get(json_object_get(p, "limits"), "properties"),
		"read_ms");
	ASSERT_EQ(json_array_size(json_object_get(x, "oneOf")), 2);
	ASSERT_TRUE(json_number_value(json_object_get(x, "default")) == 20);
	ASSERT_STR_EQ(
		json_string_value(
			json_object_get(
				json_array_get(json_object_get(x, "oneOf"), 0),
				"x-unit")
				?: json_object_get(x, "x-unit")),
		"ms");
	json_decref(s);
}

static void test_bytes_words(void)
{
	char b[32];
	uint64_t v;
	json_t *j;

	fields_bytes_text(512, b, sizeof(b));
	ASSERT_STR_EQ(b, "512 B");
	fields_bytes_text(64ULL << 20, b, sizeof(b));
	ASSERT_STR_EQ(b, "64 MiB");
	fields_bytes_text(1536, b, sizeof(b));
	ASSERT_STR_EQ(b, "1536 B");
	j = json_string("4KiB");
	ASSERT_EQ(json_to_bytes(j, &v), 0);
	ASSERT_U64_EQ(v, 4096);
	json_decref(j);
	j = json_integer(-1);
	ASSERT_EQ(json_to_bytes(j, &v), -EINVAL);
	json_decref(j);
}

/* An enum's value by its name: its index, -1 when absent or NULL. */
static void test_index_of(void)
{
	ASSERT_EQ(fields_index_of(colours, "red"), 0);
	ASSERT_EQ(fields_index_of(colours, "green"), 1);
	ASSERT_EQ(fields_index_of(colours, "blue"), -1);
	ASSERT_EQ(fields_index_of(colours, "Red"), -1);
	ASSERT_EQ(fields_index_of(colours, NULL), -1);
}

TEST_MAIN(test_defaults_and_normal_form, test_refusals, test_describe,
	  test_schema, test_bytes_words, test_index_of)
