/*
 * test_wire.c — the wire baseline's portable part (daemon/wire/wire.h): the
 * request's baseline checked and filled in (and refused by field), iperf3's
 * JSON read (its figures, its own error, something else), an imported
 * document's wire checked and kept as documented, and each
 * result's efficiency against the wire computed here from the same
 * figures, a mix by time; and the baseline host's lookup against a
 * resolver that never answers (root: a mount namespace of its own whose
 * /etc/resolv.conf names a silent UDP socket of the test), which must give
 * up at its bound. The measurement itself is tested end to end against
 * iperf3 -s and smbd in tests/integration/smb.test.mjs.
 */
#include "test.h"
#include "wire/wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* the shape of iperf3 3.12's JSON (-J), cut to what is read */
static const char iperf_json[] =
	"{\"start\": {\"version\": \"iperf 3.12\"}, \"intervals\": [],"
	" \"end\": {\"sum_sent\": {\"seconds\": 1.0, \"bytes\": 1600000000,"
	" \"bits_per_second\": 12800000000.0, \"retransmits\": 59},"
	" \"sum_received\": {\"seconds\": 1.000411, \"bytes\": 1599000000,"
	" \"bits_per_second\": 12786994350.4}}}";

static void test_parse(void)
{
	struct wire_dir d;
	char err[256];

	ASSERT_EQ(wire_parse_iperf(iperf_json, &d, err, sizeof(err)), 0);
	ASSERT_NEAR_REL(d.mb_s, 12786994350.4 / 8e6, 1e-12);
	ASSERT_NEAR_REL(d.seconds, 1.000411, 1e-12);
	ASSERT_EQ(d.bytes, 1599000000);
	ASSERT_EQ(d.retransmits, 59);
	ASSERT_TRUE(strcmp(d.version, "3.12") == 0);
	/* iperf3's own failure, in its words */
	ASSERT_EQ(wire_parse_iperf("{\"start\": {}, \"intervals\": [], "
				   "\"end\": {}, \"error\": \"unable to "
				   "connect to server: Connection refused\"}",
				   &d, err, sizeof(err)),
		  -EIO);
	ASSERT_STR_EQ(err, "unable to connect to server: Connection refused");
	ASSERT_EQ(wire_parse_iperf("Connecting to host", &d, err, sizeof(err)),
		  -EPROTO);
	ASSERT_EQ(wire_parse_iperf("{\"end\": {\"sum_sent\": {}}}", &d, err,
				   sizeof(err)),
		  -EPROTO);
	ASSERT_TRUE(strstr(err, "sum_received") != NULL);
}

/* wire_from_request on request text with the share on server. */
static int from(const char *text, const char *server, json_t **out,
		struct field_error *e)
{
	json_t *root = json_loads(text, 0, NULL);
	int rc = wire_from_request(root, server, out, e);

	json_decref(root);
	return rc;
}

