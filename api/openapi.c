/*
 * openapi — the API's OpenAPI 3.1 document, served at
 * GET /api/v1/openapi.json. It is made of two parts:
 *
 *   - the hand-written fragments, the JSON files of api/openapi/ (paths, the
 *     answers and their schemas), embedded by cmake/embed_web.cmake, merged
 *     in the order of their names: objects are merged member by member, any
 *     other value may be given by one fragment only (a second one is a
 *     conflict, named in the 500 this route then answers);
 *   - the request schemas, generated from the field tables the daemon
 *     validates requests with (fields.h): JobRequest (jobspec_fields),
 *     TestRequest (plan_test_fields), SmbRequest (jobsession_smb_fields)
 *     and, for every preset that takes options, its options schema named
 *     after it ("seq-sweep": SeqSweepOptions); JobRequest.options is anyOf
 *     them. A preset added to the registry appears with no edit to a JSON
 *     file; a fragment may not define these names.
 *
 * fields_schema gives a schema its structure (types, limits, defaults).
 * What this document promises on top of it is added here from the same
 * descriptors: a description in sentences that names the unit of every
 * number ("Unit: bytes.") and an x-unit of the document's set, multipleOf
 * for a byte count's step, uniqueItems for a list of distinct values, and
 * $refs between the schemas. Profile.kind and Profile.view get the enum of
 * this build's presets.
 *
 * The document is built once (pthread_once) and kept as text, indented by
 * two spaces with a final newline: api/openapi.json in the source tree is
 * that text, byte for byte (scripts/gen-openapi writes it).
 */
#include "api.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/jobsession.h"
#include "jobs/plan.h"
#include "platform/fields.h"
#include "presets/preset.h"
#include "web_assets.h"

#define SCHEMAS "#/components/schemas/"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char *doc_text; /* the document, or NULL */
static size_t doc_len;
static char doc_error[512]; /* why there is none */

/* ------------------------------------------------------------ merging */

/*
 * Merges object src into object dst: a member that is an object on both
 * sides is merged in turn, any other member may be on one side only. at
 * holds the path of dst ("components.schemas"); on a conflict it names the
 * member. 0, -EEXIST or -ENOMEM.
 */
static int merge(json_t *dst, json_t *src, char *at, size_t len)
{
	size_t k = strlen(at);
	const char *key;
	json_t *v, *have;
	int rc;

	json_object_foreach(src, key, v)
	{
		snprintf(at + k, len - k, "%s%s", k ? "." : "", key);
		have = json_object_get(dst, key);
		if (!have) {
			if (json_object_set(dst, key, v) < 0)
				return -ENOMEM;
		} else if (json_is_object(have) && json_is_object(v)) {
			if ((rc = merge(have, v, at, len)) < 0)
				return rc;
		} else {
			return -EEXIST;
		}
		at[k] = '\0';
	}
	return 0;
}

/* The fragments merged, or NULL with doc_error set. */
static json_t *merge_fragments(void)
{
	json_t *doc = json_object(), *part;
	json_error_t jerr;
	char at[256];
	int rc;

	for (const struct web_asset *f = api_openapi_fragments; doc && f->path;
	     f++) {
		part = json_loadb((const char *)f->data, f->size,
				  JSON_REJECT_DUPLICATES, &jerr);
		if (!part || !json_is_object(part)) {
			snprintf(doc_error, sizeof(doc_error),
				 "api/openapi/%s: %s (line %d)", f->path,
				 part ? "not a JSON object" : jerr.text,
				 part ? 1 : jerr.line);
			json_decref(part);
			json_decref(doc);
			return NULL;
		}
		at[0] = '\0';
		rc = merge(doc, part, at, sizeof(at));
		json_decref(part);
		if (rc < 0) {
			snprintf(doc_error, sizeof(doc_error),
				 rc == -EEXIST
					 ? "api/openapi/%s: %s is given by "
					   "an earlier fragment too"
					 : "api/openapi/%s: out of memory "
					   "at %s",
				 f->path, at);
			json_decref(doc);
			return NULL;
		}
	}
	return doc;
}

/* ------------------------------------------------- the request schemas */

/* The units the document names (its info.description); any other unit of
 * a descriptor is a thing counted ("I/Os", "writes"): "1". */
static const char *const doc_units[] = { "B",	  "s",	  "ms", "us", "MB/s",
					 "MiB/s", "IOPS", "%",	"1",  NULL };

static const char *unit_of(const struct field *f)
{
	if (f->unit)
		return f->unit;
	return f->type == FIELD_LIST && f->item ? f->item->unit : NULL;
}

static int is_numeric(const struct field *f)
{
	if (f->type == FIELD_LIST)
		return f->item && is_numeric(f->item);
	return f->type == FIELD_INT || f->type == FIELD_NUMBER ||
	       f->type == FIELD_BYTES;
}

