/*
 * import_diskspd_text — DiskSpd's text report (-Rtext, the default) into
 * runs (import.h), one per complete report in the file.
 *
 * A report is "Command Line: …" (missing when a user saved only what
 * follows), "Input parameters:" with a "path:" block per target, "System
 * information:", then per timespan "actual test time:", "thread count:"
 * and the Total IO, Read IO and Write IO tables: a row per thread and
 * target ("     0 | bytes | I/Os | MiB/s | I/O per s [| AvgLat] …"), then
 * the "total:" row. A test per direction is read from the Read IO and
 * Write IO total rows: its bytes and I/Os as they state them, its time
 * the "actual test time". A new "Command Line:", or a second "Input
 * parameters:", starts the next report; text around reports (a user's
 * notes, the shell prompt) is passed over.
 *
 * With -L the latency percentiles follow: a "%-ile | Read (ms) | Write
 * (ms) | Total (ms)" table per target headed by its path (only with
 * several targets), then one of all I/Os headed "total:" (2.0.x: that one
 * alone, without a heading). Only the table of all I/Os describes the
 * tests (each is all targets' I/Os of its direction): the read test takes
 * its Read column, the write test its Write column (import_diskspd_lat.c).
 * Every table's numbers are checked all the same.
 *
 * Threads: DiskSpd runs -t<n> threads per target (each report's
 * "threads per file:") or, with -F<n>, a pool of n threads for all
 * targets ("thread pool with n threads" from 2.1 on; no "threads per
 * file:" line). The command line, the parameters, the "thread count:"
 * line and the thread table must agree; when they do not the thread table
 * (the threads that were measured) is believed and the run says so.
 *
 * Every number goes through import_num / import_check with its line.
 */
#include "import.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a report has said so far. */
struct rep {
	struct import_run *r;
	int params;    /* "Input parameters:" seen */
	int in_params; /* between it and the results */
	int paths;     /* "path:" blocks */
	int qd, random, write_pct;
	uint64_t bs;
	int cmd_f, cmd_t;    /* -F<n>, -t<n> (0: not on the command line) */
	int per_file, n_per; /* Σ "threads per file:", how many */
	int pool;	     /* "thread pool with n threads" */
	int count;	     /* "thread count:" */
	int table;	     /* the thread table: highest row + 1 */
	int has_lat;	     /* the tables have an AvgLat column */
	int section;	     /* 0 read, 1 write, 2 total, -1 none */
	int done;	     /* bit of each section whose "total:" row came */
	int last;	     /* the line read last */
	double secs;
	int secs_line;
	int ts_first;	 /* the timespan's first test */
	int in_lat;	 /* in a "%-ile" table: 1, or 2 when it is all
			    I/Os' (the tests') */
	int heads_total; /* the line before was "total:" or blank */
	struct import_dspd_lat lat;
	double rw_lat_us[IMPORT_MAX_TESTS];
	double rw_ios[IMPORT_MAX_TESTS], rw_bytes[IMPORT_MAX_TESTS];
	int rw_write[IMPORT_MAX_TESTS];
};

/* The integer at s as field f (one whose range fits an int: a thread or
 * queue count, a percentage). */
static int int_at(const char *s, enum import_field f, int *v, int line,
		  char *err, size_t err_len, int *line_out)
{
	double d;
	int rc = import_num(s, f, &d, NULL, line, err, err_len, line_out);

	if (rc == 0)
		*v = (int)d;
	return rc;
}

/* "4096", "4KiB", "1MiB", "1.50MiB", "512B": DiskSpd's sizes, in bytes. */
static int size_at(const char *s, uint64_t *bs, int line, char *err,
		   size_t err_len, int *line_out)
{
	static const struct {
		const char *unit;
		double mul;
	} units[] = { { "KiB", 1024.0 },
		      { "MiB", 1048576.0 },
		      { "GiB", 1073741824.0 },
		      { "TiB", 1099511627776.0 } };
	const char *end;
	double v, mul = 1;
	int rc;

	if ((rc = import_num(s, IMPORT_BLOCK_SIZE, &v, &end, line, err, err_len,
			     line_out)) < 0)
		return rc;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strncmp(end, units[i].unit, 3) == 0)
			mul = units[i].mul;
	if ((rc = import_check(IMPORT_BLOCK_SIZE, v * mul, line, err, err_len,
			       line_out)) == 0)
		*bs = (uint64_t)(v * mul);
	return rc;
}

