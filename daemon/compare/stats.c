/*
 * stats — see stats.h.
 */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

void stats_summarize(const double *v, int n, struct stats_summary *out)
{
	double sum = 0, ss = 0;

	out->n = n;
	out->mean = out->sd = 0;
	if (n <= 0)
		return;
	for (int i = 0; i < n; i++)
		sum += v[i];
	out->mean = sum / n;
	if (n < 2)
		return;
	for (int i = 0; i < n; i++)
		ss += (v[i] - out->mean) * (v[i] - out->mean);
	out->sd = sqrt(ss / (n - 1));
}

/* One step of the modified Lentz method: folds coefficient num into c, d
 * and returns the factor for the running value. */
static double lentz_step(double *c, double *d, double num)
{
	const double tiny = 1e-300;

	*d = 1 + num * *d;
	*c = 1 + num / *c;
	if (fabs(*d) < tiny)
		*d = tiny;
	if (fabs(*c) < tiny)
		*c = tiny;
	*d = 1 / *d;
	return *d * *c;
}

/* The continued fraction of I_x(a, b) (modified Lentz), for
 * x < (a + 1) / (a + b + 2), where it converges fast. */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 1000; m++) {
		double m2 = 2.0 * m, del;
		/* even step, then odd step */
		h *= lentz_step(&c, &d,
				m * (b - m) * x / ((a + m2 - 1) * (a + m2)));
		del = lentz_step(&c, &d,
				 -(a + m) * (a + b + m) * x /
					 ((a + m2) * (a + m2 + 1)));
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double stats_betai(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		    b * log1p(-x));
	/* the symmetry I_x(a, b) = 1 − I_{1−x}(b, a) keeps the fraction in
	 * its fast region */
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double stats_t_two_sided(double t, double df)
{
	if (isinf(t))
		return 0;
	return stats_betai(df / 2, 0.5, df / (df + t * t));
}

int stats_welch(const struct stats_summary *a, const struct stats_summary *b,
		double *t, double *df, double *p)
{
	double va, vb, se2;

	if (a->n < 2 || b->n < 2)
		return -1;
	va = a->sd * a->sd / a->n;
	vb = b->sd * b->sd / b->n;
	se2 = va + vb;
	if (se2 == 0) {
		*df = a->n + b->n - 2;
		if (a->mean == b->mean) {
			*t = 0;
			*p = 1;
		} else {
			*t = a->mean > b->mean ? INFINITY : -INFINITY;
			*p = 0;
		}
		return 0;
	}
	*t = (a->mean - b->mean) / sqrt(se2);
	*df = se2 * se2 / (va * va / (a->n - 1) + vb * vb / (b->n - 1));
	*p = stats_t_two_sided(*t, *df);
	return 0;
}

double stats_t_quantile(double p, double df)
{
	double lo = 0, hi = 1;

	while (stats_t_two_sided(hi, df) > p && hi < 1e12)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;
		if (stats_t_two_sided(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* t, p and half from delta, se and df (se 0: p 1 for no difference, else
 * 0). */
static void finish(struct stats_test *o)
{
	if (o->se == 0) {
		o->t = o->delta == 0 ? 0 : o->delta > 0 ? INFINITY : -INFINITY;
		o->p = o->delta == 0 ? 1 : 0;
		o->half = 0;
		return;
	}
	o->t = o->delta / o->se;
	o->p = stats_t_two_sided(o->t, o->df);
	o->half = stats_t_quantile(0.05, o->df) * o->se;
}

int stats_welch_test(const struct stats_summary *a,
		     const struct stats_summary *b, struct stats_test *out)
{
	double t, p;

	if (stats_welch(b, a, &t, &out->df, &p) < 0)
		return -1;
	out->delta = b->mean - a->mean;
	out->se = sqrt(a->sd * a->sd / a->n + b->sd * b->sd / b->n);
	finish(out);
	return 0;
}

int stats_paired(const double *a, const double *b, int n,
		 struct stats_test *out)
{
	double *d;
	struct stats_summary s;

	if (n < 2 || !(d = malloc((size_t)n * sizeof(*d))))
		return -1;
	for (int i = 0; i < n; i++)
		d[i] = b[i] - a[i];
	stats_summarize(d, n, &s);
	free(d);
	out->delta = s.mean;
	out->se = s.sd / sqrt(n);
	out->df = n - 1;
	finish(out);
	return 0;
}

int stats_noise_test(const struct stats_summary *a,
		     const struct stats_summary *b, double rel_sd, double df,
		     struct stats_test *out)
{
	if (df < 1 || a->n < 1 || b->n < 1 || a->mean == 0 || rel_sd < 0)
		return -1;
	out->delta = b->mean - a->mean;
	out->se = rel_sd * fabs(a->mean) * sqrt(1.0 / a->n + 1.0 / b->n);
	out->df = df;
	finish(out);
	return 0;
}
