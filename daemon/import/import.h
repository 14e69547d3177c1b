/*
 * import — results written by other tools, parsed into one shape the
 * archive stores as a run (archive_import): CrystalDiskMark text (3 … 8,
 * import_cdm.c), fio JSON (import_fio.c), DiskSpd XML (import_diskspd.c)
 * and DiskSpd text (import_diskspd_text.c). The numbers are kept as the
 * tool printed them.
 */
#ifndef STORBENCH_IMPORT_H
#define STORBENCH_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define IMPORT_MAX_TESTS 64
#define IMPORT_MAX_WARN 4
#define IMPORT_MAX_RUNS 16
/* fio prints up to 20 levels; DiskSpd's text report 13 (with min and max
 * beside them), its XML 106 (1 … 99, 99.9 … 99.9999999) */
#define IMPORT_MAX_PCT 128

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
	int line;	    /* where its numbers are in the file (1-based; 0:
			       not one line), for the range check's error */
	/* what the file states beside the rates, each only when it does
	 * (IMPORT_HAS_*): never derived from the rates */
	unsigned has;
	uint64_t bytes, ios; /* moved, completed */
	double seconds;	     /* the test's time */
	double lat_min_us, lat_max_us, lat_stdev_us;
	/* every latency percentile the file states, at its level as printed
	 * (99.9 is 99.9, 99.99999 is 99.99999), µs, levels ascending */
	struct import_pct {
		double level, us;
	} pct[IMPORT_MAX_PCT];
	size_t n_pct;
	char lat_of[8]; /* what the latencies time: "clat" (fio's completion
			   latency, without submission) or "lat" (the whole
			   I/O); "" with no latency */
	/* fio json+'s bins as a storbench histogram (hist_encode's bytes,
	 * malloc'd, freed by import_runs_free), or NULL */
	unsigned char *hist;
	size_t hist_len;
};
#define IMPORT_HAS_BYTES 1u
#define IMPORT_HAS_IOS 2u
#define IMPORT_HAS_SECONDS 4u
#define IMPORT_HAS_MIN 8u
#define IMPORT_HAS_MAX 16u
#define IMPORT_HAS_STDEV 32u

/* Adds percentile level (0 < level < 100) = us to t, keeping the levels
 * ascending and each once: 0, or -ENOSPC (IMPORT_MAX_PCT of them). */
int import_pct_add(struct import_test *t, double level, double us);

/* Room for a target path: Windows' 260 characters, 3 bytes each in UTF-8. */
#define IMPORT_TARGET_LEN 784

struct import_run {
	char tool[32];	  /* "CrystalDiskMark" */
	char version[32]; /* "8.0.4" */
	char date[32];	  /* "2024-01-06T05:41:48" (the tool's local time) */
	char os[192];
	char comment[256]; /* the free-form comment line, as written */
	char host[128];	   /* the machine, when the file names it */
	char label[65];	   /* a label the file gives ("" for none): fio
			      --client's host, "all-clients" for their sum */
	char profile[32];  /* "Default", "Peak", … when the file says */
	char drive[16];	   /* "C:" */
	/* what was tested as the file names it, whole: DiskSpd's target path
	   (a Windows path, 260 characters, in UTF-8); "" for none */
	char target[IMPORT_TARGET_LEN];
	uint64_t test_size; /* bytes per test file */
	int iterations;	    /* the "(x5)": each number is the best of these */
	/* read from the comment where recognisable, else "" / 0 */
	char fs_type[16];    /* "ntfs", "refs", "fat32", "exfat" */
	int64_t cluster;     /* allocation unit, bytes */
	char write_cache[8]; /* "on", "off" */
	struct import_test t[IMPORT_MAX_TESTS];
	size_t n;
	/* what the import had to believe or guess (DiskSpd's thread count
	   when its command line and its tables disagree, …): sentences
	   stored as the run's warnings (import_warn) */
	char warn[IMPORT_MAX_WARN][200];
	size_t n_warn;
	/* a CrystalDiskMark header, as printed, for its text export:
	   "1 GiB (x5) [D: 48% (893/1863GiB)]", "[Admin]" */
	char test_line[96];
	char mode[32];
};