/* -F<n> and -t<n> of a "Command Line:" (DiskSpd's switches are
 * case-sensitive: -T is the thread stride, -f the target size). */
static int command_line(struct rep *p, const char *s, int line, char *err,
			size_t err_len, int *line_out)
{
	int rc = 0;

	for (const char *q = s; rc == 0 && (q = strstr(q, " -")); q += 2) {
		if ((q[2] == 'F' || q[2] == 't') && q[3] >= '0' && q[3] <= '9')
			rc = int_at(q + 3, IMPORT_THREADS,
				    q[2] == 'F' ? &p->cmd_f : &p->cmd_t, line,
				    err, err_len, line_out);
	}
	return rc;
}

/* A latency in ms at s, into *us (µs), *end past it (end may be NULL). */
static int ms_at(const char *s, double *us, const char **end, int line,
		 char *err, size_t err_len, int *line_out)
{
	if (import_ms_us(s, us, end) < 0) {
		snprintf(err, err_len, "line %d: latency (ms): not a number",
			 line);
		*line_out = line;
		return -EINVAL;
	}
	return import_check(IMPORT_LAT_US, *us, line, err, err_len, line_out);
}

/* The numbers of a "total:" row after "total:": bytes | I/Os | MiB/s |
 * I/O per s [| AvgLat (ms), when the tables have it]. */
static int total_row(struct rep *p, const char *s, int line, char *err,
		     size_t err_len, int *line_out)
{
	struct import_run *r = p->r;
	double bytes, ios, mib, iops, lat = -1;
	const char *e;
	int rc;

	if ((rc = import_num(s, IMPORT_BYTES, &bytes, &e, line, err, err_len,
			     line_out)) < 0 ||
	    (rc = import_num(e + strspn(e, " |"), IMPORT_COUNT, &ios, &e, line,
			     err, err_len, line_out)) < 0 ||
	    (rc = import_num(e + strspn(e, " |"), IMPORT_MB_S, &mib, &e, line,
			     err, err_len, line_out)) < 0 ||
	    (rc = import_num(e + strspn(e, " |"), IMPORT_IOPS, &iops, &e, line,
			     err, err_len, line_out)) < 0 ||
	    (p->has_lat && (rc = ms_at(e + strspn(e, " |"), &lat, NULL, line,
				       err, err_len, line_out)) < 0))
		return rc;
	if (ios > 0 && r->n < IMPORT_MAX_TESTS) {
		struct import_test *t = &r->t[r->n];
		memset(t, 0, sizeof(*t));
		p->rw_write[r->n] = p->section;
		p->rw_ios[r->n] = ios;
		p->rw_bytes[r->n] = bytes;
		p->rw_lat_us[r->n++] = lat;
		t->line = line;
		t->iops = iops;
		t->mb_s = bytes / 1e6; /* over the test time: finish() */
	}
	return 0;
}

/* A row of a "%-ile" table ("min |  N/A |  0.015 |  0.015": its name, then
 * Read, Write and Total in ms or "N/A") into p->lat. */
static int lat_row(struct rep *p, const char *s, int line, char *err,
		   size_t err_len, int *line_out)
{
	size_t n = strcspn(s, " |");
	char name[16];
	const char *q = s + n;
	double level, us[3];
	int rc;

	snprintf(name, sizeof(name), "%.*s", (int)(n < 15 ? n : 15), s);
	if (n > 15 || import_dspd_level(name, &level) < 0) {
		snprintf(err, err_len,
			 "line %d: not a latency percentile row DiskSpd "
			 "prints (min, 25th … 99th, 3-nines … 9-nines, max)",
			 line);
		*line_out = line;
		return -EINVAL;
	}
	for (int c = 0; c < 3; c++) {
		q += strspn(q, " \t");
		if (*q != '|')
			break;
		q += 1 + strspn(q + 1, " \t");
		us[c] = -1;
		if (strncmp(q, "N/A", 3) == 0)
			q += 3;
		else if ((rc = ms_at(q, &us[c], &q, line, err, err_len,
				     line_out)) < 0)
			return rc;
		if (c == 2 && !q[strspn(q, " \t")])
			return import_dspd_row_add(&p->lat, level, us, line,
						   name, err, err_len,
						   line_out);
	}
	snprintf(err, err_len,
		 "line %d: latency percentile row %s: not Read | Write | "
		 "Total",
		 line, name);
	*line_out = line;
	return -EINVAL;
}

