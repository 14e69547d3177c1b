/*
 * fields — see fields.h. The refusals read "PATH: must be …" so that the
 * API's problem detail, the dashboard's mark on a field and the tests all
 * name the field first.
 */
#include "fields.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine/units.h"
#include "utf8.h"

int field_fail(struct field_error *e, const char *field, const char *fmt, ...)
{
	va_list ap;
	int n;

	e->status = 400;
	snprintf(e->field, sizeof(e->field), "%s", field);
	n = snprintf(e->detail, sizeof(e->detail), "%s: ", field);
	if (n < 0 || (size_t)n >= sizeof(e->detail))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(e->detail + n, sizeof(e->detail) - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
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

void fields_bytes_text(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "B",   "KiB", "MiB",
					    "GiB", "TiB", "PiB" };
	int u = 0;

	while (u < 5 && bytes && bytes % 1024 == 0) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, len, "%llu %s", (unsigned long long)bytes, unit[u]);
}

/* "a.b", "a[3]" or "b" (path ""): the path of a member or an element. */
static void join(char *buf, size_t len, const char *path, const char *key,
		 long index)
{
	if (index >= 0)
		snprintf(buf, len, "%s[%ld]", path, index);
	else if (path && path[0])
		snprintf(buf, len, "%s.%s", path, key);
	else
		snprintf(buf, len, "%s", key);
}

static const char *unit_words(const char *unit)
{
	if (!unit)
		return "";
	if (strcmp(unit, "s") == 0)
		return " of seconds";
	if (strcmp(unit, "ms") == 0)
		return " of milliseconds";
	return "";
}

/* Appends the names of fs to buf as "a, b, c". */
static void names_of(const struct field *fs, size_t n, char *buf, size_t len)
{
	size_t k;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		k = strlen(buf);
		snprintf(buf + k, len - k, "%s%s", i ? ", " : "", fs[i].name);
	}
}

static void choices_text(const char *const *c, char *buf, size_t len)
{
	size_t k;

	buf[0] = '\0';
	for (size_t i = 0; c && c[i]; i++) {
		k = strlen(buf);
		snprintf(buf + k, len - k, "%s\"%s\"", i ? ", " : "", c[i]);
	}
}

/* A limit as people write it: 3600000, 0.5 (no exponent for whole ones). */
static const char *num_text(double d, char *buf, size_t len)
{
	if (d == floor(d) && fabs(d) < 1e15)
		snprintf(buf, len, "%.0f", d);
	else
		snprintf(buf, len, "%g", d);
	return buf;
}

static int check_number(const struct field *f, json_t *v, const char *path,
			json_t **out, struct field_error *e)
{
	char lo[32], hi[32];
	double d = json_number_value(v);
	int ok = json_is_number(v) && isfinite(d) && d <= f->max &&
		 ((f->flags & FIELD_ABOVE_MIN) ? d > f->min : d >= f->min);

	if (f->type == FIELD_INT && !json_is_integer(v))
		ok = 0;
	num_text(f->min, lo, sizeof(lo));
	num_text(f->max, hi, sizeof(hi));
	if (!ok && f->type == FIELD_INT)
		return field_fail(e, path, "must be an integer from %s to %s",
				  lo, hi);
	/* null: the default where the field has one, else nothing checked */
	if (!ok)
		return field_fail(
			e, path, "must be a number%s %s%s %s%s%s%s%s",
			unit_words(f->unit),
			(f->flags & FIELD_ABOVE_MIN) ? "> " : "from ", lo,
			(f->flags & FIELD_ABOVE_MIN) ? "and at most " : "to ",
			hi,
			!(f->flags & FIELD_NULLABLE) ? ""
			: f->def ? ", or null for the default "
				   "("
				 : ", or null to not check it",
			(f->flags & FIELD_NULLABLE) && f->def ? f->def : "",
			(f->flags & FIELD_NULLABLE) && f->def ? ")" : "");
	if (out)
		*out = f->type == FIELD_INT
			       ? json_integer(json_integer_value(v))
			       : json_real(d);
	return 0;
}

