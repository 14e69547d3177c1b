/*
 * problem — errors as application/problem+json (RFC 9457) and JSON replies.
 * api_status_from_errno() is the one place an errno becomes a status.
 * api_send_problem() is the one place a problem becomes JSON; it makes the
 * text valid UTF-8 first, so an echoed path can never turn a 404 into a 500.
 */
#include "api.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

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
	default:
		return 500;
	}
}

static const char *title_for(unsigned status)
{
	switch (status) {
	case 400:
		return "Invalid request";
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
	default:
		return "Internal error";
	}
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
		static const char oom[] =
			"{\"type\":\"about:blank\",\"title\":\"Internal error\","
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

/* Length of the valid UTF-8 sequence at s (RFC 3629), or 0 if invalid. */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4;
	else
		return 0;
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F; /* no surrogates */
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return n;
}

/* Replaces every byte of s that is not valid UTF-8 with '?': a detail may
 * echo a path or a value the client sent, and JSON carries only UTF-8. */
static void utf8_clean(char *s)
{
	unsigned char *p = (unsigned char *)s;

	while (*p) {
		size_t n = utf8_seq(p);
		if (n == 0) {
			*p++ = '?';
			continue;
		}
		p += n;
	}
}

void api_send_problem(struct api_resp *resp, const struct api_problem *p)
{
	struct api_problem c = *p;
	json_t *o;

	utf8_clean(c.title);
	utf8_clean(c.field);
	utf8_clean(c.detail);
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
	return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, name);
}

int api_query_int(struct api_req *req, struct api_resp *resp,
		  const char *name, long long def, long long min,
		  long long max, long long *out)
{
	const char *v = MHD_lookup_connection_value(
		req->conn, MHD_GET_ARGUMENT_KIND, name);
	char *end = NULL;
	long long n;

	*out = def;
	if (!v)
		return 0;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (!isdigit((unsigned char)v[0]) || errno || *end != '\0' || n < min ||
	    n > max) {
		api_fail(resp, 400, name, "%s must be an integer from %lld to %lld",
			 name, min, max);
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
		snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
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
	FILE *f = open_memstream(&buf, &len);
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
	fclose(f);
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