/* Ends the "%-ile" table p is in: the table of all I/Os (not a target's)
 * goes to the timespan's tests, each the column of its direction. */
static void lat_end(struct rep *p)
{
	for (int i = p->ts_first; p->in_lat == 2 && i < (int)p->r->n; i++)
		import_dspd_lat_put(&p->lat, p->rw_write[i], &p->r->t[i]);
	p->in_lat = 0;
}

/*
 * Do the numbers of test i's total row agree, as DiskSpd computes them:
 * every I/O is a block (bytes = I/Os × block size) and the I/O per s is
 * the I/Os over the test time (within what the printed two decimals of
 * both allow)? 0, or -EINVAL naming the row's line.
 */
static int consistent(const struct rep *p, size_t i, char *err, size_t err_len,
		      int *line)
{
	const struct import_test *t = &p->r->t[i];
	double want = p->rw_ios[i] / p->secs;

	if (p->rw_bytes[i] != p->rw_ios[i] * (double)p->bs) {
		snprintf(err, err_len,
			 "line %d: %.0f bytes are not its %.0f I/Os of %llu "
			 "bytes",
			 t->line, p->rw_bytes[i], p->rw_ios[i],
			 (unsigned long long)p->bs);
		*line = t->line;
		return -EINVAL;
	}
	if (fabs(t->iops - want) > 0.0051 + want * 0.0051 / p->secs) {
		snprintf(err, err_len,
			 "line %d: I/O per s %.2f is not its %.0f I/Os over "
			 "the test time (%.2f)",
			 t->line, t->iops, p->rw_ios[i], want);
		*line = t->line;
		return -EINVAL;
	}
	return 0;
}

/* Appends "label v" to the list b (size len) when v was printed. */
static void said(char *b, size_t len, const char *label, int v)
{
	size_t n = strlen(b);

	if (v > 0 && n < len)
		snprintf(b + n, len - n, "%s%s %d", n ? ", " : "", label, v);
}

/* The threads one report's tests ran with (all of -F's pool, or -t's per
 * target), with a warning when its sources disagree. */
static int threads_of(struct rep *p)
{
	const int targets = p->paths > 0 ? p->paths : 1;
	const int pool = p->cmd_f > 0 || p->pool > 0 || p->n_per == 0;
	int cmd = p->cmd_f ? p->cmd_f : p->cmd_t * targets;
	int par = p->pool ? p->pool : p->per_file;
	int total = p->table ? p->table : p->count ? p->count : par ? par : cmd;
	const char *from = p->table   ? "the thread table's"
			   : p->count ? "\"thread count:\""
			   : par      ? "the parameters'"
				      : "the command line's";
	char b[160] = "";

	if (total == 0) {
		import_warn(p->r, "DiskSpd printed no thread count: 1 assumed");
		return 1;
	}
	if ((cmd && cmd != total) || (par && par != total) ||
	    (p->count && p->count != total)) {
		said(b, sizeof(b), p->cmd_f ? "-F" : "-t × targets", cmd);
		said(b, sizeof(b),
		     p->pool ? "thread pool" : "threads per file (sum)", par);
		said(b, sizeof(b), "\"thread count:\"", p->count);
		said(b, sizeof(b), "thread table", p->table);
		import_warn(p->r,
			    "DiskSpd's thread counts disagree (%s): believed "
			    "%s %d",
			    b, from, total);
	}
	if (pool || total % targets)
		return total;
	return total / targets;
}

/* Closes report p: its tests named and checked, or the run dropped when
 * it measured nothing (a report cut short, a "Command Line:" quoted in
 * prose). Returns 0 or -EINVAL. */
