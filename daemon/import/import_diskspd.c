/*
 * import_diskspd — DiskSpd's XML result (-Rxml) into struct import_run
 * (import.h), read with libxml2.
 *
 * The profile (<Profile><TimeSpans><TimeSpan><Targets><Target>) says what
 * ran: block size, random or sequential (<Random> present), write ratio,
 * outstanding I/Os per thread (<RequestCount>), threads per file. The
 * results (<TimeSpan><Thread><Target>) count bytes and I/Os per thread and
 * direction over <TestTimeSeconds>, with each thread's mean latency. A test
 * per target and direction: MB/s and IOPS are the threads' sums over the
 * measured time, the mean latency their I/O-weighted mean; its bytes and
 * I/Os are the threads' <ReadBytes>/<ReadCount> (or Write…) summed, its
 * time <TestTimeSeconds>.
 *
 * With -L the timespan's <Latency> holds the percentiles of all its I/Os
 * (a <Bucket> per <Percentile>: 0 the minimum, 1 … 99, 99.9 …
 * 99.9999999, 100 the maximum; import_diskspd_lat.c), a column per
 * direction. They describe a test only when its target is the only one
 * the results hold: then the read test takes <ReadMilliseconds>, the write
 * test <WriteMilliseconds>. With several targets no test gets them (the
 * file has no per-target table).
 */
#include "import.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

/* The first element child of n named name, or NULL. */
static xmlNode *child(xmlNode *n, const char *name)
{
	for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE &&
		    strcmp((const char *)c->name, name) == 0)
			return c;
	return NULL;
}

/* The text of n's child name, into buf ("" when missing). */
static const char *text(xmlNode *n, const char *name, char *buf, size_t len)
{
	xmlNode *c = child(n, name);
	xmlChar *t = c ? xmlNodeGetContent(c) : NULL;

	snprintf(buf, len, "%s", t ? (const char *)t : "");
	xmlFree(t);
	return buf;
}

/* The line of n's child name, else of n (0: neither). */
static int line_of(xmlNode *n, const char *name)
{
	xmlNode *c = child(n, name);

	return c ? (int)xmlGetLineNo(c) : n ? (int)xmlGetLineNo(n) : 0;
}

/* n's <Path>, whole, into buf (IMPORT_TARGET_LEN bytes): 0, or -EINVAL
 * naming its line when it does not fit (never cut). */
static int path_of(xmlNode *n, char *buf, char *err, size_t err_len, int *line)
{
	xmlNode *c = child(n, "Path");
	xmlChar *t = c ? xmlNodeGetContent(c) : NULL;
	int len = snprintf(buf, IMPORT_TARGET_LEN, "%s",
			   t ? (const char *)t : "");

	xmlFree(t);
	if (len < IMPORT_TARGET_LEN)
		return 0;
	*line = line_of(n, "Path");
	snprintf(err, err_len,
		 "line %d: Path: %d bytes, longer than a Windows path (%d)",
		 *line, len, IMPORT_TARGET_LEN - 1);
	return -EINVAL;
}

/*
 * The number in n's child name (with ms: milliseconds, into µs as printed,
 * import_ms_us), checked as field f, into *v: 0, or -EINVAL with err
 * naming the field, the element and its line. A missing child is 0 when
 * optional, else an error.
 */
static int number(xmlNode *n, const char *name, enum import_field f, int ms,
		  int optional, double *v, char *err, size_t err_len, int *line)
{
	char buf[64], why[200];
	int at = line_of(n, name);

	*v = 0;
	if (!child(n, name) && optional)
		return 0;
	text(n, name, buf, sizeof(buf));
	if ((ms ? import_ms_us(buf, v, NULL) : import_number(buf, v, NULL)) <
		    0 ||
	    /* DiskSpd prints its counts as whole numbers */
	    ((f == IMPORT_COUNT || f == IMPORT_BYTES) &&
	     buf[strspn(buf, " \t\r\n-0123456789")])) {
		snprintf(err, err_len, "line %d: <%s>: %s", at, name,
			 !child(n, name)		   ? "missing"
			 : import_number(buf, v, NULL) < 0 ? "not a number"
							   : "not a whole "
							     "number");
		*line = at;
		return -EINVAL;
	}
	if (import_check(f, *v, at, why, sizeof(why), line) == 0)
		return 0;
	snprintf(err, err_len, "%s (<%s>)", why, name);
	return -EINVAL;
}

/* The timespan's <Latency> table (ts: the results' <TimeSpan>) into l:
 * 0 (none without -L), or -EINVAL with err naming the element and line. */
