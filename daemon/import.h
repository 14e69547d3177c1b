/*
 * import — results written by other tools, parsed into one shape the
 * archive stores as a run (archive_import): CrystalDiskMark text (3 … 8,
 * import_cdm.c), fio JSON (import_fio.c) and DiskSpd XML
 * (import_diskspd.c). The numbers are kept as the
 * tool printed them.
 */
#ifndef STORBENCH_IMPORT_H
#define STORBENCH_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#define IMPORT_MAX_TESTS 64

struct import_test {
	char name[96]; /* storbench's naming: "SEQ1M Q8T1", CDM 3's "4K QD32";
			  fio's job name */
	char rw[8];    /* read, write, mix */
	char pattern[12];    /* sequential, random */
	uint64_t block_size; /* bytes */
	int queue_depth, threads;
	int read_pct;	    /* 100, 0, or the mix's read share */
	double mb_s;	    /* 10^6 B/s, as printed */
	double iops;	    /* < 0 when the tool did not print it */
	double lat_mean_us; /* < 0 when not printed */
};

struct import_run {
	char tool[32];	  /* "CrystalDiskMark" */
	char version[32]; /* "8.0.4" */
	char date[32];	  /* "2024-01-06T05:41:48" (the tool's local time) */
	char os[192];
	char comment[256];  /* the free-form comment line, as written */
	char host[128];	    /* the machine, when the file names it */
	char profile[32];   /* "Default", "Peak", … when the file says */
	char drive[16];	    /* "C:" */
	uint64_t test_size; /* bytes per test file */
	int iterations;	    /* the "(x5)": each number is the best of these */
	/* read from the comment where recognisable, else "" / 0 */
	char fs_type[16];    /* "ntfs", "refs", "fat32", "exfat" */
	int64_t cluster;     /* allocation unit, bytes */
	char write_cache[8]; /* "on", "off" */
	struct import_test t[IMPORT_MAX_TESTS];
	size_t n;
};

/*
 * Parses a CrystalDiskMark text result (UTF-8 or UTF-16 with or without a
 * BOM, CRLF or LF). Returns 0, or -EINVAL with err naming the line and the
 * problem (*line is 1-based, 0 when it concerns the whole file).
 */
int import_cdm(const char *buf, size_t len, struct import_run *r, char *err,
	       size_t err_len, int *line);

/*
 * Parses fio JSON output (json or json+, fio 2.x and 3.x, text before the
 * JSON allowed). Each job and direction that moved data is a test. Returns
 * 0, or -EINVAL with err saying where.
 */
int import_fio(const char *buf, size_t len, struct import_run *r, char *err,
	       size_t err_len, int *line);

/* Parses DiskSpd XML (-Rxml). A test per target and direction. */
int import_diskspd(const char *buf, size_t len, struct import_run *r, char *err,
		   size_t err_len, int *line);

/* Parses DiskSpd's text report (-Rtext): a test per direction from the
 * "total:" rows of its Read IO and Write IO tables. */
int import_diskspd_text(const char *buf, size_t len, struct import_run *r,
			char *err, size_t err_len, int *line);

/* Checks an import's extra labels (a comma list: at most 24, each 1 to 64
 * bytes of UTF-8 — "a,,b" has an empty one —, no control characters, no
 * edge spaces, each once) and file name (at most 255 bytes of UTF-8, no
 * '/', '\\', '"' or control characters); NULL passes. Returns 0, or
 * -EINVAL with err naming the field. */
int import_check_args(const char *labels, const char *filename, char *err,
		      size_t len);

struct archive;

/* The format of a result file from its content: "cdm", "fio", "diskspd",
 * or NULL. */
const char *import_detect(const char *buf, size_t len);

/* Parses buf as format into *r. Returns 0, -EOPNOTSUPP (a format this
 * version cannot import), or -EINVAL / -ENOMEM with err saying why. */
int import_parse(const char *format, const char *buf, size_t len,
		 struct import_run *r, char *err, size_t err_len);

/*
 * Stores r as an imported run with its original file (labels: "imported",
 * the tool, what the file says, then the comma list labels_extra). Returns
 * 0 with *id, -EEXIST with *id the run of the same file imported before,
 * or another negative errno (nothing written).
 */
int import_store(struct archive *a, const struct import_run *r,
		 const char *format, const void *original, size_t len,
		 const char *filename, const char *labels_extra, int64_t *id);

#endif
