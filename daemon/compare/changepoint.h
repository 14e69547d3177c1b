/*
 * changepoint — where a series of runs' values shifted level by more than
 * its run-to-run noise: binary segmentation with the CUSUM statistic for a
 * shift in mean, each split judged by a permutation test.
 *
 * Method. In a segment x[lo, hi) of m values, every split k (at least
 * CP_MIN_SEGMENT values each side) has the two-sample statistic
 *   T(k) = |mean(x[lo, lo+k)) − mean(x[lo+k, hi))| × sqrt(k (m − k) / m),
 * the standardised CUSUM of the segment (Hinkley 1970; the segment's own
 * variance is the same under every ordering of its values, so it is left
 * out). The largest T(k) is the candidate. Its significance comes from
 * the segment's own values: the same largest statistic over
 * CP_PERMUTATIONS random orderings of them (a permutation test, as the
 * E-Divisive method MongoDB uses on its performance history does), p =
 * (1 + orderings at least as extreme) / (CP_PERMUTATIONS + 1). With p <
 * CP_ALPHA the split is a change point, and the two segments it makes are
 * searched again (binary segmentation, Vostrikova 1981). So on a series
 * without any shift, a change point is reported with probability CP_ALPHA
 * whatever the values' distribution, as long as the runs are exchangeable
 * (no trend, no serial correlation): no threshold is tuned to the data.
 * At least CP_MIN_SEGMENT runs each side: one run cannot tell a shift from
 * an outlier.
 *
 * Each change point's shift is then the difference of the means of the
 * segments either side of it (between the change points around it), with
 * Welch's 95 % interval (stats.h). The orderings come from a fixed seed,
 * so the same series always gives the same answer.
 */
#ifndef STORBENCH_CHANGEPOINT_H
#define STORBENCH_CHANGEPOINT_H

#include <stddef.h>

#include "stats.h"

#define CP_ALPHA 0.01
#define CP_PERMUTATIONS 999
#define CP_MIN_SEGMENT 2

struct cp_point {
	size_t at;     /* the index of the first value after the change */
	size_t lo, hi; /* the segments either side: [lo, at) and [at, hi) */
	double p;      /* the permutation test's p of the split that found it */
	struct stats_summary before, after;
	struct stats_test shift; /* Welch's: after − before, ± half (95 %) */
};

/*
 * The change points of x[0..n) in order of index into out[0..max): how
 * many (at most max; the first max in index order when there are more),
 * or -ENOMEM. Non-finite values are the caller's to leave out.
 */
int cp_find(const double *x, size_t n, struct cp_point *out, size_t max);

#endif