static const char *x_unit(const char *u)
{
	for (size_t i = 0; u && doc_units[i]; i++)
		if (strcmp(u, doc_units[i]) == 0)
			return u;
	return "1";
}

/* "Unit: bytes." and the like, for a number in unit u. */
static void unit_sentence(const char *u, char *buf, size_t len)
{
	static const struct {
		const char *unit, *words;
	} words[] = {
		{ "B", "bytes" },	  { "s", "seconds" },
		{ "ms", "milliseconds" }, { "us", "microseconds" },
		{ "%", "percent" },	  { "1", "a count" },
	};
	const char *w = NULL;

	for (size_t i = 0; u && i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(u, words[i].unit) == 0)
			w = words[i].words;
	if (!u)
		snprintf(buf, len, " Unit: a count.");
	else if (w)
		snprintf(buf, len, " Unit: %s.", w);
	else if (strcmp(x_unit(u), "1") != 0)
		snprintf(buf, len, " Unit: %s.", u);
	else
		snprintf(buf, len, " Unit: a count (%s).", u);
}

/* Appends s to buf as a sentence: a full stop last, and a capital first
 * unless keep_case. */
static void sentence(char *buf, size_t len, const char *s, int keep_case)
{
	size_t k = strlen(buf), n = strlen(s), at = k ? k + 1 : 0;

	if (!n || k + 2 >= len)
		return;
	snprintf(buf + k, len - k, "%s%s%s", k ? " " : "", s,
		 s[n - 1] == '.' ? "" : ".");
	if (!keep_case && islower((unsigned char)buf[at]))
		buf[at] = (char)toupper((unsigned char)buf[at]);
}

/* Does text start with one of f's values ("none; dsync …", "true: …")?
 * Those keep their case. */
static int starts_with_value(const struct field *f, const char *text)
{
	static const char *const bools[] = { "true", "false", NULL };
	const char *const *v = f->type == FIELD_BOOL ? bools : f->choices;

	for (size_t i = 0; v && v[i]; i++) {
		size_t n = strlen(v[i]);
		if (strncmp(text, v[i], n) == 0 &&
		    !isalnum((unsigned char)text[n]))
			return 1;
	}
	return 0;
}

/* A field's description: its help and default in words, then what its
 * flags and type say, then its unit when it is a number. */
static void describe(const struct field *f, char *buf, size_t len)
{
	char s[512];

	buf[0] = '\0';
	if (f->help)
		sentence(buf, len, f->help, starts_with_value(f, f->help));
	if (f->def_text) {
		snprintf(s, sizeof(s), "Default: %s", f->def_text);
		sentence(buf, len, s, 0);
	}
	if (f->type == FIELD_BYTES)
		sentence(buf, len,
			 "An integer, or a string with a unit (`4KiB`, `1GiB`: "
			 "see `Size`)",
			 0);
	if (f->type == FIELD_BYTES && f->step > 1 &&
	    !(f->help && strstr(f->help, "multiple of"))) {
		char step[32];
		fields_bytes_text(f->step, step, sizeof(step));
		snprintf(s, sizeof(s), "A multiple of %s", step);
		sentence(buf, len, s, 0);
	}
	if (f->type == FIELD_STRING && f->unit && strcmp(f->unit, "B") == 0)
		sentence(buf, len, "Its length is counted in bytes (UTF-8)", 0);
	if (f->flags & FIELD_CLEAN)
		sentence(buf, len,
			 "No control characters, and no space at either end",
			 0);
	if (f->flags & FIELD_SWEEP)
		sentence(buf, len,
			 "May be a list (a sweep): one test per value, run in "
			 "that order",
			 0);
	if (is_numeric(f)) {
		size_t k = strlen(buf);
		unit_sentence(unit_of(f), buf + k, len - k);
		if (k == 0)
			memmove(buf, buf + 1, strlen(buf));
	}
}

static void document_field(json_t *s, const struct field *f);

/* Documents the properties of object schema o, made from fs[0 … n). */
static void document_fields(json_t *o, const struct field *fs, size_t n)
{
	json_t *props = json_object_get(o, "properties"), *s;

	for (size_t i = 0; i < n; i++)
		if ((s = json_object_get(props, fs[i].name)))
			document_field(s, &fs[i]);
}

/* The schema of f's value itself within s: fields_schema wraps a sweep as
 * oneOf [value, [values]] and that or a nullable one as oneOf [·, null]. */
static json_t *value_schema(json_t *s, const struct field *f)
{
	if (f->flags & FIELD_NULLABLE)
		s = json_array_get(json_object_get(s, "oneOf"), 0);
	if (f->flags & FIELD_SWEEP)
		s = json_array_get(json_object_get(s, "oneOf"), 0);
	return s;
}

