/*
 * import_cdm_result — one CrystalDiskMark result line (import_cdm.h): its
 * label read for the version into the test's name, pattern, block size,
 * QD and threads, and its numbers ("158.635 MB/s [ 145.9 IOPS] < 987.81
 * us>"). The number reader (import_cdm_num) is the one the footer's lines
 * use too: digits and a fraction as CrystalDiskMark prints them, checked
 * against the field's range (import_check).
 *
 * The names follow storbench's presets: "SEQ1M Q8T1", "RND4K Q32T1" for
 * 7.x and 8.x, "Seq Q32T1", "4K Q32T1" for 5.x and 6.x, CrystalDiskMark 3's
 * "Seq", "512K", "4K", "4K QD32" before. A label CrystalDiskMark does not
 * print, or a QD or thread count it cannot be set to, is no test.
 */
#include "import_cdm.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int import_cdm_num(const char **p, enum import_field f, double *v,
		   const struct import_cdm_at *a)
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

int import_cdm_int(const char **p, enum import_field f, int *n,
		   const struct import_cdm_at *a)
{
	double v;
	int rc = import_cdm_num(p, f, &v, a);

	if (rc == 0 && v != (double)(int)v) {
		snprintf(a->err, a->len, "line %d: %s %g is not a whole number",
			 a->line, import_field_name(f), v);
		rc = -EINVAL;
	}
	if (rc == 0)
		*n = (int)v;
	return rc;
}

int import_cdm_values(const char *p, struct import_test *t,
		      const struct import_cdm_at *a)
{
	const char *q;
	int rc;

	t->iops = t->lat_mean_us = -1;
	if ((rc = import_cdm_num(&p, IMPORT_MB_S, &t->mb_s, a)) < 0)
		return rc;
	while (*p == ' ')
		p++;
	if (strncmp(p, "MB/s", 4) != 0)
		return 1;
	if ((q = strchr(p, '['))) {
		q++;
		if ((rc = import_cdm_num(&q, IMPORT_IOPS, &t->iops, a)) < 0)
			return rc;
	}
	if ((q = strchr(p, '<'))) {
		q++;
		if ((rc = import_cdm_num(&q, IMPORT_LAT_US, &t->lat_mean_us,
					 a)) < 0)
			return rc;
	}
	return 0;
}

/* "1MiB", "128KiB", "4KiB", "512KB", "4KB" → bytes into *bytes (0 when
 * it is no size); its short form into name ("1M"). -EINVAL with a->err
 * when the number is not one CrystalDiskMark prints or out of range. */
static int size_word(const char *s, char *short_name, size_t len,
		     uint64_t *bytes, const struct import_cdm_at *a)
{
	double v, b;
	uint64_t mul;
	int rc;

	*bytes = 0;
	if (!isdigit((unsigned char)*s))
		return 0;
	if ((rc = import_cdm_num(&s, IMPORT_BLOCK_SIZE, &v, a)) < 0)
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
static int q_t(const char *s, int *q, int *t, const struct import_cdm_at *a)
{
	const char *p;
	int rc = 0;

	*q = *t = 1;
	if ((p = strstr(s, "QD=")))
		p += 3;
	else if ((p = strstr(s, "Q=")))
		p += 2;
	if (p && (rc = import_cdm_int(&p, IMPORT_QD, q, a)) < 0)
		return rc;
	if ((p = strstr(s, "T="))) {
		p += 2;
		rc = import_cdm_int(&p, IMPORT_THREADS, t, a);
	}
	return rc;
}

int import_cdm_label(const char *lab, int major, const char *section,
		     struct import_test *t, const struct import_cdm_at *a)
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
