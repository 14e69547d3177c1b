/*
 * import_cdm_footer — what a CrystalDiskMark result says of its run
 * (import_cdm.h): the Test line (test size, count, drive; kept as
 * printed for the export), the measure and interval times of a Time or
 * Test line, the Date, and the filesystem, allocation unit and write cache
 * a user's comment names. The other footer lines (Profile, Mode, OS,
 * Comment) are kept as printed by import_cdm.c.
 */
#include "import_cdm.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The first place s holds word, in any case, or NULL. */
static const char *find_ci(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (; *s; s++)
		if (strncasecmp(s, word, n) == 0)
			return s;
	return NULL;
}

int import_cdm_times(const char *v, const struct import_cdm_at *a)
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

int import_cdm_test_line(const char *v, struct import_run *r,
			 const struct import_cdm_at *a)
{
	const char *x = strstr(v, "(x"), *b = strchr(v, '['), *p = v, *end;
	int rc, own = strcmp(r->tool, "storbench") == 0;
	double n;

	snprintf(r->test_line, sizeof(r->test_line), "%s", v);
	if ((rc = import_cdm_times(v, a)) < 0)
		return rc;
	if (isdigit((unsigned char)*p)) {
		if ((rc = import_cdm_num(&p, IMPORT_TEST_SIZE, &n, a)) < 0)
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
	if ((rc = import_cdm_int(&p, IMPORT_BEST_OF, &r->iterations, a)) < 0)
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

int import_cdm_date(const char *v, struct import_run *r)
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

void import_cdm_comment_facts(struct import_run *r)
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
