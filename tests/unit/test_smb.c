/*
 * test_smb.c — the SMB back-end against a real Samba server.
 *
 * Starts Debian's smbd on 127.0.0.1, on a high port, with a configuration in
 * a fresh directory under the current one: a share "bench" that needs a user
 * and password (no guest), the password set with smbpasswd in the test's own
 * passdb. Then the engine creates, fills, reads, writes and removes a file
 * on the share through smb:// URLs, and a wrong password and a missing share
 * fail with their errno. smbd is stopped at the end. Needs root (smbd and
 * its passdb) and smbd installed; says why it skips otherwise.
 */
#include "engine/engine.h"
#include "os/child.h"
#include "targets/smb.h"
#include "test.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PORT 44545
#define MIB (1ULL << 20)

static char dir[PATH_MAX];
static char url[PATH_MAX + 64];
static pid_t smbd = -1;
static const char *skip; /* why the SMB tests cannot run, or NULL */
static const struct smb_session good = { .user = "root",
					 .password = "sbpass",
					 .domain = "WORKGROUP" };
static const struct smb_session wrong_pw = { .user = "root",
					     .password = "wrong",
					     .domain = "WORKGROUP" };

static char cmd[4 * PATH_MAX];

static int port_open(void)
{
	char probe[128];

	snprintf(probe, sizeof(probe),
		 "bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d' 2>/dev/null", PORT);
	return system(probe) == 0;
}

static void test_start_smbd(void)
{
	char cwd[PATH_MAX - 64], conf[PATH_MAX + 32];
	FILE *f;

	if (geteuid() != 0 || access("/usr/sbin/smbd", X_OK) != 0) {
		skip = geteuid() != 0 ? "smbd and its passdb need root"
				      : "smbd is not installed (apt-get "
					"install samba)";
		TEST_SKIP("SMB tests: %s", skip);
	}
	ASSERT_TRUE(getcwd(cwd, sizeof(cwd)) != NULL);
	snprintf(dir, sizeof(dir), "%s/smb_test.XXXXXX", cwd);
	ASSERT_TRUE(mkdtemp(dir) != NULL);
	snprintf(conf, sizeof(conf), "%s/smb.conf", dir);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && mkdir -p private lock state cache run share", dir);
	ASSERT_EQ(system(cmd), 0);
	f = fopen(conf, "w");
	ASSERT_TRUE(f != NULL);
	fprintf(f,
		"[global]\n"
		"  server role = standalone server\n"
		"  smb ports = %d\n"
		"  interfaces = 127.0.0.1\n"
		"  bind interfaces only = yes\n"
		"  disable netbios = yes\n"
		"  private dir = %s/private\n"
		"  lock directory = %s/lock\n"
		"  state directory = %s/state\n"
		"  cache directory = %s/cache\n"
		"  pid directory = %s/run\n"
		"  passdb backend = tdbsam:%s/private/passdb.tdb\n"
		"  log file = %s/smbd.log\n"
		"  map to guest = never\n"
		"  server min protocol = SMB2_02\n"
		"[bench]\n"
		"  path = %s/share\n"
		"  read only = no\n"
		"  guest ok = no\n",
		PORT, dir, dir, dir, dir, dir, dir, dir, dir);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "printf 'sbpass\\nsbpass\\n' | smbpasswd -c '%s' -s -a root "
		 ">/dev/null",
		 conf);
	ASSERT_EQ(system(cmd), 0);
	smbd = fork();
	ASSERT_TRUE(smbd >= 0);
	if (smbd == 0) {
		/* its own session: smbd signals its whole process group when
		 * it stops, and that must not be us */
		setsid();
		execl("/usr/sbin/smbd", "smbd", "--foreground",
		      "--no-process-group", "--configfile", conf, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 100 && !port_open(); i++)
		usleep(100000);
	ASSERT_TRUE(port_open());
	snprintf(url, sizeof(url),
		 "smb://127.0.0.1:%d/bench/storbench-test.dat", PORT);
	child_set_program(STORBENCH_BIN_PATH);
}