static int latency_table(xmlNode *ts, struct import_dspd_lat *l, char *err,
			 size_t err_len, int *line)
{
	static const char *const col[] = { "ReadMilliseconds",
					   "WriteMilliseconds",
					   "TotalMilliseconds" };
	xmlNode *lat = child(ts, "Latency");
	int rc = 0;

	l->n = 0;
	for (xmlNode *b = lat ? lat->children : NULL; b && rc == 0;
	     b = b->next) {
		double level, us[3];
		char name[48], pb[24];
		if (b->type != XML_ELEMENT_NODE ||
		    strcmp((const char *)b->name, "Bucket"))
			continue;
		if ((rc = number(b, "Percentile", IMPORT_PERCENT, 0, 0, &level,
				 err, err_len, line)) < 0)
			break;
		for (int c = 0; c < 3 && rc == 0; c++) {
			us[c] = -1; /* DiskSpd leaves out a direction without
				       I/Os */
			if (child(b, col[c]))
				rc = number(b, col[c], IMPORT_LAT_US, 1, 0,
					    &us[c], err, err_len, line);
		}
		snprintf(name, sizeof(name), "<Percentile>%s",
			 text(b, "Percentile", pb, sizeof(pb)));
		if (rc == 0)
			rc = import_dspd_row_add(l, level, us,
						 line_of(b, "Percentile"), name,
						 err, err_len, line);
	}
	return rc;
}

struct acc {
	char path[IMPORT_TARGET_LEN];
	double bytes[2], count[2], lat_sum_us[2];
	uint64_t bs;
	int random, write_ratio, qd, per_file, threads;
};

void import_diskspd_name(struct import_test *t, int random, int write_pct,
			 const char *suffix)
{
	unsigned long long bs = t->block_size;
	char sz[24], mix[8] = "";

	if (bs >= (1 << 20) && bs % (1 << 20) == 0)
		snprintf(sz, sizeof(sz), "%lluM", bs >> 20);
	else if (bs >= 1024 && bs % 1024 == 0)
		snprintf(sz, sizeof(sz), "%lluK", bs >> 10);
	else
		snprintf(sz, sizeof(sz), "%lluB", bs);
	if (write_pct > 0 && write_pct < 100) /* a mix names its write share */
		snprintf(mix, sizeof(mix), " W%d", write_pct);
	snprintf(t->name, sizeof(t->name), "%s%s Q%dT%d%s%s%.24s",
		 random ? "RND" : "SEQ", sz, t->queue_depth, t->threads, mix,
		 suffix && suffix[0] ? " " : "", suffix ? suffix : "");
}

/*
 * The threads of every target (acc[k].threads counted from the results'
 * <Thread> elements): with -F (the profile's <ThreadCount> > 0) a pool of
 * that many for all targets, else <ThreadsPerFile> each. The profile, the
 * results' <ThreadCount> and the <Thread> elements must agree; else the
 * <Thread> elements are believed and r says so.
 */
static void threads_of(struct import_run *r, struct acc *acc, size_t nacc,
		       int pool, int said, int elements)
{
	int per_file = 0, counted = 0;

	for (size_t k = 0; k < nacc; k++) {
		per_file += acc[k].per_file;
		counted |= acc[k].threads != acc[k].per_file;
	}
	if ((pool && (said != pool || elements != pool)) ||
	    (!pool && (said != per_file || elements != per_file || counted)))
		import_warn(r,
			    "DiskSpd's thread counts disagree: the profile "
			    "says %d (%s), the results' <ThreadCount> %d, "
			    "%d <Thread> elements: believed the elements",
			    pool ? pool : per_file,
			    pool ? "<ThreadCount>" : "<ThreadsPerFile> summed",
			    said, elements);
	for (size_t k = 0; k < nacc; k++)
		acc[k].threads = pool		  ? elements
				 : acc[k].threads ? acc[k].threads
						  : acc[k].per_file;
}

