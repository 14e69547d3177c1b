/*
 * import_cdm — CrystalDiskMark's text result ("File > Save (Text)"), versions
 * 3 to 8, into struct import_run (import.h).
 *
 * What the versions print:
 *   3.x, 4.x   "Sequential Read : 158.635 MB/s", "Random Read 512KB : …",
 *              "Random Read 4KB (QD=32) : 2.210 MB/s [ 539.5 IOPS]";
 *              footer "Test : 1000 MB [F: …] (x5)", "Date : 2012/08/24 …",
 *              "OS : …", then often a free comment line.
 *   5.x, 6.x   "Sequential Read (Q= 32,T= 1) : …", "Random Read 4KiB (Q= 1,T=
 * 1) : …", "Sequential Read (T= 1) : …". 7.x, 8.x   "[Read]" / "[Write]" /
 * "[Mix] Read 70%/Write 30%" sections of "SEQ 1MiB (Q= 8, T= 1): 7427.749 MB/s
 * [ 7083.7 IOPS] < 987.81 us>" (7.0 writes "Sequential"/"Random"); footer
 * "Profile:", "Test: 1 GiB (x5) […]", "Date:", "OS:", "Comment:". Text
 * converted by the user's tools is common: UTF-16 with a BOM, CRLF, no trailing
 * newline, rule lines of typographic dashes (pasted through a blog). A file
 * without the "CrystalDiskMark x.y" banner, or with a result that is not a
 * number ("?"), is refused.
 *
 * Every number is one CrystalDiskMark could print: digits and a fraction
 * (no sign, exponent, hex float, inf), within its field's range
 * (import_check), a count of 1 to 9, and no control character but tab, CR
 * and LF anywhere in the text (a NUL would cut what follows it); else the
 * file is refused with the line. The footer's Test and Mode lines are kept
 * as printed (r->test_line, r->mode) for the run's CrystalDiskMark export.
 */
#include "import.h"

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

/* Where a number is read: the line, and the error's buffer. */
struct at {
	int line;
	char *err;
	size_t len;
};

/*
 * A number at *p as CrystalDiskMark prints it ("158.635", "  8": digits
 * and a fraction; blanks before it skipped), advancing *p past it, checked
 * against f's range. Returns 0, or -EINVAL with a->err naming the line and
 * the field.
 */
static int cdm_num(const char **p, enum import_field f, double *v,
		   const struct at *a)
{
	const char *s = *p + strspn(*p, " "), *end;

	if (!isdigit((unsigned char)*s) || import_number(s, v, &end) < 0 ||
	    (size_t)(end - s) != strspn(s, "0123456789.")) {
		snprintf(a->err, a->len,
			 "line %d: the result is not a number of %s as "
			 "CrystalDiskMark prints it (\"%.16s\")",
			 a->line, import_field_name(f), s);
		return -EINVAL;
	}
	*p = end;
	return import_check(f, *v, a->line, a->err, a->len, NULL);
}

/* cdm_num for a whole count (QD, threads, iterations, a percentage). */
static int cdm_int(const char **p, enum import_field f, int *n,
		   const struct at *a)
{
	double v;
	int rc = cdm_num(p, f, &v, a);

	if (rc == 0 && v != (double)(int)v) {
		snprintf(a->err, a->len, "line %d: %s %g is not a whole number",
			 a->line, import_field_name(f), v);
		rc = -EINVAL;
	}
	if (rc == 0)
		*n = (int)v;
	return rc;
}

/* The numbers after a label: "158.635 MB/s [ 145.9 IOPS] < 987.81 us>".
 * Returns 0, 1 when the MB/s are not followed by "MB/s", or -EINVAL with
 * a->err. */
static int values(const char *p, struct import_test *t, const struct at *a)
{
	const char *q;
	int rc;

	t->iops = t->lat_mean_us = -1;
	if ((rc = cdm_num(&p, IMPORT_MB_S, &t->mb_s, a)) < 0)
		return rc;
	while (*p == ' ')
		p++;
	if (strncmp(p, "MB/s", 4) != 0)
		return 1;
	if ((q = strchr(p, '['))) {
		q++;
		if ((rc = cdm_num(&q, IMPORT_IOPS, &t->iops, a)) < 0)
			return rc;
	}
	if ((q = strchr(p, '<'))) {
		q++;
		if ((rc = cdm_num(&q, IMPORT_LAT_US, &t->lat_mean_us, a)) < 0)
			return rc;
	}
	return 0;
}

