/*
 * wire_linux — the OS's part of wire.h: iperf3's library (libiperf) in a
 * child process (child.h), and whether a baseline host is the share's
 * server (getaddrinfo).
 *
 * The child (`storbench wire-iperf HOST PORT DURATION STREAMS REVERSE`)
 * points its standard input, output and error at /dev/null before
 * libiperf runs (the library prints its JSON to stdout and may print
 * warnings), ignores SIGPIPE (a server that resets is an error, not a
 * death), runs one client test with JSON output and writes that JSON —
 * or {"error": …} in iperf3's words — to the socket it was given, then
 * exits. The daemon reads until end of file, for at most the test's
 * length plus a margin, and kills a child that overstays, or that has not
 * answered when the job is cancelled (looked at every 0.2 s).
 *
 * wire_same_server runs while a job's POST is answered: its name lookups
 * run in a detached thread the request waits for at most a bound, so a
 * slow resolver cannot hold the request longer (the thread finishes and
 * frees what it found on its own).
 */
#include "wire.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <iperf_api.h>

#include "os/child.h"
#include "os/os.h"

/* libiperf's own limit on connecting, ms */
#define CONNECT_TIMEOUT_MS 5000
/* how long past its duration a child may take (connect, exchange), s */
#define CHILD_MARGIN_S 20
#define MAX_JSON (4 << 20)

int wire_available(char *buf, size_t len)
{
	(void)buf;
	(void)len;
	return 1;
}

/* Do addresses a and b share one? */
static int common_address(const struct addrinfo *a, const struct addrinfo *b)
{
	for (; a; a = a->ai_next)
		for (const struct addrinfo *c = b; c; c = c->ai_next)
			if (a->ai_family == c->ai_family &&
			    a->ai_addrlen == c->ai_addrlen &&
			    memcmp(a->ai_addr, c->ai_addr, a->ai_addrlen) == 0)
				return 1;
	return 0;
}

/*
 * A lookup of the baseline host and the share's server, shared by the
 * caller and the thread that resolves them: whichever lets go last frees
 * it, so a caller that stopped waiting leaves the thread to finish alone.
 */
struct lookup {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int refs, done;
	char *host, *server;
	struct addrinfo *h, *s; /* the addresses, or NULL */
	int rc_h;		/* getaddrinfo's answer for host */
};

/* Lets go of l (under nothing): the last one frees it. */
static void lookup_put(struct lookup *l)
{
	int last;

	pthread_mutex_lock(&l->mu);
	last = --l->refs == 0;
	pthread_mutex_unlock(&l->mu);
	if (!last)
		return;
	if (l->h)
		freeaddrinfo(l->h);
	if (l->s)
		freeaddrinfo(l->s);
	pthread_cond_destroy(&l->cv);
	pthread_mutex_destroy(&l->mu);
	free(l->host);
	free(l->server);
	free(l);
}

static void *lookup_run(void *arg)
{
	struct lookup *l = arg;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *h = NULL,
			*s = NULL;
	int rc = getaddrinfo(l->host, NULL, &hints, &h);

	if (rc == 0 && strcasecmp(l->host, l->server) != 0 &&
	    getaddrinfo(l->server, NULL, &hints, &s) != 0)
		s = NULL;
	pthread_mutex_lock(&l->mu);
	l->h = h;
	l->s = s;
	l->rc_h = rc;
	l->done = 1;
	pthread_cond_signal(&l->cv);
	pthread_mutex_unlock(&l->mu);
	lookup_put(l);
	return NULL;
}

int wire_same_server(const char *host, const char *server, int timeout_ms,
		     char *buf, size_t len)
{
	struct lookup *l = calloc(1, sizeof(*l));
	struct timespec until;
	pthread_attr_t attr;
	pthread_t t;
	int same = 0, started;

	if (!l || !(l->host = strdup(host)) || !(l->server = strdup(server))) {
		snprintf(buf, len, "out of memory");
		if (l) {
			free(l->host);
			free(l);
		}
		return 0;
	}
	pthread_mutex_init(&l->mu, NULL);
	pthread_cond_init(&l->cv, NULL);
	l->refs = 2;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	started = pthread_create(&t, &attr, lookup_run, l) == 0;
	pthread_attr_destroy(&attr);
	if (!started) {
		l->refs = 1; /* no thread: the caller's only */
		snprintf(buf, len, "cannot resolve \"%.100s\": no thread",
			 host);
		lookup_put(l);
		return 0;
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&l->mu);
	while (!l->done &&
	       pthread_cond_timedwait(&l->cv, &l->mu, &until) != ETIMEDOUT)
		;
	if (!l->done)
		snprintf(buf, len, "\"%.100s\" did not resolve within %d s",
			 host, (timeout_ms + 999) / 1000);
	else if (l->rc_h != 0)
		snprintf(buf, len, "\"%.100s\" does not resolve: %s", host,
			 gai_strerror(l->rc_h));
	else if (!(same = strcasecmp(host, server) == 0 ||
			  (l->s && common_address(l->h, l->s))))
		snprintf(buf, len,
			 "\"%.100s\" is not the share's server %.100s (no "
			 "address in common): the baseline measures the wire "
			 "to the file server, and the daemon sends traffic "
			 "only to a server it was allowed",
			 host, server);
	pthread_mutex_unlock(&l->mu);
	lookup_put(l);
	return same;
}

/* how often a waiting daemon looks at the job's cancel flag, ms */
#define CANCEL_POLL_MS 200

