/*
 * jobspec — validation of a job request (POST /api/v1/jobs). Every rule lives
 * here and every refusal names the field, so the API, the dashboard and the
 * tests agree on what a valid job is. Checks that touch the machine (the
 * target exists, is a directory, is writable, has room) use the real
 * filesystem: a job is refused before it is queued, not after it starts.
 */
#include "api.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "archive.h"
#include "confine.h"
#include "creds.h"
#include "plan.h"
#include "probe.h"
#include "profiles.h"
#include "smb.h"
#include "target.h"
#include "units.h"

#define MIN_SIZE (8ULL << 20)
#define MAX_SIZE (64ULL << 40)
#define SIZE_ALIGN (1ULL << 20)
#define MAX_LABELS 32
#define MAX_LABEL_CHARS 64
#define MAX_NOTES 4096   /* characters */
#define PSYNC_MAX_WORKERS 4096
#define SMB_MAX_WORKERS 512 /* a process and a connection each */
#define MIN_DURATION 0.5 /* seconds: below that a window is a handful of I/Os */

static const char *const fields[] = {
	"target", "profile", "size", "iterations", "duration_s",
	"interval_s", "labels", "notes", "tests", "engine", "direct", "data",
	"ramp_s", "options", "credential", "smb",
};

/* UTF-8 characters in s (Jansson has already checked it is UTF-8). */
static size_t utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			n++;
	return n;
}

static int bad(struct api_problem *p, const char *field, const char *detail)
{
	api_problem_set(p, 400, field, "%s: %s", field, detail);
	return -EINVAL;
}

/* Words for what an SMB check answered (smb.h), into p; field names the
 * request field the URL came from. */
static int smb_problem(struct api_problem *p, const char *field,
		       const char *url, const struct smb_session *sess,
		       const struct smb_info *in)
{
	int e = (int)-in->err;

	if (e == EACCES || e == EPERM)
		api_problem_set(p, 400, "credential",
				"credential: %s refused the logon of user \"%s\" "
				"(wrong user, password or domain, or no access "
				"to the share)",
				url, sess->user);
	else if ((e == ENOENT || e == ENODEV) && in->stage == SMB_STAGE_OP)
		api_problem_set(p, 400, field, "%s: %s does not exist on the share",
				field, url);
	else if (e == ENOENT || e == ENODEV)
		api_problem_set(p, 400, field,
				"%s: %s: the server has no such share", field, url);
	else if (e == ENOTDIR)
		api_problem_set(p, 400, field,
				"%s: %s is not a directory (storbench creates its "
				"own test file inside a directory)",
				field, url);
	else if (e == ECONNREFUSED || e == EHOSTUNREACH || e == ENETUNREACH)
		api_problem_set(p, 400, field,
				"%s: cannot reach the SMB server of %s: %s", field,
				url, strerror(e));
	else if (e == ETIMEDOUT)
		api_problem_set(p, 400, field,
				"%s: the SMB server of %s did not answer within "
				"%d s",
				field, url, SMB_CHECK_TIMEOUT_MS / 1000);
	else if (e == EINVAL && in->stage == SMB_STAGE_OP)
		api_problem_set(p, 400, field,
				"%s: %s: the server refused the path (an invalid "
				"or too long name)",
				field, url);
	else if (e == EINVAL || e == ECONNRESET)
		api_problem_set(p, 400, "smb",
				"smb: the connection to %s failed while "
				"negotiating (%s): no dialect common to the server "
				"and min_protocol…max_protocol, or signing or "
				"encryption required and refused",
				url, strerror(e));
	else
		api_problem_set(p, 400, field, "%s: %s: %s", field, url,
				strerror(e));
	return -EINVAL;
}

/*
 * A directory to create test files in: an absolute local path inside the
 * allowed roots (confine.h), or — for a job with an SMB session — an smb://
 * URL under an allowed share, checked on the server (it exists, is a
 * directory, takes a new file). With device_ok, a raw block device allowed
 * by --allow-device is taken too (*device_bytes: its size; 0 for a
 * directory). *out: the path to store.
 */
static int parse_target(json_t *v, const char *scratch,
			const struct smb_session *sess, int device_ok,
			uint64_t *device_bytes, char **out,
			struct api_problem *p)
{
	char real[PATH_MAX], err[160], why[sizeof(p->detail) - 16];
	const char *t = scratch;
	struct stat st;
	struct statvfs vfs;
	uint64_t dev_bytes;
	int rc;

	if (device_bytes)
		*device_bytes = 0;
	if (v) {
		if (!json_is_string(v))
			return bad(p, "target", "must be a string (a directory path)");
		t = json_string_value(v);
		if (smb_is_url(t) != !!sess)
			return bad(p, "target",
				   sess ? "every path of a job on an SMB share is "
					  "an smb:// URL"
					: "an smb:// path needs an smb:// target "
					  "(the job's credential)");
		if (!sess && t[0] != '/')
			return bad(p, "target", "must be an absolute path or an "
						 "smb://server[:port]/share/dir URL");
	}
	if (sess) {
		struct smb_url u;
		struct smb_info in;
		size_t n;
		if (smb_url_parse(t, &u, err, sizeof(err)) < 0) {
			/* not echoed: it may hold a password */
			api_problem_set(p, 400, "target", "target: %s", err);
			return -EINVAL;
		}
		if (confine_smb(t, why, sizeof(why)) < 0) {
			api_problem_set(p, 403, "target", "target: %s", why);
			return -EINVAL;
		}
		if ((rc = smb_op(sess, "check", t, NULL, 0, &in)) < 0)
			return rc;
		if (in.err < 0)
			return smb_problem(p, "target", t, sess, &in);
		if (!(*out = strdup(t)))
			return -ENOMEM;
		n = strlen(*out);
		while (n > 6 && (*out)[n - 1] == '/')
			(*out)[--n] = '\0';
		return 0;
	}
	rc = confine_device(t, real, &dev_bytes, why, sizeof(why));
	if (rc != -ENOTBLK) {
		if (rc == 0 && !device_ok) {
			snprintf(why, sizeof(why),
				 "%s: is a raw block device; this preset "
				 "creates files and needs a directory",
				 t);
			rc = -EINVAL;
		}
		if (rc < 0) {
			api_problem_set(p, rc == -EACCES ? 403 : 400, "target",
					"target: %s", why);
			return -EINVAL;
		}
		*device_bytes = dev_bytes;
		*out = strdup(real);
		return *out ? 0 : -ENOMEM;
	}
	if ((rc = confine_dir(t, scratch, real, why, sizeof(why))) < 0) {
		api_problem_set(p, rc == -EACCES ? 403 : 400, "target",
				"target: %s", why);
		return -EINVAL;
	}
	if (stat(real, &st) != 0) {
		api_problem_set(p, 400, "target", "target: %s: %s", t,
				strerror(errno));
		return -EINVAL;
	}
	if (!S_ISDIR(st.st_mode)) {
		api_problem_set(p, 400, "target",
				"target: %s is not a directory (storbench "
				"creates its own test file inside a directory "
				"and never writes to an existing file)",
				t);
		return -EINVAL;
	}
	if (statvfs(real, &vfs) == 0 && vfs.f_blocks == 0) {
		api_problem_set(p, 400, "target",
				"target: %s is on a filesystem without storage "
				"(proc, sysfs …)",
				t);
		return -EINVAL;
	}
	if (access(real, W_OK | X_OK) != 0) {
		api_problem_set(p, 400, "target", "target: %s is not writable",
				t);
		return -EINVAL;
	}
	*out = strdup(real);
	return *out ? 0 : -ENOMEM;
}

