/*
 * jobsession — see jobsession.h. A credential is read from the store into
 * a struct smb_session on the stack or the heap and wiped (os_wipe) as
 * soon as its last use is over.
 */
#include "jobsession.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive.h"
#include "os/os.h"
#include "platform/confine.h"
#include "platform/creds.h"
#include "platform/sys.h"
#include "platform/unc.h"
#include "targets/smb.h"
#include "targets/target.h"
#include "wire/wire.h"

static const char *const dialects[] = { "SMB2_02", "SMB2_10", "SMB3_00",
					"SMB3_02", "SMB3_11", NULL };

const struct field jobsession_smb_fields[JOBSESSION_N_SMB_FIELDS] = {
	{ .name = "min_protocol",
	  .type = FIELD_ENUM,
	  .choices = dialects,
	  .def_text = "the library's (SMB2_02)",
	  .help = "the oldest SMB dialect to negotiate" },
	{ .name = "max_protocol",
	  .type = FIELD_ENUM,
	  .choices = dialects,
	  .def_text = "the library's (SMB3_11)",
	  .help = "the newest SMB dialect to negotiate; not below "
		  "min_protocol" },
	{ .name = "require_signing",
	  .type = FIELD_BOOL,
	  .def = "false",
	  .help = "refuse a session without signing" },
	{ .name = "require_encryption",
	  .type = FIELD_BOOL,
	  .def = "false",
	  .help = "SMB 3 encryption required, else the job fails" },
};
const size_t jobsession_n_smb_fields = FIELDS_N(jobsession_smb_fields);
_Static_assert(FIELDS_N(jobsession_smb_fields) == JOBSESSION_N_SMB_FIELDS,
	       "JOBSESSION_N_SMB_FIELDS counts jobsession_smb_fields");

void jobsession_free(void *session)
{
	if (!session)
		return;
	os_wipe(session, sizeof(struct smb_session));
	free(session);
}

const char *jobsession_user(const void *session)
{
	return session ? ((const struct smb_session *)session)->user : "";
}

/* The knobs of normalized smb object o into ss. */
static void knobs(json_t *o, struct smb_session *ss)
{
	const char *v;

	if ((v = json_string_value(json_object_get(o, "min_protocol"))))
		snprintf(ss->min_protocol, sizeof(ss->min_protocol), "%s", v);
	if ((v = json_string_value(json_object_get(o, "max_protocol"))))
		snprintf(ss->max_protocol, sizeof(ss->max_protocol), "%s", v);
	ss->require_signing =
		json_is_true(json_object_get(o, "require_signing"));
	ss->require_encryption =
		json_is_true(json_object_get(o, "require_encryption"));
}

/* Does this system reach shares through paths (Windows' own client)?
 * For its sentences. */
static int path_shares(void)
{
	return sys_path_share("//server/share");
}

/* Is v a path on a share through the system's own client? */
static int is_share(json_t *v)
{
	return json_is_string(v) && sys_path_share(json_string_value(v));
}

/* Does the request name a share: its target, a compare_with path? */
static int names_share(json_t *root)
{
	json_t *list = json_object_get(root, "compare_with"), *v;
	size_t i;

	if (is_share(json_object_get(root, "target")))
		return 1;
	json_array_foreach(list, i, v)
	{
		if (is_share(v))
			return 1;
	}
	return 0;
}

/* A request on shares through the system's own client: "credential"
 * optional (without it the daemon's account reaches them), "smb" refused;
 * *smb_json {"credential"} when one is named. */
static int share_request(json_t *root, json_t *c, json_t *o, char **smb_json,
			 struct field_error *e)
{
	struct smb_session ss;
	const char *name;
	json_t *v;
	int rc;

	if (o)
		return field_fail(e, "smb",
				  "only for an smb:// target: Windows' own SMB "
				  "client negotiates the dialect, signing and "
				  "encryption of a share itself");
	if ((rc = wire_from_request(root, NULL, &v, e)) < 0)
		return rc;
	if (!c)
		return 0;
	if (!json_is_string(c) || !creds_name_ok(json_string_value(c)))
		return field_fail(e, "credential",
				  "must be the name of a stored credential");
	name = json_string_value(c);
	rc = creds_get(name, &ss);
	os_wipe(&ss, sizeof(ss));
	if (rc < 0)
		return field_fail(e, "credential",
				  "no credential named \"%s\" (store one with "
				  "POST /api/v1/credentials)",
				  name);
	v = json_pack("{s:s}", "credential", name);
	*smb_json = v ? json_dumps(v, JSON_COMPACT) : NULL;
	json_decref(v);
	return *smb_json ? 0 : -ENOMEM;
}

/* The request's "baseline" for smb:// target url, normalized into *b
 * (NULL: none); wire_from_request's errors. */
static int baseline_of(json_t *root, const char *url, json_t **b,
		       struct field_error *e)
{
	struct smb_url u;
	char why[256];