static int finish(struct import_runs *out, struct rep *p, char *err,
		  size_t err_len, int *line)
{
	struct import_run *r = p->r;
	int threads, rc = 0;
	char files[24] = "";

	if (!r)
		return 0;
	lat_end(p);
	if (r->n == 0) {
		out->n--; /* the last run of out */
		goto out;
	}
	if (p->secs_line && p->done != 7) {
		static const char *const sec[] = { "Read", "Write", "Total" };
		int k = !(p->done & 4) ? 2 : !(p->done & 1) ? 0 : 1;
		snprintf(err, err_len,
			 "line %d: the report stops here, before the %s IO "
			 "table's \"total:\" row: cut short",
			 p->last, sec[k]);
		*line = p->last;
		rc = -EINVAL;
		goto out;
	}
	if (p->secs_line == 0) {
		snprintf(err, err_len,
			 "line %d: a DiskSpd report without \"actual test "
			 "time\"",
			 r->t[0].line);
		*line = r->t[0].line;
		rc = -EINVAL;
		goto out;
	}
	if (p->bs == 0) {
		snprintf(err, err_len,
			 "line %d: a DiskSpd report without \"block size\"",
			 r->t[0].line);
		*line = r->t[0].line;
		rc = -EINVAL;
		goto out;
	}
	if (p->qd == 0) {
		import_warn(r, "DiskSpd printed no outstanding I/O count: "
			       "queue depth 1 assumed");
		p->qd = 1;
	}
	threads = threads_of(p);
	if (p->paths > 1) {
		snprintf(files, sizeof(files), "%d files", p->paths);
		snprintf(r->comment, sizeof(r->comment), "%d target files",
			 p->paths);
	}
	for (size_t i = 0; i < r->n && rc == 0; i++) {
		struct import_test *t = &r->t[i];
		if ((rc = consistent(p, i, err, err_len, line)) < 0)
			goto out;
		t->mb_s /= p->secs;
		t->lat_mean_us = p->rw_lat_us[i];
		t->bytes = (uint64_t)p->rw_bytes[i];
		t->ios = (uint64_t)p->rw_ios[i];
		t->seconds = p->secs;
		t->has |=
			IMPORT_HAS_BYTES | IMPORT_HAS_IOS | IMPORT_HAS_SECONDS;
		t->block_size = p->bs;
		t->queue_depth = p->qd;
		t->threads = threads;
		t->read_pct = p->write_pct >= 0 ? 100 - p->write_pct : -1;
		snprintf(t->rw, sizeof(t->rw), "%s",
			 p->rw_write[i] ? "write" : "read");
		snprintf(t->pattern, sizeof(t->pattern), "%s",
			 p->random ? "random" : "sequential");
		import_diskspd_name(t, p->random, p->write_pct, files);
		rc = import_check(IMPORT_MB_S, t->mb_s, t->line, err, err_len,
				  line);
	}
out:
	*p = (struct rep){ .write_pct = -1, .section = -1 };
	return rc;
}

/* Starts a report at line at: finishes the one before, adds a run. */
static int start(struct import_runs *out, struct rep *p, int at, char *err,
		 size_t err_len, int *line)
{
	int rc = finish(out, p, err, err_len, line);

	if (rc < 0)
		return rc;
	if (out->n == IMPORT_MAX_RUNS) {
		snprintf(err, err_len,
			 "line %d: more than %d DiskSpd reports in one file",
			 at, IMPORT_MAX_RUNS);
		*line = at;
		return -EINVAL;
	}
	if (!(p->r = import_runs_add(out)))
		return -ENOMEM;
	snprintf(p->r->tool, sizeof(p->r->tool), "DiskSpd");
	snprintf(p->r->version, sizeof(p->r->version), "unknown (text report)");
	p->r->iterations = 1;
	return 0;
}

/* The path of "path: 'D:\x\diskspd.dat'" (quoted or not), whole, as
 * r's target: 0, or -EINVAL naming line when it is longer than a Windows
 * path (never cut). */
