/*
 * fields_doc — a field table described (fields.h): fields_describe for GET
 * /api/v1/profiles, from which the dashboard builds its typed forms, and
 * fields_schema for the OpenAPI document's request schemas. The same table
 * validates (fields.c), so what a form offers and a schema documents is
 * what a request is checked against.
 */
#include "fields.h"

#include <stdio.h>
#include <string.h>

static const char *const type_names[] = {
	[FIELD_INT] = "int",	   [FIELD_NUMBER] = "number",
	[FIELD_BOOL] = "bool",	   [FIELD_STRING] = "string",
	[FIELD_ENUM] = "enum",	   [FIELD_BYTES] = "bytes",
	[FIELD_DIR] = "dir",	   [FIELD_LIST] = "list",
	[FIELD_OBJECT] = "object",
};

static int has_limits(const struct field *f)
{
	return f->type == FIELD_INT || f->type == FIELD_NUMBER ||
	       f->type == FIELD_BYTES || f->type == FIELD_STRING;
}

static json_t *describe_one(const struct field *f)
{
	json_t *o = json_pack("{s:s, s:s}", "name", f->name ? f->name : "",
			      "type", type_names[f->type]);

	if (!o)
		return NULL;
	if (f->unit)
		json_object_set_new(o, "unit", json_string(f->unit));
	if (has_limits(f) && f->type != FIELD_NUMBER) {
		/* whole numbers: integers, bytes, characters */
		json_object_set_new(o, "min", json_integer((json_int_t)f->min));
		json_object_set_new(o, "max", json_integer((json_int_t)f->max));
	} else if (has_limits(f)) {
		json_object_set_new(o, "min", json_real(f->min));
		json_object_set_new(o, "max", json_real(f->max));
		if (f->flags & FIELD_ABOVE_MIN)
			json_object_set_new(o, "min_exclusive", json_true());
	}
	if (f->step > 1)
		json_object_set_new(o, "step",
				    json_integer((json_int_t)f->step));
	if (f->choices) {
		json_t *c = json_array();
		for (size_t i = 0; f->choices[i]; i++)
			json_array_append_new(c, json_string(f->choices[i]));
		json_object_set_new(o, "choices", c);
	}
	if (f->def) {
		json_t *d = json_loads(f->def, JSON_DECODE_ANY, NULL);
		json_object_set_new(o, "default", d ? d : json_null());
	}
	if (f->def_text)
		json_object_set_new(o, "default_text",
				    json_string(f->def_text));
	if (f->help)
		json_object_set_new(o, "help", json_string(f->help));
	if (f->flags & FIELD_NULLABLE)
		json_object_set_new(o, "nullable", json_true());
	if (f->flags & FIELD_UNIQUE)
		json_object_set_new(o, "unique", json_true());
	if (f->flags & FIELD_SWEEP)
		json_object_set_new(o, "sweep", json_true());
	if (f->type == FIELD_LIST) {
		json_object_set_new(o, "min_items", json_integer(f->min_items));
		json_object_set_new(o, "max_items", json_integer(f->max_items));
		json_object_set_new(o, "item", describe_one(f->item));
	}
	if (f->type == FIELD_OBJECT)
		json_object_set_new(o, "fields",
				    fields_describe(f->sub, f->n_sub));
	return o;
}

json_t *fields_describe(const struct field *fs, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, describe_one(&fs[i]));
	return a;
}

/* The help and the default in words, as a schema's description. */
static json_t *description(const struct field *f)
{
	char text[512];

	snprintf(text, sizeof(text), "%s%s%s%s%s", f->help ? f->help : "",
		 f->help && f->def_text ? "." : "",
		 f->def_text ? " Default: " : "",
		 f->def_text ? f->def_text : "", f->def_text ? "." : "");
	return json_string(text);
}

static json_t *schema_one(const struct field *f);

static json_t *schema_plain(const struct field *f)
{
	json_t *s = json_object(), *c;

	switch (f->type) {
	case FIELD_INT:
	case FIELD_NUMBER:
		json_object_set_new(s, "type",
				    json_string(f->type == FIELD_INT
							? "integer"
							: "number"));
		json_object_set_new(s,
				    (f->flags & FIELD_ABOVE_MIN)
					    ? "exclusiveMinimum"
					    : "minimum",
				    json_real(f->min));
		json_object_set_new(s, "maximum", json_real(f->max));
		break;
	case FIELD_BOOL:
		json_object_set_new(s, "type", json_string("boolean"));
		break;
	case FIELD_STRING:
		json_object_set_new(s, "type", json_string("string"));
		json_object_set_new(s, "minLength",
				    json_integer((json_int_t)f->min));
		json_object_set_new(s, "maxLength",
				    json_integer((json_int_t)f->max));
		break;
	case FIELD_ENUM:
		c = json_array();
		for (size_t i = 0; f->choices[i]; i++)
			json_array_append_new(c, json_string(f->choices[i]));
		json_object_set_new(s, "type", json_string("string"));
		json_object_set_new(s, "enum", c);
		break;
	case FIELD_BYTES:
		json_object_set_new(
			s, "oneOf",
			json_pack("[{s:s, s:f, s:f, s:s}, {s:s, s:s}]", "type",
				  "integer", "minimum", f->min, "maximum",
				  f->max, "x-unit", "B", "type", "string",
				  "pattern", "^[0-9]+ ?[A-Za-z]{0,3}$"));
		break;
	case FIELD_DIR:
		json_object_set_new(s, "type", json_string("string"));
		json_object_set_new(s, "minLength", json_integer(1));
		break;
	case FIELD_LIST:
		json_object_set_new(s, "type", json_string("array"));
		json_object_set_new(s, "items", schema_one(f->item));
		json_object_set_new(s, "minItems", json_integer(f->min_items));
		json_object_set_new(s, "maxItems", json_integer(f->max_items));
		break;
	case FIELD_OBJECT:
		json_decref(s);
		s = fields_schema(f->sub, f->n_sub);
		break;
	}
	return s;
}

static json_t *schema_one(const struct field *f)
{
	json_t *s = schema_plain(f);

	if (f->flags & FIELD_SWEEP)
		s = json_pack("{s:[o, {s:s, s:O, s:i, s:i}]}", "oneOf", s,
			      "type", "array", "items", s, "minItems", 1,
			      "maxItems", 64);
	if (f->flags & FIELD_NULLABLE)
		s = json_pack("{s:[o, {s:s}]}", "oneOf", s, "type", "null");
	if (!s)
		return NULL;
	if (f->help || f->def_text)
		json_object_set_new(s, "description", description(f));
	if (f->unit)
		json_object_set_new(s, "x-unit", json_string(f->unit));
	if (f->def) {
		json_t *d = json_loads(f->def, JSON_DECODE_ANY, NULL);
		if (d)
			json_object_set_new(s, "default", d);
	}
	return s;
}

json_t *fields_schema(const struct field *fs, size_t n)
{
	json_t *props = json_object();

	for (size_t i = 0; props && i < n; i++)
		json_object_set_new(props, fs[i].name, schema_one(&fs[i]));
	return json_pack("{s:s, s:o, s:b}", "type", "object", "properties",
			 props, "additionalProperties", 0);
}
