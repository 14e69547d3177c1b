/*
 * conns — who is connected to the API server, and which idle connections
 * it closes (the rules are in conns.c's header). server.c's, through
 * libmicrohttpd's callbacks.
 */
#ifndef STORBENCH_CONNS_H
#define STORBENCH_CONNS_H

#include <stdarg.h>

#include "net.h"

#include <microhttpd.h>

struct api_conns;
int api_conns_start(struct api_conns **out);
/* Call after the HTTP daemon has stopped. NULL is fine. */
void api_conns_stop(struct api_conns *s);
/* libmicrohttpd's callbacks (cls: the api_conns): a connection opened or
 * closed (MHD_OPTION_NOTIFY_CONNECTION); a new one (the accept policy). */
void api_conns_on_connection(void *cls, struct MHD_Connection *c, void **sctx,
			     enum MHD_ConnectionNotificationCode code);
enum MHD_Result api_conns_on_accept(void *cls, const struct sockaddr *addr,
				    socklen_t addrlen);
/* c's request has all arrived and is being answered (waiting 0), or its
 * answer has gone and it idles (1). */
void api_conns_waits(struct MHD_Connection *c, int waiting);
/* libmicrohttpd's messages into the log, repeats held back, an event
 * stream's client leaving dropped (not an error). */
void api_mhd_log(void *cls, const char *fmt, va_list ap);

#endif