/* Reads fd to end of file into a malloc'd string, until deadline
 * (os_now_ns) or *cancel (NULL: never). 0, -ETIMEDOUT, -ECANCELED, -EFBIG
 * or -errno. */
static int read_all(int fd, uint64_t deadline, const atomic_int *cancel,
		    char **out)
{
	size_t n = 0, cap = 65536;
	char *buf = malloc(cap), *nb;
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = os_now_ns(), ms;
		ssize_t k;
		if (cancel && atomic_load(cancel)) {
			rc = -ECANCELED;
			break;
		}
		if (now >= deadline) {
			rc = -ETIMEDOUT;
			break;
		}
		ms = (deadline - now) / 1000000 + 1;
		if (poll(&p, 1,
			 ms < CANCEL_POLL_MS ? (int)ms : CANCEL_POLL_MS) < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		if (!p.revents)
			continue;
		if (n + 1 >= cap) {
			if (cap >= MAX_JSON || !(nb = realloc(buf, cap * 2))) {
				rc = cap >= MAX_JSON ? -EFBIG : -ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		k = read(fd, buf + n, cap - n - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rc = -errno;
			break;
		}
		if (k == 0)
			break;
		n += (size_t)k;
	}
	if (rc < 0) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

int wire_run_iperf(const char *host, int port, int duration_s, int streams,
		   int reverse, const atomic_int *cancel, char **json,
		   char *err, size_t len)
{
	char p[16], d[16], s[16], r[4];
	char *argv[] = { "storbench", "wire-iperf", (char *)host, p, d, s,
			 r,	      NULL };
	pid_t pid;
	int sock, rc;

	*json = NULL;
	snprintf(p, sizeof(p), "%d", port);
	snprintf(d, sizeof(d), "%d", duration_s);
	snprintf(s, sizeof(s), "%d", streams);
	snprintf(r, sizeof(r), "%d", reverse ? 1 : 0);
	if ((rc = child_spawn(argv, NULL, &pid, &sock)) < 0) {
		snprintf(err, len, "could not start its process: %s",
			 strerror(-rc));
		return rc;
	}
	rc = read_all(sock,
		      os_now_ns() + (uint64_t)(duration_s + CHILD_MARGIN_S) *
					    1000000000ULL,
		      cancel, json);
	/* a child that has not answered (late, cancelled, too much) is
	 * killed, not waited for */
	child_reap(pid, sock, rc < 0);
	if (rc == 0 && !(*json)[0]) {
		free(*json);
		*json = NULL;
		rc = -EIO;
	}
	if (rc < 0)
		snprintf(err, len, "%s",
			 rc == -ETIMEDOUT ? "no answer in time"
			 : rc == -EIO ? "its process ended without an answer"
			 : rc == -ECANCELED ? "the job was cancelled"
					    : strerror(-rc));
	return rc;
}

/* Writes all of text to fd (a failure: the daemon is gone). */
static void put(int fd, const char *text)
{
	(void)child_full_io(fd, (void *)text, strlen(text), 1);
}

/* The child: one iperf3 client test, its JSON to out. */
static int run_child(int out, const char *host, int port, int dur, int streams,
		     int reverse)
{
	struct iperf_test *t = iperf_new_test();
	const char *j;
	int rc;

	if (!t) {
		put(out, "{\"error\": \"libiperf could not make a test\"}");
		return 1;
	}
	iperf_defaults(t);
	iperf_set_test_role(t, 'c');
	iperf_set_test_server_hostname(t, host);
	iperf_set_test_server_port(t, port);
	iperf_set_test_duration(t, dur);
	iperf_set_test_num_streams(t, streams);
	iperf_set_test_reverse(t, reverse);
	iperf_set_test_connect_timeout(t, CONNECT_TIMEOUT_MS);
	iperf_set_test_json_output(t, 1);
	rc = iperf_run_client(t);
	j = iperf_get_test_json_output_string(t);
	if (j && j[0]) {
		put(out, j);
	} else {
		json_t *e = json_pack("{s:s}", "error",
				      rc < 0 ? iperf_strerror(i_errno)
					     : "iperf3 gave no output");
		char *s = e ? json_dumps(e, JSON_COMPACT) : NULL;
		put(out, s ? s : "{\"error\": \"out of memory\"}");
		free(s);
		json_decref(e);
	}
	iperf_free_test(t);
	return rc < 0 ? 1 : 0;
}

int wire_child_main(int argc, char **argv)
{
	char *end[4];
	long v[4];
	int out, null;

	if (argc != 6 || strcmp(argv[0], "wire-iperf") != 0) {
		fprintf(stderr, "usage: storbench wire-iperf HOST PORT "
				"DURATION_S STREAMS REVERSE\n");
		return 2;
	}
	for (int i = 0; i < 4; i++) {
		errno = 0;
		v[i] = strtol(argv[2 + i], &end[i], 10);
		if (errno || *end[i] || end[i] == argv[2 + i] || v[i] < 0 ||
		    v[i] > 65535)
			return 2;
	}
	/* our socket moves off fd 1: libiperf prints to stdout */
	if ((out = fcntl(1, F_DUPFD_CLOEXEC, 3)) < 0 ||
	    (null = open("/dev/null", O_RDWR)) < 0)
		return 1;
	dup2(null, 0);
	dup2(null, 1);
	dup2(null, 2);
	if (null > 2)
		close(null);
	signal(SIGPIPE, SIG_IGN);
	return run_child(out, argv[1], (int)v[0], (int)v[1], (int)v[2],
			 (int)v[3]);
}
