/*
 * import_diskspd_lat — DiskSpd's latency percentiles (-L) as its XML
 * (import_diskspd.c: <Latency><Bucket> rows, <Percentile> 0 … 100) and its
 * text report (import_diskspd_text.c: the "%-ile" tables, rows "min",
 * "25th" … "99th", "3-nines" … "9-nines", "max") print them: rows of a
 * level and a value per column (Read, Write, Total).
 *
 * The levels are DiskSpd's own, kept as it states them: "3-nines" is
 * 99.9, "9-nines" 99.9999999, the XML's <Percentile>99.99</Percentile>
 * 99.99; min (the XML's 0) and max (its 100) are the latency's minimum and
 * maximum, not percentiles. A level the file does not state is never made
 * up, and a column's "N/A" (the XML leaves its element out) gives nothing.
 *
 * Invariant of a table: levels strictly ascending, each column's values
 * never falling (DiskSpd reads them off one histogram); a file that breaks
 * it is refused with the row's line.
 */
#include "import.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int import_dspd_level(const char *name, double *level)
{
	static const struct {
		const char *name;
		double level;
	} rows[] = { { "min", 0 },
		     { "25th", 25 },
		     { "50th", 50 },
		     { "75th", 75 },
		     { "90th", 90 },
		     { "95th", 95 },
		     { "99th", 99 },
		     { "3-nines", 99.9 },
		     { "4-nines", 99.99 },
		     { "5-nines", 99.999 },
		     { "6-nines", 99.9999 },
		     { "7-nines", 99.99999 },
		     { "8-nines", 99.999999 },
		     { "9-nines", 99.9999999 },
		     { "max", 100 } };

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (strcmp(name, rows[i].name) == 0) {
			*level = rows[i].level;
			return 0;
		}
	return -1;
}

int import_dspd_row_add(struct import_dspd_lat *l, double level,
			const double us[3], int line, const char *name,
			char *err, size_t err_len, int *line_out)
{
	static const char *const col[] = { "Read", "Write", "Total" };
	const size_t cap = sizeof(l->row) / sizeof(l->row[0]);

	if (l->n == cap) {
		snprintf(err, err_len,
			 "line %d: latency percentile row %s: more than %zu "
			 "rows, more than DiskSpd prints",
			 line, name, cap);
		goto fail;
	}
	if (l->n && !(level > l->row[l->n - 1].level)) {
		snprintf(err, err_len,
			 "line %d: latency percentile row %s: its level is not "
			 "above the row before's (DiskSpd prints them "
			 "ascending)",
			 line, name);
		goto fail;
	}
	for (int c = 0; c < 3; c++) {
		size_t k = l->n;
		while (k > 0 && l->row[k - 1].us[c] < 0)
			k--; /* N/A rows: compared with the one before */
		if (us[c] < 0 || k == 0 || us[c] >= l->row[k - 1].us[c])
			continue;
		snprintf(err, err_len,
			 "line %d: latency percentile row %s: %s %g ms is "
			 "below the row before's %g ms (DiskSpd prints them "
			 "ascending)",
			 line, name, col[c], us[c] / 1e3,
			 l->row[k - 1].us[c] / 1e3);
		goto fail;
	}
	l->row[l->n].level = level;
	memcpy(l->row[l->n].us, us, sizeof(l->row[l->n].us));
	l->row[l->n++].line = line;
	return 0;
fail:
	*line_out = line;
	return -EINVAL;
}

void import_dspd_lat_put(const struct import_dspd_lat *l, int col,
			 struct import_test *t)
{
	for (size_t i = 0; i < l->n; i++) {
		double us = l->row[i].us[col];
		if (us < 0)
			continue;
		if (l->row[i].level == 0) {
			t->lat_min_us = us;
			t->has |= IMPORT_HAS_MIN;
		} else if (l->row[i].level == 100) {
			t->lat_max_us = us;
			t->has |= IMPORT_HAS_MAX;
		} else {
			/* fits: a table has at most IMPORT_MAX_PCT + 2 rows */
			(void)import_pct_add(t, l->row[i].level, us);
		}
		snprintf(t->lat_of, sizeof(t->lat_of), "lat");
	}
}