/* "1MiB", "128KiB", "4KiB", "512KB", "4KB" → bytes into *bytes (0 when
 * it is no size); its short form into name ("1M"). -EINVAL with a->err
 * when the number is not one CrystalDiskMark prints or out of range. */
static int size_word(const char *s, char *short_name, size_t len,
		     uint64_t *bytes, const struct at *a)
{
	double v, b;
	uint64_t mul;
	int rc;

	*bytes = 0;
	if (!isdigit((unsigned char)*s))
		return 0;
	if ((rc = cdm_num(&s, IMPORT_BLOCK_SIZE, &v, a)) < 0)
		return rc;
	mul = *s == 'M' ? 1ULL << 20 : *s == 'K' ? 1ULL << 10 : 0;
	b = v * (double)mul;
	if (!mul || v != (double)(uint64_t)v)
		return 0;
	if ((rc = import_check(IMPORT_BLOCK_SIZE, b, a->line, a->err, a->len,
			       NULL)) < 0)
		return rc;
	snprintf(short_name, len, "%llu%c", (unsigned long long)v, *s);
	*bytes = (uint64_t)b;
	return 0;
}

/* Q and T of "(Q= 32,T= 1)", "(Q=  8, T= 1)", "(T= 1)", "(QD=32)" (1
 * when absent). */
static int q_t(const char *s, int *q, int *t, const struct at *a)
{
	const char *p;
	int rc = 0;

	*q = *t = 1;
	if ((p = strstr(s, "QD=")))
		p += 3;
	else if ((p = strstr(s, "Q=")))
		p += 2;
	if (p && (rc = cdm_int(&p, IMPORT_QD, q, a)) < 0)
		return rc;
	if ((p = strstr(s, "T="))) {
		p += 2;
		rc = cdm_int(&p, IMPORT_THREADS, t, a);
	}
	return rc;
}

/*
 * One result line's label (before its ':'), read for the version: fills
 * name, pattern, block size, QD, threads and — when the label says — rw.
 * Returns 0, 1 when the label is not a test CrystalDiskMark prints, or
 * -EINVAL with a->err (a number out of its range).
 */
static int label(const char *lab, int major, const char *section,
		 struct import_test *t, const struct at *a)
{
	int seq = strncmp(lab, "Seq", 3) == 0 || strncmp(lab, "SEQ", 3) == 0;
	int rnd = strncmp(lab, "Random", 6) == 0 || strncmp(lab, "RND", 3) == 0;
	const char *rw = strstr(lab, " Read")	 ? "read"
			 : strstr(lab, " Write") ? "write"
						 : section;
	char sz[16] = "";
	int rc;