/* Create, fill, measure reads and writes, remove — all over SMB. */
static void test_engine_over_smb(void)
{
	char err[256] = "", local[PATH_MAX + 64];
	struct engine_opts o = { .ops = &tgt_smb_ops,
				 .session = &good,
				 .path = url,
				 .direct = 1,
				 .error = err,
				 .error_len = sizeof(err) };
	struct workload w = { .pattern = WL_RANDOM,
			      .read_pct = 100,
			      .block_size = 65536,
			      .queue_depth = 4,
			      .threads = 2,
			      .file_size = 16 * MIB,
			      .duration_s = 0.5 };
	struct result r;
	struct stat st;
	int direct = 0;

	if (skip)
		TEST_SKIP("SMB: %s", skip);
	snprintf(w.name, sizeof(w.name), "smb");
	snprintf(local, sizeof(local), "%s/share/storbench-test.dat", dir);
	ASSERT_EQ(engine_prepare_file(&o, 16 * MIB, WL_DATA_RANDOM, &direct),
		  0);
	if (err[0])
		fprintf(stderr, "  %s\n", err);
	/* the file is on the share's disk, whole */
	ASSERT_EQ(stat(local, &st), 0);
	ASSERT_EQ(st.st_size, (off_t)(16 * MIB));
	/* a second create must not touch it */
	ASSERT_EQ(engine_prepare_file(&o, 16 * MIB, WL_DATA_RANDOM, &direct),
		  -EEXIST);
	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	ASSERT_TRUE(r.ios > 10);
	ASSERT_U64_EQ(r.bytes, r.ios * 65536);
	/* QD 4 × 2 threads = 8 connections, one request each: Little */
	ASSERT_NEAR_REL(r.iops * r.lat_mean_us / 1e6, 8.0, 0.1);
	w.read_pct = 0;
	w.pattern = WL_SEQUENTIAL;
	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	ASSERT_TRUE(r.ios > 10);
	ASSERT_EQ(tgt_unlink(&tgt_smb_ops, url, &good), 0);
	ASSERT_TRUE(stat(local, &st) != 0 && errno == ENOENT);
}

/* A wrong password and a missing share fail with their errno. */
static void test_errors(void)
{
	char err[256] = "", bad[PATH_MAX + 64];
	struct engine_opts o = { .ops = &tgt_smb_ops,
				 .session = &wrong_pw,
				 .path = url,
				 .direct = 1,
				 .error = err,
				 .error_len = sizeof(err) };
	int direct, rc;

	if (skip)
		TEST_SKIP("SMB: %s", skip);
	rc = engine_prepare_file(&o, MIB, WL_DATA_RANDOM, &direct);
	ASSERT_TRUE(rc == -EACCES || rc == -EPERM);
	o.session = &good;
	snprintf(bad, sizeof(bad), "smb://127.0.0.1:%d/nope/x.dat", PORT);
	o.path = bad;
	rc = engine_prepare_file(&o, MIB, WL_DATA_RANDOM, &direct);
	ASSERT_TRUE(rc == -ENOENT || rc == -ENODEV);
}

/* The probe sees the dialect and the protocol knobs take effect: the
 * defaults negotiate SMB 3.1.1 unsigned and unencrypted after the tree
 * connect; a maximum of SMB2_10 negotiates SMB 2.1; signing and encryption
 * required are on. */