int import_diskspd(const char *buf, size_t len, struct import_run *r, char *err,
		   size_t err_len, int *line)
{
	xmlDoc *doc;
	xmlNode *root, *sys, *prof, *pts, *ts, *n;
	struct acc acc[16];
	struct import_dspd_lat pct;
	size_t nacc = 0, others = 0; /* result targets not in the profile */
	double secs, v, pool = 0, said = 0, ts_qd = 0;
	char tb[IMPORT_TARGET_LEN];
	int rc = 0, elements = 0, secs_line;

	memset(r, 0, sizeof(*r));
	*line = 0;
	doc = xmlReadMemory(buf, (int)(len > (64u << 20) ? 64u << 20 : len),
			    "diskspd.xml", NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR |
				    XML_PARSE_NOWARNING);
	if (!doc) {
		const xmlError *e = xmlGetLastError();
		*line = e ? e->line : 0;
		snprintf(err, err_len, "line %d: not XML: %s", *line,
			 e && e->message ? e->message : "parse error");
		/* libxml2's message ends in a newline */
		if (strlen(err) && err[strlen(err) - 1] == '\n')
			err[strlen(err) - 1] = '\0';
		return -EINVAL;
	}
	root = xmlDocGetRootElement(doc);
	if (!root || strcmp((const char *)root->name, "Results") != 0 ||
	    !(sys = child(root, "System")) || !(ts = child(root, "TimeSpan"))) {
		snprintf(err, err_len,
			 "not DiskSpd XML: no <Results> with <System> and "
			 "<TimeSpan>");
		rc = -EINVAL;
		goto out;
	}
	snprintf(r->tool, sizeof(r->tool), "DiskSpd");
	text(child(sys, "Tool"), "Version", r->version, sizeof(r->version));
	text(sys, "ComputerName", r->host, sizeof(r->host));
	{
		int y, mo, d, h = 0, mi = 0, s = 0;
		if (sscanf(text(sys, "RunTime", tb, sizeof(tb)),
			   "%d/%d/%d %d:%d:%d", &y, &mo, &d, &h, &mi,
			   &s) >= 3 &&
		    y > 1990 && y < 2200 && mo >= 1 && mo <= 12 && d >= 1 &&
		    d <= 31 && h >= 0 && h < 24 && mi >= 0 && mi < 60 &&
		    s >= 0 && s <= 60)
			snprintf(r->date, sizeof(r->date),
				 "%04d-%02d-%02dT%02d:%02d:%02d%s", y, mo, d, h,
				 mi, s, strstr(tb, "UTC") ? "Z" : "");
	}
	r->iterations = 1;
	/* what ran, per target path; -F: the profile's <ThreadCount> > 0
	   (the pool's <RequestCount> with -O) */
	pts = child(child(child(root, "Profile"), "TimeSpans"), "TimeSpan");
	prof = child(pts, "Targets");
	if ((rc = number(pts, "ThreadCount", IMPORT_COUNT, 0, 1, &pool, err,
			 err_len, line)) < 0 ||
	    (pool > 0 && (rc = import_check(IMPORT_THREADS, pool,
					    line_of(pts, "ThreadCount"), err,
					    err_len, line)) < 0) ||
	    (rc = number(pts, "RequestCount", IMPORT_COUNT, 0, 1, &ts_qd, err,
			 err_len, line)) < 0)
		goto out;
	for (n = prof ? prof->children : NULL; n; n = n->next) {
		struct acc *a;
		if (n->type != XML_ELEMENT_NODE ||
		    strcmp((const char *)n->name, "Target"))
			continue;
		if (nacc == 16)
			break;
		a = &acc[nacc++];
		memset(a, 0, sizeof(*a));
		if ((rc = path_of(n, a->path, err, err_len, line)) < 0)
			goto out;
		a->random = child(n, "Random") != NULL;
		if ((rc = number(n, "BlockSize", IMPORT_BLOCK_SIZE, 0, 0, &v,
				 err, err_len, line)) < 0)
			goto out;
		a->bs = (uint64_t)v;
		if ((rc = number(n, "WriteRatio", IMPORT_PERCENT, 0, 1, &v, err,
				 err_len, line)) < 0)
			goto out;
		a->write_ratio = (int)v;
		/* with -F and -O a target's <RequestCount> is 0: the pool's */
		if ((rc = number(n, "RequestCount", IMPORT_COUNT, 0, 0, &v, err,
				 err_len, line)) < 0 ||
		    (rc = import_check(IMPORT_QD, v > 0 ? v : ts_qd,
				       (int)xmlGetLineNo(n), err, err_len,
				       line)) < 0)
			goto out;
		a->qd = (int)(v > 0 ? v : ts_qd);
		if ((rc = number(n, "ThreadsPerFile", IMPORT_THREADS, 0, 1, &v,
				 err, err_len, line)) < 0)
			goto out;
		a->per_file = child(n, "ThreadsPerFile") ? (int)v : 1;
	}
	if ((rc = number(ts, "TestTimeSeconds", IMPORT_SECONDS, 0, 0, &secs,
			 err, err_len, line)) < 0 ||
	    (rc = number(ts, "ThreadCount", IMPORT_COUNT, 0, 1, &said, err,
			 err_len, line)) < 0 ||
	    (said > 0 && (rc = import_check(IMPORT_THREADS, said,
					    line_of(ts, "ThreadCount"), err,
					    err_len, line)) < 0))
		goto out;
	secs_line = (int)xmlGetLineNo(child(ts, "TestTimeSeconds"));
	if ((rc = latency_table(ts, &pct, err, err_len, line)) < 0)
		goto out;
	if (nacc == 0) {
		snprintf(err, err_len, "DiskSpd XML without targets");
		rc = -EINVAL;
		goto out;
	}
	/* what was measured: every thread's counts on every target */
	for (n = ts->children; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE ||
		    strcmp((const char *)n->name, "Thread"))
			continue;
		if ((rc = import_check(IMPORT_THREADS, ++elements,
				       (int)xmlGetLineNo(n), err, err_len,
				       line)) < 0)
			goto out;
		for (xmlNode *t = n->children; t; t = t->next) {
			size_t k;
			if (t->type != XML_ELEMENT_NODE ||
			    strcmp((const char *)t->name, "Target"))
				continue;
			if ((rc = path_of(t, tb, err, err_len, line)) < 0)
				goto out;
			for (k = 0; k < nacc && strcmp(acc[k].path, tb); k++)
				;
			if (k == nacc) {
				others++;
				continue;
			}
			acc[k].threads++;
			for (int d = 0; d < 2; d++) {
				const char *lat =
					d ? "AverageWriteLatencyMilliseconds"
					  : "AverageReadLatencyMilliseconds";
				double c, b, us;
				if ((rc = number(t,
						 d ? "WriteCount" : "ReadCount",
						 IMPORT_COUNT, 0, 0, &c, err,
						 err_len, line)) < 0 ||
				    (rc = number(t,
						 d ? "WriteBytes" : "ReadBytes",
						 IMPORT_BYTES, 0, 0, &b, err,
						 err_len, line)) < 0 ||
				    (rc = number(t, lat, IMPORT_LAT_US, 1, 1,
						 &us, err, err_len, line)) < 0)
					goto out;
				/* every I/O is a block, as DiskSpd counts */
				if (b != c * (double)acc[k].bs) {
					*line = line_of(t, d ? "WriteBytes"
							     : "ReadBytes");
					snprintf(
						err, err_len,
						"line %d: <%s> %.0f is not its "
						"%.0f I/Os of %llu bytes",
						*line,
						d ? "WriteBytes" : "ReadBytes",
						b, c,
						(unsigned long long)acc[k].bs);
					rc = -EINVAL;
					goto out;
				}
				acc[k].count[d] += c;
				acc[k].bytes[d] += b;
				if (child(t, lat))
					acc[k].lat_sum_us[d] += c * us;
				else /* not measured (-L off) */
					acc[k].lat_sum_us[d] = -1e300;
			}
		}
	}
	threads_of(r, acc, nacc, (int)pool, (int)said, elements);
	for (size_t k = 0; k < nacc && rc == 0; k++) {
		for (int d = 0; d < 2 && rc == 0; d++) {
			struct import_test *t;
			if (acc[k].count[d] <= 0)
				continue;
			t = &r->t[r->n++];
			memset(t, 0, sizeof(*t));
			t->line = secs_line;
			snprintf(t->rw, sizeof(t->rw), "%s",
				 d ? "write" : "read");
			snprintf(t->pattern, sizeof(t->pattern), "%s",
				 acc[k].random ? "random" : "sequential");
			t->block_size = acc[k].bs;
			t->queue_depth = acc[k].qd;
			t->threads = acc[k].threads > 0 ? acc[k].threads : 1;
			t->read_pct = 100 - acc[k].write_ratio;
			t->mb_s = acc[k].bytes[d] / secs / 1e6;
			t->iops = acc[k].count[d] / secs;
			t->lat_mean_us =
				acc[k].lat_sum_us[d] >= 0
					? acc[k].lat_sum_us[d] / acc[k].count[d]
					: -1;
			t->bytes = (uint64_t)acc[k].bytes[d];
			t->ios = (uint64_t)acc[k].count[d];
			t->seconds = secs;
			t->has = IMPORT_HAS_BYTES | IMPORT_HAS_IOS |
				 IMPORT_HAS_SECONDS;
			/* the timespan's table is this target's alone */
			if (nacc == 1 && others == 0)
				import_dspd_lat_put(&pct, d, t);
			import_diskspd_name(t, acc[k].random,
					    acc[k].write_ratio,
					    nacc > 1 ? acc[k].path : NULL);
			if (!r->target[0])
				snprintf(r->target, sizeof(r->target), "%s",
					 acc[k].path);
			if ((rc = import_check(IMPORT_MB_S, t->mb_s, t->line,
					       err, err_len, line)) == 0)
				rc = import_check(IMPORT_IOPS, t->iops, t->line,
						  err, err_len, line);
		}
	}
	if (rc == 0 && r->n == 0) {
		snprintf(err, err_len, "no target moved any data");
		rc = -EINVAL;
	}
out:
	xmlFreeDoc(doc);
	return rc;
}
