/*
 * problem — errors as application/problem+json (RFC 9457) and JSON replies.
 * api_status_from_errno() is the one place an errno becomes a status.
 * api_send_problem() is the one place a problem becomes JSON; it makes the
 * text valid UTF-8 first, so an echoed path can never turn a 404 into a 500.
 * The query accessors read libmicrohttpd's parsed arguments, or req->args
 * when a request comes without a connection (the API fuzzer, unit tests);
 * api_query_known() refuses what a route does not take.
 */
#include "api.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <microhttpd.h>

#include "os/os.h"
#include "platform/utf8.h"

unsigned api_status_from_errno(int rc)
{
	switch (rc) {
	case 0:
		return 200;
	case -EINVAL:
		return 400;
	case -ENOENT:
		return 404;
	case -EALREADY:
		return 409;
	case -E2BIG:
		return 413;
	case -EBUSY:
	case -EAGAIN:
		return 503;
	case -ENOSPC: /* the archive's disk */
		return 507;
	default:
		return 500;
	}
}

static const char *title_for(unsigned status)
{
	switch (status) {
	case 400:
		return "Invalid request";
	case 401:
		return "Unauthorized";
	case 403:
		return "Forbidden";
	case 404:
		return "Not found";
	case 405:
		return "Method not allowed";
	case 409:
		return "Conflict";
	case 413:
		return "Request body too large";
	case 415:
		return "Unsupported media type";
	case 422:
		return "Unprocessable content";
	case 503:
		return "Service unavailable";
	case 507:
		return "Insufficient storage";
	default:
		return "Internal error";
	}
}

void api_fail_store(struct api_resp *resp, int rc, const char *what)
{
	if (rc == -ENOSPC)
		api_fail(resp, 507, NULL,
			 "%s: the archive's disk is full (nothing was written; "
			 "free space on the filesystem of the data directory)",
			 what);
	else
		api_fail(resp, api_status_from_errno(rc), NULL, "%s", what);
}

void api_problem_set(struct api_problem *p, unsigned status, const char *field,
		     const char *fmt, ...)
{
	va_list ap;

	p->status = status;
	snprintf(p->title, sizeof(p->title), "%s", title_for(status));
	snprintf(p->field, sizeof(p->field), "%s", field ? field : "");
	va_start(ap, fmt);
	vsnprintf(p->detail, sizeof(p->detail), fmt, ap);
	va_end(ap);
}