/*
 * Does need bytes fit on the filesystem (or SMB share) of path, keeping the
 * reserve (--reserve, confine.h) free there? 1 yes or unknown (the check
 * cannot be made), 0 no: then why says how much there is (confine_room).
 */
static int fits(const struct job_spec *s, const char *path, uint64_t need,
		char *why, size_t len)
{
	struct smb_info in;
	int64_t free_bytes = 0, total = 0;

	if (!s->smb_session) {
		if (probe_space(path, &free_bytes, &total) < 0)
			return 1;
	} else {
		if (smb_op(s->smb_session, "df", path, NULL, 0, &in) < 0 ||
		    in.err < 0)
			return 1;
		free_bytes = in.free_bytes;
		total = in.total_bytes;
	}
	return confine_room(path, free_bytes, total, need, why, len);
}

/* A dialect name from smb.h, or -1 (problem set). */
static int smb_dialect(json_t *o, const char *key, char *dst, size_t len,
		       struct api_problem *p)
{
	json_t *v = json_object_get(o, key);
	char field[32];
	int d;

	if (!v)
		return -2;
	snprintf(field, sizeof(field), "smb.%s", key);
	if (!json_is_string(v) ||
	    (d = smb_dialect_index(json_string_value(v))) < 0) {
		api_problem_set(p, 400, field,
				"%s: one of \"SMB2_02\", \"SMB2_10\", \"SMB3_00\", "
				"\"SMB3_02\", \"SMB3_11\"",
				field);
		return -1;
	}
	snprintf(dst, len, "%s", json_string_value(v));
	return d;
}

/*
 * An smb:// target's session: "credential" (a stored credential's name,
 * required) and "smb" {min_protocol, max_protocol, require_signing,
 * require_encryption}. Fills s->smb_session (with the password, for the
 * checks; not stored) and s->smb_json (without it, stored). A local target
 * takes neither.
 */
static int parse_smb(json_t *root, struct job_spec *s, struct api_problem *p)
{
	json_t *t = json_object_get(root, "target");
	json_t *c = json_object_get(root, "credential");
	json_t *o = json_object_get(root, "smb"), *v;
	struct smb_session *ss;
	const char *key, *name;
	int lo, hi;

	if (t && !json_is_string(t))
		return 0; /* parse_target says what is wrong with it */
	if (!json_is_string(t) || !smb_is_url(json_string_value(t))) {
		if (c)
			return bad(p, "credential", "only for an smb:// target");
		if (o)
			return bad(p, "smb", "only for an smb:// target");
		return 0;
	}
	if (!c)
		return bad(p, "credential",
			   "required for an smb:// target: the name of a stored "
			   "credential (POST /api/v1/credentials)");
	if (!json_is_string(c) || !creds_name_ok(json_string_value(c)))
		return bad(p, "credential",
			   "must be the name of a stored credential");
	name = json_string_value(c);
	if (!(ss = calloc(1, sizeof(*ss))))
		return -ENOMEM;
	s->smb_session = ss;
	if (creds_get(name, ss) < 0) {
		api_problem_set(p, 400, "credential",
				"credential: no credential named \"%s\" (store "
				"one with POST /api/v1/credentials)",
				name);
		return -EINVAL;
	}
	if (o && !json_is_object(o))
		return bad(p, "smb", "must be an object {min_protocol, "
				      "max_protocol, require_signing, "
				      "require_encryption}");
	json_object_foreach(o, key, v)
	{
		if (strcmp(key, "min_protocol") && strcmp(key, "max_protocol") &&
		    strcmp(key, "require_signing") &&
		    strcmp(key, "require_encryption")) {
			char field[64];
			snprintf(field, sizeof(field), "smb.%s", key);
			api_problem_set(p, 400, field,
					"%s: unknown field \"%.64s\" (known: "
					"min_protocol, max_protocol, "
					"require_signing, require_encryption)",
					field, key);
			return -EINVAL;
		}
		if (strncmp(key, "require_", 8) == 0 && !json_is_boolean(v)) {
			char field[40];
			snprintf(field, sizeof(field), "smb.%s", key);
			return bad(p, field, "must be true or false");
		}
	}
	if ((lo = smb_dialect(o, "min_protocol", ss->min_protocol,
			      sizeof(ss->min_protocol), p)) == -1 ||
	    (hi = smb_dialect(o, "max_protocol", ss->max_protocol,
			      sizeof(ss->max_protocol), p)) == -1)
		return -EINVAL;
	if (lo >= 0 && hi >= 0 && lo > hi)
		return bad(p, "smb.min_protocol", "is above smb.max_protocol");
	ss->require_signing = json_is_true(json_object_get(o, "require_signing"));
	ss->require_encryption =
		json_is_true(json_object_get(o, "require_encryption"));
	if (ss->require_encryption && hi >= 0 && hi < 2)
		return bad(p, "smb.require_encryption",
			   "needs SMB 3 (max_protocol SMB3_00 or above)");
	v = json_pack("{s:s, s:s?, s:s?, s:b, s:b}", "credential", name,
		      "min_protocol", ss->min_protocol[0] ? ss->min_protocol : NULL,
		      "max_protocol", ss->max_protocol[0] ? ss->max_protocol : NULL,
		      "require_signing", ss->require_signing,
		      "require_encryption", ss->require_encryption);
	s->smb_json = v ? json_dumps(v, JSON_COMPACT) : NULL;
	json_decref(v);
	return s->smb_json ? 0 : -ENOMEM;
}