/* A file's runs, in the order the file has them (a DiskSpd text file may
 * hold several complete runs one after the other). */
struct import_runs {
	struct import_run *v;
	size_t n, cap;
};

/* A new zeroed run at the end of s, or NULL (out of memory, or more than
 * IMPORT_MAX_RUNS). */
struct import_run *import_runs_add(struct import_runs *s);
void import_runs_free(struct import_runs *s);

/* Adds a warning sentence to r (printf-style; beyond IMPORT_MAX_WARN the
 * last is kept). */
void import_warn(struct import_run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The ranges a tool could have printed: every number an importer parses or
 * derives is checked against one of these (import_num, import_check_run),
 * so a file with 1e-300 s, inf, a hex float or an overflowing count is
 * refused with the field and the line, never stored.
 */
enum import_field {
	IMPORT_MB_S,	   /* 0 … 10^7 MB/s (10 TB/s) */
	IMPORT_IOPS,	   /* 0 … 10^9 */
	IMPORT_LAT_US,	   /* 0, or 1 ns … 10^10 µs (about 2.8 h) */
	IMPORT_SECONDS,	   /* a test's time: 10^-3 … 10^7 s */
	IMPORT_BLOCK_SIZE, /* 1 B … 4 GiB */
	IMPORT_QD,	   /* 1 … 65536 */
	IMPORT_THREADS,	   /* 1 … 65536 */
	IMPORT_BEST_OF,	   /* iterations: 1 … 1000 */
	IMPORT_TEST_SIZE,  /* bytes: 0 … 2^50 */
	IMPORT_BYTES,	   /* bytes moved: 0 … 10^18 */
	IMPORT_COUNT,	   /* I/Os, files, targets: 0 … 10^15 */
	IMPORT_PERCENT,	   /* 0 … 100 */
	IMPORT_N_FIELDS
};

/* The field's name as errors say it ("MB/s", "test time") and its range. */
const char *import_field_name(enum import_field f);
int import_in_range(enum import_field f, double v);

/*
 * A number as the tools print it at s: an optional sign, decimal digits
 * with an optional fraction and exponent ("158.635", "1.2e+03", ".5") — no
 * hex float, inf or nan, which strtod would take. Leading blanks are
 * skipped. Returns 0 with *v and *end past it (end may be NULL), or -1 when
 * there is none (nothing consumed).
 */
int import_number(const char *s, double *v, const char **end);

/* import_number of a latency printed in ms, into *us in µs as printed
 * ("2.038" is 2038 exactly, not 2.038 × 1000 in binary): 0, or -1 as
 * import_number. */
int import_ms_us(const char *s, double *us, const char **end);

/*
 * import_number, then checked against f's range: 0, or -EINVAL with err
 * "line N: FIELD V out of range (LO … HI)" (N omitted when line is 0) and
 * *line_out = line.
 */
int import_num(const char *s, enum import_field f, double *v, const char **end,
	       int line, char *err, size_t err_len, int *line_out);

/* Checks a value already parsed or derived (IOPS from a count and a time):
 * 0, or -EINVAL with err as import_num's. */
int import_check(enum import_field f, double v, int line, char *err,
		 size_t err_len, int *line_out);

/*
 * Parses a CrystalDiskMark text result (UTF-8 or UTF-16 with or without a
 * BOM, CRLF or LF). Returns 0, or -EINVAL with err naming the line and the
 * problem (*line is 1-based, 0 when it concerns the whole file).
 */
int import_cdm(const char *buf, size_t len, struct import_run *r, char *err,
	       size_t err_len, int *line);
/* Is buf a CrystalDiskMark text (it names the tool, and it is not a fio
 * JSON whose job names CrystalDiskMark in a path)? */
int import_cdm_sniff(const char *buf, size_t len);

/*
 * Parses fio JSON output (json or json+, fio 2.x and 3.x, text before the
 * JSON allowed; with --status-interval the final report) into runs of out:
 * one, or with fio --client one per host and one for "All clients". Each
 * job and direction that moved data is a test. Returns 0, or -EINVAL with
 * err saying where.
 */
int import_fio_runs(const char *buf, size_t len, struct import_runs *out,
		    char *err, size_t err_len, int *line);
/* What fio direction s (a job's "read" or "write") states beside its rates
 * into t (import_fio_lat.c): io_bytes (already in bytes: io_bytes), its
 * total_ios and runtime, its latency's percentiles at their levels, min,
 * max, stdev, and json+'s bins as t->hist, each checked (a percentile
 * a number from 0, not falling with the level, within min … max; min not
 * above max; the bins' counts summing to N or total_ios). 0, -ENOMEM, or
 * -EINVAL with err naming the key after where ("jobs[0] (name) read"). */
int import_fio_stated(json_t *s, struct import_test *t, double io_bytes,
		      const char *where, char *err, size_t err_len);
/* The last JSON document of fio output buf into *root (a new reference),
 * and how many interim reports came before it (import_fio_report.c). 0,
 * or -EINVAL with err and *line (where the document refused starts). */
int import_fio_last_report(const char *buf, size_t len, json_t **root,
			   int *interim, char *err, size_t err_len, int *line);
/* Is buf fio's JSON output (its "fio version")? */
int import_fio_sniff(const char *buf, size_t len);

/* What a fio run's jobs leave to be said once all are read (import_fio.c,
 * import_fio_client.c). */
struct import_fio_tally {
	size_t jobs, no_options, unknown_bs;
	int differ;	  /* the sum of clients whose jobs' options differ */
	char unknown[96]; /* the first test of unknown block size */
};
/* fio job j, entry i of list ("jobs" or "client_stats"; g: the global
 * options that apply, or NULL), into tests of r. 0, or -EINVAL with err. */
int import_fio_job(json_t *g, json_t *j, const char *list, size_t i,
		   struct import_run *r, struct import_fio_tally *ty, char *err,
		   size_t err_len);
/* A new run at the end of out with the report's tool, version ("fio-…")
 * and date; NULL when out is full. */
struct import_run *import_fio_new_run(json_t *root, const char *ver,
				      struct import_runs *out);
/* r's closing check and warnings. 0, or -EINVAL with err. */
int import_fio_finish(struct import_run *r, const struct import_fio_tally *ty,
		      int interim, char *err, size_t err_len);
/*
 * fio --client host1 --client host2 --output-format=json: "client_stats"
 * holds each host's jobs (with "hostname") and, with more than one host,
 * an "All clients" entry that sums them (its "hostname" is just the last
 * host's). A run per client, in the order the clients first appear, named
 * and labelled by the host (host:port for two fio servers on one host),
 * then the sum as a run labelled "all-clients" (import_fio_client.c). With
 * several hosts "global options" is an object (fio 3.33) or an array of one
 * object per host in the order above (fio's client.c today, which adds a
 * host's with its first entry); an array of another count is not guessed
 * at: the jobs then have their own options only. 0, -ENOMEM, or -EINVAL
 * with err.
 */
int import_fio_clients(json_t *root, const char *ver, json_t *clients,
		       int interim, struct import_runs *out, char *err,
		       size_t err_len);

/* Parses DiskSpd XML (-Rxml). A test per target and direction; thread
 * counts the profile and the results disagree on are a warning of r. */
int import_diskspd(const char *buf, size_t len, struct import_run *r, char *err,
		   size_t err_len, int *line);

/* Parses DiskSpd's text report (-Rtext, import_diskspd_text.c): a test
 * per direction from the "total:" rows of its Read IO and Write IO tables;
 * each complete run in the file (its own "Command Line:") is a run
 * appended to out. */
int import_diskspd_text(const char *buf, size_t len, struct import_runs *out,
			char *err, size_t err_len, int *line);
/* A DiskSpd file, XML (one run, import_diskspd) or text (import_diskspd_text,
 * several), into out. */
int import_diskspd_runs(const char *buf, size_t len, struct import_runs *out,
			char *err, size_t err_len, int *line);
/* Is buf a DiskSpd result (XML's <Results>, the tool's name, or its text
 * report's "Input parameters:" with a "Write IO" table)? */
int import_diskspd_sniff(const char *buf, size_t len);

/*
 * DiskSpd's latency percentiles (-L), a table of rows the XML and the text
 * report share (import_diskspd_lat.c): each row a level and a value per
 * column (Read, Write, Total), levels ascending as DiskSpd prints them.
 */
struct import_dspd_lat {
	size_t n;
	struct import_dspd_row {
		double level; /* 0: min, 100: max, else the percentile */
		double us[3]; /* Read, Write, Total; < 0: "N/A" or absent */
		int line;
	} row[IMPORT_MAX_PCT + 2];
};
/* The level of a text report's row name ("min", "25th", "3-nines", "max":
 * 0, 25, 99.9, 100) into *level: 0, or -1 for a name DiskSpd does not
 * print. */
int import_dspd_level(const char *name, double *level);
/*
 * Appends a row (us as import_dspd_row's, µs) named name (for errors:
 * "3-nines", "<Percentile>99.9") at line to l: 0, or -EINVAL with err
 * naming the line and the row when its level is not above the row
 * before's, a column's value is below the one before (DiskSpd prints them
 * ascending), or the table has more rows than a DiskSpd table.
 */
int import_dspd_row_add(struct import_dspd_lat *l, double level,
			const double us[3], int line, const char *name,
			char *err, size_t err_len, int *line_out);
/* Column col of l (0 Read, 1 Write, 2 Total) into t as the file states it:
 * min and max (levels 0 and 100), the percentiles at their levels, of
 * "lat" (DiskSpd times the whole I/O). A row without a value in col
 * gives nothing. */
void import_dspd_lat_put(const struct import_dspd_lat *l, int col,
			 struct import_test *t);

/* storbench's name of a DiskSpd test from t's block size, queue depth and
 * threads into t->name: "RND4K Q32T2 W50" (a mix names its write share),
 * then suffix when not NULL or "" (a target, "5 files"). */
void import_diskspd_name(struct import_test *t, int random, int write_pct,
			 const char *suffix);

/* Checks an import's extra labels (a comma list: at most 24, each 1 to 64
 * bytes of UTF-8 — "a,,b" has an empty one —, no control characters, no
 * edge spaces, each once) and file name (at most 255 bytes of UTF-8, no
 * '/', '\\', '"' or control characters); NULL passes. Returns 0, or
 * -EINVAL with err naming the field. */
int import_check_args(const char *labels, const char *filename, char *err,
		      size_t len);

struct archive;

/*
 * An importer of another tool's results: one line of the table in
 * import_parse.c, which lists them in the order a file is told apart by its
 * content. A new importer is its parser file (import_<name>.c: its parse
 * and sniff functions) and that one line.
 */
struct import_format {
	const char *name;    /* "cdm": ?format=, --format, a run's format */
	const char *profile; /* an imported run's profile: "crystaldiskmark" */
	/* Is buf this tool's file, by its content? */
	int (*sniff)(const char *buf, size_t len);
	/* A file that holds one run: parses it into r, as import_cdm. */
	int (*one)(const char *buf, size_t len, struct import_run *r, char *err,
		   size_t err_len, int *line);
	/* Or one that may hold several: appends each to out. */
	int (*many)(const char *buf, size_t len, struct import_runs *out,
		    char *err, size_t err_len, int *line);
};

/* The importer of name ("cdm", "fio", "diskspd"), or NULL (also for
 * "storbench": storbench's own run documents take their own road,
 * import_native.h). */
const struct import_format *import_format_find(const char *name);

/* The formats a file may name, for usage texts and refusals, into buf:
 * "cdm, fio, diskspd or storbench". */
void import_formats_text(char *buf, size_t len);

/* Does buf hold word, as UTF-8 or as UTF-16LE text? (a sniff's test) */
int import_holds(const char *buf, size_t len, const char *word);

/* The format of a result file from its content: "storbench", "cdm", "fio",
 * "diskspd", or NULL. */
const char *import_detect(const char *buf, size_t len);

/* Parses buf as format into out (its runs; import_runs_free). Every
 * test's numbers are checked against their ranges (import_check_run).
 * Returns 0, -EOPNOTSUPP (a format this version cannot import), or -EINVAL
 * / -ENOMEM with err saying why (out is then empty). */
int import_parse(const char *format, const char *buf, size_t len,
		 struct import_runs *out, char *err, size_t err_len);

/* No control character in the n bytes of a text report but tab, CR and LF
 * (a NUL would cut the line it is in): 0, or -EINVAL with err naming the
 * line and *line set. tool names the writer ("CrystalDiskMark"). */
int import_no_controls(const char *text, size_t n, const char *tool, char *err,
		       size_t len, int *line);

/* Is s a time as an import stores it: "2024-01-06T05:41:48" (the tool's
 * local time) or with "Z" (UTC), a real day of a year 1980 … 2200? */
int import_date_ok(const char *s);

/* Every number of r against its range: 0, or -EINVAL with err naming the
 * field, the test and its line. */
int import_check_run(const struct import_run *r, char *err, size_t err_len);

/*
 * Stores r as an imported run with its original file (labels: "imported",
 * the tool, what the file says, then the comma list labels_extra). Returns
 * 0 with *id, -EEXIST with *id the run of the same file imported before,
 * or another negative errno (nothing written).
 */
int import_store(struct archive *a, const struct import_run *r,
		 const char *format, const void *original, size_t len,
		 const char *filename, const char *labels_extra, int64_t *id);

/* One run an import file gave. */
struct import_done {
	int64_t id;
	int duplicate; /* the same run was in the archive before: id is it */
	size_t tests;
	char tool[72]; /* "CrystalDiskMark 8.0.4" */
};

/*
 * Imports a result file: detected (format NULL) or of format ("cdm", "fio",
 * "diskspd", "storbench"), parsed, and every run it holds stored in one
 * transaction (all or none), labelled with labels (a comma list, checked:
 * import_check_args) and kept with the original under filename (NULL:
 * none). done needs room for IMPORT_MAX_RUNS; *n receives how many.
 * Returns 0; -EPROTO (not recognised), -EOPNOTSUPP (a format this version
 * cannot import), -EINVAL (not a valid file of its format) or -ENOTUNIQ
 * (a storbench run whose uuid another run here has), each with err saying
 * why; or -ENOSPC, -EIO, -ENOMEM from the archive (nothing
 * written).
 */
int import_file(struct archive *a, const char *format, const char *buf,
		size_t len, const char *filename, const char *labels,
		struct import_done *done, size_t *n, char *err, size_t err_len);

/* Appends to the JSON array of strings l each label of the comma list
 * extra (checked: import_check_args; NULL: none) not already in it.
 * 0 or -ENOMEM. */
int import_labels_add(json_t *l, const char *extra);

/* The SHA-256 of len bytes at data, as 64 lower-case hex digits. */
void import_sha256_hex(const void *data, size_t len, char out[65]);

/* import_file for storbench's own run document (import_native.c). */
int import_native(struct archive *a, const char *buf, size_t len,
		  const char *filename, const char *labels,
		  struct import_done *done, size_t *n, char *err,
		  size_t err_len);

#endif
