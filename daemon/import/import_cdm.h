/*
 * import_cdm — what the CrystalDiskMark text parser's files share (the
 * parser itself is import.h's import_cdm): import_cdm.c reads the text line
 * by line (the banner, the sections, which line is what),
 * import_cdm_result.c a result line's test and numbers, import_cdm_footer.c
 * the run's Test, Time and Date lines and its comment.
 */
#ifndef STORBENCH_IMPORT_CDM_H
#define STORBENCH_IMPORT_CDM_H

#include <stddef.h>

#include "import.h"

/* Where a number is read: the line, and the error's buffer. */
struct import_cdm_at {
	int line;
	char *err;
	size_t len;
};

/* --- a result line (import_cdm_result.c) --- */

/*
 * A number at *p as CrystalDiskMark prints it ("158.635", "  8": digits
 * and a fraction; blanks before it skipped), advancing *p past it, checked
 * against f's range. Returns 0, or -EINVAL with a->err naming the line and
 * the field.
 */
int import_cdm_num(const char **p, enum import_field f, double *v,
		   const struct import_cdm_at *a);

/* import_cdm_num for a whole count (QD, threads, iterations, a
 * percentage). */
int import_cdm_int(const char **p, enum import_field f, int *n,
		   const struct import_cdm_at *a);

/* The numbers after a label: "158.635 MB/s [ 145.9 IOPS] < 987.81 us>".
 * Returns 0, 1 when the MB/s are not followed by "MB/s", or -EINVAL with
 * a->err. */
int import_cdm_values(const char *p, struct import_test *t,
		      const struct import_cdm_at *a);

/*
 * One result line's label (before its ':'), read for the version (major):
 * fills name, pattern, block size, QD, threads and — when the label says,
 * else section's ("read", "write", "mix" or NULL) — rw. Returns 0, 1 when
 * the label is not a test CrystalDiskMark prints, or -EINVAL with a->err
 * (a number out of its range).
 */
int import_cdm_label(const char *lab, int major, const char *section,
		     struct import_test *t, const struct import_cdm_at *a);

/* --- the run's lines (import_cdm_footer.c) --- */

/*
 * The measure and interval times a Time or Test line names ("Measure 5 sec
 * / Interval 5 sec", "[Interval=5 sec]", "[Interval: 5 sec]"): a measure
 * is a test time (IMPORT_SECONDS), an interval that or 0 (CrystalDiskMark
 * offers 0 … 600 s). 0, or -EINVAL with a->err naming the line.
 */
int import_cdm_times(const char *v, const struct import_cdm_at *a);

/*
 * "Test : 1000 MB [F: …] (x5)", "Test: 1 GiB (x5) […]": the test size,
 * the count (CrystalDiskMark runs a test 1 to 9 times; storbench's own
 * export any count of its range) and the drive, and the line as printed,
 * into r. Returns 0, or -EINVAL with a->err.
 */
int import_cdm_test_line(const char *v, struct import_run *r,
			 const struct import_cdm_at *a);

/* "2012/08/24 23:05:47" → r->date "2012-08-24T23:05:47"; -1 when it is no
 * date. */
int import_cdm_date(const char *v, struct import_run *r);

/* Filesystem, allocation unit and write cache where r->comment says them:
 * "NTFS Aloc 4096", "ReFS 64K", "CacheON", "write cache off". */
void import_cdm_comment_facts(struct import_run *r);

#endif
