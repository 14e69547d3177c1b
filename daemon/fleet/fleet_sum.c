/*
 * fleet_sum — the aggregate run of a multi-host job, from its hosts' runs
 * as this archive holds them (each imported whole from its host).
 *
 * For each iteration of each test (matched by test, rw and iteration on
 * every host):
 * - the common window is where every host was measuring: from the latest
 *   opening to the earliest close, on the wall clock (each iteration's
 *   start_unix_ns, corrected by the host's measured clock offset when the
 *   host was started; its window_ns);
 * - I/Os, bytes and the latency sum are each host's seconds that fall in
 *   it, a second the window cuts counted in proportion to its part inside
 *   (the I/Os of a second are taken as spread evenly over it), summed
 *   over hosts; IOPS and MB/s are those over the common window's length,
 *   and the mean latency is the summed latency over the summed I/Os;
 * - the latency histogram is the bucket-wise sum of the hosts' histograms
 *   (hist_merge: every I/O of every host's window), so its percentiles are
 *   those of the union of the hosts' I/Os, never an average of the hosts'
 *   percentiles;
 * - its seconds are the common window cut into 1 s steps, each the sum of
 *   what every host measured in it (same proportional rule).
 */
#include "fleet_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/histogram.h"
#include "engine/result.h"

/* Adds host window x's seconds (opening at start, ns) to the bins of the
 * common window [cs, ce) (1 s each, nb of them): counts × the share of
 * each second inside each bin. */
static void spread(const struct archive_window *x, int64_t start, int64_t cs,
		   int64_t ce, double (*bins)[6], unsigned nb)
{
	int64_t at = start;
	unsigned n = x->smp.n;

	for (unsigned j = 0; j < (n ? n : 1); j++) {
		int64_t len = n ? (int64_t)llround(x->smp.len_s[j] * 1e9)
				: (int64_t)x->window_ns;
		double c[6];
		if (n) {
			const struct engine_sample *e = &x->smp.s[j];
			for (int d = 0; d < 2; d++) {
				c[3 * d] = (double)e->ios[d];
				c[3 * d + 1] = (double)e->bytes[d];
				c[3 * d + 2] = (double)e->lat_sum_ns[d];
			}
		} else { /* no seconds stored: the window as one */
			c[0] = (double)x->ios;
			c[1] = (double)x->bytes;
			c[2] = (double)x->lat_sum_ns;
			c[3] = c[4] = c[5] = 0;
		}
		for (unsigned k = 0; len > 0 && k < nb; k++) {
			int64_t b0 = cs + (int64_t)k * 1000000000LL;
			int64_t b1 = k + 1 == nb ? ce : b0 + 1000000000LL;
			int64_t lo = at > b0 ? at : b0;
			int64_t hi = at + len < b1 ? at + len : b1;
			if (hi <= lo)
				continue;
			for (int i = 0; i < 6; i++)
				bins[k][i] +=
					c[i] * (double)(hi - lo) / (double)len;
		}
		at += len;
	}
}

/* The window of the other host's run that matches x, or NULL. */
static const struct archive_window *match(const struct fleet_host *h,
					  const struct archive_window *x)
{
	for (size_t i = 0; i < h->n_win; i++)
		if (h->win[i].iteration == x->iteration &&
		    strcmp(h->win[i].test, x->test) == 0 &&
		    strcmp(h->win[i].rw, x->rw) == 0)
			return &h->win[i];
	return NULL;
}