static int target(struct import_run *r, const char *s, int line, char *err,
		  size_t err_len, int *line_out)
{
	size_t n;

	s += strspn(s, " \t");
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n >= 2 && s[0] == '\'' && s[n - 1] == '\'') {
		s++;
		n -= 2;
	}
	if (n >= sizeof(r->target)) {
		snprintf(err, err_len,
			 "line %d: path: %zu bytes, longer than a Windows "
			 "path (%zu)",
			 line, n, sizeof(r->target) - 1);
		*line_out = line;
		return -EINVAL;
	}
	memcpy(r->target, s, n); /* not UTF-8: made fit with the run's other
				    text (import_parse.c) */
	r->target[n] = '\0';
	return 0;
}

/* The date of "start time: 2023/08/04 12:31:07 UTC" into r->date. */
static void start_time(struct import_run *r, const char *s)
{
	int y, mo, d, h, mi, se;

	if (sscanf(s, "%d/%d/%d %d:%d:%d", &y, &mo, &d, &h, &mi, &se) == 6 &&
	    y > 1990 && y < 2200 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 &&
	    h >= 0 && h < 24 && mi >= 0 && mi < 60 && se >= 0 && se <= 60)
		snprintf(r->date, sizeof(r->date),
			 "%04d-%02d-%02dT%02d:%02d:%02d%s", y, mo, d, h, mi, se,
			 strstr(s, "UTC") ? "Z" : "");
}

/* One line of a report (s: without its indent). */
static int report_line(struct import_runs *out, struct rep *p, const char *s,
		       int at, char *err, size_t err_len, int *line)
{
	const char *q;
	int v = 0;

	if (strncmp(s, "Command Line:", 13) == 0) {
		int rc = start(out, p, at, err, err_len, line);
		return rc < 0 ? rc
			      : command_line(p, s + 13, at, err, err_len, line);
	}
	if (strncmp(s, "Input parameters:", 17) == 0) {
		int rc = !p->r || p->params
				 ? start(out, p, at, err, err_len, line)
				 : 0;
		p->params = p->in_params = 1;
		return rc;
	}
	if (!p->r)
		return 0; /* text before any report */
	if (p->in_params) {
		if (strncmp(s, "path:", 5) == 0) {
			p->paths++;
			return p->r->target[0] ? 0
					       : target(p->r, s + 5, at, err,
							err_len, line);
		}
		if (strncmp(s, "block size:", 11) == 0)
			return size_at(s + 11, &p->bs, at, err, err_len, line);
		if (strncmp(s, "using random I/O", 16) == 0)
			p->random = 1;
		else if ((q = strstr(s, "outstanding I/O operations")) &&
			 (q = strchr(q, ':')))
			return int_at(q + 1, IMPORT_QD, &p->qd, at, err,
				      err_len, line);
		else if (strncmp(s, "threads per file:", 17) == 0) {
			int rc = int_at(s + 17, IMPORT_THREADS, &v, at, err,
					err_len, line);
			p->per_file += v;
			p->n_per++;
			return rc < 0 ? rc
				      : import_check(IMPORT_THREADS,
						     p->per_file, at, err,
						     err_len, line);
		} else if (strncmp(s, "thread pool with", 16) == 0)
			return int_at(s + 16, IMPORT_THREADS, &p->pool, at, err,
				      err_len, line);
		else if (strncmp(s, "performing write test", 21) == 0)
			p->write_pct = 100;
		else if (strncmp(s, "performing read test", 20) == 0)
			p->write_pct = 0;
		else if ((q = strstr(s, "read/write ratio:"))) {
			int rc = int_at(q + 17, IMPORT_PERCENT, &v, at, err,
					err_len, line);
			p->write_pct = 100 - v;
			return rc;
		} else if ((q = strstr(s, "write/read ratio:"))) /* 2.0.11 */
			return int_at(q + 17, IMPORT_PERCENT, &p->write_pct, at,
				      err, err_len, line);
		else if (strncmp(s, "computer name:", 14) == 0)
			snprintf(p->r->host, sizeof(p->r->host), "%s",
				 s + 14 + strspn(s + 14, " \t"));
		else if (strncmp(s, "start time:", 11) == 0)
			start_time(p->r, s + 11);
		else if (strncmp(s, "Results for timespan", 20) == 0)
			p->in_params = 0;
		return 0;
	}
	if (p->in_lat) {
		if (s[0] == '-') /* the rule under the heading */
			return 0;
		if (strchr(s, '|'))
			return lat_row(p, s, at, err, err_len, line);
		lat_end(p);
	}
	if (strncmp(s, "%-ile |", 7) == 0) {
		p->lat.n = 0;
		p->in_lat = p->heads_total ? 2 : 1;
		return 0;
	}
	if (strncmp(s, "actual test time:", 17) == 0) {
		p->ts_first = (int)p->r->n;
		p->secs_line = at;
		return import_num(s + 17, IMPORT_SECONDS, &p->secs, NULL, at,
				  err, err_len, line);
	}
	if (strncmp(s, "thread count:", 13) == 0)
		return int_at(s + 13, IMPORT_THREADS, &p->count, at, err,
			      err_len, line);
	if (strncmp(s, "Total IO", 8) == 0)
		p->section = 2;
	else if (strncmp(s, "Read IO", 7) == 0)
		p->section = 0;
	else if (strncmp(s, "Write IO", 8) == 0)
		p->section = 1;
	else if (p->section >= 0 && strncmp(s, "thread |", 8) == 0)
		p->has_lat = strstr(s, "AvgLat") != NULL;
	else if (p->section >= 0 && strncmp(s, "total:", 6) == 0) {
		int rc = p->section < 2
				 ? total_row(p, s + 6, at, err, err_len, line)
				 : 0;
		p->done |= 1 << p->section;
		p->section = -1;
		return rc;
	} else if (p->section >= 0 && s[0] >= '0' && s[0] <= '9' &&
		   s[strspn(s, "0123456789 ")] == '|') {
		/* a thread's row: its number (0-based) */
		double id;
		int rc = import_num(s, IMPORT_COUNT, &id, NULL, at, err,
				    err_len, line);
		if (rc == 0 && id + 1 > p->table &&
		    (rc = import_check(IMPORT_THREADS, id + 1, at, err, err_len,
				       line)) == 0)
			p->table = (int)id + 1;
		return rc;
	}
	return 0;
}