	*b = NULL;
	if (!json_object_get(root, "baseline") ||
	    json_is_null(json_object_get(root, "baseline")))
		return 0;
	if (smb_url_parse(url, &u, why, sizeof(why)) < 0)
		return field_fail(e, "target", "%s", why);
	return wire_from_request(root, u.server, b, e);
}

int jobsession_from_request(json_t *root, void **session, char **smb_json,
			    struct field_error *e)
{
	json_t *t = json_object_get(root, "target");
	json_t *c = json_object_get(root, "credential");
	json_t *o = json_object_get(root, "smb"), *n = NULL, *v, *b = NULL;
	struct smb_session *ss;
	const char *name;
	int lo, hi, rc;

	*session = NULL;
	*smb_json = NULL;
	if (t && !json_is_string(t))
		return 0; /* the target's check says what is wrong with it */
	if (t && smb_is_url(json_string_value(t)) &&
	    !tgt_for_target(json_string_value(t)))
		return 0; /* no smb back-end here: the target's check says so */
	if (names_share(root))
		return share_request(root, c, o, smb_json, e);
	if (!json_is_string(t) || !tgt_for_target(json_string_value(t))) {
		if (c)
			return field_fail(
				e, "credential",
				path_shares() ? "only for a target on a share "
						"(\\\\server\\share\\dir)"
					      : "only for an smb:// target");
		if (o)
			return field_fail(e, "smb",
					  "only for an smb:// target");
		return wire_from_request(root, NULL, &v, e);
	}
	if (!c)
		return field_fail(e, "credential",
				  "required for an smb:// target: the name of "
				  "a stored credential (POST "
				  "/api/v1/credentials)");
	if (!json_is_string(c) || !creds_name_ok(json_string_value(c)))
		return field_fail(e, "credential",
				  "must be the name of a stored credential");
	name = json_string_value(c);
	if (!(ss = calloc(1, sizeof(*ss))))
		return -ENOMEM;
	*session = ss;
	if (creds_get(name, ss) < 0)
		return field_fail(e, "credential",
				  "no credential named \"%s\" (store one with "
				  "POST /api/v1/credentials)",
				  name);
	if ((rc = fields_check_object(jobsession_smb_fields,
				      jobsession_n_smb_fields, o, "smb", NULL,
				      &n, e)) < 0)
		return rc;
	knobs(n, ss);
	lo = ss->min_protocol[0] ? smb_dialect_index(ss->min_protocol) : -1;
	hi = ss->max_protocol[0] ? smb_dialect_index(ss->max_protocol) : -1;
	if (lo >= 0 && hi >= 0 && lo > hi)
		rc = field_fail(e, "smb.min_protocol",
				"is above smb.max_protocol");
	else if (ss->require_encryption && hi >= 0 && hi < 2)
		rc = field_fail(e, "smb.require_encryption",
				"needs SMB 3 (max_protocol SMB3_00 or above)");
	json_decref(n);
	if (rc < 0 || (rc = baseline_of(root, json_string_value(t), &b, e)) < 0)
		return rc;
	v = json_pack(
		"{s:s, s:s?, s:s?, s:b, s:b, s:o*}", "credential", name,
		"min_protocol", ss->min_protocol[0] ? ss->min_protocol : NULL,
		"max_protocol", ss->max_protocol[0] ? ss->max_protocol : NULL,
		"require_signing", ss->require_signing, "require_encryption",
		ss->require_encryption, "baseline", b);
	*smb_json = v ? json_dumps(v, JSON_COMPACT) : NULL;
	json_decref(v);
	return *smb_json ? 0 : -ENOMEM;
}

/* A queued job's stored credential name into ss; a sentence in error when
 * it is gone or the store failed. 0 or a negative errno. */
static int job_credential(const char *name, struct smb_session *ss, char *error,
			  size_t len)
{
	int rc = creds_get(name, ss);

	if (rc < 0)
		snprintf(error, len,
			 rc == -ENOENT
				 ? "credential \"%s\" was deleted after the "
				   "job was queued"
				 : "credential \"%s\": the store failed",
			 name);
	return rc;
}

int jobsession_from_job(const struct job_spec *s, void **session, char *error,
			size_t len)
{
	json_t *o;
	const char *name;
	struct smb_session *ss;
	int rc = 0;

	*session = NULL;
	if (!tgt_for_target(s->target))
		return 0;
	o = s->smb_json ? json_loads(s->smb_json, 0, NULL) : NULL;
	name = json_string_value(json_object_get(o, "credential"));
	if (!(ss = calloc(1, sizeof(*ss)))) {
		json_decref(o);
		return -ENOMEM;
	}
	if (!name) {
		snprintf(error, len, "the job has no SMB credential");
		rc = -EINVAL;
	} else if ((rc = job_credential(name, ss, error, len)) == 0) {
		knobs(o, ss);
	}
	json_decref(o);
	if (rc < 0) {
		jobsession_free(ss);
		return rc;
	}
	*session = ss;
	return 0;
}

/* --- shares connected under a job's credential --- */

