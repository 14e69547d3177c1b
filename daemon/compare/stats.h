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

/*
 * What a test of "is side b different from side a" found. delta is b − a
 * (mean of differences for a paired test); half is the half-width of the
 * 95 % confidence interval of delta (t quantile × se), so delta ± half is
 * the interval and |delta| > half exactly when p < 0.05.
 */
struct stats_test {
	double delta, se, df, t, p, half;
};

/* Welch's test of b against a (stats_welch) as a stats_test. -1 when a
 * side has n < 2. */
int stats_welch_test(const struct stats_summary *a,
		     const struct stats_summary *b, struct stats_test *out);

/*
 * The paired t-test of b[i] against a[i], i < n (rounds of an interleaved
 * job): the differences' mean over their standard error, df = n − 1.
 * Returns 0, or -1 when n < 2.
 */
int stats_paired(const double *a, const double *b, int n,
		 struct stats_test *out);

/*
 * The test of a difference against a noise estimate made elsewhere: the
 * run-to-run relative standard deviation rel_sd (a fraction of the mean)
 * with df degrees of freedom (from repeated runs of the same target). The
 * standard error of mean(b) − mean(a) is rel_sd × mean(a) ×
 * sqrt(1/na + 1/nb); t has df degrees of freedom. Returns 0, or -1 when df
 * < 1, a side is empty or mean(a) is 0.
 */
int stats_noise_test(const struct stats_summary *a,
		     const struct stats_summary *b, double rel_sd, double df,
		     struct stats_test *out);

/* The t with P(|T| ≥ t) = p for df degrees of freedom (0 < p < 1, df > 0),
 * by bisection on stats_t_two_sided: 2.776 for p = 0.05, df = 4. */
double stats_t_quantile(double p, double df);

/* P(|T| ≥ |t|) for Student's t with df degrees of freedom (df > 0). */
double stats_t_two_sided(double t, double df);

/* The regularized incomplete beta function I_x(a, b), 0 ≤ x ≤ 1, a, b > 0. */
double stats_betai(double a, double b, double x);

#endif