static int parse_size(json_t *v, uint64_t def, uint64_t *out,
		      struct api_problem *p)
{
	char text[64];

	*out = def;
	if (!v)
		return 0;
	if (json_is_integer(v) || json_is_string(v)) {
		int rc = json_to_bytes(v, out);
		if (rc == -ERANGE)
			return bad(p, "size", "too large (at most 64TiB)");
		if (rc < 0 && json_is_integer(v))
			return bad(p, "size", "must be > 0");
		if (rc < 0) {
			api_problem_set(p, 400, "size",
					"size: \"%.40s\" is not a size (use bytes "
					"or a unit: 64MiB, 1GiB)",
					json_string_value(v));
			return -EINVAL;
		}
	} else {
		return bad(p, "size", "must be a string like \"1GiB\" or a number of bytes");
	}
	if (*out == 0)
		return bad(p, "size", "must be > 0");
	if (*out < MIN_SIZE || *out > MAX_SIZE)
		return bad(p, "size", "must be from 8MiB to 64TiB");
	if (*out % SIZE_ALIGN) {
		units_format_size(*out, text, sizeof(text));
		api_problem_set(p, 400, "size",
				"size: %s is not a multiple of 1 MiB (the largest "
				"block size); use MiB or GiB",
				text);
		return -EINVAL;
	}
	return 0;
}

/* A number of seconds in [min, max]. */
static int parse_number(json_t *v, const char *field, double def, double min,
			double max, double *out, struct api_problem *p)
{
	double d;

	*out = def;
	if (!v)
		return 0;
	if (!json_is_number(v))
		return bad(p, field, "must be a number of seconds");
	d = json_number_value(v);
	if (!isfinite(d) || d > max || d < min) {
		api_problem_set(p, 400, field, "%s: must be from %g to %g seconds",
				field, min, max);
		return -EINVAL;
	}
	*out = d;
	return 0;
}

int jobspec_notes(json_t *v, struct api_problem *p)
{
	if (!json_is_string(v) || utf8_chars(json_string_value(v)) > MAX_NOTES)
		return bad(p, "notes", "must be a string of at most 4096 characters");
	return 0;
}

int jobspec_labels(json_t *v, char **out, struct api_problem *p)
{
	size_t i;
	json_t *l;

	if (!v) {
		*out = strdup("[]");
		return *out ? 0 : -ENOMEM;
	}
	if (!json_is_array(v))
		return bad(p, "labels", "must be an array of strings");
	if (json_array_size(v) > MAX_LABELS)
		return bad(p, "labels", "at most 32 labels");
	json_array_foreach(v, i, l)
	{
		size_t n;
		if (!json_is_string(l))
			return bad(p, "labels", "every label must be a string");
		const char *t = json_string_value(l);
		n = utf8_chars(t);
		if (n < 1 || n > MAX_LABEL_CHARS)
			return bad(p, "labels", "every label must be 1 … 64 characters");
		if (utf8_has_control(t) || t[0] == ' ' || t[strlen(t) - 1] == ' ')
			return bad(p, "labels", "a label may not hold control "
						 "characters or start or end with a space");
		for (size_t j = 0; j < i; j++)
			if (strcmp(t, json_string_value(json_array_get(v, j))) == 0)
				return bad(p, "labels", "duplicate label");
	}
	*out = json_dumps(v, JSON_COMPACT);
	return *out ? 0 : -ENOMEM;
}

/* engine: a back-end by name; default io_uring, or psync where io_uring
 * cannot be set up. */
static int parse_engine(json_t *v, const struct job_spec *s, char **out,
			struct api_problem *p)
{
	const char *name = tgt_local_default()->name;
	int urc;

	if (s->smb_session) {
		if (v)
			return bad(p, "engine", "an smb:// target runs on the SMB "
						 "back-end; leave engine out");
		*out = strdup(tgt_smb_ops.name);
		return *out ? 0 : -ENOMEM;
	}
	if (v) {
		if (!json_is_string(v) || !tgt_find(json_string_value(v)))
			return bad(p, "engine", "must be \"io_uring\", \"psync\" "
						 "or \"null\" (no I/O: the engine's "
						 "own cost)");
		name = json_string_value(v);
	}
	if (strcmp(name, "io_uring") == 0 && (urc = tgt_uring_probe()) < 0) {
		api_problem_set(p, 400, "engine",
				"engine: io_uring cannot be set up on this "
				"machine (%s); use \"psync\"",
				strerror(-urc));
		return -EINVAL;
	}
	*out = strdup(name);
	return *out ? 0 : -ENOMEM;
}

/*
 * The tests: a custom job's own (`tests`), or the profile's, with the
 * job-wide data pattern and ramp applied; written out in full.
 */
/* Does an element of list before i hold b bytes? */
static int size_seen(json_t *list, size_t i, uint64_t b)
{
	for (size_t j = 0; j < i; j++) {
		uint64_t x;
		if (json_to_bytes(json_array_get(list, j), &x) == 0 && x == b)
			return 1;
	}
	return 0;
}

/*
 * seq-sweep's options: {"block_sizes": [...], "queue_depth": 8,
 * "threads": 1}, into the tests that run them (a block-size sweep read,
 * then written) and their explicit form for the run.
 */
