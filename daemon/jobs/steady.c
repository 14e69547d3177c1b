/*
 * steady — see steady.h for the arithmetic and its rules.
 */
#include "steady.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const steady_metric_names[] = { "iops", "mb_s", "lat_mean_us",
					    NULL };
const char *const steady_precondition_names[] = { "none", "fill", "workload",
						  NULL };

const struct field steady_fields[STEADY_N_FIELDS] = {
	{ .name = "metric",
	  .type = FIELD_ENUM,
	  .choices = steady_metric_names,
	  .def = "\"iops\"",
	  .help = "the tracking metric judged round by round: iops, mb_s or "
		  "lat_mean_us (mean latency)" },
	{ .name = "round_s",
	  .type = FIELD_NUMBER,
	  .unit = "s",
	  .min = 0.01,
	  .max = 3600,
	  .def = "60",
	  .help = "the length of one round (one iteration); the SNIA PTS "
		  "takes 60 s" },
	{ .name = "window",
	  .type = FIELD_INT,
	  .unit = "rounds",
	  .min = 2,
	  .max = 100,
	  .def = "5",
	  .help = "the measurement window: the last rounds judged together, "
		  "whose average is the result" },
	{ .name = "max_rounds",
	  .type = FIELD_INT,
	  .unit = "rounds",
	  .min = 2,
	  .max = 1000,
	  .def = "25",
	  .help = "rounds at most; not steady by then is said on the run, and "
		  "the last window's average is the result" },
	{ .name = "range_pct",
	  .type = FIELD_NUMBER,
	  .unit = "%",
	  .min = 0,
	  .max = 1000,
	  .def = "20",
	  .help = "the window's max − min may be at most this share of its "
		  "mean" },
	{ .name = "slope_pct",
	  .type = FIELD_NUMBER,
	  .unit = "%",
	  .min = 0,
	  .max = 1000,
	  .def = "10",
	  .help = "the least-squares line's excursion across the window "
		  "(|slope| × (window − 1)) may be at most this share of the "
		  "window's mean" },
};

int steady_judge(const double *y, size_t first, size_t last,
		 const struct wl_steady *s, struct steady_window *out)
{
	size_t w = last - first + 1;
	double sum = 0, sxy = 0, sxx = 0, xbar = (double)(w - 1) / 2;
	const double *v = y + first - 1;

	memset(out, 0, sizeof(*out));
	out->first = first;
	out->last = last;
	out->min = out->max = v[0];
	for (size_t i = 0; i < w; i++) {
		sum += v[i];
		out->min = fmin(out->min, v[i]);
		out->max = fmax(out->max, v[i]);
	}
	out->mean = sum / (double)w;
	for (size_t i = 0; i < w; i++) {
		sxy += ((double)i - xbar) * (v[i] - out->mean);
		sxx += ((double)i - xbar) * ((double)i - xbar);
	}
	out->slope = sxx > 0 ? sxy / sxx : 0;
	out->range = out->max - out->min;
	out->excursion = fabs(out->slope) * (double)(w - 1);
	if (!(out->mean > 0)) {
		out->range_pct = out->excursion_pct = NAN;
		return 0;
	}
	out->range_pct = 100 * out->range / out->mean;
	out->excursion_pct = 100 * out->excursion / out->mean;
	out->range_ok = out->range <= s->range_pct / 100 * out->mean;
	out->slope_ok = out->excursion <= s->slope_pct / 100 * out->mean;
	return out->range_ok && out->slope_ok;
}

int steady_check(const double *y, size_t n, const struct wl_steady *s,
		 struct steady_window *out)
{
	size_t first = n > s->window ? n - s->window + 1 : 1;

	if (n == 0) {
		memset(out, 0, sizeof(*out));
		return 0;
	}
	return steady_judge(y, first, n, s, out) && n >= s->window;
}