static void test_probe_knobs(void)
{
	char share[PATH_MAX];
	struct smb_session s = good;
	struct smb_info in;

	if (skip)
		TEST_SKIP("SMB: %s", skip);
	snprintf(share, sizeof(share), "smb://127.0.0.1:%d/bench", PORT);
	ASSERT_EQ(smb_op(&s, "probe", share, NULL, 0, &in), 0);
	ASSERT_EQ(in.err, 0);
	ASSERT_STR_EQ(in.dialect, "SMB3_11");
	ASSERT_EQ(in.signing, 0);
	ASSERT_EQ(in.encryption, 0);
	ASSERT_TRUE(in.is_dir == 1 && in.free_bytes > 0 &&
		    in.total_bytes >= in.free_bytes);

	snprintf(s.max_protocol, sizeof(s.max_protocol), "SMB2_10");
	s.require_signing = 1;
	ASSERT_EQ(smb_op(&s, "probe", share, NULL, 0, &in), 0);
	ASSERT_EQ(in.err, 0);
	ASSERT_STR_EQ(in.dialect, "SMB2_10");
	ASSERT_EQ(in.signing, 1);
	ASSERT_EQ(in.encryption, 0);

	s = good;
	s.require_encryption = 1;
	ASSERT_EQ(smb_op(&s, "probe", share, NULL, 0, &in), 0);
	ASSERT_EQ(in.err, 0);
	ASSERT_STR_EQ(in.dialect, "SMB3_11");
	ASSERT_EQ(in.encryption, 1);

	/* a minimum above what the server allows fails to connect */
	s = good;
	snprintf(share, sizeof(share), "smb://127.0.0.1:%d/bench/nodir", PORT);
	ASSERT_EQ(smb_op(&s, "check", share, NULL, 0, &in), 0);
	ASSERT_EQ(in.err, -ENOENT);
	s = wrong_pw;
	ASSERT_EQ(smb_op(&s, "check", share, NULL, 0, &in), 0);
	ASSERT_TRUE(in.err == -EACCES || in.err == -EPERM);
}

/* Server-side copy, sparse files, and the 1 MiB writer, on the share. */
static void test_file_ops(void)
{
	char a[PATH_MAX], b[PATH_MAX], la[PATH_MAX + 64], lb[PATH_MAX + 64];
	struct smb_info in;
	struct stat st;

	if (skip)
		TEST_SKIP("SMB: %s", skip);
	snprintf(a, sizeof(a), "smb://127.0.0.1:%d/bench/a.dat", PORT);
	snprintf(b, sizeof(b), "smb://127.0.0.1:%d/bench/b.dat", PORT);
	snprintf(la, sizeof(la), "%s/share/a.dat", dir);
	snprintf(lb, sizeof(lb), "%s/share/b.dat", dir);
	ASSERT_EQ(smb_op(&good, "zeros", a, NULL, 3 * MIB + 512, &in), 0);
	ASSERT_EQ(in.err, 0);
	ASSERT_TRUE(stat(la, &st) == 0 && st.st_size == (off_t)(3 * MIB + 512));
	ASSERT_TRUE(in.elapsed_ns > 0);
	ASSERT_EQ(smb_op(&good, "copy", a, b, 3 * MIB + 512, &in), 0);
	ASSERT_EQ(in.err, 0);
	ASSERT_TRUE(stat(lb, &st) == 0 && st.st_size == (off_t)(3 * MIB + 512));
	/* never over an existing file */
	ASSERT_EQ(smb_op(&good, "copy-rw", a, b, MIB, &in), 0);
	ASSERT_EQ(in.err, -EEXIST);
	ASSERT_EQ(smb_op(&good, "unlink", b, NULL, 0, &in), 0);
	ASSERT_EQ(in.err, 0);
	ASSERT_EQ(smb_op(&good, "copy-rw", a, b, 2 * MIB, &in), 0);
	ASSERT_EQ(in.err, 0);
	ASSERT_TRUE(stat(lb, &st) == 0 && st.st_size == (off_t)(2 * MIB));
	ASSERT_EQ(smb_op(&good, "unlink", b, NULL, 0, &in), 0);
	ASSERT_EQ(smb_op(&good, "sparse", b, NULL, 64 * MIB, &in), 0);
	ASSERT_EQ(in.err, 0);
	ASSERT_TRUE(stat(lb, &st) == 0 && st.st_size == (off_t)(64 * MIB) &&
		    st.st_blocks * 512 < (off_t)MIB);
	ASSERT_EQ(smb_op(&good, "unlink", a, NULL, 0, &in), 0);
	ASSERT_EQ(smb_op(&good, "unlink", b, NULL, 0, &in), 0);
	ASSERT_TRUE(stat(la, &st) != 0 && stat(lb, &st) != 0);
}

