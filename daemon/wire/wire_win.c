/*
 * wire_win — the OS's part of wire.h on Windows: none yet. iperf3's
 * library is not built for Windows (iperf3 supports Windows only through
 * Cygwin, and Debian's source package builds no mingw-w64 library), so
 * storbench.exe refuses a job's "baseline" when it is submitted, saying
 * so, and the child entry says the same.
 */
#include "wire.h"

#include <errno.h>
#include <stdio.h>

#define NOT_HERE                                                               \
	"not in storbench.exe: iperf3's library (libiperf) is not built "      \
	"for Windows; measure the wire with iperf3 by hand, or run the job "   \
	"from a Linux storbench against the share"

int wire_available(char *buf, size_t len)
{
	snprintf(buf, len, "%s", NOT_HERE);
	return 0;
}

int wire_same_server(const char *host, const char *server, int timeout_ms,
		     char *buf, size_t len)
{
	(void)host;
	(void)server;
	(void)timeout_ms;
	snprintf(buf, len, "%s", NOT_HERE);
	return 0;
}

int wire_run_iperf(const char *host, int port, int duration_s, int streams,
		   int reverse, const atomic_int *cancel, char **json,
		   char *err, size_t len)
{
	(void)cancel;
	(void)host;
	(void)port;
	(void)duration_s;
	(void)streams;
	(void)reverse;
	*json = NULL;
	snprintf(err, len, "%s", NOT_HERE);
	return -ENOSYS;
}

int wire_child_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "storbench wire-iperf: %s\n", NOT_HERE);
	return 2;
}