static int seq_sweep_tests(json_t *opts, json_t **tests, json_t **norm,
			   struct api_problem *p)
{
	static const uint32_t def_bs[] = {4096, 8192, 16384, 32768, 65536,
					  131072, 262144, 524288, 1048576,
					  2097152, 4194304};
	json_t *bs = json_object_get(opts, "block_sizes"), *list, *v;
	json_t *qd = json_object_get(opts, "queue_depth");
	json_t *th = json_object_get(opts, "threads");
	const char *key;
	long long q = 8, t = 1;
	char name[32];
	size_t i;

	json_object_foreach(opts, key, v)
	if (strcmp(key, "block_sizes") && strcmp(key, "queue_depth") &&
	    strcmp(key, "threads")) {
		char field[64];
		snprintf(field, sizeof(field), "options.%s", key);
		api_problem_set(p, 400, field,
				"%s: unknown field \"%.40s\" for seq-sweep "
				"(known: block_sizes, queue_depth, threads)",
				field, key);
		return -EINVAL;
	}
	if (qd && (!json_is_integer(qd) || json_integer_value(qd) < 1 ||
		   json_integer_value(qd) > 1024))
		return bad(p, "options.queue_depth", "must be an integer from 1 to 1024");
	if (th && (!json_is_integer(th) || json_integer_value(th) < 1 ||
		   json_integer_value(th) > 256))
		return bad(p, "options.threads", "must be an integer from 1 to 256");
	q = qd ? json_integer_value(qd) : q;
	t = th ? json_integer_value(th) : t;
	list = json_array();
	if (!bs) {
		for (i = 0; i < sizeof(def_bs) / sizeof(def_bs[0]); i++)
			json_array_append_new(list, json_integer(def_bs[i]));
	} else if (!json_is_array(bs) || json_array_size(bs) < 1 ||
		   json_array_size(bs) > 32) {
		json_decref(list);
		return bad(p, "options.block_sizes",
			   "must be a list of 1 to 32 block sizes");
	} else {
		json_array_foreach(bs, i, v)
		{
			uint64_t b;
			if (json_to_bytes(v, &b) < 0 || b == 0 || b % 512 ||
			    b > (64U << 20) || size_seen(bs, i, b)) {
				char field[64];
				json_decref(list);
				snprintf(field, sizeof(field),
					 "options.block_sizes[%zu]", i);
				api_problem_set(p, 400, field,
						"%s: a block size is bytes or \"64KiB\", "
						"a multiple of 512, at most 64 MiB, each "
						"once",
						field);
				return -EINVAL;
			}
			json_array_append_new(list, json_integer((json_int_t)b));
		}
	}
	snprintf(name, sizeof(name), "SEQ Q%lldT%lld", q, t);
	*tests = json_pack("[{s:s, s:s, s:i, s:O, s:I, s:I},"
			   " {s:s, s:s, s:i, s:O, s:I, s:I}]",
			   "name", name, "pattern", "sequential", "read_pct", 100,
			   "block_size", list, "queue_depth", (json_int_t)q,
			   "threads", (json_int_t)t, "name", name, "pattern",
			   "sequential", "read_pct", 0, "block_size", list,
			   "queue_depth", (json_int_t)q, "threads", (json_int_t)t);
	*norm = json_pack("{s:o, s:I, s:I}", "block_sizes", list,
			  "queue_depth", (json_int_t)q, "threads", (json_int_t)t);
	return *tests && *norm ? 0 : -ENOMEM;
}

/* Refuses keys of opts not in known (a NULL-terminated list): a 400 whose
 * field is "field.key". */
static int known_options(json_t *opts, const char *field,
			 const char *profile, const char *const *known,
			 struct api_problem *p)
{
	const char *key;
	json_t *v;

	json_object_foreach(opts, key, v)
	{
		size_t k;
		char list[200] = "", at[64];
		for (k = 0; known[k] && strcmp(key, known[k]); k++)
			;
		if (known[k])
			continue;
		for (k = 0; known[k]; k++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list),
				 "%s%s", k ? ", " : "", known[k]);
		snprintf(at, sizeof(at), "%s.%s", field, key);
		api_problem_set(p, 400, at,
				"%s: unknown field \"%.40s\" for %s (known: %s)",
				at, key, profile, list);
		return -EINVAL;
	}
	return 0;
}

/* A size option: bytes or "1GiB", a multiple of 1 MiB, min … 64 TiB. */
static int opt_size(json_t *opts, const char *key, uint64_t def, uint64_t min,
		    uint64_t *out, struct api_problem *p)
{
	json_t *v = json_object_get(opts, key);
	char field[64];

	*out = def;
	if (!v)
		return 0;
	snprintf(field, sizeof(field), "options.%s", key);
	if (json_to_bytes(v, out) < 0 || *out < min || *out > MAX_SIZE ||
	    *out % SIZE_ALIGN) {
		api_problem_set(p, 400, field,
				"%s: a size in whole MiB (\"256MiB\", \"1GiB\"), "
				"at least %llu MiB",
				field, (unsigned long long)(min >> 20));
		return -EINVAL;
	}
	return 0;
}

/* An integer option in [min, max]. */
static int opt_int(json_t *opts, const char *key, long long def,
		   long long min, long long max, long long *out,
		   struct api_problem *p)
{
	json_t *v = json_object_get(opts, key);
	char field[64];

	*out = def;
	if (!v)
		return 0;
	snprintf(field, sizeof(field), "options.%s", key);
	if (!json_is_integer(v) || json_integer_value(v) < min ||
	    json_integer_value(v) > max) {
		api_problem_set(p, 400, field,
				"%s: must be an integer from %lld to %lld", field,
				min, max);
		return -EINVAL;
	}
	*out = json_integer_value(v);
	return 0;
}