	if (!seq && !rnd)
		return 1;
	snprintf(t->rw, sizeof(t->rw), "%s", rw ? rw : "");
	if (!t->rw[0])
		return 1;
	snprintf(t->pattern, sizeof(t->pattern), "%s",
		 seq ? "sequential" : "random");
	if ((rc = q_t(lab, &t->queue_depth, &t->threads, a)) < 0)
		return rc;
	if (major >= 7) {
		/* "SEQ    1MiB (Q=  8, T= 1)", "Random 4KiB (Q= 32, T=16)" */
		const char *p = lab + strcspn(lab, "0123456789");
		if ((rc = size_word(p, sz, sizeof(sz), &t->block_size, a)) < 0)
			return rc;
		if (!t->block_size)
			return 1;
		snprintf(t->name, sizeof(t->name), "%s%s Q%dT%d",
			 seq ? "SEQ" : "RND", sz, t->queue_depth, t->threads);
	} else if (major >= 5) {
		/* "Sequential Read (Q= 32,T= 1)": 128 KiB blocks;
		 * "Sequential Read (T= 1)": 1 MiB; "Random Read 4KiB (…)" */
		int deep = strstr(lab, "Q=") != NULL && t->queue_depth > 1;
		t->block_size = seq ? (deep ? 128 << 10 : 1 << 20) : 4 << 10;
		if (seq)
			snprintf(t->name, sizeof(t->name),
				 deep ? "Seq Q%dT%d" : "Seq", t->queue_depth,
				 t->threads);
		else if (t->queue_depth > 1 || t->threads > 1)
			snprintf(t->name, sizeof(t->name), "4K Q%dT%d",
				 t->queue_depth, t->threads);
		else
			snprintf(t->name, sizeof(t->name), "4K");
	} else {
		/* CrystalDiskMark 3 (and 2, 4): Seq, 512K, 4K, 4K QD32 — the
		 * names of storbench's cdm3 preset */
		if (seq) {
			t->block_size = 1 << 20;
			snprintf(t->name, sizeof(t->name), "Seq");
		} else if (strstr(lab, "512K")) {
			t->block_size = 512 << 10;
			snprintf(t->name, sizeof(t->name), "512K");
		} else {
			t->block_size = 4 << 10;
			if (t->queue_depth > 1)
				snprintf(t->name, sizeof(t->name), "4K QD%d",
					 t->queue_depth);
			else
				snprintf(t->name, sizeof(t->name), "4K");
		}
	}
	t->read_pct = strcmp(t->rw, "read") == 0    ? 100
		      : strcmp(t->rw, "write") == 0 ? 0
						    : -1;
	/* what CrystalDiskMark can be set to */
	if (t->queue_depth < 1 || t->queue_depth > 512 || t->threads < 1 ||
	    t->threads > 64)
		return 1;
	return 0;
}

/*
 * "Test : 1000 MB [F: …] (x5)", "Test: 1 GiB (x5) […]": the test size,
 * the count (CrystalDiskMark runs a test 1 to 9 times; storbench's own
 * export any count of its range) and the drive, and the line as printed.
 * Returns 0, or -EINVAL with a->err.
 */
/*
 * The measure and interval times a Time or Test line names ("Measure 5 sec
 * / Interval 5 sec", "[Interval=5 sec]", "[Interval: 5 sec]"): a measure
 * is a test time (IMPORT_SECONDS), an interval that or 0 (CrystalDiskMark
 * offers 0 … 600 s). 0, or -EINVAL with a->err naming the line.
 */
/* The first place s holds word, in any case, or NULL. */
static const char *find_ci(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (; *s; s++)
		if (strncasecmp(s, word, n) == 0)
			return s;
	return NULL;
}

static int times(const char *v, const struct at *a)
{
	static const char *const words[] = { "Measure", "Interval" };

	for (int w = 0; w < 2; w++) {
		const char *p = find_ci(v, words[w]), *end;
		double t;
		if (!p)
			continue;
		p += strlen(words[w]);
		p += strspn(p, " :=");
		if (import_number(p, &t, &end) < 0 ||
		    (size_t)(end - p) != strspn(p, "0123456789.") ||
		    !((w == 1 && t == 0) ||
		      import_in_range(IMPORT_SECONDS, t))) {
			snprintf(
				a->err, a->len,
				"line %d: %s %.16s: not a time CrystalDiskMark "
				"measures (%s … 10000000 s)",
				a->line, words[w], p, w ? "0" : "0.001");
			return -EINVAL;
		}
	}
	return 0;
}

