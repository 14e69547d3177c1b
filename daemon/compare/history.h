/*
 * history — a target's history: one test's metric over the target's done
 * runs of one profile, oldest first, each run a point with its noise
 * interval, and the change points of the series (changepoint.h) with the
 * size of each shift, its interval, the compare of the runs either side
 * and what changed between them. docs/api.md has the shape
 * (GET /api/v1/history).
 */
#ifndef STORBENCH_HISTORY_H
#define STORBENCH_HISTORY_H

#include <stddef.h>

#include <jansson.h>

#include "archive/archive.h"

/*
 * *out = the history q names (q->metric NULL: the test's headline, MB/s
 * for a sequential test, IOPS otherwise). 0; -EINVAL (a metric that is
 * not one of archive_sum_metrics); -ENOENT (no done run of q's target,
 * profile and host has the test with that metric: err says which); or
 * another negative errno.
 */
int history_json(struct archive *a, const struct archive_history_q *q,
		 json_t **out, char *err, size_t err_len);

#endif