static void document_field(json_t *s, const struct field *f)
{
	json_t *v = value_schema(s, f), *num;
	char text[1024];

	describe(f, text, sizeof(text));
	if (text[0])
		json_object_set_new(s, "description", json_string(text));
	if (is_numeric(f))
		json_object_set_new(s, "x-unit",
				    json_string(x_unit(unit_of(f))));
	if (!json_is_object(v))
		return;
	switch (f->type) {
	case FIELD_BYTES:
		/* oneOf [the integer, the string with a unit] */
		num = json_array_get(json_object_get(v, "oneOf"), 0);
		if (f->step > 1)
			json_object_set_new(num, "multipleOf",
					    json_integer((json_int_t)f->step));
		break;
	case FIELD_LIST:
		if (f->flags & FIELD_UNIQUE)
			json_object_set_new(v, "uniqueItems", json_true());
		if (f->item && json_is_object(json_object_get(v, "items")))
			document_field(json_object_get(v, "items"), f->item);
		break;
	case FIELD_OBJECT:
		document_fields(v, f->sub, f->n_sub);
		break;
	default:
		break;
	}
}

/* x as an integer when it is a whole number held as a real (a limit, 1.0),
 * or NULL. */
static json_t *whole(json_t *x)
{
	double d = json_real_value(x);

	if (!json_is_real(x) || d != floor(d) || fabs(d) >= 9007199254740992.0)
		return NULL;
	return json_integer((json_int_t)d);
}

/* Writes every whole number of v as a person does: 1, not 1.0. */
static void tidy_numbers(json_t *v)
{
	const char *key;
	json_t *x, *i_x;
	size_t i;

	json_object_foreach(v, key, x)
	{
		if ((i_x = whole(x)))
			json_object_set_new(v, key, i_x);
		else
			tidy_numbers(x);
	}
	json_array_foreach(v, i, x)
	{
		if ((i_x = whole(x)))
			json_array_set_new(v, i, i_x);
		else
			tidy_numbers(x);
	}
}

/* The object schema of fs[0 … n), documented, with description what. */
static json_t *object_schema(const struct field *fs, size_t n, const char *what)
{
	json_t *o = fields_schema(fs, n), *props;

	if (!o)
		return NULL;
	document_fields(o, fs, n);
	tidy_numbers(o);
	/* the description first, where a reader looks */
	props = json_incref(json_object_get(o, "properties"));
	json_object_del(o, "properties");
	json_object_del(o, "additionalProperties");
	json_object_set_new(o, "description", json_string(what));
	json_object_set_new(o, "properties", props);
	json_object_set_new(o, "additionalProperties", json_false());
	return o;
}

/* The name of preset p's options schema: "seq-sweep" → "SeqSweepOptions". */
static void options_name(const struct preset *p, char *buf, size_t len)
{
	size_t k = 0;
	int up = 1;

	for (const char *c = p->name; *c && k + 8 < len; c++) {
		if (!isalnum((unsigned char)*c)) {
			up = 1;
			continue;
		}
		buf[k++] = up ? (char)toupper((unsigned char)*c) : *c;
		up = 0;
	}
	snprintf(buf + k, len - k, "Options");
}

static json_t *ref(const char *name)
{
	char r[128];

	snprintf(r, sizeof(r), SCHEMAS "%s", name);
	return json_pack("{s:s}", "$ref", r);
}

/* Replaces property key of object schema o by a $ref to name, keeping its
 * description. */
static void to_ref(json_t *o, const char *key, const char *name)
{
	json_t *props = json_object_get(o, "properties");
	json_t *s = json_object_get(props, key), *r = ref(name);
	json_t *d = json_object_get(s, "description");

	if (d)
		json_object_set(r, "description", d);
	json_object_set_new(props, key, r);
}

/* The schemas of the objects a job request carries besides a preset's
 * options. */
static const struct {
	const char *name;
	const struct field *fields;
	const size_t *n;
	const char *what;
} objects[] = {
	{ "JobRequest", jobspec_fields, &jobspec_n_fields,
	  "A benchmark job. Every field is optional (`{}` runs the profile's "
	  "defaults on the scratch folder); an unknown field is a 400 naming "
	  "it; an empty body is refused." },
	{ "TestRequest", plan_test_fields, &plan_n_test_fields,
	  "One test of the profile that takes tests (its `fields.tests` in "
	  "GET /api/v1/profiles); every field optional. A field "
	  "that may be a list is a sweep: the test becomes one test per value "
	  "(only one field of a test may be a list). An error names the field "
	  "as `tests[2].block_size` (a sweep's value as "
	  "`tests[0].threads[1]`)." },
	{ "SmbRequest", jobsession_smb_fields, &jobsession_n_smb_fields,
	  "For an `smb://` target only: the session's knobs, for before/after "
	  "comparisons." },
};