/* A list of directories, each checked like target; default [target]. */
static int opt_dirs(json_t *opts, const char *key, const struct job_spec *s,
		    json_t **out, struct api_problem *p)
{
	json_t *v = json_object_get(opts, key), *d;
	char field[64];
	size_t i;

	*out = json_array();
	if (!v)
		return json_array_append_new(*out, json_string(s->target));
	snprintf(field, sizeof(field), "options.%s", key);
	if (!json_is_array(v) || json_array_size(v) < 1 ||
	    json_array_size(v) > 16) {
		api_problem_set(p, 400, field,
				"%s: must be a list of 1 to 16 directories", field);
		return -EINVAL;
	}
	json_array_foreach(v, i, d)
	{
		char *real = NULL;
		int rc = parse_target(d, s->target, s->smb_session, 0, NULL,
				      &real, p);
		if (rc < 0) {
			char detail[sizeof(p->detail)];
			snprintf(detail, sizeof(detail), "%s", p->detail);
			snprintf(field, sizeof(field), "options.%s[%zu]", key, i);
			api_problem_set(p, p->status, field, "%s: %s", field,
					strncmp(detail, "target: ", 8) == 0
						? detail + 8
						: detail);
			return rc;
		}
		json_array_append_new(*out, json_string(real));
		free(real);
	}
	return 0;
}

/* A latency threshold in ms: a number > 0, or null (not checked). */
static int opt_ms(json_t *th, const char *key, double def, json_t *out,
		  struct api_problem *p)
{
	json_t *v = json_object_get(th, key);
	char field[80];

	if (!v) {
		json_object_set_new(out, key, def > 0 ? json_real(def) : json_null());
		return 0;
	}
	snprintf(field, sizeof(field), "options.thresholds.%s", key);
	if (!json_is_null(v) && (!json_is_number(v) || !(json_number_value(v) > 0) ||
				 json_number_value(v) > 3.6e6)) {
		api_problem_set(p, 400, field,
				"%s: milliseconds, a number > 0 (0.001 is 1 µs), "
				"or null to not check it",
				field);
		return -EINVAL;
	}
	json_object_set(out, key, v);
	return 0;
}

/* Is list[i] equal to an earlier element? */
static int in_list(json_t *list, size_t i, json_t *v)
{
	for (size_t j = 0; j < i; j++)
		if (json_equal(json_array_get(list, j), v))
			return 1;
	return 0;
}

/*
 * Do a mailbox-db job's files fit? Database d goes on dbp[d mod n], its
 * log on logp[d mod m]; the bytes are summed per filesystem (st_dev) and
 * must leave the reserve free there.
 */
static int mailbox_room(const struct job_spec *s, json_t *dbp, json_t *logp,
			unsigned dbs, uint64_t dbsize, uint64_t logsize,
			struct api_problem *p)
{
	struct {
		char key[600]; /* st_dev, or the SMB share */
		const char *path;
		uint64_t need, db;
	} fs[32];
	size_t nfs = 0;

	for (unsigned k = 0; k < 2 * dbs; k++) {
		json_t *list = k < dbs ? dbp : logp;
		unsigned d = k % dbs;
		const char *path = json_string_value(
			json_array_get(list, d % json_array_size(list)));
		struct stat st;
		struct smb_url u;
		char key[600], err[160];
		size_t f;
		if (smb_is_url(path) && smb_url_parse(path, &u, err, sizeof(err)) == 0)
			snprintf(key, sizeof(key), "%s:%d/%s", u.server, u.port,
				 u.share);
		else if (stat(path, &st) == 0)
			snprintf(key, sizeof(key), "dev %llu",
				 (unsigned long long)st.st_dev);
		else
			continue;
		for (f = 0; f < nfs && strcmp(fs[f].key, key) != 0; f++)
			;
		if (f == nfs) {
			if (nfs == 32)
				continue;
			snprintf(fs[nfs].key, sizeof(fs[nfs].key), "%s", key);
			fs[nfs].path = path;
			fs[nfs].need = fs[nfs].db = 0;
			nfs++;
		}
		fs[f].need += k < dbs ? dbsize : logsize;
		fs[f].db += k < dbs ? dbsize : 0;
	}
	for (size_t f = 0; f < nfs; f++) {
		char need[32], why[300];
		/* name the larger of the two on this filesystem */
		const char *field = 2 * fs[f].db >= fs[f].need
					    ? "options.database_size"
					    : "options.log_size";
		if (fits(s, fs[f].path, fs[f].need, why, sizeof(why)))
			continue;
		units_format_size(fs[f].need, need, sizeof(need));
		api_problem_set(p, 400, field,
				"%s: the database and log files need %s; %s",
				field, need, why);
		return -EINVAL;
	}
	return 0;
}

/*
 * mailbox-db's options, validated and written out in full (docs/api.md):
 * database and log paths, databases, sizes, the thread sweep, the I/O
 * shapes and the PASS/FAIL thresholds.
 */
static int mailbox_options(json_t *opts, struct job_spec *s, json_t **norm,
			   struct api_problem *p)
{
	static const char *const known[] = {
		"database_paths", "log_paths", "databases", "database_size",
		"log_size", "threads", "db_block_size", "db_read_pct",
		"log_block_size", "thresholds", NULL};
	static const char *const th_known[] = {
		"db_read_mean_ms", "db_read_p99_ms", "db_write_mean_ms",
		"log_write_mean_ms", "log_write_p99_ms", NULL};
	json_t *dbp = NULL, *logp = NULL, *threads, *th, *ths, *v;
	long long dbs, rp;
	uint64_t dbsize, logsize, dbbs = 32768, logbs = 8192;
	size_t i;
	int rc;

