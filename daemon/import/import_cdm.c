/*
 * import_cdm — CrystalDiskMark's text result ("File > Save (Text)"), versions
 * 3 to 8, into struct import_run (import.h).
 *
 * What the versions print:
 *   3.x, 4.x   "Sequential Read : 158.635 MB/s", "Random Read 512KB : …",
 *              "Random Read 4KB (QD=32) : 2.210 MB/s [ 539.5 IOPS]";
 *              footer "Test : 1000 MB [F: …] (x5)", "Date : 2012/08/24 …",
 *              "OS : …", then often a free comment line.
 *   5.x, 6.x   "Sequential Read (Q= 32,T= 1) : …",
 *              "Random Read 4KiB (Q= 1,T= 1) : …",
 *              "Sequential Read (T= 1) : …".
 *   7.x, 8.x   "[Read]" / "[Write]" / "[Mix] Read 70%/Write 30%" sections
 *              of "SEQ 1MiB (Q= 8, T= 1): 7427.749 MB/s [ 7083.7 IOPS]
 *              < 987.81 us>" (7.0 writes "Sequential"/"Random"); footer
 *              "Profile:", "Test: 1 GiB (x5) […]", "Date:", "OS:",
 *              "Comment:".
 *
 * Text converted by the user's tools is common: UTF-16 with a BOM, CRLF, no
 * trailing newline, rule lines of typographic dashes (pasted through a
 * blog). A file without the "CrystalDiskMark x.y" banner, or with a result
 * that is not a number ("?"), is refused.
 *
 * Every number is one CrystalDiskMark could print: digits and a fraction
 * (no sign, exponent, hex float, inf), within its field's range
 * (import_check), a count of 1 to 9, and no control character but tab, CR
 * and LF anywhere in the text (a NUL would cut what follows it); else the
 * file is refused with the line. The footer's Test and Mode lines are kept
 * as printed (r->test_line, r->mode) for the run's CrystalDiskMark export.
 *
 * This file reads the text line by line (the banner, the sections, which
 * line is what); a result line's test and numbers are read by
 * import_cdm_result.c, the Test, Time and Date lines and the comment's
 * facts by import_cdm_footer.c (import_cdm.h).
 */
#include "import_cdm.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/encoding.h>

/* buf as UTF-8 in *out (malloc'd, NUL-terminated, *out_len bytes before
 * the terminator): a UTF-8 BOM is dropped; UTF-16 (by its BOM, or by NULs
 * in every other byte) is converted. */