/* URLs: what is refused and why. */
static void test_url_parse(void)
{
	struct smb_url u;
	char err[200];

	ASSERT_EQ(smb_url_parse("smb://srv:4455/share/a/b/", &u, err,
				sizeof(err)),
		  0);
	ASSERT_STR_EQ(u.server, "srv");
	ASSERT_EQ(u.port, 4455);
	ASSERT_STR_EQ(u.share, "share");
	ASSERT_STR_EQ(u.path, "a/b");
	ASSERT_EQ(smb_url_parse("smb://srv/share", &u, err, sizeof(err)), 0);
	ASSERT_EQ(u.port, 0);
	ASSERT_STR_EQ(u.path, "");
	ASSERT_EQ(smb_url_parse("smb://u:pw@srv/share", &u, err, sizeof(err)),
		  -EINVAL);
	ASSERT_TRUE(strstr(err, "credentials") != NULL);
	ASSERT_EQ(smb_url_parse("smb://srv", &u, err, sizeof(err)), -EINVAL);
	ASSERT_TRUE(strstr(err, "no share") != NULL);
	ASSERT_EQ(smb_url_parse("smb://srv:0/s", &u, err, sizeof(err)),
		  -EINVAL);
	ASSERT_EQ(smb_url_parse("smb:///s", &u, err, sizeof(err)), -EINVAL);
	ASSERT_EQ(smb_url_parse("smb://srv/s/../x", &u, err, sizeof(err)),
		  -EINVAL);
	ASSERT_EQ(smb_url_parse("/local", &u, err, sizeof(err)), -EINVAL);
	ASSERT_EQ(
		smb_url_parse("smb://[fd00::5]:4455/s/d", &u, err, sizeof(err)),
		0);
	ASSERT_STR_EQ(u.server, "[fd00::5]");
	ASSERT_EQ(u.port, 4455);
	ASSERT_EQ(smb_url_parse("smb://[fd00::5]x/s", &u, err, sizeof(err)),
		  -EINVAL);
	ASSERT_EQ(smb_url_parse("smb://srv/s/a//b", &u, err, sizeof(err)),
		  -EINVAL);
	ASSERT_EQ(smb_url_parse("smb://srv/s/a%2Fb", &u, err, sizeof(err)),
		  -EINVAL);
	ASSERT_EQ(smb_url_parse("smb://srv/s/a?x=1", &u, err, sizeof(err)),
		  -EINVAL);
	ASSERT_EQ(smb_url_parse("smb://srv/s/a\x01", &u, err, sizeof(err)),
		  -EINVAL);
}

/* The dialect Windows' FILE_REMOTE_PROTOCOL_INFO numbers, by the names
 * the smb back-end's probe gives (storbench.exe's probe of a share), and
 * the sentence storbench.exe gives for an smb:// target. */
static void test_dialect_names(void)
{
	char why[400];

	ASSERT_STR_EQ(smb_dialect_of_version(2, 0, 2), "SMB2_02");
	ASSERT_STR_EQ(smb_dialect_of_version(2, 1, 0), "SMB2_10");
	ASSERT_STR_EQ(smb_dialect_of_version(3, 0, 0), "SMB3_00");
	ASSERT_STR_EQ(smb_dialect_of_version(3, 0, 2), "SMB3_02");
	ASSERT_STR_EQ(smb_dialect_of_version(3, 1, 1), "SMB3_11");
	ASSERT_STR_EQ(smb_dialect_of_version(1, 0, 0), "");
	ASSERT_STR_EQ(smb_dialect_of_version(4, 0, 0), "");
	smb_no_backend("smb://srv:4455/share/a/b", why, sizeof(why));
	ASSERT_TRUE(strstr(why, "name the share as \\\\srv\\share\\a\\b ") !=
		    NULL);
	smb_no_backend("smb://u:pw@srv/share", why, sizeof(why));
	ASSERT_TRUE(strstr(why, "pw") == NULL); /* not echoed */
}

static void test_stop_smbd(void)
{
	int status;

	if (skip)
		TEST_SKIP("SMB: %s", skip);
	ASSERT_EQ(kill(smbd, SIGTERM), 0);
	ASSERT_EQ(waitpid(smbd, &status, 0), smbd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ASSERT_EQ(system(cmd), 0);
}

TEST_MAIN(test_url_parse, test_dialect_names, test_start_smbd,
	  test_engine_over_smb, test_errors, test_probe_knobs, test_file_ops,
	  test_stop_smbd)
