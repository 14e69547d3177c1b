/*
 * libs_smoke — Jansson, SQLite and libmicrohttpd as scripts/build-windows
 * builds them, linked into one Windows program that uses each once: a WAL
 * database with a JSON value, and HTTP on 127.0.0.1:18999 for 3 s (run it
 * under wine64 and ask it with curl).
 */
#include <winsock2.h>

#include <jansson.h>
#include <microhttpd.h>
#include <sqlite3.h>
#include <stdio.h>
#include <windows.h>
static enum MHD_Result h(void *c, struct MHD_Connection *k, const char *u,
			 const char *m, const char *v, const char *d, size_t *n,
			 void **p)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		3, (void *)"ok\n", MHD_RESPMEM_PERSISTENT);
	enum MHD_Result x = MHD_queue_response(k, 200, r);
	(void)c;
	(void)u;
	(void)m;
	(void)v;
	(void)d;
	(void)n;
	(void)p;
	MHD_destroy_response(r);
	return x;
}
int main(void)
{
	sqlite3 *db;
	char *err = NULL;
	json_t *j = json_pack("{s:i}", "ok", 1);
	char *t = json_dumps(j, JSON_COMPACT);
	int rc = sqlite3_open("smoke.db", &db);
	rc |= sqlite3_exec(
		db,
		"PRAGMA journal_mode=WAL; CREATE TABLE IF NOT EXISTS t(x); "
		"INSERT INTO t VALUES (json_object('a',1));",
		NULL, NULL, &err);
	struct MHD_Daemon *d = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 18999,
		NULL, NULL, h, NULL, MHD_OPTION_END);
	if (d) {
		printf("listening; ");
		fflush(stdout);
		Sleep(3000);
	}
	printf("jansson %s %s; sqlite %s rc=%d %s; mhd %s daemon=%s\n",
	       JANSSON_VERSION, t, sqlite3_libversion(), rc, err ? err : "",
	       MHD_get_version(), d ? "up" : "none");
	if (d)
		MHD_stop_daemon(d);
	sqlite3_close(db);
	return 0;
}