/*
 * The generated schemas into schemas (an object, empty): JobRequest,
 * TestRequest, SmbRequest and each preset's options. 0 or -ENOMEM.
 */
static int request_schemas(json_t *schemas)
{
	const struct preset *p;
	json_t *job, *opts = json_array(), *o, *props;
	char name[64], what[1600], list[1024] = "";

	jobspec_init();
	for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); i++) {
		o = object_schema(objects[i].fields, *objects[i].n,
				  objects[i].what);
		json_object_set_new(schemas, objects[i].name, o);
	}
	job = json_object_get(schemas, "JobRequest");
	for (size_t i = 0; opts && (p = preset_at(i)) != NULL; i++) {
		size_t k = strlen(list);
		if (!p->n_options)
			continue;
		options_name(p, name, sizeof(name));
		snprintf(what, sizeof(what),
			 "The options of the `%s` profile: %s. An unknown "
			 "option is a 400 naming it (`options.x`).",
			 p->name, p->title);
		o = object_schema(p->options, p->n_options, what);
		json_object_set_new(schemas, name, o);
		json_array_append_new(opts, ref(name));
		snprintf(list + k, sizeof(list) - k, "%s`%s`: `%s`",
			 k ? ", " : "", p->name, name);
	}
	if (!job || !opts || !(props = json_object_get(job, "properties"))) {
		json_decref(opts);
		return -ENOMEM;
	}
	o = json_object_get(props, "tests");
	json_object_set_new(o, "items", ref("TestRequest"));
	to_ref(job, "smb", "SmbRequest");
	if (json_array_size(opts)) {
		const char *help = json_string_value(json_object_get(
			json_object_get(props, "options"), "description"));
		snprintf(what, sizeof(what),
			 "%s%sThe schema is the profile's (%s); every other "
			 "profile takes none.",
			 help ? help : "", help ? " " : "", list);
		json_object_set_new(props, "options",
				    json_pack("{s:o, s:s}", "anyOf", opts,
					      "description", what));
	} else {
		json_decref(opts);
	}
	return 0;
}

/* Profile.kind and Profile.view: the values of this build's presets. */
static void profile_enums(json_t *doc)
{
	json_t *props = json_object_get(
		json_object_get(
			json_object_get(json_object_get(doc, "components"),
					"schemas"),
			"Profile"),
		"properties");
	static const char *const keys[] = { "kind", "view" };
	const struct preset *p;

	for (size_t k = 0; k < 2; k++) {
		json_t *s = json_object_get(props, keys[k]), *e = json_array();
		if (!json_is_object(s) || !e) {
			json_decref(e);
			continue;
		}
		for (size_t i = 0; (p = preset_at(i)) != NULL; i++) {
			const char *v = k ? p->view : p->kind, *have;
			size_t j, n = json_array_size(e);
			for (j = 0; j < n; j++) {
				have = json_string_value(json_array_get(e, j));
				if (strcmp(have, v) == 0)
					break;
			}
			if (j == n)
				json_array_append_new(e, json_string(v));
		}
		json_object_set_new(s, "enum", e);
	}
}

static void build(void)
{
	json_t *doc = merge_fragments(), *gen = json_object(), *schemas, *v;
	const char *key;
	char *t;

	if (!doc || !gen)
		goto out;
	schemas =
		json_object_get(json_object_get(doc, "components"), "schemas");
	if (!json_is_object(schemas)) {
		snprintf(doc_error, sizeof(doc_error),
			 "no fragment gives components.schemas");
		goto out;
	}
	if (request_schemas(gen) < 0)
		goto out;
	json_object_foreach(gen, key, v)
	{
		if (json_object_get(schemas, key)) {
			snprintf(doc_error, sizeof(doc_error),
				 "components.schemas.%s is generated from the "
				 "field tables; a fragment may not define it",
				 key);
			goto out;
		}
		json_object_set(schemas, key, v);
	}
	profile_enums(doc);
	t = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (t && (doc_text = malloc(strlen(t) + 2))) {
		doc_len = strlen(t) + 1;
		memcpy(doc_text, t, doc_len - 1);
		memcpy(doc_text + doc_len - 1, "\n", 2);
	}
	free(t);
out:
	if (!doc_text && !doc_error[0])
		snprintf(doc_error, sizeof(doc_error), "out of memory");
	json_decref(gen);
	json_decref(doc);
}

const char *api_openapi_text(size_t *len, const char **why)
{
	pthread_once(&once, build);
	*len = doc_len;
	if (why)
		*why = doc_text ? NULL : doc_error;
	return doc_text;
}
