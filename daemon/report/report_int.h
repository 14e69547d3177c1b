/*
 * report_int — what the report's files share: a growing text buffer with
 * HTML escaping (report_html.c), the inline SVG charts (report_svg.c) and
 * the machines' probes and job specs (report_machine.c). The compare and
 * run reports (report_compare.c, report_run.c) are built on them.
 *
 * A buffer that failed to grow remembers it (err) and takes nothing more,
 * so a writer appends without checking each call and reads err once at
 * the end (report_buf_done).
 */
#ifndef STORBENCH_REPORT_INT_H
#define STORBENCH_REPORT_INT_H

#include <stddef.h>

#include <jansson.h>

struct report_buf {
	char *p; /* malloc'd, NUL-terminated */
	size_t len, cap;
	int err; /* -ENOMEM once a growth failed */
};

/* The string member key of o, or "" (not a string, no such member). */
const char *report_str(json_t *o, const char *key);
/* Appends s as it is (markup). */
void report_raw(struct report_buf *b, const char *s);
/* Appends the printf of fmt as it is (markup; numbers). */
void report_rawf(struct report_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Appends s escaped for text and attribute values (& < > " '); NULL: "". */
void report_text(struct report_buf *b, const char *s);
/* Appends json v as text: a string escaped, a number as report_num
 * writes it, true/false as yes/no, null (or NULL) as "—", an array as its
 * items joined with ", ", an object as compact JSON (escaped). */
void report_value(struct report_buf *b, json_t *v);
/* A number as the report writes it: the shortest decimal that reads back
 * as the same double ("12.4", "0.0008", "1520435200"), with a minus sign
 * (U+2212) for negatives when sign_glyph; into out[size]. */
void report_num(double v, int sign_glyph, char *out, size_t size);
/* Appends json number v as a figure a reader reads: <data value="EXACT">
 * SHOWN</data>, EXACT the number as the JSON states it (report_num), SHOWN
 * rounded for reading (1 decimal from 100 up, 2 from 1 up, else 3
 * significant digits), signed (+, U+2212) when sign; then suffix (markup,
 * " %"). Not a number: "—" and no suffix. */
void report_fig(struct report_buf *b, json_t *v, int sign, const char *suffix);
/* v rounded for reading, as report_fig shows it, unsigned but for a
 * minus (U+2212), into out[size]. */
void report_shown(double v, char *out, size_t size);
/* The unit as a reader knows it: "MB/s" for "10^6 B/s", "MiB/s" for
 * "2^20 B/s", "IOPS" for "I/O/s", else unit itself ("" for NULL). */
const char *report_unit(const char *unit);
/* Appends <!DOCTYPE html> … <body> with the style sheet and title
 * (escaped), and the page's heading h1 with the subtitle line. */
void report_head(struct report_buf *b, const char *title, const char *subtitle);
/* Appends the footer line and </body></html>. */
void report_foot(struct report_buf *b);
/* Hands the buffer's bytes over: *out (malloc'd, the caller's), *len.
 * Returns 0, or b->err with the buffer freed. */
int report_buf_done(struct report_buf *b, char **out, size_t *len);

/* One bar of a chart: a side's figure, with an interval when has_ci. */
struct report_bar {
	const char *label;
	double value;
	int has_value; /* 0: no figure (the side did not run it) */
	int has_ci;
	double lo, hi; /* the interval, in the value's unit */
	int baseline;  /* drawn grey: what the others are measured against */
};
/*
 * Appends a horizontal bar chart as inline SVG in a <figure>: a bar per
 * item (its label left, its figure right, whiskers for an interval),
 * scaled from 0 to the largest figure or interval end; caption (escaped)
 * under it. unit: the figures' unit, printed after them.
 */
void report_svg_bars(struct report_buf *b, const char *caption,
		     const char *unit, const struct report_bar *bars, size_t n);

/* Appends a section "Machines" with a table of the probes of runs (an
 * array of run objects as GET /api/v1/runs/{id} shows them), a column
 * per distinct probe (the runs that share it named in its head), and a
 * section "Job specs": each distinct spec as indented JSON in a <pre>,
 * with the runs it made. */
void report_machines(struct report_buf *b, json_t *runs);

#endif