/* One iteration of one test over every host into the aggregate run. */
static int sum_one(struct fleet_job *j, size_t wi, struct hist *hist, int store)
{
	const struct archive_window *x0 = &j->hosts[0].win[wi], *xs[FLEET_MAX];
	int64_t cs = INT64_MIN, ce = INT64_MAX, s0 = INT64_MAX, st;
	struct engine_samples smp = { 0 };
	struct workload w = { 0 };
	struct result r = { 0 };
	double(*bins)[6] = NULL;
	unsigned nb;
	int rc;

	for (size_t h = 0; h < j->n; h++) {
		if (!(xs[h] = h ? match(&j->hosts[h], x0) : x0)) {
			snprintf(j->error, sizeof(j->error),
				 "%s's run has no %s %s iteration %d: the "
				 "hosts did not run the same tests",
				 j->hosts[h].name, x0->test, x0->rw,
				 x0->iteration);
			return -EPROTO;
		}
		if (!xs[h]->start_unix_ns) {
			snprintf(j->error, sizeof(j->error),
				 "%s's run does not say when its windows "
				 "opened (a storbench before archive version "
				 "15): no common window",
				 j->hosts[h].name);
			return -EPROTO;
		}
		/* on this host's clock */
		st = xs[h]->start_unix_ns - j->hosts[h].offset_ns;
		if (st > cs)
			cs = st;
		if (st < s0)
			s0 = st;
		if (st + (int64_t)xs[h]->window_ns < ce)
			ce = st + (int64_t)xs[h]->window_ns;
	}
	if (ce <= cs) {
		snprintf(j->error, sizeof(j->error),
			 "%s iteration %d: the hosts' windows do not overlap "
			 "(the latest opened %.1f ms after the earliest "
			 "closed)",
			 x0->test, x0->iteration, (double)(cs - ce) / 1e6);
		return -EPROTO;
	}
	for (size_t h = 0; !store && h < j->n; h++) {
		/* what the bench and the run page report of each host */
		int64_t sh = xs[h]->start_unix_ns - j->hosts[h].offset_ns;
		double share = (double)(ce - cs) / (double)xs[h]->window_ns;
		if (share < j->hosts[h].common_share_min)
			j->hosts[h].common_share_min = share;
		if (sh - s0 > j->hosts[h].skew_max_ns)
			j->hosts[h].skew_max_ns = sh - s0;
	}
	if (!store) {
		if (j->n_skews < FLEET_MAX_SKEWS)
			j->skews_ns[j->n_skews++] = cs - s0;
		return 0;
	}
	nb = (unsigned)((ce - cs + 999999999LL) / 1000000000LL);
	if (!(bins = calloc(nb, sizeof(*bins))) ||
	    !(smp.s = calloc(nb, sizeof(*smp.s))) ||
	    !(smp.len_s = calloc(nb, sizeof(double)))) {
		rc = -ENOMEM;
		goto out;
	}
	hist_init(hist);
	for (size_t h = 0; h < j->n; h++) {
		struct hist one;
		spread(xs[h], xs[h]->start_unix_ns - j->hosts[h].offset_ns, cs,
		       ce, bins, nb);
		if (xs[h]->hist &&
		    hist_decode(&one, xs[h]->hist, xs[h]->hist_len) == 0)
			hist_merge(hist, &one);
	}
	for (unsigned k = 0; k < nb; k++) {
		for (int d = 0; d < 2; d++) {
			smp.s[k].ios[d] = (uint64_t)llround(bins[k][3 * d]);
			smp.s[k].bytes[d] =
				(uint64_t)llround(bins[k][3 * d + 1]);
			smp.s[k].lat_sum_ns[d] =
				(uint64_t)llround(bins[k][3 * d + 2]);
			r.dir_ios[d] += smp.s[k].ios[d];
			r.dir_bytes[d] += smp.s[k].bytes[d];
			r.dir_lat_sum_ns[d] += smp.s[k].lat_sum_ns[d];
		}
		smp.len_s[k] = k + 1 == nb
				       ? (double)(ce - cs -
						  (int64_t)k * 1000000000LL) /
						 1e9
				       : 1.0;
	}
	smp.n = smp.cap = nb;
	smp.last_s = smp.len_s[nb - 1];
	r.ios = r.dir_ios[0] + r.dir_ios[1];
	r.bytes = r.dir_bytes[0] + r.dir_bytes[1];
	r.lat_sum_ns = r.dir_lat_sum_ns[0] + r.dir_lat_sum_ns[1];
	r.window_ns = (uint64_t)(ce - cs);
	r.start_unix_ns = cs;
	result_finish(&r);
	snprintf(w.name, sizeof(w.name), "%s", x0->test);
	snprintf(w.rw, sizeof(w.rw), "%s", x0->rw);
	w.pattern = strcmp(x0->pattern, "sequential") == 0 ? WL_SEQUENTIAL
							   : WL_RANDOM;
	w.block_size = (uint32_t)x0->block_size;
	w.queue_depth = (unsigned)x0->queue_depth;
	w.threads = (unsigned)x0->threads;
	rc = archive_iteration_insert(j->a, j->agg_run, &w, x0->iteration, &r,
				      hist, &smp);
	if (rc < 0)
		snprintf(j->error, sizeof(j->error),
			 "the archive could not store the aggregate of %s "
			 "iteration %d",
			 x0->test, x0->iteration);
out:
	free(bins);
	free(smp.s);
	free(smp.len_s);
	return rc;
}

int fleet_sum(struct fleet_job *j, int store)
{
	struct hist *hist = malloc(sizeof(*hist)); /* 32 KiB: not the stack */
	int rc = 0;

	if (!hist)
		return -ENOMEM;
	j->n_skews = 0;
	for (size_t h = 0; h < j->n; h++) {
		j->hosts[h].common_share_min = 1;
		j->hosts[h].skew_max_ns = 0;
		if (j->hosts[h].win)
			continue;
		if ((rc = archive_run_windows(j->a, j->hosts[h].local_run,
					      &j->hosts[h].win,
					      &j->hosts[h].n_win)) < 0) {
			snprintf(j->error, sizeof(j->error),
				 "the archive could not read %s's run",
				 j->hosts[h].name);
			break;
		}
	}
	for (size_t i = 0; rc == 0 && i < j->hosts[0].n_win; i++)
		rc = sum_one(j, i, hist, store);
	free(hist);
	return rc;
}