	*norm = NULL;
	if ((rc = known_options(opts, "options", "mailbox-db", known, p)) < 0)
		return rc;
	if ((rc = opt_dirs(opts, "database_paths", s, &dbp, p)) < 0 ||
	    (rc = opt_dirs(opts, "log_paths", s, &logp, p)) < 0)
		goto out;
	if ((rc = opt_int(opts, "databases", (long long)json_array_size(dbp), 1,
			  16, &dbs, p)) < 0 ||
	    (rc = opt_size(opts, "database_size", s->size, 8ULL << 20, &dbsize,
			   p)) < 0 ||
	    (rc = opt_size(opts, "log_size", 64ULL << 20, 8ULL << 20, &logsize,
			   p)) < 0 ||
	    (rc = opt_int(opts, "db_read_pct", 60, 0, 100, &rp, p)) < 0)
		goto out;
	for (i = 0; i < 2; i++) {
		const char *key = i ? "log_block_size" : "db_block_size";
		uint64_t *bs = i ? &logbs : &dbbs;
		if ((v = json_object_get(opts, key)) &&
		    (json_to_bytes(v, bs) < 0 || *bs == 0 || *bs % 512 ||
		     *bs > (1U << 20))) {
			char field[64];
			snprintf(field, sizeof(field), "options.%s", key);
			api_problem_set(p, 400, field,
					"%s: bytes or \"32KiB\", a multiple of 512, "
					"at most 1 MiB",
					field);
			rc = -EINVAL;
			goto out;
		}
	}
	v = json_object_get(opts, "threads");
	threads = v ? json_incref(v) : json_pack("[i, i, i]", 4, 8, 12);
	if (!json_is_array(threads) || json_array_size(threads) < 1 ||
	    json_array_size(threads) > 16) {
		json_decref(threads);
		rc = bad(p, "options.threads", "must be a list of 1 to 16 thread counts");
		goto out;
	}
	json_array_foreach(threads, i, v)
	if (!json_is_integer(v) || json_integer_value(v) < dbs ||
	    json_integer_value(v) > 256 || in_list(threads, i, v)) {
		char field[64];
		snprintf(field, sizeof(field), "options.threads[%zu]", i);
		api_problem_set(p, 400, field,
				"%s: an integer from %lld (one thread per "
				"database at least) to 256, each thread count "
				"once",
				field, dbs);
		json_decref(threads);
		rc = -EINVAL;
		goto out;
	}
	th = json_object_get(opts, "thresholds");
	if (th && !json_is_object(th)) {
		json_decref(threads);
		rc = bad(p, "options.thresholds", "must be an object of milliseconds");
		goto out;
	}
	ths = json_object();
	if ((th && (rc = known_options(th, "options.thresholds",
				       "mailbox-db thresholds", th_known, p)) < 0) ||
	    (rc = opt_ms(th, "db_read_mean_ms", 20, ths, p)) < 0 ||
	    (rc = opt_ms(th, "db_read_p99_ms", 0, ths, p)) < 0 ||
	    (rc = opt_ms(th, "db_write_mean_ms", 0, ths, p)) < 0 ||
	    (rc = opt_ms(th, "log_write_mean_ms", 10, ths, p)) < 0 ||
	    (rc = opt_ms(th, "log_write_p99_ms", 0, ths, p)) < 0) {
		json_decref(threads);
		json_decref(ths);
		goto out;
	}
	if ((rc = mailbox_room(s, dbp, logp, (unsigned)dbs, dbsize, logsize, p)) < 0) {
		json_decref(threads);
		json_decref(ths);
		goto out;
	}
	if ((rp == 0 && (!json_is_null(json_object_get(ths, "db_read_mean_ms")) &&
			 json_object_get(th, "db_read_mean_ms"))) ||
	    (rp == 0 && json_is_number(json_object_get(ths, "db_read_p99_ms"))) ||
	    (rp == 100 && json_is_number(json_object_get(ths, "db_write_mean_ms")))) {
		json_decref(threads);
		json_decref(ths);
		rc = bad(p, "options.thresholds",
			 "a threshold on database reads or writes the workload "
			 "never makes (db_read_pct is 0 or 100)");
		goto out;
	}
	if (rp == 0) /* the default read threshold has nothing to judge */
		json_object_set_new(ths, "db_read_mean_ms", json_null());
	*norm = json_pack("{s:O, s:O, s:I, s:I, s:I, s:o, s:I, s:I, s:I, s:o}",
			  "database_paths", dbp, "log_paths", logp, "databases",
			  (json_int_t)dbs, "database_size", (json_int_t)dbsize,
			  "log_size", (json_int_t)logsize, "threads", threads,
			  "db_block_size", (json_int_t)dbbs, "db_read_pct",
			  (json_int_t)rp, "log_block_size", (json_int_t)logbs,
			  "thresholds", ths);
	rc = *norm ? 0 : -ENOMEM;
	/* the run's probe describes the (first) database volume */
	if (rc == 0) {
		char *t = strdup(json_string_value(json_array_get(dbp, 0)));
		if (t) {
			free(s->target);
			s->target = t;
		}
	}
out:
	json_decref(dbp);
	json_decref(logp);
	return rc;
}

/* file-create's options: {"sizes": [...]} (default 1, 4, 16 GiB, those
 * that fit twice — the file and its copy — in free space minus a reserve). */
static int file_create_options(json_t *opts, struct job_spec *s,
			       json_t **norm, struct api_problem *p)
{
	static const char *const known[] = {"sizes", NULL};
	json_t *v = json_object_get(opts, "sizes"), *list = json_array(), *e;
	char why[300];
	size_t i;
	int rc, given = v != NULL || s->size_given;
	int from_size = v == NULL && s->size_given;

	*norm = NULL;
	if ((rc = known_options(opts, "options", "file-create", known, p)) < 0) {
		json_decref(list);
		return rc;
	}
	if (!v && s->size_given)
		v = json_pack("[I]", (json_int_t)s->size);
	else if (!v)
		v = json_pack("[I, I, I]", (json_int_t)1 << 30,
			      (json_int_t)4 << 30, (json_int_t)16 << 30);
	else
		json_incref(v);
	if (!json_is_array(v) || json_array_size(v) < 1 ||
	    json_array_size(v) > 16) {
		json_decref(v);
		json_decref(list);
		return bad(p, "options.sizes", "must be a list of 1 to 16 sizes");
	}
	json_array_foreach(v, i, e)
	{
		uint64_t b;
		if (json_to_bytes(e, &b) < 0 || b < SIZE_ALIGN || b % SIZE_ALIGN ||
		    b > MAX_SIZE || size_seen(v, i, b)) {
			char field[64];
			snprintf(field, sizeof(field), "options.sizes[%zu]", i);
			api_problem_set(p, 400, field,
					"%s: a size in whole MiB (\"1GiB\"), each "
					"size once", field);
			json_decref(v);
			json_decref(list);
			return -EINVAL;
		}
		if (!fits(s, s->target, 2 * b, why, sizeof(why))) {
			char field[64];
			if (!given)
				continue; /* a default that does not fit: dropped */
			if (from_size)
				snprintf(field, sizeof(field), "size");
			else
				snprintf(field, sizeof(field), "options.sizes[%zu]", i);
			api_problem_set(p, 400, field,
					"%s: does not fit: the file and its copy "
					"need twice its size; %s",
					field, why);
			json_decref(v);
			json_decref(list);
			return -EINVAL;
		}
		json_array_append_new(list, json_integer((json_int_t)b));
	}
	json_decref(v);
	if (json_array_size(list) == 0) {
		json_decref(list);
		return bad(p, "options.sizes",
			   "none of the default sizes (1, 4, 16 GiB) fits twice "
			   "(the file and its copy) in the target's free space "
			   "minus the reserve; give options.sizes or size");
	}
	*norm = json_pack("{s:o}", "sizes", list);
	return *norm ? 0 : -ENOMEM;
}

