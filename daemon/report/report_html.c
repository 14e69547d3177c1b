/*
 * report_html — the report's text buffer, HTML escaping, numbers as the
 * report prints them, and the page around the content: the one style
 * sheet (inline: the file loads nothing) that lays it out on a screen and
 * on A4 paper.
 *
 * Printing: the page box is A4 with 14 mm margins, so the printable width
 * is 182 mm; every table has a fixed layout at 100 % of it, long cells
 * wrap and long words (paths, JSON) break anywhere, a table row, a tile, a
 * chart and a small table are never split across pages, and a heading
 * stays with what follows it.
 */
#include "report_int.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char style[] =
	"@page{size:A4;margin:14mm}\n"
	"*{box-sizing:border-box}\n"
	"body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',Roboto,"
	"Helvetica,Arial,sans-serif;color:#1d2330;background:#fff;"
	"margin:0 auto;padding:16px;max-width:1000px}\n"
	"h1{font-size:22px;margin:0 0 4px}\n"
	"h2{font-size:17px;margin:22px 0 8px;border-bottom:1px solid #ccd;"
	"padding-bottom:2px}\n"
	"h3{font-size:14px;margin:12px 0 4px}\n"
	"h1,h2,h3{break-after:avoid;page-break-after:avoid}\n"
	".sub{color:#555;margin:0 0 12px}\n"
	"table{width:100%;max-width:100%;table-layout:fixed;"
	"border-collapse:collapse;margin:6px 0 12px;font-size:12px}\n"
	"th,td{border:1px solid #ccd;padding:3px 5px;text-align:left;"
	"vertical-align:top;overflow-wrap:anywhere;word-break:break-word}\n"
	"th{background:#eef0f5}\n"
	"th{overflow-wrap:break-word;word-break:normal}\n"
	"td.n{text-align:right;font-variant-numeric:tabular-nums;"
	"overflow-wrap:normal;word-break:normal}\n"
	"data{white-space:nowrap}\n"
	"tr,.tile,figure,.keep,pre{break-inside:avoid;"
	"page-break-inside:avoid}\n"
	"thead{display:table-header-group}\n"
	".tiles{display:flex;flex-wrap:wrap;gap:8px;margin:6px 0 12px}\n"
	".tile{border:1px solid #ccd;border-radius:4px;padding:6px 8px;"
	"width:calc(25% - 6px);min-width:150px;font-size:12px}\n"
	".tile b{display:block;font-size:13px}\n"
	".tile .v{font-size:15px;font-weight:600}\n"
	"figure{margin:6px 0 12px;width:100%}\n"
	"figure svg{width:100%;height:auto;display:block}\n"
	"figcaption{font-size:12px;color:#444}\n"
	"pre{white-space:pre-wrap;overflow-wrap:anywhere;"
	"word-break:break-all;background:#f6f7f9;border:1px solid #ccd;"
	"padding:6px;font-size:11px;margin:4px 0 12px}\n"
	".charts{display:grid;grid-template-columns:1fr 1fr;gap:0 16px}\n"
	".better{color:#11702b}.worse{color:#a3161b}\n"
	".verdicts li,.warnings li{margin:2px 0}\n"
	"footer{margin-top:24px;color:#666;font-size:11px}\n"
	"@media print{body{max-width:none;padding:0;font-size:11px}"
	"table{font-size:10px}th,td{padding:2px 3px}"
	".tile{width:calc(33% - 6px)}}\n";