static int test_line(const char *v, struct import_run *r, const struct at *a)
{
	const char *x = strstr(v, "(x"), *b = strchr(v, '['), *p = v, *end;
	int rc, own = strcmp(r->tool, "storbench") == 0;
	double n;

	snprintf(r->test_line, sizeof(r->test_line), "%s", v);
	if ((rc = times(v, a)) < 0)
		return rc;
	if (isdigit((unsigned char)*p)) {
		if ((rc = cdm_num(&p, IMPORT_TEST_SIZE, &n, a)) < 0)
			return rc;
		end = p + strspn(p, " ");
		uint64_t mul = strncmp(end, "GiB", 3) == 0   ? 1ULL << 30
			       : strncmp(end, "MiB", 3) == 0 ? 1ULL << 20
			       : strncmp(end, "GB", 2) == 0  ? 1000000000ULL
			       : strncmp(end, "MB", 2) == 0  ? 1000000ULL
							     : 0;
		if ((rc = import_check(IMPORT_TEST_SIZE, n * (double)mul,
				       a->line, a->err, a->len, NULL)) < 0)
			return rc;
		if (n * (double)mul < 1 << 20) {
			snprintf(a->err, a->len,
				 "line %d: a test size under 1 MiB, which "
				 "CrystalDiskMark does not offer",
				 a->line);
			return -EINVAL;
		}
		r->test_size = (uint64_t)(n * (double)mul);
	}
	if (!x) {
		snprintf(a->err, a->len,
			 "line %d: the Test line has no \"(xN)\" count",
			 a->line);
		return -EINVAL;
	}
	p = x + 2;
	if ((rc = cdm_int(&p, IMPORT_BEST_OF, &r->iterations, a)) < 0)
		return rc;
	if (!own && r->iterations > 9) {
		snprintf(a->err, a->len,
			 "line %d: (x%d): CrystalDiskMark runs a test 1 to 9 "
			 "times",
			 a->line, r->iterations);
		return -EINVAL;
	}
	if (b && b[1] && b[2] == ':')
		snprintf(r->drive, sizeof(r->drive), "%c:", b[1]);
	return 0;
}

/* "2012/08/24 23:05:47" → "2012-08-24T23:05:47"; -1 when it is no date. */
static int date_line(const char *v, struct import_run *r)
{
	int y, mo, d, h = 0, mi = 0, s = 0;

	if (sscanf(v, "%d/%d/%d %d:%d:%d", &y, &mo, &d, &h, &mi, &s) < 3 ||
	    y < 1990 || y > 2200 || mo < 1 || mo > 12 || d < 1 || d > 31 ||
	    h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 60)
		return -1;
	snprintf(r->date, sizeof(r->date), "%04d-%02d-%02dT%02d:%02d:%02d", y,
		 mo, d, h, mi, s);
	return 0;
}

/* Filesystem, allocation unit and write cache where the comment says them:
 * "NTFS Aloc 4096", "ReFS 64K", "CacheON", "write cache off". */
static void comment_facts(struct import_run *r)
{
	static const char *const fs[][2] = { { "ntfs", "ntfs" },
					     { "refs", "refs" },
					     { "exfat", "exfat" },
					     { "fat32", "fat32" } };
	char low[256];
	const char *p;
	size_t i;

	for (i = 0; r->comment[i] && i < sizeof(low) - 1; i++)
		low[i] = (char)tolower((unsigned char)r->comment[i]);
	low[i] = '\0';
	for (i = 0; i < 4; i++)
		if (strstr(low, fs[i][0])) {
			snprintf(r->fs_type, sizeof(r->fs_type), "%s",
				 fs[i][1]);
			break;
		}
	if ((p = strstr(low, "aloc")) || (p = strstr(low, "alloc")) ||
	    (p = strstr(low, "cluster")) || (p = strstr(low, "au "))) {
		p += strcspn(p, "0123456789");
		if (*p) {
			char *end;
			long v = strtol(p, &end, 10);
			while (*end == ' ')
				end++;
			if (*end == 'k') /* (a huge number must not overflow) */
				v = v <= (2L << 20) / 1024 ? v * 1024 : -1;
			if (v >= 512 && v <= (2L << 20))
				r->cluster = v;
		}
	}
	if ((p = strstr(low, "cache"))) {
		p += 5;
		while (*p == ' ' || *p == '=' || *p == ':')
			p++;
		if (strncmp(p, "on", 2) == 0)
			snprintf(r->write_cache, sizeof(r->write_cache), "on");
		else if (strncmp(p, "off", 3) == 0)
			snprintf(r->write_cache, sizeof(r->write_cache), "off");
	}
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
	struct at a = { 0, err, err_len };

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
					rc = cdm_int(&p, IMPORT_PERCENT,
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
				if ((rc = test_line(val, r, &a)) < 0) {
					*line = at;
					goto out;
				}
				footer = 1;
			} else if (strcasecmp(key, "Date") == 0) {
				if (date_line(val, r) < 0) {
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
				if ((rc = times(val, &a)) < 0) {
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
				if ((rc = label(key, major, sec[0] ? sec : NULL,
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
				if ((rc = values(val, t, &a)) != 0) {
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
	comment_facts(r);
out:
	free(text);
	return rc;
}