static int parse_plan(json_t *root, const struct profile *prof,
		      struct job_spec *s, struct api_problem *p)
{
	static const char *const datas[] = {"random", "zeros", "repeat"};
	struct workload def = {.file_size = s->size,
			       .duration_s = s->duration_s};
	json_t *tests = json_object_get(root, "tests");
	json_t *v = json_object_get(root, "data");
	json_t *opts = json_object_get(root, "options");
	json_t *made = NULL, *norm = NULL;
	int custom = prof->kind == PROFILE_CUSTOM;
	unsigned limit = strcmp(s->engine, "psync") == 0 ? PSYNC_MAX_WORKERS
			 : strcmp(s->engine, "smb") == 0 ? SMB_MAX_WORKERS
							  : 0;
	struct plan plan;
	struct plan_error pe;
	json_t *pj;
	int rc;

	if (v) {
		int k;
		for (k = 0; k < 3 && !(json_is_string(v) &&
				       strcmp(json_string_value(v), datas[k]) == 0);
		     k++)
			;
		if (k == 3)
			return bad(p, "data", "must be \"random\" (incompressible, "
					      "never repeated), \"zeros\" or "
					      "\"repeat\" (one 4 KiB block)");
		def.data = (enum wl_data)k;
	}
	if ((rc = parse_number(json_object_get(root, "ramp_s"), "ramp_s", 0, 0,
			       3600, &def.ramp_s, p)) < 0)
		return rc;
	if (custom && !tests)
		return bad(p, "tests", "the custom profile needs a tests array "
				       "(e.g. [{\"pattern\": \"random\", "
				       "\"block_size\": \"4KiB\", \"queue_depth\": 32}])");
	if (!custom && tests)
		return bad(p, "tests", "only the custom profile takes tests; set "
				       "\"profile\": \"custom\"");
	if (opts && !json_is_object(opts))
		return bad(p, "options", "must be an object");
	if (opts && prof->kind != PROFILE_SEQ_SWEEP &&
	    prof->kind != PROFILE_MAILBOX && prof->kind != PROFILE_FILE_CREATE) {
		api_problem_set(p, 400, "options",
				"options: the %s profile takes none (seq-sweep, "
				"mailbox-db and file-create do)",
				prof->name);
		return -EINVAL;
	}
	if (prof->kind == PROFILE_MAILBOX || prof->kind == PROFILE_FILE_CREATE) {
		json_t *empty = json_object();
		rc = prof->kind == PROFILE_MAILBOX
			     ? mailbox_options(opts ? opts : empty, s, &norm, p)
			     : file_create_options(opts ? opts : empty, s, &norm, p);
		json_decref(empty);
		if (rc < 0)
			return rc;
		s->options_json = json_dumps(norm, JSON_COMPACT);
		s->plan_json = strdup("[]");
		json_decref(norm);
		return s->options_json && s->plan_json ? 0 : -ENOMEM;
	}
	if (prof->kind == PROFILE_SEQ_SWEEP) {
		json_t *empty = json_object();
		rc = seq_sweep_tests(opts ? opts : empty, &made, &norm, p);
		json_decref(empty);
		if (rc < 0)
			return rc;
		tests = made;
	}
	rc = tests ? plan_parse(tests, &def, &plan, &pe)
		   : plan_from_profile(prof, &def, &plan);
	json_decref(made);
	if (rc == -EINVAL && prof->kind == PROFILE_SEQ_SWEEP) {
		/* the sweep's tests are ours: name the option instead */
		const char *dot = strchr(pe.detail, ':');
		json_decref(norm);
		api_problem_set(p, 400, "options.block_sizes",
				"options.block_sizes%s", dot ? dot : "");
		return rc;
	}
	if (rc == -EINVAL) {
		json_decref(norm);
		api_problem_set(p, 400, pe.field, "%s", pe.detail);
		return rc;
	}
	if (rc < 0) {
		json_decref(norm);
		return rc;
	}
	if (norm) {
		s->options_json = json_dumps(norm, JSON_COMPACT);
		json_decref(norm);
		if (!s->options_json) {
			plan_free(&plan);
			return -ENOMEM;
		}
	}
	if (rc < 0)
		return rc;
	/* psync runs a worker thread per queue slot, smb a process */
	for (size_t i = 0; limit && i < plan.n; i++)
		if ((uint64_t)plan.w[i].queue_depth * plan.w[i].threads > limit) {
			char field[64];
			if (prof->kind == PROFILE_SEQ_SWEEP)
				snprintf(field, sizeof(field), "options.queue_depth");
			else if (!custom)
				snprintf(field, sizeof(field), "profile");
			else
				snprintf(field, sizeof(field), "tests[%u].%s",
					 plan.w[i].origin,
					 strcmp(plan.w[i].sweep_field, "threads") == 0
						 ? "threads"
						 : "queue_depth");
			api_problem_set(p, 400, field,
					"%s: test %s: engine %s runs one %s per "
					"queue slot; queue_depth × threads is %u, at "
					"most %u",
					field, plan.w[i].name, s->engine,
					limit == SMB_MAX_WORKERS
						? "process and SMB connection"
						: "thread",
					plan.w[i].queue_depth * plan.w[i].threads,
					limit);
			plan_free(&plan);
			return -EINVAL;
		}
	pj = plan_json(&plan);
	s->plan_json = pj ? json_dumps(pj, JSON_COMPACT) : NULL;
	json_decref(pj);
	plan_free(&plan);
	return s->plan_json ? 0 : -ENOMEM;
}