struct jobsession_conn {
	size_t n;
	intptr_t h[JOB_MAX_SIDES];
	char share[JOB_MAX_SIDES][600]; /* "//server/share", lowercase */
};

void jobsession_disconnect(struct jobsession_conn *conn)
{
	if (!conn)
		return;
	for (size_t i = 0; i < conn->n; i++)
		sys_share_release(conn->h[i]);
	free(conn);
}

/*
 * Connects the share path is on, under credential name (ss), into conn —
 * unless path is not on a share, not under an allowed one (its check
 * refuses it, and no credential goes to that server) or its share is in
 * conn already. 0, or a negative errno with why and *logon (1: the logon
 * was refused, 0: the share could not be reached).
 */
static int connect_one(struct jobsession_conn *conn, const char *path,
		       const char *name, const struct smb_session *ss,
		       char *why, size_t len, int *logon)
{
	struct unc_path u;
	char share[600], key[600], words[400], not_ours[400];
	intptr_t h;
	int rc;

	*logon = 0;
	if (!sys_path_share(path) ||
	    confine_share(path, not_ours, sizeof(not_ours)) < 0 ||
	    unc_parse(path, &u, not_ours, sizeof(not_ours)) < 0 ||
	    unc_format(&u, '/', 1, share, sizeof(share)) < 0)
		return 0;
	snprintf(key, sizeof(key), "%s", share);
	for (char *c = key; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	for (size_t i = 0; i < conn->n; i++)
		if (strcmp(conn->share[i], key) == 0)
			return 0;
	if (conn->n == JOB_MAX_SIDES)
		return 0; /* (a job names at most that many paths) */
	rc = sys_share_connect(share, ss->user, ss->domain, ss->password, &h,
			       words, sizeof(words));
	(void)unc_format(&u, '\\', 1, share, sizeof(share));
	if (rc == -EACCES) {
		*logon = 1;
		snprintf(why, len,
			 "%s refused the logon of user \"%s%s%s\" (credential "
			 "\"%s\"): %s",
			 share, ss->domain, ss->domain[0] ? "\\" : "", ss->user,
			 name, words);
		return rc;
	}
	if (rc < 0) {
		snprintf(why, len,
			 "%s: cannot connect with credential \"%s\": %s", share,
			 name, words);
		return rc;
	}
	conn->h[conn->n] = h;
	snprintf(conn->share[conn->n++], sizeof(conn->share[0]), "%s", key);
	return 0;
}

int jobsession_connect_request(json_t *root, struct jobsession_conn **conn,
			       struct field_error *e)
{
	json_t *c = json_object_get(root, "credential");
	json_t *list = json_object_get(root, "compare_with"), *v;
	struct smb_session *ss = NULL;
	char why[sizeof(e->detail) - 32], field[48];
	size_t i;
	int rc = 0, logon;

	*conn = NULL;
	/* jobsession_from_request has said what is wrong with a bad one */
	if (!json_is_string(c) || !names_share(root))
		return 0;
	if (!(ss = calloc(1, sizeof(*ss))) ||
	    !(*conn = calloc(1, sizeof(**conn)))) {
		free(ss);
		return -ENOMEM;
	}
	if (creds_get(json_string_value(c), ss) < 0)
		goto out;
	v = json_object_get(root, "target");
	if (is_share(v) &&
	    (rc = connect_one(*conn, json_string_value(v), json_string_value(c),
			      ss, why, sizeof(why), &logon)) < 0) {
		rc = field_fail(e, logon ? "credential" : "target", "%s", why);
		goto out;
	}
	json_array_foreach(list, i, v)
	{
		if (!is_share(v))
			continue;
		snprintf(field, sizeof(field), "compare_with[%zu]", i);
		if ((rc = connect_one(*conn, json_string_value(v),
				      json_string_value(c), ss, why,
				      sizeof(why), &logon)) < 0) {
			rc = field_fail(e, logon ? "credential" : field, "%s",
					why);
			break;
		}
	}
out:
	os_wipe(ss, sizeof(*ss));
	free(ss);
	return rc;
}

int jobsession_connect_job(const struct job_spec *s,
			   struct jobsession_conn **conn, char *error,
			   size_t len)
{
	json_t *o;
	const char *name;
	struct smb_session *ss;
	int rc = 0, logon;

	*conn = NULL;
	if (!sys_path_share(s->target) || !s->smb_json)
		return 0;
	o = json_loads(s->smb_json, 0, NULL);
	name = json_string_value(json_object_get(o, "credential"));
	if (!name) {
		json_decref(o);
		return 0; /* the daemon's account */
	}
	if (!(ss = calloc(1, sizeof(*ss))) ||
	    !(*conn = calloc(1, sizeof(**conn)))) {
		rc = -ENOMEM;
	} else if ((rc = job_credential(name, ss, error, len)) == 0) {
		rc = connect_one(*conn, s->target, name, ss, error, len,
				 &logon);
	}
	if (ss)
		os_wipe(ss, sizeof(*ss));
	free(ss);
	json_decref(o);
	return rc;
}
