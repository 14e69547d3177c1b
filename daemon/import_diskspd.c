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
 * measured time, the mean latency their I/O-weighted mean.
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

static double number(xmlNode *n, const char *name, int *ok)
{
	char buf[64], *end;
	double v;

	text(n, name, buf, sizeof(buf));
	v = strtod(buf, &end);
	if (end == buf || !(v == v))
		*ok = 0;
	return v;
}

/* number() as a count in 0 … max (a cast of a larger double is undefined). */
static double bounded(xmlNode *n, const char *name, double max, int *ok)
{
	double v = number(n, name, ok);

	if (!(v >= 0 && v <= max))
		*ok = 0;
	return v >= 0 && v <= max ? v : 0;
}

struct acc {
	char path[256];
	double bytes[2], count[2], lat_sum_ms[2];
	uint64_t bs;
	int random, write_ratio, qd, threads;
};

int import_diskspd(const char *buf, size_t len, struct import_run *r, char *err,
		   size_t err_len, int *line)
{
	xmlDoc *doc;
	xmlNode *root, *sys, *prof, *ts, *n;
	struct acc acc[16];
	size_t nacc = 0;
	double secs;
	char tb[256];
	int ok = 1, rc = 0;

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
	/* what ran, per target path */
	prof = child(
		child(child(child(root, "Profile"), "TimeSpans"), "TimeSpan"),
		"Targets");
	for (n = prof ? prof->children : NULL; n; n = n->next) {
		struct acc *a;
		if (n->type != XML_ELEMENT_NODE ||
		    strcmp((const char *)n->name, "Target"))
			continue;
		if (nacc == 16)
			break;
		a = &acc[nacc++];
		memset(a, 0, sizeof(*a));
		text(n, "Path", a->path, sizeof(a->path));
		a->bs = (uint64_t)bounded(n, "BlockSize", 1e12, &ok);
		a->random = child(n, "Random") != NULL;
		a->write_ratio = (int)bounded(n, "WriteRatio", 100, &ok);
		a->qd = (int)bounded(n, "RequestCount", 1e6, &ok);
		a->threads =
			child(n, "ThreadsPerFile")
				? (int)bounded(n, "ThreadsPerFile", 1e6, &ok)
				: 1;
	}
	secs = number(ts, "TestTimeSeconds", &ok);
	for (size_t k = 0; k < nacc; k++)
		if (acc[k].bs == 0 || acc[k].qd < 1 || acc[k].threads < 1)
			ok = 0;
	if (!ok || nacc == 0 || !(secs > 0)) {
		snprintf(err, err_len,
			 "DiskSpd XML without targets, a positive "
			 "<TestTimeSeconds>, or a target's <BlockSize>, "
			 "<RequestCount> and thread count");
		rc = -EINVAL;
		goto out;
	}
	/* what was measured: every thread's counts on every target */
	for (n = ts->children; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE ||
		    strcmp((const char *)n->name, "Thread"))
			continue;
		for (xmlNode *t = n->children; t; t = t->next) {
			size_t k;
			if (t->type != XML_ELEMENT_NODE ||
			    strcmp((const char *)t->name, "Target"))
				continue;
			text(t, "Path", tb, sizeof(tb));
			for (k = 0; k < nacc && strcmp(acc[k].path, tb); k++)
				;
			if (k == nacc)
				continue;
			for (int d = 0; d < 2; d++) {
				double c = bounded(
					t, d ? "WriteCount" : "ReadCount", 1e15,
					&ok);
				acc[k].count[d] += c;
				acc[k].bytes[d] += bounded(
					t, d ? "WriteBytes" : "ReadBytes", 1e18,
					&ok);
				if (child(t,
					  d ? "AverageWriteLatencyMilliseconds"
					    : "AverageReadLatencyMilliseconds"))
					acc[k].lat_sum_ms[d] +=
						c *
						bounded(t,
							d ? "AverageWriteLatenc"
							    "yMilliseconds"
							  : "AverageReadLatency"
							    "Milliseconds",
							1e9, &ok);
				else
					acc[k].lat_sum_ms[d] =
						-1e300; /* not measured (-L off)
							 */
			}
		}
	}
	if (!ok) {
		snprintf(err, err_len,
			 "a DiskSpd count or time is not a number");
		rc = -EINVAL;
		goto out;
	}
	for (size_t k = 0; k < nacc; k++) {
		for (int d = 0; d < 2; d++) {
			struct import_test *t;
			char sz[24];
			if (acc[k].count[d] <= 0)
				continue;
			t = &r->t[r->n++];
			memset(t, 0, sizeof(*t));
			if (acc[k].bs >= (1 << 20) &&
			    acc[k].bs % (1 << 20) == 0)
				snprintf(sz, sizeof(sz), "%lluM",
					 (unsigned long long)(acc[k].bs >> 20));
			else
				snprintf(sz, sizeof(sz), "%lluK",
					 (unsigned long long)(acc[k].bs >> 10));
			/* "RND4K Q1T1 W30" (a mix names its write share) */
			if (acc[k].write_ratio > 0 && acc[k].write_ratio < 100)
				snprintf(t->name, sizeof(t->name),
					 "%s%s Q%dT%d W%d%s%.24s",
					 acc[k].random ? "RND" : "SEQ", sz,
					 acc[k].qd, acc[k].threads,
					 acc[k].write_ratio,
					 nacc > 1 ? " " : "",
					 nacc > 1 ? acc[k].path : "");
			else
				snprintf(t->name, sizeof(t->name),
					 "%s%s Q%dT%d%s%.24s",
					 acc[k].random ? "RND" : "SEQ", sz,
					 acc[k].qd, acc[k].threads,
					 nacc > 1 ? " " : "",
					 nacc > 1 ? acc[k].path : "");
			snprintf(t->rw, sizeof(t->rw), "%s",
				 d ? "write" : "read");
			snprintf(t->pattern, sizeof(t->pattern), "%s",
				 acc[k].random ? "random" : "sequential");
			t->block_size = acc[k].bs;
			t->queue_depth = acc[k].qd > 0 ? acc[k].qd : 1;
			t->threads = acc[k].threads > 0 ? acc[k].threads : 1;
			t->read_pct = 100 - acc[k].write_ratio;
			t->mb_s = acc[k].bytes[d] / secs / 1e6;
			t->iops = acc[k].count[d] / secs;
			t->lat_mean_us = acc[k].lat_sum_ms[d] >= 0
						 ? acc[k].lat_sum_ms[d] /
							   acc[k].count[d] * 1e3
						 : -1;
			if (!r->drive[0])
				snprintf(r->drive, sizeof(r->drive), "%.15s",
					 acc[k].path);
		}
	}
	if (r->n == 0) {
		snprintf(err, err_len, "no target moved any data");
		rc = -EINVAL;
	}