void api_send_json(struct api_resp *resp, unsigned status, json_t *v)
{
	char *s = v ? json_dumps(v, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;

	json_decref(v);
	free(resp->body);
	resp->body = NULL;
	if (!s) {
		static const char oom[] = "{\"type\":\"about:blank\",\"title\":"
					  "\"Internal error\","
					  "\"status\":500}";
		resp->status = 500;
		resp->content_type = "application/problem+json";
		resp->static_body = (const unsigned char *)oom;
		resp->len = sizeof(oom) - 1;
		return;
	}
	resp->status = status;
	resp->content_type = "application/json; charset=utf-8";
	resp->body = s;
	resp->len = strlen(s);
}

void api_send_problem(struct api_resp *resp, const struct api_problem *p)
{
	struct api_problem c = *p;
	json_t *o;

	/* a detail may echo a path or a value the client sent, and JSON
	 * carries only UTF-8 */
	utf8_sanitize(c.title);
	utf8_sanitize(c.field);
	utf8_sanitize(c.detail);
	o = json_pack("{s:s, s:s, s:i, s:s}", "type", "about:blank", "title",
		      c.title, "status", (int)c.status, "detail", c.detail);
	if (o && c.field[0])
		json_object_set_new(o, "field", json_string(c.field));
	api_send_json(resp, p->status, o);
	resp->content_type = "application/problem+json";
}

void api_fail(struct api_resp *resp, unsigned status, const char *field,
	      const char *fmt, ...)
{
	struct api_problem p;
	va_list ap;

	api_problem_set(&p, status, field, "%s", "");
	va_start(ap, fmt);
	vsnprintf(p.detail, sizeof(p.detail), fmt, ap);
	va_end(ap);
	api_send_problem(resp, &p);
}

const char *api_query_str(struct api_req *req, const char *name)
{
	if (req->conn)
		return MHD_lookup_connection_value(req->conn,
						   MHD_GET_ARGUMENT_KIND, name);
	for (size_t i = 0; i < req->n_args; i++)
		if (req->args[i].name &&
		    strcasecmp(req->args[i].name, name) == 0)
			return req->args[i].value;
	return NULL;
}

#define QUERY_MAX_KNOWN 32

/* api_query_known's walk over the arguments: the first one at fault. */
struct query_check {
	const char *const *known;
	unsigned count[QUERY_MAX_KNOWN];
	char name[64]; /* the parameter at fault, when why is set */
	const char *why;
};

/* Looks at one argument; 0 when it is at fault (stop), 1 to go on. */
static int query_check_one(struct query_check *c, const char *name,
			   const char *value)
{
	size_t k;

	if (!name)
		name = "";
	/* "?&a=1", "?a=1&": an empty piece is nothing */
	if (!name[0] && (!value || !value[0]))
		return 1;
	for (k = 0; k < QUERY_MAX_KNOWN && c->known[k] &&
		    strcasecmp(name, c->known[k]) != 0;
	     k++)
		;
	if (k == QUERY_MAX_KNOWN || !c->known[k])
		c->why = "unknown query parameter";
	else if (++c->count[k] > 1)
		c->why = "given twice";
	else if (value && strlen(value) > API_QUERY_VALUE_MAX)
		c->why = "longer than 4096 bytes";
	else if (value && !utf8_valid(value))
		c->why = "not UTF-8 text";
	else
		return 1;
	snprintf(c->name, sizeof(c->name), "%s", name);
	return 0;
}

static enum MHD_Result query_check_mhd(void *cls, enum MHD_ValueKind kind,
				       const char *name, const char *value)
{
	(void)kind;
	return query_check_one(cls, name, value) ? MHD_YES : MHD_NO;
}

int api_query_known(struct api_req *req, struct api_resp *resp,
		    const char *const *known)
{
	struct query_check c = { .known = known };
	char list[256] = "";
	size_t k, n = 0;

	if (req->conn)
		MHD_get_connection_values(req->conn, MHD_GET_ARGUMENT_KIND,
					  query_check_mhd, &c);
	else
		for (size_t i = 0; i < req->n_args; i++)
			if (!query_check_one(&c, req->args[i].name,
					     req->args[i].value))
				break;
	if (!c.why)
		return 0;
	for (k = 0; k < QUERY_MAX_KNOWN && known[k] && n < sizeof(list); k++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
				      k ? ", " : "", known[k]);
	api_fail(resp, 400, c.name, "%s: %s (this resource takes %s)", c.name,
		 c.why, known[0] ? list : "none");
	return -EINVAL;
}

int api_query_int(struct api_req *req, struct api_resp *resp, const char *name,
		  long long def, long long min, long long max, long long *out)
{
	const char *v = api_query_str(req, name);
	char *end = NULL;
	long long n;

	*out = def;
	if (!v)
		return 0;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (!isdigit((unsigned char)v[0]) || errno || *end != '\0' || n < min ||
	    n > max) {
		api_fail(resp, 400, name,
			 "%s must be an integer from %lld to %lld", name, min,
			 max);
		return -EINVAL;
	}
	*out = n;
	return 0;
}

/* Appends one CSV field to buf (quoted when it holds , " CR or LF). */
static void csv_field(json_t *v, FILE *f)
{
	char num[64];
	const char *t = num;

	if (json_is_string(v))
		t = json_string_value(v);
	else if (json_is_integer(v))
		snprintf(num, sizeof(num), "%lld",
			 (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(num, sizeof(num), "%.15g", json_real_value(v));
	else if (json_is_boolean(v))
		t = json_is_true(v) ? "true" : "false";
	else
		num[0] = '\0';
	/* a text a spreadsheet would run as a formula is kept text: a
	 * leading ', inside the quotes when the field is quoted */
	int guard = json_is_string(v) && t[0] && strchr("=+-@\t\r", t[0]);

	if (strpbrk(t, ",\"\r\n")) {
		fputc('"', f);
		if (guard)
			fputc('\'', f);
		for (; *t; t++) {
			if (*t == '"')
				fputc('"', f);
			fputc(*t, f);
		}
		fputc('"', f);
	} else {
		if (guard)
			fputc('\'', f);
		fputs(t, f);
	}
}

void api_send_csv(struct api_resp *resp, const char *const *cols, size_t n,
		  json_t *rows, const char *filename)
{
	char *buf = NULL;
	size_t len = 0, i, j;
	struct os_memstream ms;
	FILE *f = os_memstream_open(&ms, &buf, &len);
	json_t *row, *v;

	if (!f) {
		json_decref(rows);
		api_fail(resp, 500, NULL, "out of memory");
		return;
	}
	for (i = 0; i < n; i++) {
		json_t *c = json_string(cols[i]);
		if (i)
			fputc(',', f);
		csv_field(c, f);
		json_decref(c);
	}
	fputs("\r\n", f);
	json_array_foreach(rows, i, row)
	{
		json_array_foreach(row, j, v)
		{
			if (j)
				fputc(',', f);
			csv_field(v, f);
		}
		fputs("\r\n", f);
	}
	if (os_memstream_close(&ms) < 0) {
		json_decref(rows);
		api_fail(resp, 500, NULL, "out of memory");
		return;
	}
	json_decref(rows);
	api_send_file(resp, buf, len, "text/csv; charset=utf-8", filename);
}

void api_send_file(struct api_resp *resp, char *body, size_t len,
		   const char *content_type, const char *filename)
{
	free(resp->body);
	resp->body = body;
	resp->len = len;
	resp->status = 200;
	resp->content_type = content_type;
	snprintf(resp->filename, sizeof(resp->filename), "%.80s", filename);
}

int api_want_csv(struct api_req *req, struct api_resp *resp)
{
	const char *f = api_query_str(req, "format");

	if (!f || strcmp(f, "json") == 0)
		return 0;
	if (strcmp(f, "csv") == 0)
		return 1;
	api_fail(resp, 400, "format", "format: csv or json");
	return -1;
}

json_t *api_body_object(struct api_req *req, struct api_resp *resp,
			const char *shape)
{
	json_error_t jerr;
	json_t *root = req->body && req->body_len
			       ? json_loadb(req->body, req->body_len,
					    JSON_REJECT_DUPLICATES, &jerr)
			       : NULL;

	if (req->body && req->body_len && !root)
		api_fail(resp, 400, NULL,
			 "malformed JSON at line %d column %d: %s", jerr.line,
			 jerr.column, jerr.text);
	else if (!json_is_object(root))
		api_fail(resp, 400, NULL, "the body must be a JSON object %s",
			 shape);
	else
		return root;
	json_decref(root);
	return NULL;
}