static int to_utf8(const char *buf, size_t len, char **out, size_t *out_len)
{
	const unsigned char *u = (const unsigned char *)buf;
	xmlCharEncoding from = XML_CHAR_ENCODING_NONE;
	xmlCharEncodingHandler *h;
	int il, ol, n;

	if (len >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) {
		buf += 3;
		len -= 3;
	} else if (len >= 2 && u[0] == 0xFF && u[1] == 0xFE) {
		from = XML_CHAR_ENCODING_UTF16LE;
		buf += 2;
		len -= 2;
	} else if (len >= 2 && u[0] == 0xFE && u[1] == 0xFF) {
		from = XML_CHAR_ENCODING_UTF16BE;
		buf += 2;
		len -= 2;
	} else if (len >= 4 && u[1] == 0 && u[3] == 0 && u[0] && u[2]) {
		from = XML_CHAR_ENCODING_UTF16LE;
	} else if (len >= 4 && u[0] == 0 && u[2] == 0 && u[1] && u[3]) {
		from = XML_CHAR_ENCODING_UTF16BE;
	}
	if (from == XML_CHAR_ENCODING_NONE) {
		if (!(*out = malloc(len + 1)))
			return -ENOMEM;
		memcpy(*out, buf, len);
		(*out)[len] = '\0';
		*out_len = len;
		return 0;
	}
	/* libxml2's own UTF-16 decoders (built in, no iconv: the same on
	 * every system); a lone surrogate is an error */
	if (len > (size_t)INT_MAX / 2 - 4 ||
	    !(h = xmlGetCharEncodingHandler(from)) || !h->input)
		return -EILSEQ;
	il = (int)(len & ~(size_t)1);
	ol = il * 2 + 4;
	if (!(*out = malloc((size_t)ol + 1)))
		return -ENOMEM;
	n = h->input((unsigned char *)*out, &ol, (const unsigned char *)buf,
		     &il);
	if (n < 0 || (size_t)il != (len & ~(size_t)1)) {
		free(*out);
		*out = NULL;
		return -EILSEQ;
	}
	(*out)[ol] = '\0';
	*out_len = (size_t)ol;
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* A rule line: only '-', '=', '_', or typographic dashes (U+2010 … U+2015). */
static int is_rule(const char *s)
{
	int n = 0;

	while (*s) {
		if (*s == '-' || *s == '=' || *s == '_') {
			s++;
		} else if ((unsigned char)s[0] == 0xE2 &&
			   (unsigned char)s[1] == 0x80 &&
			   (unsigned char)s[2] >= 0x90 &&
			   (unsigned char)s[2] <= 0x95) {
			s += 3;
		} else {
			return 0;
		}
		n++;
	}
	return n >= 10;
}

static int fail(char *err, size_t len, int *line, int at, const char *what)
{
	*line = at;
	if (at)
		snprintf(err, len, "line %d: %s", at, what);
	else
		snprintf(err, len, "%s", what);
	return -EINVAL;
}

int import_cdm(const char *buf, size_t len, struct import_run *r, char *err,
	       size_t err_len, int *line)
{
	char *text = NULL, *save = NULL, *ln, *section = NULL;
	int major = 0, at = 0, rc = 0, after_os = 0, mix_pct = -1, footer = 0;
	char sec[8] = "";
	size_t n = 0;
	struct import_cdm_at a = { 0, err, err_len };

	memset(r, 0, sizeof(*r));
	*line = 0;
	if (len == 0)
		return fail(err, err_len, line, 0, "the file is empty");
	if ((rc = to_utf8(buf, len, &text, &n)) < 0)
		return rc == -ENOMEM ? rc
				     : fail(err, err_len, line, 0,
					    "the text is not valid UTF-16");
	if ((rc = import_no_controls(text, n, "CrystalDiskMark", err, err_len,
				     line)) < 0)
		goto out;
	snprintf(r->tool, sizeof(r->tool), "CrystalDiskMark");
	/* line by line, empty ones counted (errors name the line) */
	for (ln = text; ln; ln = save) {
		char *s, *colon, *nl = strchr(ln, '\n');
		if (nl)
			*nl = '\0';
		save = nl ? nl + 1 : NULL;
		s = trim(ln);
		struct import_test *t;
		a.line = ++at;
		if (!*s || is_rule(s) || s[0] == '*')
			continue;
		if (!major) {
			const char *b = strstr(s, "CrystalDiskMark ");
			if (b && isdigit((unsigned char)b[16])) {
				const char *sb =
					strstr(s, "written by storbench ");
				long v = strtol(b + 16, NULL, 10);
				major = v > 99 ? 99 : (int)v;
				snprintf(r->version, sizeof(r->version), "%.*s",
					 (int)strspn(b + 16, "0123456789."),
					 b + 16);
				/* storbench's own export in this layout */
				if (sb) {
					snprintf(r->tool, sizeof(r->tool),
						 "storbench");
					snprintf(r->version, sizeof(r->version),
						 "%.31s", sb + 21);
				}
				continue;
			}
			rc = fail(err, err_len, line, at,
				  "not a CrystalDiskMark result: its first "
				  "line of "
				  "text is not the \"CrystalDiskMark x.y\" "
				  "banner");
			goto out;
		}
		if (strstr(s, "Crystal Dew World"))
			continue;
		if (s[0] ==
		    '[') { /* [Read], [Write], [Mix] Read 70%/Write 30% */
			section = strncasecmp(s, "[Read]", 6) == 0    ? "read"
				  : strncasecmp(s, "[Write]", 7) == 0 ? "write"
				  : strncasecmp(s, "[Mix]", 5) == 0   ? "mix"
								      : NULL;
			if (section && strcmp(section, "mix") == 0) {
				const char *p = strstr(s, "Read ");
				mix_pct = -1;
				if (p) {
					p += 5;
					rc = import_cdm_int(&p, IMPORT_PERCENT,
							    &mix_pct, &a);
				}
				if (rc < 0) {
					*line = at;
					goto out;
				}
			}
			snprintf(sec, sizeof(sec), "%s",
				 section ? section : "");
			continue;
		}
		if (!(colon = strchr(s, ':')))
			goto comment;
		*colon = '\0';
		{
			char *key = trim(s), *val = trim(colon + 1);
			if (strcasecmp(key, "Test") == 0) {
				if ((rc = import_cdm_test_line(val, r, &a)) <
				    0) {
					*line = at;
					goto out;
				}
				footer = 1;
			} else if (strcasecmp(key, "Date") == 0) {
				if (import_cdm_date(val, r) < 0) {
					rc = fail(err, err_len, line, at,
						  "the Date is not a date "
						  "(YYYY/MM/DD hh:mm:ss)");
					goto out;
				}
			} else if (strcasecmp(key, "OS") == 0) {
				snprintf(r->os, sizeof(r->os), "%s", val);
				after_os = 1;
			} else if (strcasecmp(key, "Comment") == 0) {
				snprintf(r->comment, sizeof(r->comment), "%s",
					 val);
			} else if (strcasecmp(key, "Profile") == 0) {
				snprintf(r->profile, sizeof(r->profile), "%s",
					 val);
			} else if (strcasecmp(key, "Mode") == 0) {
				/* "[Admin]", kept for the export */
				snprintf(r->mode, sizeof(r->mode), "%s", val);
			} else if (strcasecmp(key, "Time") == 0) {
				if ((rc = import_cdm_times(val, &a)) < 0) {
					*line = at;
					goto out;
				}
			} else if (strstr(val, "MB/s") || strchr(val, '?') ||
				   strstr(val, "B/s") || strstr(val, "IOPS")) {
				if (r->n == IMPORT_MAX_TESTS) {
					rc = fail(err, err_len, line, at,
						  "too many results");
					goto out;
				}
				t = &r->t[r->n];
				memset(t, 0, sizeof(*t));
				t->line = at;
				if ((rc = import_cdm_label(key, major,
							   sec[0] ? sec : NULL,
							   t, &a)) != 0) {
					if (rc > 0)
						rc = fail(err, err_len, line,
							  at,
							  "a result line whose "
							  "test "
							  "CrystalDiskMark "
							  "does not print");
					*line = at;
					goto out;
				}
				if ((rc = import_cdm_values(val, t, &a)) != 0) {
					if (rc > 0)
						rc = fail(err, err_len, line,
							  at,
							  "the result is not a "
							  "number of MB/s");
					*line = at;
					goto out;
				}
				if (strcmp(t->rw, "mix") == 0)
					t->read_pct = mix_pct;
				for (size_t k = 0; k < r->n; k++)
					if (strcmp(r->t[k].name, t->name) ==
						    0 &&
					    strcmp(r->t[k].rw, t->rw) == 0) {
						rc = fail(
							err, err_len, line, at,
							"the same test twice");
						goto out;
					}
				r->n++;
			} else {
				*colon = ':';
				goto comment;
			}
		}
		continue;
	comment:
		/* CrystalDiskMark 3's free comment line, after the OS line */
		if (after_os && !r->comment[0])
			snprintf(r->comment, sizeof(r->comment), "%s", s);
	}
	if (!major) {
		rc = fail(err, err_len, line, 0,
			  "not a CrystalDiskMark result: no \"CrystalDiskMark "
			  "x.y\" "
			  "banner");
		goto out;
	}
	if (r->n == 0) {
		rc = fail(err, err_len, line, at,
			  "no result lines (… : 123.456 MB/s)");
		goto out;
	}
	/* every version ends with its Test line: without it the file was cut */
	if (!footer) {
		rc = fail(err, err_len, line, at,
			  "the file ends before CrystalDiskMark's \"Test\" "
			  "line: it "
			  "looks cut short");
		goto out;
	}
	import_cdm_comment_facts(r);
out:
	free(text);
	return rc;
}

int import_cdm_sniff(const char *buf, size_t len)
{
	return import_holds(buf, len, "CrystalDiskMark") &&
	       !import_fio_sniff(buf, len);
}