static void test_request(void)
{
	struct field_error e;
	json_t *b = NULL;

	ASSERT_EQ(from("{}", "127.0.0.1", &b, &e), 0);
	ASSERT_TRUE(b == NULL);
	/* null is none, on any target (as steady_state's null) */
	ASSERT_EQ(from("{\"baseline\": null}", "127.0.0.1", &b, &e), 0);
	ASSERT_TRUE(b == NULL);
	ASSERT_EQ(from("{\"baseline\": null}", NULL, &b, &e), 0);
	ASSERT_TRUE(b == NULL);
	/* the defaults: the share's server, iperf3's port, 5 s, one stream */
	ASSERT_EQ(from("{\"baseline\": {}}", "127.0.0.1", &b, &e), 0);
	ASSERT_STR_EQ(json_string_value(json_object_get(b, "host")),
		      "127.0.0.1");
	ASSERT_EQ(json_integer_value(json_object_get(b, "port")), 5201);
	ASSERT_EQ(json_integer_value(json_object_get(b, "duration_s")), 5);
	ASSERT_EQ(json_integer_value(json_object_get(b, "streams")), 1);
	json_decref(b);
	b = NULL;
	/* refused by field */
	ASSERT_EQ(from("{\"baseline\": {}}", NULL, &b, &e), -EINVAL);
	ASSERT_STR_EQ(e.field, "baseline");
	ASSERT_EQ(from("{\"baseline\": {\"port\": 0}}", "127.0.0.1", &b, &e),
		  -EINVAL);
	ASSERT_STR_EQ(e.field, "baseline.port");
	ASSERT_EQ(from("{\"baseline\": {\"streams\": 2, \"x\": 1}}",
		       "127.0.0.1", &b, &e),
		  -EINVAL);
	ASSERT_STR_EQ(e.field, "baseline.x");
	/* another server than the share's (numeric: no name lookup) */
	ASSERT_EQ(from("{\"baseline\": {\"host\": \"127.0.0.2\"}}", "127.0.0.1",
		       &b, &e),
		  -EINVAL);
	ASSERT_STR_EQ(e.field, "baseline.host");
	ASSERT_EQ(from("{\"baseline\": {}, \"compare_with\": [\"/x\"]}",
		       "127.0.0.1", &b, &e),
		  -EINVAL);
	ASSERT_STR_EQ(e.field, "baseline");
	ASSERT_TRUE(b == NULL);
}

static double eff(json_t *run, size_t t)
{
	return json_number_value(json_object_get(
		json_array_get(
			json_object_get(
				json_array_get(json_object_get(run, "tests"),
					       t),
				"iterations"),
			0),
		"wire_efficiency"));
}

static void test_efficiency(void)
{
	json_t *run = json_loads(
		"{\"wire\": {\"to_server_mb_s\": 1000, \"from_server_mb_s\": "
		"500},"
		" \"spec\": {\"tests\": [{\"name\": \"M\", \"read_pct\": 70}]},"
		" \"tests\": ["
		"  {\"test\": \"S\", \"rw\": \"read\", \"iterations\": "
		"[{\"mb_s\": 400}]},"
		"  {\"test\": \"S\", \"rw\": \"write\", \"iterations\": "
		"[{\"mb_s\": 400}]},"
		"  {\"test\": \"M\", \"rw\": \"mix\", \"iterations\": "
		"[{\"mb_s\": 400}]},"
		"  {\"test\": \"L\", \"rw\": \"log write\", \"iterations\": "
		"[{\"mb_s\": 8}]}]}",
		0, NULL);

	ASSERT_TRUE(run != NULL);
	wire_efficiency(run);
	ASSERT_NEAR_REL(eff(run, 0), 400.0 / 500, 1e-12);
	ASSERT_NEAR_REL(eff(run, 1), 400.0 / 1000, 1e-12);
	/* by time: 280 MB of reads at 500 MB/s and 120 MB of writes at
	 * 1000 MB/s need 0.68 s of the wire per second measured */
	ASSERT_NEAR_REL(eff(run, 2), 280.0 / 500 + 120.0 / 1000, 1e-12);
	ASSERT_TRUE(
		json_object_get(
			json_array_get(
				json_object_get(
					json_array_get(
						json_object_get(run, "tests"),
						3),
					"iterations"),
				0),
			"wire_efficiency") == NULL);
	json_decref(run);
}

/* wire_from_doc on a document's run object (text). */
static int from_doc(const char *text, char **out, struct field_error *e)
{
	json_t *run = json_loads(text, 0, NULL);
	int rc = wire_from_doc(run, out, e);

	json_decref(run);
	return rc;
}

/* An imported document's wire: checked, kept as the OpenAPI document's
 * Wire describes it (a null retransmit count stays null), anything else
 * dropped, a bad member refused by name. */
