/*
 * steady — the SNIA PTS 2.0.2 steady state, as numbers: is a series of
 * rounds (one value of the tracking metric per round) steady over its last
 * `window` rounds? Pure arithmetic on arrays, no I/O; planrun_steady.c and
 * the snia-iops preset run the rounds and store what this says.
 *
 * Over a window of w rounds y[0 … w) (x = 0 … w−1, one per round):
 *   mean      ȳ = Σy / w
 *   range     max − min; steady needs range ≤ range_pct % of ȳ
 *   slope     b = Σ(x − x̄)(y − ȳ) / Σ(x − x̄)², per round (least squares)
 *   excursion |b| × (w − 1), the fit line's rise across the window; steady
 *             needs it ≤ slope_pct % of ȳ
 * A window whose mean is not above 0 is never steady. Limits of 0 make
 * steady state all but impossible (every round equal and flat).
 *
 * The test object's and the job's `precondition` and `steady_state` fields
 * are described here too (steady_fields: the object's descriptors).
 */
#ifndef STORBENCH_STEADY_H
#define STORBENCH_STEADY_H

#include <stddef.h>

#include <jansson.h>

#include "engine/workload.h"
#include "platform/fields.h"

enum steady_metric { STEADY_IOPS, STEADY_MB_S, STEADY_LAT_MEAN };

/* "iops", "mb_s", "lat_mean_us" (the iteration's keys), NULL-terminated,
 * by enum steady_metric. */
extern const char *const steady_metric_names[];
/* "none", "fill", "workload", NULL-terminated, by enum wl_precondition. */
extern const char *const steady_precondition_names[];

/* One window of rounds judged (steady_judge). Rounds count from 1. */
struct steady_window {
	size_t first, last; /* its first and last round */
	double mean, min, max;
	double range, range_pct;	 /* max − min; of the mean, % */
	double slope;			 /* per round, least squares */
	double excursion, excursion_pct; /* |slope| × (w − 1); of the mean */
	int range_ok, slope_ok;		 /* within the limits */
};

/*
 * Judges rounds y[first−1 … last−1] (1-based rounds, last ≥ first) against
 * s's limits into *out. Returns 1 when both limits hold (steady), else 0.
 */
int steady_judge(const double *y, size_t first, size_t last,
		 const struct wl_steady *s, struct steady_window *out);

/*
 * Is the series y[0 … n) steady in its last s->window rounds? 1 (steady),
 * 0 (not yet, or fewer than s->window rounds: *out then judges what there
 * is), with *out the window judged.
 */
int steady_check(const double *y, size_t n, const struct wl_steady *s,
		 struct steady_window *out);

/* The steady_state object's descriptors (metric, round_s, window,
 * max_rounds, range_pct, slope_pct) with the PTS's defaults. */
#define STEADY_N_FIELDS 6
extern const struct field steady_fields[STEADY_N_FIELDS];
/* The test's (and the job's) precondition and steady_state descriptors,
 * as initializers of a field table's entries; def_text says whose value
 * an absent one takes. */
#define STEADY_PRECONDITION_FIELD(whose)                                       \
	{                                                                      \
		.name = "precondition", .type = FIELD_ENUM,                    \
		.choices = steady_precondition_names, .def_text = whose,       \
		.help = "before the test: none; fill (SNIA PTS workload-"      \
			"independent preconditioning: sequential 128 KiB "     \
			"writes "                                              \
			"of twice the test file, measured nowhere, its time "  \
			"and "                                                 \
			"MB/s kept on the run); workload (rounds of the test " \
			"itself until steady: steady_state, or its defaults)"  \
	}
#define STEADY_STATE_FIELD(whose)                                              \
	{                                                                      \
		.name = "steady_state", .type = FIELD_OBJECT,                  \
		.sub = steady_fields, .n_sub = STEADY_N_FIELDS,                \
		.flags = FIELD_NULLABLE, .def_text = whose,                    \
		.help = "SNIA PTS steady state (null: iterations as usual): "  \
			"the "                                                 \
			"test runs in rounds, each one iteration of round_s, " \
			"until the last window rounds of the metric are "      \
			"within "                                              \
			"range_pct and slope_pct of their mean, or "           \
			"max_rounds; "                                         \
			"its result is the window's average"                   \
	}

/*
 * Reads a normalized steady_state object (fields_check_object on
 * steady_fields filled its defaults) into *s (on = 1); null: on = 0.
 * Returns 0, or -EINVAL (window > max_rounds) with e filled at path.
 */
int steady_from_json(json_t *o, const char *path, struct wl_steady *s,
		     struct field_error *e);
/* The PTS defaults: IOPS, 60 s rounds, a window of 5, at most 25 rounds,
 * 20 % range and 10 % slope; on = 1. */
void steady_defaults(struct wl_steady *s);
/* s as the object steady_from_json reads (new reference), or null when
 * s->on is 0. */
json_t *steady_json(const struct wl_steady *s);

/* The mean of rounds y[first−1 … last−1] (1-based, as steady_judge). */
double steady_mean(const double *y, size_t first, size_t last);

/*
 * A test's steady_state record as the run shows it (new reference): s's
 * settings (steady_json) and reached (bool), reached_round (the window's
 * last round, or null), rounds (run), measurement {first, last, mean, min,
 * max, range, range_pct, slope (per round), excursion, excursion_pct}
 * (the window w, in the metric's unit; null where the mean is 0) and
 * result {iops, mb_s, lat_mean_us}: the window's averages (result[0 … 3),
 * in that order).
 */
json_t *steady_record_json(const struct wl_steady *s,
			   const struct steady_window *w, size_t rounds,
			   int reached, const double result[3]);

/* A sentence on a window that did not settle, into buf: "not steady after
 * 25 rounds: range 31 % of the mean (limit 20 %), slope …". */
void steady_words(const struct wl_steady *s, const struct steady_window *w,
		  size_t rounds, char *buf, size_t len);

#endif
