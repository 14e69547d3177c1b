/*
 * fields — field descriptors: one table per object a request carries (the
 * job, a custom test, the smb knobs, each preset's options) says every
 * field's name, type, unit, limits, default and one-line help. The same
 * table drives:
 *   - validation (fields_check_object): the unknown-field refusal, types,
 *     limits, list sizes, uniqueness, defaults filled in; every refusal is
 *     a sentence that starts with the field's path ("options.threads[1]: …");
 *   - GET /api/v1/profiles (fields_describe): what the dashboard builds its
 *     typed forms from;
 *   - the OpenAPI document's request schemas (fields_schema).
 * Checks that need several fields or the machine (does a directory exist, do
 * the files fit) stay with the object's owner (a preset's check hook).
 *
 * Ownership: every json_t * returned is a new reference for the caller.
 */
#ifndef STORBENCH_FIELDS_H
#define STORBENCH_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

enum field_type {
	FIELD_INT,    /* a JSON integer in [min, max] */
	FIELD_NUMBER, /* a finite JSON number in [min, max] */
	FIELD_BOOL,
	FIELD_STRING, /* UTF-8 text of min … max characters */
	FIELD_ENUM,   /* one of choices[] */
	FIELD_BYTES,  /* bytes: an integer or "4KiB" (units.h), in [min, max],
			 a multiple of step; normalized to an integer */
	FIELD_DIR,    /* a directory (or smb:// URL) for files, checked by
			 the owner's hook; here only a non-empty string */
	FIELD_LIST,   /* an array of min_items … max_items of *item */
	FIELD_OBJECT, /* an object of sub[0 … n_sub) */
};

enum {
	FIELD_NULLABLE = 1 << 0,  /* null is a value ("not checked") */
	FIELD_UNIQUE = 1 << 1,	  /* FIELD_LIST: each value once */
	FIELD_SWEEP = 1 << 2,	  /* may be a list: a sweep of the test */
	FIELD_ABOVE_MIN = 1 << 3, /* FIELD_NUMBER: > min, not ≥ */
	FIELD_CLEAN = 1 << 4,	  /* FIELD_STRING: no control characters, no
				     space at either end (a name, a label) */
};

struct field {
	const char *name; /* "queue_depth" */
	enum field_type type;
	const char *unit;	    /* "B", "s", "ms", "%", "I/Os", or NULL */
	double min, max;	    /* limits (FIELD_INT, _NUMBER, _BYTES);
				       characters for FIELD_STRING */
	uint64_t step;		    /* FIELD_BYTES: a multiple of it (0: 1) */
	const char *const *choices; /* FIELD_ENUM: NULL-terminated */
	const char *def;	    /* the default as JSON text ("8",
				       "[4,8,12]", "null"), or NULL when there
				       is none or it depends on the job */
	const char *def_text;	    /* the default in words when def is NULL
				       ("the job's size"), or NULL */
	const char *help;	    /* one line, for forms and docs */
	unsigned flags;		    /* FIELD_* */
	const struct field *item;   /* FIELD_LIST: each element */
	unsigned min_items, max_items; /* FIELD_LIST */
	const struct field *sub;       /* FIELD_OBJECT: its fields */
	size_t n_sub;
};

#define FIELDS_N(a) (sizeof(a) / sizeof((a)[0]))

/* The largest count a field's limit names when only JSON bounds it (a
 * document's bytes, I/Os, nanoseconds): JSON numbers carry every integer
 * below 2^53 (9.007e15) exactly. */
#define FIELD_EXACT_MAX 9.0e15

/* Where a value is wrong: the status (400, or 403 for a refusal by the
 * allowed roots), the field's path and a sentence that starts with it. */
struct field_error {
	unsigned status;
	char field[96];
	char detail[512];
};

/* Fills e: status 400, field and detail "FIELD: fmt…". Returns -EINVAL. */
int field_fail(struct field_error *e, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Checks v (the value at path) against f. On 0, *out (may be NULL: not
 * wanted) receives the normalized value: bytes as integers, an object with
 * its defaults filled in. Returns 0, -EINVAL with e filled, or -ENOMEM.
 */
int field_check(const struct field *f, json_t *v, const char *path,
		json_t **out, struct field_error *e);

/*
 * Checks object o (NULL: an empty one) against fs[0 … n): a key not in fs
 * is refused ("PATH.key: unknown field \"key\" for WHAT (known: a, b)"),
 * each present field is checked, each absent field with a default gets it.
 * path is the object's path ("options"; "" for the request itself), what
 * names it in the refusal ("seq-sweep"). *out: the normalized object.
 */
int fields_check_object(const struct field *fs, size_t n, json_t *o,
			const char *path, const char *what, json_t **out,
			struct field_error *e);

/* Checks only the members fs[0 … n) of object o at path (a document read
 * in part, whose other members are not refused): each must be present —
 * FIELD_NULLABLE ones may be absent or null — and valid. No defaults are
 * filled in. 0, or -EINVAL with e ("PATH.key: missing", or the member's
 * refusal; path "" is the document itself, named "body" when o is not an
 * object). */
int fields_check_members(const struct field *fs, size_t n, json_t *o,
			 const char *path, struct field_error *e);

/* A new object holding o's members that fs[0 … n) names, and nothing else
 * (a checked document kept in part); null members too when keep_null.
 * NULL when out of memory. */
json_t *fields_pick(const struct field *fs, size_t n, json_t *o, int keep_null);

/* Refuses a key of o not in fs[0 … n) as above; nothing else. */
int fields_known(const struct field *fs, size_t n, json_t *o, const char *path,
		 const char *what, struct field_error *e);

/* The field of fs[0 … n) called name, or NULL. */
const struct field *fields_find(const struct field *fs, size_t n,
				const char *name);

/* The index of name in names (NULL-terminated, as a FIELD_ENUM's choices:
 * an enum's values by their names), or -1 when it is not there or name is
 * NULL. */
int fields_index_of(const char *const *names, const char *name);

/* The descriptors as data, for GET /api/v1/profiles and the dashboard:
 * [{name, type, unit, min, max, step, choices, default, default_text,
 *   help, nullable, unique, sweep, item, min_items, max_items, fields}]
 * (absent members are left out). */
json_t *fields_describe(const struct field *fs, size_t n);

/* The descriptors as a JSON Schema (2020-12, as OpenAPI 3.1 takes it) of
 * an object: properties with type, limits, default, description (the help),
 * x-unit; additionalProperties false. */
json_t *fields_schema(const struct field *fs, size_t n);

/* A byte count in JSON: a non-negative integer, or a string with a unit
 * ("4KiB", "1GiB", see units.h). 0, -ERANGE (too large) or -EINVAL. */
int json_to_bytes(json_t *v, uint64_t *out);

/* "64 MiB", "512 B", "1.5 KiB"-free: bytes in the largest binary unit that
 * divides them, with a space, for sentences. */
void fields_bytes_text(uint64_t bytes, char *buf, size_t len);

#endif