out:
	xmlFreeDoc(doc);
	return rc;
}

/* The numbers of a "total:" row: bytes | I/Os | MiB/s | I/O per s | AvgLat
 * (ms) | …; 0 or -1. */
static int total_row(const char *s, double *bytes, double *ios, double *iops,
		     double *lat_ms)
{
	char *end;

	s += strspn(s, " \t");
	*bytes = strtod(s, &end);
	if (end == s || !(s = strchr(end, '|')))
		return -1;
	*ios = strtod(s + 1, &end);
	if (!(s = strchr(end, '|')) || !(s = strchr(s + 1, '|')))
		return -1;
	*iops = strtod(s + 1, &end);
	if (!(s = strchr(end, '|')))
		return -1;
	*lat_ms = strtod(s + 1, &end);
	return end == s + 1 ? -1 : 0;
}

int import_diskspd_text(const char *buf, size_t len, struct import_runs *out,
			char *err, size_t err_len, int *line)
{
	struct import_run *r = import_runs_add(out);
	char *text = malloc(len + 1), *ln, *next;
	int at = 0, paths = 0, qd = 0, threads = 0, random = 0, write_pct = -1;
	int section = -1, rc = 0;
	uint64_t bs = 0;
	double secs = 0;

	*line = 0;
	if (!text || !r) {
		free(text);
		return -ENOMEM;
	}
	memcpy(text, buf, len);
	text[len] = '\0';
	snprintf(r->tool, sizeof(r->tool), "DiskSpd");
	snprintf(r->version, sizeof(r->version), "unknown (text report)");
	r->iterations = 1;
	for (ln = text; ln; ln = next) {
		char *s, *p;
		if ((next = strchr(ln, '\n')))
			*next++ = '\0';
		at++;
		s = ln + strspn(ln, " \t\r");
		if (at == 1 && (unsigned char)s[0] == 0xEF &&
		    (unsigned char)s[1] == 0xBB &&
		    (unsigned char)s[2] == 0xBF) /* UTF-8 BOM */
			s += 3;
		if (strncmp(s, "path:", 5) == 0)
			paths++;
		else if (sscanf(s, "block size: %llu",
				(unsigned long long *)&bs) == 1)
			;
		else if (strncmp(s, "using random I/O", 16) == 0)
			random = 1;
		else if ((p = strstr(s, "outstanding I/O operations:")))
			qd = (int)strtol(p + 27, NULL, 10);
		else if (strncmp(s, "threads per file:", 17) == 0)
			threads = (int)strtol(s + 17, NULL, 10);
		else if (strncmp(s, "performing write test", 21) == 0)
			write_pct = 100;
		else if (strncmp(s, "performing read test", 20) == 0)
			write_pct = 0;
		else if ((p = strstr(s, "read/write ratio:")))
			write_pct = 100 - (int)strtol(p + 17, NULL, 10);
		else if (strncmp(s, "actual test time:", 17) == 0)
			secs = strtod(s + 17, NULL);
		else if (strncmp(s, "start time:", 11) == 0) {
			int y, mo, d, h, mi, se;
			if (sscanf(s + 11, "%d/%d/%d %d:%d:%d", &y, &mo, &d, &h,
				   &mi, &se) == 6 &&
			    y > 1990 && y < 2200 && mo >= 1 && mo <= 12 &&
			    d >= 1 && d <= 31 && h >= 0 && h < 24 && mi >= 0 &&
			    mi < 60 && se >= 0 && se <= 60)
				snprintf(r->date, sizeof(r->date),
					 "%04d-%02d-%02dT%02d:%02d:%02d%s", y,
					 mo, d, h, mi, se,
					 strstr(s, "UTC") ? "Z" : "");
		} else if (strncmp(s, "Read IO", 7) == 0)
			section = 0;
		else if (strncmp(s, "Write IO", 8) == 0)
			section = 1;
		else if (strncmp(s, "Total IO", 8) == 0)
			section = -1;
		else if (section >= 0 && strncmp(s, "total:", 6) == 0) {
			double bytes, ios, iops, lat;
			struct import_test *t;
			char sz[24];
			if (total_row(s + 6, &bytes, &ios, &iops, &lat) < 0) {
				*line = at;
				snprintf(err, err_len,
					 "line %d: a total row that is not "
					 "numbers",
					 at);
				rc = -EINVAL;
				goto out;
			}
			if (!(bytes >= 0 && ios >= 0 && iops >= 0 && lat >= 0 &&
			      bytes < 1e18 && iops < 1e10 && lat < 1e9) ||
			    bs == 0 || bs > (1ULL << 40)) {
				*line = at;
				snprintf(err, err_len,
					 "line %d: a total row, or the block "
					 "size, out of range",
					 at);
				rc = -EINVAL;
				goto out;
			}
			if (ios > 0 && r->n < IMPORT_MAX_TESTS) {
				t = &r->t[r->n++];
				memset(t, 0, sizeof(*t));
				if (bs >= (1 << 20) && bs % (1 << 20) == 0)
					snprintf(
						sz, sizeof(sz), "%lluM",
						(unsigned long long)(bs >> 20));
				else
					snprintf(
						sz, sizeof(sz), "%lluK",
						(unsigned long long)(bs >> 10));
				if (write_pct > 0 && write_pct < 100)
					snprintf(t->name, sizeof(t->name),
						 "%s%s Q%dT%d W%d",
						 random ? "RND" : "SEQ", sz, qd,
						 threads, write_pct);
				else
					snprintf(t->name, sizeof(t->name),
						 "%s%s Q%dT%d",
						 random ? "RND" : "SEQ", sz, qd,
						 threads);
				if (paths > 1)
					snprintf(t->name + strlen(t->name),
						 sizeof(t->name) -
							 strlen(t->name),
						 " %d files", paths);
				snprintf(t->rw, sizeof(t->rw), "%s",
					 section ? "write" : "read");
				snprintf(t->pattern, sizeof(t->pattern), "%s",
					 random ? "random" : "sequential");
				t->block_size = bs;
				t->queue_depth =
					qd > 0 && qd < 1000000 ? qd : 1;
				t->threads = threads > 0 && threads < 1000000
						     ? threads
						     : 1;
				t->read_pct =
					write_pct >= 0 ? 100 - write_pct : -1;
				t->iops = iops;
				t->mb_s = secs > 0 ? bytes / secs / 1e6 : 0;
				t->lat_mean_us = lat * 1e3;
			}
			section = -1;
		}
	}
	if (r->n == 0) {
		snprintf(err, err_len,
			 "not a DiskSpd text report: no \"Read IO\" or "
			 "\"Write IO\" total row that moved data");
		rc = -EINVAL;
	} else if (!(secs > 0)) {
		snprintf(err, err_len, "no \"actual test time\"");
		rc = -EINVAL;
	}
	if (paths > 1)
		snprintf(r->comment, sizeof(r->comment), "%d target files",
			 paths);
out:
	free(text);
	return rc;
}