int steady_from_json(json_t *o, const char *path, struct wl_steady *s,
		     struct field_error *e)
{
	int metric = fields_index_of(
		steady_metric_names,
		json_string_value(json_object_get(o, "metric")));

	memset(s, 0, sizeof(*s));
	if (!json_is_object(o))
		return 0;
	s->on = 1;
	if (metric >= 0)
		s->metric = metric;
	s->round_s = json_number_value(json_object_get(o, "round_s"));
	s->window = (unsigned)json_integer_value(json_object_get(o, "window"));
	s->max_rounds =
		(unsigned)json_integer_value(json_object_get(o, "max_rounds"));
	s->range_pct = json_number_value(json_object_get(o, "range_pct"));
	s->slope_pct = json_number_value(json_object_get(o, "slope_pct"));
	if (s->window > s->max_rounds)
		return field_fail(e, path,
				  "window (%u rounds) is more than max_rounds "
				  "(%u)",
				  s->window, s->max_rounds);
	return 0;
}

void steady_defaults(struct wl_steady *s)
{
	json_t *n = NULL;
	struct field_error e;

	memset(s, 0, sizeof(*s));
	if (fields_check_object(steady_fields, STEADY_N_FIELDS, NULL, "", NULL,
				&n, &e) == 0)
		steady_from_json(n, "", s, &e);
	json_decref(n);
}

json_t *steady_json(const struct wl_steady *s)
{
	if (!s->on)
		return json_null();
	return json_pack("{s:s, s:f, s:i, s:i, s:f, s:f}", "metric",
			 steady_metric_names[s->metric], "round_s", s->round_s,
			 "window", (int)s->window, "max_rounds",
			 (int)s->max_rounds, "range_pct", s->range_pct,
			 "slope_pct", s->slope_pct);
}

void steady_words(const struct wl_steady *s, const struct steady_window *w,
		  size_t rounds, char *buf, size_t len)
{
	static const char *const words[] = { "IOPS", "MB/s", "mean latency" };

	char few[80] = "";

	if (rounds < s->window)
		snprintf(few, sizeof(few), " (too few for a window of %u)",
			 s->window);
	snprintf(buf, len,
		 "not steady after %zu rounds%s: over rounds %zu–%zu, the %s "
		 "range "
		 "is %.1f %% of the mean (limit %g %%) and the fit line's "
		 "excursion %.1f %% (limit %g %%); the result is that window's "
		 "average",
		 rounds, few, w->first, w->last, words[s->metric], w->range_pct,
		 s->range_pct, w->excursion_pct, s->slope_pct);
}

double steady_mean(const double *y, size_t first, size_t last)
{
	double sum = 0;

	for (size_t i = first; i <= last; i++)
		sum += y[i - 1];
	return last >= first ? sum / (double)(last - first + 1) : NAN;
}

/* x as JSON, null when it is not a finite number. */
static json_t *num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

json_t *steady_record_json(const struct wl_steady *s,
			   const struct steady_window *w, size_t rounds,
			   int reached, const double result[3])
{
	json_t *o = steady_json(s);

	if (!json_is_object(o))
		return o;
	json_object_set_new(o, "reached", json_boolean(reached));
	json_object_set_new(o, "reached_round",
			    reached ? json_integer((json_int_t)w->last)
				    : json_null());
	json_object_set_new(o, "rounds", json_integer((json_int_t)rounds));
	json_object_set_new(
		o, "measurement",
		json_pack("{s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			  "first", (json_int_t)w->first, "last",
			  (json_int_t)w->last, "mean", num(w->mean), "min",
			  num(w->min), "max", num(w->max), "range",
			  num(w->range), "range_pct", num(w->range_pct),
			  "slope", num(w->slope), "excursion",
			  num(w->excursion), "excursion_pct",
			  num(w->excursion_pct)));
	json_object_set_new(o, "result",
			    json_pack("{s:o, s:o, s:o}", "iops", num(result[0]),
				      "mb_s", num(result[1]), "lat_mean_us",
				      num(result[2])));
	return o;
}