/* Makes room for n more bytes and the NUL; 0 or -ENOMEM (kept in err). */
static int grow(struct report_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *p;

	if (b->err)
		return b->err;
	if (b->len + n + 1 <= b->cap)
		return 0;
	while (cap < b->len + n + 1)
		cap *= 2;
	if (!(p = realloc(b->p, cap))) {
		b->err = -ENOMEM;
		return b->err;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

static void put(struct report_buf *b, const char *s, size_t n)
{
	if (grow(b, n) < 0)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

const char *report_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

void report_raw(struct report_buf *b, const char *s)
{
	put(b, s, strlen(s));
}

void report_rawf(struct report_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || grow(b, (size_t)n) < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void report_text(struct report_buf *b, const char *s)
{
	const char *run = s;

	if (!s)
		return;
	for (; *s; s++) {
		const char *e = *s == '&'    ? "&amp;"
				: *s == '<'  ? "&lt;"
				: *s == '>'  ? "&gt;"
				: *s == '"'  ? "&quot;"
				: *s == '\'' ? "&#39;"
					     : NULL;
		if (!e)
			continue;
		put(b, run, (size_t)(s - run));
		report_raw(b, e);
		run = s + 1;
	}
	put(b, run, (size_t)(s - run));
}

void report_num(double v, int sign_glyph, char *out, size_t size)
{
	char tmp[40];
	const char *digits = tmp;
	int prec;

	if (!isfinite(v)) {
		snprintf(out, size, "—");
		return;
	}
	/* the shortest %.Ng that reads back as v, in plain notation */
	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	if (strchr(tmp, 'e')) { /* the same digits without the exponent */
		int decimals = 0;
		char *e = strchr(tmp, 'e');
		long x = strtol(e + 1, NULL, 10);
		const char *dot = strchr(tmp, '.');
		int mant = dot ? (int)(e - dot - 1) : 0;
		decimals = mant - (int)x;
		snprintf(tmp, sizeof(tmp), "%.*f", decimals < 0 ? 0 : decimals,
			 v);
	}
	if (sign_glyph && tmp[0] == '-')
		snprintf(out, size, "−%s", digits + 1); /* U+2212 */
	else
		snprintf(out, size, "%s", digits);
}

static void shown_abs(double a, char *out, size_t size)
{
	if (a >= 100)
		snprintf(out, size, "%.1f", a);
	else if (a >= 1)
		snprintf(out, size, "%.2f", a);
	else
		snprintf(out, size, "%.3g", a);
}

void report_shown(double v, char *out, size_t size)
{
	char a[40];

	shown_abs(fabs(v), a, sizeof(a));
	snprintf(out, size, "%s%s", v < 0 ? "−" : "", a);
}

const char *report_unit(const char *unit)
{
	static const char *const names[][2] = {
		{ "10^6 B/s", "MB/s" },
		{ "2^20 B/s", "MiB/s" },
		{ "I/O/s", "IOPS" },
	};

	if (!unit)
		return "";
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(unit, names[i][0]) == 0)
			return names[i][1];
	return unit;
}

void report_fig(struct report_buf *b, json_t *v, int sign, const char *suffix)
{
	char exact[48], shown[48];
	double x = json_number_value(v);

	if (!json_is_number(v) || !isfinite(x)) {
		report_raw(b, "—");
		return;
	}
	report_num(x, 0, exact, sizeof(exact));
	shown_abs(fabs(x), shown, sizeof(shown));
	report_rawf(b, "<data value=\"%s\">%s%s</data>%s", exact,
		    x < 0	    ? "−"
		    : sign && x > 0 ? "+"
				    : "",
		    shown, suffix ? suffix : "");
}

void report_value(struct report_buf *b, json_t *v)
{
	char num[48];

	if (json_is_string(v))
		report_text(b, json_string_value(v));
	else if (json_is_number(v)) {
		report_num(json_number_value(v), 0, num, sizeof(num));
		report_raw(b, num);
	} else if (json_is_true(v))
		report_raw(b, "yes");
	else if (json_is_false(v))
		report_raw(b, "no");
	else if (json_is_array(v)) {
		json_t *x;
		size_t i;
		if (!json_array_size(v))
			report_raw(b, "—");
		json_array_foreach(v, i, x)
		{
			if (i)
				report_raw(b, ", ");
			report_value(b, x);
		}
	} else if (json_is_object(v)) {
		char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
		if (!s)
			b->err = -ENOMEM;
		report_text(b, s);
		free(s);
	} else
		report_raw(b, "—");
}

void report_head(struct report_buf *b, const char *title, const char *subtitle)
{
	report_raw(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		      "<meta charset=\"utf-8\">\n"
		      "<meta name=\"viewport\" "
		      "content=\"width=device-width,initial-scale=1\">\n"
		      "<meta name=\"generator\" content=\"storbench\">\n"
		      "<title>");
	report_text(b, title);
	report_raw(b, "</title>\n<style>\n");
	report_raw(b, style);
	report_raw(b, "</style>\n</head>\n<body>\n<h1>");
	report_text(b, title);
	report_raw(b, "</h1>\n<p class=\"sub\">");
	report_text(b, subtitle);
	report_raw(b, "</p>\n");
}

void report_foot(struct report_buf *b)
{
	report_rawf(b,
		    "<footer>Written by storbench %s from its archive: every "
		    "figure is the API's (GET /api/v1/compare, GET "
		    "/api/v1/runs/{id}); each job spec of a run measured by "
		    "storbench comes with the request that runs it again."
		    "</footer>\n</body>\n</html>\n",
		    STORBENCH_VERSION);
}

int report_buf_done(struct report_buf *b, char **out, size_t *len)
{
	if (!b->err && grow(b, 0) == 0 && b->len == 0)
		b->p[0] = '\0';
	if (b->err) {
		free(b->p);
		*b = (struct report_buf){ 0 };
		return -ENOMEM;
	}
	*out = b->p;
	*len = b->len;
	*b = (struct report_buf){ 0 };
	return 0;
}
