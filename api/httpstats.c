/*
 * httpstats — the API's own numbers for GET /metrics: requests answered by
 * route pattern, method and status code, and a histogram of the time from a
 * request's first byte to its answer being queued. The server counts every
 * answer here (api_http_count); the /metrics handler prints them
 * (api_http_metrics). One mutex, held for a few comparisons (counting) or
 * a copy of the counts (printing, done after it is let go: a holder
 * preempted while it prints would hold up every answer of the server).
 */
#include "api.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define HTTP_ROUTES_MAX 256
static const double lat_le[] = { 0.0005, 0.001, 0.0025, 0.005, 0.01,
				 0.025,	 0.05,	0.1,	0.25,  0.5,
				 1,	 2.5,	5 };
#define N_LE (sizeof(lat_le) / sizeof(lat_le[0]))
struct http_counts {
	struct {
		const char *route; /* a route pattern (static), or a word */
		char method[8];
		unsigned status;
		uint64_t n;
	} by[HTTP_ROUTES_MAX];
	size_t n_by;
	uint64_t le[N_LE + 1]; /* cumulative at print time; +Inf last */
	uint64_t count;
	double sum_s;
};

static struct {
	pthread_mutex_t mu;
	struct http_counts c;
} http = { .mu = PTHREAD_MUTEX_INITIALIZER };

void api_http_count(const char *route, const char *method, unsigned status,
		    double secs)
{
	static const char *const known[] = { "GET",   "HEAD",	"POST",	  "PUT",
					     "PATCH", "DELETE", "OPTIONS" };
	const char *m = "other";
	size_t i, b;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(method, known[i]) == 0)
			m = known[i];
	if (!route)
		route = "unmatched";
	pthread_mutex_lock(&http.mu);
	for (i = 0; i < http.c.n_by; i++)
		if (http.c.by[i].status == status &&
		    strcmp(http.c.by[i].method, m) == 0 &&
		    strcmp(http.c.by[i].route, route) == 0)
			break;
	if (i == http.c.n_by && http.c.n_by < HTTP_ROUTES_MAX) {
		http.c.by[i].route = route;
		snprintf(http.c.by[i].method, sizeof(http.c.by[i].method), "%s",
			 m);
		http.c.by[i].status = status;
		http.c.by[i].n = 0;
		http.c.n_by++;
	}
	if (i < http.c.n_by)
		http.c.by[i].n++;
	for (b = 0; b < N_LE && secs > lat_le[b]; b++)
		;
	http.c.le[b]++;
	http.c.count++;
	http.c.sum_s += secs;
	pthread_mutex_unlock(&http.mu);
}

void api_http_metrics(FILE *f)
{
	struct http_counts c; /* 8 KiB */
	uint64_t cum = 0;

	pthread_mutex_lock(&http.mu);
	c = http.c;
	pthread_mutex_unlock(&http.mu);
	fprintf(f,
		"# HELP storbench_http_requests_total HTTP requests answered, "
		"by route pattern, method and status code.\n"
		"# TYPE storbench_http_requests_total counter\n");
	for (size_t i = 0; i < c.n_by; i++)
		fprintf(f,
			"storbench_http_requests_total{route=\"%s\",method=\"%"
			"s\","
			"code=\"%u\"} %llu\n",
			c.by[i].route, c.by[i].method, c.by[i].status,
			(unsigned long long)c.by[i].n);
	fprintf(f,
		"# HELP storbench_http_request_duration_seconds Time from a "
		"request's first byte to its answer being queued.\n"
		"# TYPE storbench_http_request_duration_seconds histogram\n");
	for (size_t b = 0; b < N_LE; b++) {
		cum += c.le[b];
		fprintf(f,
			"storbench_http_request_duration_seconds_bucket{le=\"%"
			"g\"} "
			"%llu\n",
			lat_le[b], (unsigned long long)cum);
	}
	fprintf(f,
		"storbench_http_request_duration_seconds_bucket{le=\"+Inf\"} "
		"%llu\n"
		"storbench_http_request_duration_seconds_sum %.9f\n"
		"storbench_http_request_duration_seconds_count %llu\n",
		(unsigned long long)c.count, c.sum_s,
		(unsigned long long)c.count);
}