static int check_bytes(const struct field *f, json_t *v, const char *path,
		       json_t **out, struct field_error *e)
{
	uint64_t b = 0, step = f->step ? f->step : 1;
	char lo[32], hi[32];
	int rc = json_to_bytes(v, &b);

	fields_bytes_text((uint64_t)f->min, lo, sizeof(lo));
	fields_bytes_text((uint64_t)f->max, hi, sizeof(hi));
	if (rc == -EINVAL && json_is_string(v))
		return field_fail(
			e, path,
			"\"%.40s\" is not a size: bytes as an integer "
			"or a string like \"4KiB\", \"1MiB\", \"1GiB\" "
			"(%s to %s)",
			json_string_value(v), lo, hi);
	if (rc == -EINVAL)
		return field_fail(e, path,
				  "must be bytes: an integer or a string like "
				  "\"4KiB\", \"1MiB\", \"1GiB\" (%s to %s)",
				  lo, hi);
	if (rc < 0 || (double)b < f->min || (double)b > f->max || b % step) {
		/* zero is the commonest slip: say so first */
		const char *must = rc == 0 && b == 0 && f->min > 0
					   ? "must be > 0, and"
					   : "must be";
		if (step == 1U << 20)
			return field_fail(
				e, path,
				"%s in whole MiB, a multiple of 1 MiB "
				"(\"256MiB\", \"1GiB\"), from %s to %s",
				must, lo, hi);
		if (step > 1)
			return field_fail(
				e, path,
				"%s a multiple of %llu bytes from %s to "
				"%s",
				must, (unsigned long long)step, lo, hi);
		return field_fail(e, path, "%s from %s to %s", must, lo, hi);
	}
	if (out)
		*out = json_integer((json_int_t)b);
	return 0;
}

static int check_string(const struct field *f, json_t *v, const char *path,
			json_t **out, struct field_error *e)
{
	const char *s = json_string_value(v);
	int bytes = f->unit && strcmp(f->unit, "B") == 0;
	size_t n = s ? (bytes ? strlen(s) : utf8_chars(s)) : 0;

	if (!s || (double)n < f->min || (double)n > f->max)
		return field_fail(e, path,
				  "must be a string of %.0f to %.0f %s", f->min,
				  f->max, bytes ? "bytes" : "characters");
	if ((f->flags & FIELD_CLEAN) && n &&
	    (utf8_has_control(s) || s[0] == ' ' || s[strlen(s) - 1] == ' '))
		return field_fail(e, path,
				  "may not hold control characters or "
				  "start or end with a space");
	if (out)
		*out = json_incref(v);
	return 0;
}

static int check_list(const struct field *f, json_t *v, const char *path,
		      json_t **out, struct field_error *e)
{
	char at[96], at2[96];
	json_t *list, *x;
	size_t i;
	int rc;

	if (!json_is_array(v) || json_array_size(v) < f->min_items ||
	    json_array_size(v) > f->max_items)
		return field_fail(e, path, "must be a list of %u to %u values",
				  f->min_items, f->max_items);
	if (!(list = json_array()))
		return -ENOMEM;
	json_array_foreach(v, i, x)
	{
		json_t *norm = NULL;
		join(at, sizeof(at), path, NULL, (long)i);
		if ((rc = field_check(f->item, x, at, &norm, e)) < 0) {
			json_decref(list);
			return rc;
		}
		for (size_t j = 0; (f->flags & FIELD_UNIQUE) && j < i; j++)
			if (json_equal(json_array_get(list, j), norm)) {
				join(at2, sizeof(at2), path, NULL, (long)j);
				json_decref(norm);
				json_decref(list);
				return field_fail(e, at,
						  "repeats %s, a duplicate: "
						  "each value once",
						  at2);
			}
		json_array_append_new(list, norm);
	}
	if (out)
		*out = list;
	else
		json_decref(list);
	return 0;
}