int jobspec_parse(const char *body, size_t len, const char *scratch,
		  struct job_spec *s, struct api_problem *p)
{
	json_t *root = NULL, *v;
	json_error_t jerr;
	const struct profile *prof;
	const char *key, *name = "cdm-default";
	long long n;
	uint64_t device_bytes = 0;
	char why[300];
	int rc = -EINVAL;

	memset(s, 0, sizeof(*s));
	if (!body || len == 0) {
		api_problem_set(p, 400, NULL,
				"the body is empty: send a JSON object ({} takes "
				"every default)");
		goto out;
	}
	root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		api_problem_set(p, 400, NULL,
				"malformed JSON at line %d column %d: %s",
				jerr.line, jerr.column, jerr.text);
		goto out;
	}
	if (!json_is_object(root)) {
		api_problem_set(p, 400, NULL, "the body must be a JSON object");
		goto out;
	}
	json_object_foreach(root, key, v)
	{
		size_t i, nf = sizeof(fields) / sizeof(fields[0]);
		for (i = 0; i < nf && strcmp(key, fields[i]) != 0; i++)
			;
		if (i == nf) {
			api_problem_set(p, 400, key,
					"unknown field \"%.64s\" (known: target, "
					"profile, size, iterations, duration_s, "
					"interval_s, labels, notes, tests, engine, "
					"direct, data, ramp_s, options, "
					"credential, smb)",
					key);
			goto out;
		}
	}
	if ((v = json_object_get(root, "profile")) != NULL) {
		if (!json_is_string(v)) {
			rc = bad(p, "profile", "must be a string");
			goto out;
		}
		name = json_string_value(v);
	}
	if (!(prof = profile_find(name))) {
		api_problem_set(p, 400, "profile",
				"profile: unknown profile \"%.64s\" (see GET "
				"/api/v1/profiles)",
				name);
		goto out;
	}
	if (!(s->profile = strdup(prof->name))) {
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = parse_smb(root, s, p)) < 0 ||
	    (rc = parse_target(json_object_get(root, "target"), scratch,
			       s->smb_session,
			       prof->kind != PROFILE_MAILBOX &&
				       prof->kind != PROFILE_FILE_CREATE,
			       &device_bytes, &s->target, p)) < 0)
		goto out;
	if ((rc = parse_size(json_object_get(root, "size"), prof->size,
			     &s->size, p)) < 0)
		goto out;
	s->size_given = json_object_get(root, "size") != NULL;
	s->iterations = prof->iterations;
	if ((v = json_object_get(root, "iterations")) != NULL) {
		n = json_is_integer(v) ? json_integer_value(v) : 0;
		if (!json_is_integer(v) || n < 1 || n > 100) {
			rc = bad(p, "iterations", "must be an integer from 1 to 100");
			goto out;
		}
		s->iterations = (int)n;
	}
	if ((rc = parse_number(json_object_get(root, "duration_s"), "duration_s",
			       prof->duration_s, MIN_DURATION, 3600,
			       &s->duration_s, p)) < 0 ||
	    (rc = parse_number(json_object_get(root, "interval_s"), "interval_s",
			       prof->interval_s, 0, 3600, &s->interval_s,
			       p)) < 0)
		goto out;
	if ((rc = jobspec_labels(json_object_get(root, "labels"),
			       &s->labels_json, p)) < 0)
		goto out;
	v = json_object_get(root, "notes");
	if (v && (rc = jobspec_notes(v, p)) < 0)
		goto out;
	if (!(s->notes = strdup(v ? json_string_value(v) : ""))) {
		rc = -ENOMEM;
		goto out;
	}
	s->direct = 1;
	if ((v = json_object_get(root, "direct")) != NULL) {
		if (!json_is_boolean(v)) {
			rc = bad(p, "direct", "must be true (O_DIRECT, the default) "
					      "or false (buffered I/O)");
			goto out;
		}
		s->direct = json_is_true(v);
		if (!s->direct && s->smb_session) {
			rc = bad(p, "direct", "an SMB target has no client cache "
					      "to bypass (libsmbclient keeps none): "
					      "leave direct out");
			goto out;
		}
	}
	if ((rc = parse_engine(json_object_get(root, "engine"), s, &s->engine,
			       p)) < 0 ||
	    (rc = parse_plan(root, prof, s, p)) < 0)
		goto out;
	/* a raw device: the test region is its first size bytes */
	if (device_bytes && s->size > device_bytes) {
		char need[32], have[32];
		units_format_size(s->size, need, sizeof(need));
		units_format_size(device_bytes, have, sizeof(have));
		api_problem_set(p, 400, "size",
				"size: %s is larger than the device %s (%s)",
				need, s->target, have);
		rc = -EINVAL;
		goto out;
	}
	/* mailbox-db checks its own files' room; file-create its sizes */
	if (!device_bytes && prof->kind != PROFILE_MAILBOX &&
	    prof->kind != PROFILE_FILE_CREATE &&
	    !fits(s, s->target, s->size, why, sizeof(why))) {
		char need[32];
		units_format_size(s->size, need, sizeof(need));
		api_problem_set(p, 400, "size", "size: %s does not fit: %s",
				need, why);
		rc = -EINVAL;
		goto out;
	}
	rc = 0;
out:
	json_decref(root);
	if (rc < 0) {
		if (rc != -EINVAL)
			api_problem_set(p, api_status_from_errno(rc), NULL,
					"%s", strerror(-rc));
		job_spec_clear(s);
	}
	return rc;
}