static void test_from_doc(void)
{
	struct field_error e;
	char *w = NULL;

	ASSERT_EQ(from_doc("{}", &w, &e), 0);
	ASSERT_TRUE(w == NULL);
	ASSERT_EQ(
		from_doc("{\"wire\": {\"host\": \"f\", \"port\": 5201, "
			 "\"duration_s\": 5, \"streams\": 1, "
			 "\"to_server_mb_s\": 1168.5, \"from_server_mb_s\": "
			 "1171.25, \"measured_at\": \"2026-12-02T08:09:03Z\", "
			 "\"to_server_retransmits\": null, \"iperf\": "
			 "\"3.12\", \"x\": 1}}",
			 &w, &e),
		0);
	ASSERT_STR_EQ(w, "{\"host\":\"f\",\"port\":5201,\"duration_s\":5,"
			 "\"streams\":1,\"to_server_mb_s\":1168.5,"
			 "\"from_server_mb_s\":1171.25,\"measured_at\":"
			 "\"2026-12-02T08:09:03Z\",\"to_server_retransmits\":"
			 "null,\"iperf\":\"3.12\"}");
	free(w);
	ASSERT_EQ(from_doc("{\"wire\": {\"host\": \"f\", \"port\": 5201, "
			   "\"duration_s\": 5, \"streams\": 1, "
			   "\"to_server_mb_s\": 1, \"from_server_mb_s\": 1, "
			   "\"measured_at\": \"2026-12-02T08:09:03Z\", "
			   "\"to_server_seconds\": -1}}",
			   &w, &e),
		  -EINVAL);
	ASSERT_STR_EQ(e.field, "wire.to_server_seconds");
	ASSERT_TRUE(w == NULL);
}

/*
 * In a child with a mount namespace of its own: /etc/resolv.conf names
 * 127.0.0.1, where the child holds a UDP socket on port 53 that never
 * answers. The exit code says what wire_same_server did: 0 it gave up
 * within its bound with the sentence, after the query reached the silent
 * server; 2 no namespace or socket here (skip); 1 anything else.
 */
static int slow_resolver_child(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(53) };
	char conf[] = "/tmp/storbench-resolv-XXXXXX", why[512], q[512];
	struct timespec t0, t1;
	int fd, s, same;
	double took;

	if (unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return 2;
	if ((fd = mkstemp(conf)) < 0)
		return 1;
	dprintf(fd, "nameserver 127.0.0.1\noptions timeout:30 attempts:1\n");
	close(fd);
	if (mount(conf, "/etc/resolv.conf", NULL, MS_BIND, NULL) < 0) {
		unlink(conf);
		return 2;
	}
	unlink(conf);
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if ((s = socket(AF_INET, SOCK_DGRAM, 0)) < 0 ||
	    bind(s, (struct sockaddr *)&a, sizeof(a)) < 0)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	same = wire_same_server("filer.storbench-test", "127.0.0.1", 300, why,
				sizeof(why));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	took = (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	fprintf(stderr, "  slow resolver: %d after %.3f s: %s\n", same, took,
		why);
	/* the lookup did ask the silent server: the bound was what ended it */
	if (recv(s, q, sizeof(q), MSG_DONTWAIT) <= 0)
		return 1;
	return same == 0 && took >= 0.29 && took < 2.0 &&
			       strstr(why, "\"filer.storbench-test\" did not "
					   "resolve within 1 s")
		       ? 0
		       : 1;
}

static void test_slow_resolver(void)
{
	int st = 0;
	pid_t pid;

	if (geteuid() != 0) {
		TEST_SKIP("slow resolver: needs root for a mount namespace");
	}
	if ((pid = fork()) == 0)
		_exit(slow_resolver_child());
	ASSERT_TRUE(pid > 0);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	ASSERT_TRUE(WIFEXITED(st));
	if (WEXITSTATUS(st) == 2) {
		TEST_SKIP("slow resolver: no mount namespace or port 53 here");
	}
	ASSERT_EQ(WEXITSTATUS(st), 0);
}

TEST_MAIN(test_parse, test_request, test_efficiency, test_from_doc,
	  test_slow_resolver)
