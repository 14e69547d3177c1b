/*
 * stats — see stats.h.
 */
#include "stats.h"

#include <math.h>

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