int field_check(const struct field *f, json_t *v, const char *path,
		json_t **out, struct field_error *e)
{
	char known[256];

	if (out)
		*out = NULL;
	if (json_is_null(v) && (f->flags & FIELD_NULLABLE)) {
		if (out)
			*out = json_null();
		return 0;
	}
	switch (f->type) {
	case FIELD_INT:
	case FIELD_NUMBER:
		return check_number(f, v, path, out, e);
	case FIELD_BOOL:
		if (!json_is_boolean(v))
			return field_fail(
				e, path, "must be true or false%s%s%s",
				f->help ? " (" : "", f->help ? f->help : "",
				f->help ? ")" : "");
		if (out)
			*out = json_incref(v);
		return 0;
	case FIELD_STRING:
		return check_string(f, v, path, out, e);
	case FIELD_ENUM:
		for (size_t i = 0; json_is_string(v) && f->choices[i]; i++)
			if (strcmp(json_string_value(v), f->choices[i]) == 0) {
				if (out)
					*out = json_incref(v);
				return 0;
			}
		choices_text(f->choices, known, sizeof(known));
		return field_fail(e, path, "must be one of %s", known);
	case FIELD_BYTES:
		return check_bytes(f, v, path, out, e);
	case FIELD_DIR:
		if (!json_is_string(v) || !json_string_value(v)[0])
			return field_fail(e, path, "must be a directory path");
		if (out)
			*out = json_incref(v);
		return 0;
	case FIELD_LIST:
		return check_list(f, v, path, out, e);
	case FIELD_OBJECT:
		if (!json_is_object(v))
			return field_fail(e, path, "must be an object");
		return fields_check_object(f->sub, f->n_sub, v, path, path, out,
					   e);
	}
	return field_fail(e, path, "has an unknown type");
}

const struct field *fields_find(const struct field *fs, size_t n,
				const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(fs[i].name, name) == 0)
			return &fs[i];
	return NULL;
}

int fields_index_of(const char *const *names, const char *name)
{
	for (int i = 0; name && names[i]; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

int fields_check_members(const struct field *fs, size_t n, json_t *o,
			 const char *path, struct field_error *e)
{
	char at[96];

	if (!json_is_object(o))
		return field_fail(e, path[0] ? path : "body",
				  "must be an object");
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_object_get(o, fs[i].name);
		join(at, sizeof(at), path, fs[i].name, -1);
		if (!v && !(fs[i].flags & FIELD_NULLABLE))
			return field_fail(e, at, "missing");
		if (v && field_check(&fs[i], v, at, NULL, e) < 0)
			return -EINVAL;
	}
	return 0;
}

json_t *fields_pick(const struct field *fs, size_t n, json_t *o, int keep_null)
{
	json_t *out = json_object();

	for (size_t i = 0; out && i < n; i++) {
		json_t *v = json_object_get(o, fs[i].name);
		if (v && (keep_null || !json_is_null(v)))
			json_object_set(out, fs[i].name, v);
	}
	return out;
}

int fields_known(const struct field *fs, size_t n, json_t *o, const char *path,
		 const char *what, struct field_error *e)
{
	char at[96], known[400];
	const char *key;
	json_t *v;

	json_object_foreach(o, key, v)
	{
		if (fields_find(fs, n, key))
			continue;
		join(at, sizeof(at), path, key, -1);
		names_of(fs, n, known, sizeof(known));
		if (what && what[0])
			return field_fail(e, at,
					  "unknown field \"%.40s\" for %s "
					  "(known: %s)",
					  key, what, known);
		return field_fail(e, at, "unknown field \"%.40s\" (known: %s)",
				  key, known);
	}
	return 0;
}

int fields_check_object(const struct field *fs, size_t n, json_t *o,
			const char *path, const char *what, json_t **out,
			struct field_error *e)
{
	json_t *norm, *v, *x;
	char at[96];
	int rc;

	if (out)
		*out = NULL;
	if (o && !json_is_object(o))
		return field_fail(e, path, "must be an object");
	if ((rc = fields_known(fs, n, o, path, what, e)) < 0)
		return rc;
	if (!(norm = json_object()))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct field *f = &fs[i];
		json_t *def = NULL;
		join(at, sizeof(at), path, f->name, -1);
		v = o ? json_object_get(o, f->name) : NULL;
		if (!v && f->def) {
			def = json_loads(f->def, JSON_DECODE_ANY, NULL);
			v = def;
		}
		if (!v)
			continue;
		rc = field_check(f, v, at, &x, e);
		json_decref(def);
		if (rc < 0) {
			json_decref(norm);
			return rc;
		}
		json_object_set_new(norm, f->name, x);
	}
	if (out)
		*out = norm;
	else
		json_decref(norm);
	return 0;
}