int import_diskspd_text(const char *buf, size_t len, struct import_runs *out,
			char *err, size_t err_len, int *line)
{
	struct rep p = { .write_pct = -1, .section = -1 };
	char *text = malloc(len + 1), *ln, *next;
	int at = 0, rc = 0;

	*line = 0;
	if (!text)
		return -ENOMEM;
	memcpy(text, buf, len);
	text[len] = '\0';
	rc = import_no_controls(text, len, "DiskSpd", err, err_len, line);
	for (ln = text; ln && rc == 0; ln = next) {
		char *s;
		if ((next = strchr(ln, '\n')))
			*next++ = '\0';
		at++;
		s = ln + strspn(ln, " \t\r");
		if (at == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0) /* BOM */
			s += 3 + strspn(s + 3, " \t\r");
		s[strcspn(s, "\r")] = '\0';
		if (strncmp(s, "Command Line:", 13) &&
		    strncmp(s, "Input par", 9))
			p.last = at; /* the line before a new report's */
		rc = report_line(out, &p, s, at, err, err_len, line);
		p.heads_total = !s[0] || strcmp(s, "total:") == 0;
	}
	if (rc == 0)
		rc = finish(out, &p, err, err_len, line);
	if (rc == 0 && out->n == 0) {
		snprintf(err, err_len,
			 "not a DiskSpd text report: no \"Read IO\" or "
			 "\"Write IO\" total row that moved data");
		rc = -EINVAL;
	}
	free(text);
	return rc;
}

int import_diskspd_runs(const char *buf, size_t len, struct import_runs *out,
			char *err, size_t err_len, int *line)
{
	struct import_run *r;

	if (!import_holds(buf, len, "<Results>"))
		return import_diskspd_text(buf, len, out, err, err_len, line);
	return (r = import_runs_add(out))
		       ? import_diskspd(buf, len, r, err, err_len, line)
		       : -ENOMEM;
}

int import_diskspd_sniff(const char *buf, size_t len)
{
	return import_holds(buf, len, "<Results>") ||
	       import_holds(buf, len, "DiskSpd") ||
	       import_holds(buf, len, "diskspd") ||
	       (import_holds(buf, len, "Input parameters:") &&
		import_holds(buf, len, "Write IO"));
}
