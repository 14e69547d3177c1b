/*
 * stats — the statistics of a comparison: mean and standard deviation of a
 * test's iterations, and Welch's t-test between two sides (unequal
 * variances, unequal counts), with its two-sided p-value from Student's t
 * distribution (the regularized incomplete beta function, by its continued
 * fraction). No library in Debian's C set offers these without a large
 * dependency (GSL), and they are a few dozen lines.
 */
#ifndef STORBENCH_STATS_H
#define STORBENCH_STATS_H

struct stats_summary {
	int n;
	double mean;
	double sd; /* sample standard deviation (n − 1); 0 when n < 2 */
};

/* Summarizes v[0..n). */
void stats_summarize(const double *v, int n, struct stats_summary *out);

/*
 * Welch's t-test of a against b: t = (mean_a − mean_b) / sqrt(sa²/na +
 * sb²/nb), df by Welch–Satterthwaite, p two-sided. Both sides need n ≥ 2.
 * When both variances are 0, p is 1 for equal means and 0 otherwise (t is
 * ±inf, df is na + nb − 2). Returns 0, or -1 when a side has n < 2.
 */
int stats_welch(const struct stats_summary *a, const struct stats_summary *b,
		double *t, double *df, double *p);

/* P(|T| ≥ |t|) for Student's t with df degrees of freedom (df > 0). */
double stats_t_two_sided(double t, double df);

/* The regularized incomplete beta function I_x(a, b), 0 ≤ x ≤ 1, a, b > 0. */
double stats_betai(double a, double b, double x);

#endif
