/*
 * test_confine — where jobs may write (daemon/platform/confine.c): roots, "..",
 * symlinks out of a root, a root swapped for a symlink after start, SMB
 * shares, the reserve, and raw block devices (a real loop device; skipped,
 * saying why, without root or loop devices). And the text of a Windows
 * share's path (unc.h: portable, so tested here; storbench.exe's
 * confinement of shares is tests/windows/unc.test.mjs), which on Linux is
 * a local path ("//x" is "/x").
 */
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/confine.h"
#include "platform/sys.h"
#include "platform/unc.h"

static char base[PATH_MAX / 2];
static char why[1024];

static void path_of(char *out, const char *name)
{
	snprintf(out, PATH_MAX, "%s/%s", base, name);
}

static void test_roots(void)
{
	char root[PATH_MAX], inner[PATH_MAX], outside[PATH_MAX], link[PATH_MAX];
	char dots[PATH_MAX + 16], real[PATH_MAX], scratch[PATH_MAX];

	confine_reset();
	path_of(root, "root");
	path_of(inner, "root/a/b");
	path_of(outside, "outside");
	path_of(link, "root/escape");
	path_of(scratch, "scratch");
	ASSERT_EQ(mkdir(root, 0700), 0);
	ASSERT_EQ(mkdir(outside, 0700), 0);
	ASSERT_EQ(mkdir(scratch, 0700), 0);
	path_of(real, "root/a");
	ASSERT_EQ(mkdir(real, 0700), 0);
	ASSERT_EQ(mkdir(inner, 0700), 0);
	ASSERT_EQ(symlink(outside, link), 0);

	/* nothing allowed yet: only scratch */
	ASSERT_EQ(confine_dir(inner, scratch, real, why, sizeof(why)), -EACCES);
	ASSERT_TRUE(strstr(why, "outside the allowed roots") != NULL);
	ASSERT_TRUE(strstr(why, "--allow") != NULL);
	ASSERT_EQ(confine_dir(scratch, scratch, real, why, sizeof(why)), 0);

	ASSERT_EQ(confine_allow(root, why, sizeof(why)), 0);
	ASSERT_EQ(confine_dir(root, NULL, real, why, sizeof(why)), 0);
	ASSERT_EQ(confine_dir(inner, NULL, real, why, sizeof(why)), 0);
	ASSERT_STR_EQ(real, inner);
	/* a sibling whose name starts with the root's is not inside it */
	snprintf(dots, sizeof(dots), "%s2", root);
	ASSERT_EQ(mkdir(dots, 0700), 0);
	ASSERT_EQ(confine_dir(dots, NULL, real, why, sizeof(why)), -EACCES);
	/* outside */
	ASSERT_EQ(confine_dir(outside, NULL, real, why, sizeof(why)), -EACCES);
	ASSERT_TRUE(strstr(why, "outside the allowed roots") != NULL);
	/* ".." is refused by its text, even when it would stay inside */
	snprintf(dots, sizeof(dots), "%s/a/../a", root);
	ASSERT_EQ(confine_dir(dots, NULL, real, why, sizeof(why)), -EACCES);
	ASSERT_TRUE(strstr(why, "\"..\"") != NULL);
	snprintf(dots, sizeof(dots), "%s/../outside", root);
	ASSERT_EQ(confine_dir(dots, NULL, real, why, sizeof(why)), -EACCES);
	/* names that merely contain two dots are names */
	snprintf(dots, sizeof(dots), "%s/a..b", root);
	ASSERT_EQ(mkdir(dots, 0700), 0);
	ASSERT_EQ(confine_dir(dots, NULL, real, why, sizeof(why)), 0);
	/* a symlink inside the root that leads out of it */
	ASSERT_EQ(confine_dir(link, NULL, real, why, sizeof(why)), -EACCES);
	ASSERT_TRUE(strstr(why, "symlink") != NULL);
	ASSERT_STR_EQ(real, outside);
	/* missing, relative */
	path_of(dots, "root/missing");
	ASSERT_EQ(confine_dir(dots, NULL, real, why, sizeof(why)), -ENOENT);
	ASSERT_TRUE(strstr(why, "does not exist") != NULL);
	ASSERT_EQ(confine_dir("rel/dir", NULL, real, why, sizeof(why)),
		  -EINVAL);

	/* the root swapped for a symlink after start: everything under it
	 * refused */
	path_of(dots, "root.moved");
	ASSERT_EQ(rename(root, dots), 0);
	ASSERT_EQ(symlink(outside, root), 0);
	ASSERT_EQ(confine_dir(root, NULL, real, why, sizeof(why)), -EACCES);
	ASSERT_EQ(unlink(root), 0);
	ASSERT_EQ(rename(dots, root), 0);
	ASSERT_EQ(confine_dir(inner, NULL, real, why, sizeof(why)), 0);
}

static void test_allow_refusals(void)
{
	char link[PATH_MAX], file[PATH_MAX];
	int fd;

	confine_reset();
	path_of(link, "rootlink");
	path_of(file, "afile");
	ASSERT_EQ(symlink("/etc", link), 0);
	/* a root that is itself a symlink to elsewhere */
	ASSERT_EQ(confine_allow(link, why, sizeof(why)), -ELOOP);
	ASSERT_TRUE(strstr(why, "symlink") != NULL && strstr(why, "/etc"));
	ASSERT_EQ(confine_allow("/", why, sizeof(why)), -EINVAL);
	ASSERT_EQ(confine_allow("relative", why, sizeof(why)), -EINVAL);
	ASSERT_EQ(confine_allow("/tmp/../etc", why, sizeof(why)), -EINVAL);
	ASSERT_EQ(confine_allow("/nonexistent/storbench", why, sizeof(why)),
		  -ENOENT);
	fd = open(file, O_CREAT | O_WRONLY, 0600);
	ASSERT_TRUE(fd >= 0);
	close(fd);
	ASSERT_EQ(confine_allow(file, why, sizeof(why)), -ENOTDIR);
	ASSERT_EQ(confine_allow("smb://srv/share", why, sizeof(why)), 0);
	ASSERT_EQ(confine_allow("smb://u:p@srv/share", why, sizeof(why)),
		  -EINVAL);
}

static void test_smb(void)
{
	confine_reset();
	ASSERT_EQ(confine_smb("smb://srv/share", why, sizeof(why)), -EACCES);
	ASSERT_TRUE(strstr(why, "none is allowed") != NULL);
	ASSERT_EQ(confine_allow("smb://Srv:4445/Bench/dir", why, sizeof(why)),
		  0);
	ASSERT_EQ(confine_smb("smb://srv:4445/bench/dir", why, sizeof(why)), 0);
	ASSERT_EQ(confine_smb("smb://srv:4445/bench/dir/sub", why, sizeof(why)),
		  0);
	ASSERT_EQ(confine_smb("smb://srv:4445/bench/dir2", why, sizeof(why)),
		  -EACCES);
	ASSERT_EQ(confine_smb("smb://srv:4445/bench", why, sizeof(why)),
		  -EACCES);
	ASSERT_EQ(confine_smb("smb://srv/bench/dir", why, sizeof(why)),
		  -EACCES);
	ASSERT_EQ(confine_smb("smb://other:4445/bench/dir", why, sizeof(why)),
		  -EACCES);
	ASSERT_EQ(confine_smb("smb://srv:4445/bench/../x", why, sizeof(why)),
		  -EINVAL);
	ASSERT_EQ(confine_allow("smb://srv/whole", why, sizeof(why)), 0);
	ASSERT_EQ(confine_smb("smb://srv:445/whole/any/dir", why, sizeof(why)),
		  0);
}

static void test_reserve(void)
{
	char t[32];

	confine_reset();
	ASSERT_U64_EQ(confine_reserve_bytes(1000ULL << 20), 100ULL << 20);
	confine_reserve_text(t, sizeof(t));
	ASSERT_STR_EQ(t, "10 %");
	ASSERT_EQ(confine_set_reserve("25%", why, sizeof(why)), 0);
	ASSERT_U64_EQ(confine_reserve_bytes(400), 100);
	ASSERT_EQ(confine_set_reserve("0%", why, sizeof(why)), 0);
	ASSERT_U64_EQ(confine_reserve_bytes(1ULL << 40), 0);
	ASSERT_EQ(confine_set_reserve("2GiB", why, sizeof(why)), 0);
	ASSERT_U64_EQ(confine_reserve_bytes(1ULL << 40), 2ULL << 30);
	ASSERT_EQ(confine_set_reserve("91%", why, sizeof(why)), -EINVAL);
	ASSERT_TRUE(strstr(why, "--reserve 91%") != NULL);
	ASSERT_EQ(confine_set_reserve("-1%", why, sizeof(why)), -EINVAL);
	ASSERT_EQ(confine_set_reserve("lots", why, sizeof(why)), -EINVAL);
	ASSERT_EQ(confine_set_reserve("%", why, sizeof(why)), -EINVAL);
	confine_reset();
}

/* Runs cmd (a shell line); its first output line into out. 0 on success. */
static int sh(const char *cmd, char *out, size_t len)
{
	FILE *f = popen(cmd, "r");
	int rc;

	if (!f)
		return -1;
	if (out && (!fgets(out, (int)len, f)))
		out[0] = '\0';
	if (out)
		out[strcspn(out, "\n")] = '\0';
	rc = pclose(f);
	return rc == 0 ? 0 : -1;
}

static void test_device(void)
{
	char img[PATH_MAX], mnt[PATH_MAX], dev[64] = "", cmd[PATH_MAX * 2 + 64];
	char real[PATH_MAX];
	uint64_t bytes = 0;

	confine_reset();
	/* not a block device at all */
	ASSERT_EQ(confine_device(base, real, &bytes, why, sizeof(why)),
		  -ENOTBLK);
	if (geteuid() != 0) {
		TEST_SKIP("raw-device checks: needs root for a loop device");
	}
	path_of(img, "dev.img");
	path_of(mnt, "mnt");
	snprintf(cmd, sizeof(cmd),
		 "truncate -s 64M %s && losetup --find --show %s 2>/dev/null",
		 img, img);
	if (sh(cmd, dev, sizeof(dev)) != 0 || !dev[0]) {
		TEST_SKIP("raw-device checks: no loop device here (losetup "
			  "failed)");
	}
	/* not allowed */
	ASSERT_EQ(confine_device(dev, real, &bytes, why, sizeof(why)), -EACCES);
	ASSERT_TRUE(strstr(why, "--allow-device") != NULL);
	/* allowed and free */
	ASSERT_EQ(confine_allow_device(dev, why, sizeof(why)), 0);
	ASSERT_EQ(confine_device(dev, real, &bytes, why, sizeof(why)), 0);
	ASSERT_U64_EQ(bytes, 64ULL << 20);
	ASSERT_STR_EQ(real, dev);
	/* allowed, but mounted */
	snprintf(cmd, sizeof(cmd),
		 "mkfs.ext4 -q -F %s >/dev/null 2>&1 && mkdir -p %s && "
		 "mount %s %s",
		 dev, mnt, dev, mnt);
	if (sh(cmd, NULL, 0) == 0) {
		ASSERT_EQ(confine_device(dev, real, &bytes, why, sizeof(why)),
			  -EBUSY);
		ASSERT_TRUE(strstr(why, "mounted at") != NULL &&
			    strstr(why, mnt) != NULL);
		snprintf(cmd, sizeof(cmd), "umount %s", mnt);
		ASSERT_EQ(sh(cmd, NULL, 0), 0);
		ASSERT_EQ(confine_device(dev, real, &bytes, why, sizeof(why)),
			  0);
	} else {
		TEST_SKIPPED("the mounted-device check: mkfs.ext4 or mount "
			     "failed");
	}
	/* held open exclusively by another program */
	{
		int fd = open(dev, O_RDONLY | O_EXCL);
		ASSERT_TRUE(fd >= 0);
		ASSERT_EQ(confine_device(dev, real, &bytes, why, sizeof(why)),
			  -EBUSY);
		ASSERT_TRUE(strstr(why, "in use") != NULL);
		close(fd);
	}
	ASSERT_EQ(confine_allow_device(img, why, sizeof(why)), -ENOTBLK);
	snprintf(cmd, sizeof(cmd), "losetup -d %s", dev);
	sh(cmd, NULL, 0);
	confine_reset();
}

static void test_unc(void)
{
	struct unc_path u, root;
	char err[200], buf[PATH_MAX + 16], path[PATH_MAX], real[PATH_MAX];
	char name[301];

	/* which texts are a share's path: not the device forms */
	ASSERT_TRUE(unc_is("\\\\srv\\share\\dir"));
	ASSERT_TRUE(unc_is("//srv/share"));
	ASSERT_TRUE(unc_is("\\\\srv"));
	ASSERT_TRUE(!unc_is("\\\\.\\D:"));
	ASSERT_TRUE(!unc_is("\\\\?\\UNC\\srv\\share"));
	ASSERT_TRUE(!unc_is("//./PhysicalDrive0"));
	ASSERT_TRUE(!unc_is("///x"));
	ASSERT_TRUE(!unc_is("/x") && !unc_is("D:/x") && !unc_is(""));
	/* its parts, '/' kept between the names below the share */
	ASSERT_EQ(unc_parse("\\\\Srv\\Share\\a/b\\", &u, err, sizeof(err)), 0);
	ASSERT_STR_EQ(u.server, "Srv");
	ASSERT_STR_EQ(u.share, "Share");
	ASSERT_STR_EQ(u.dir, "a/b");
	ASSERT_EQ(unc_format(&u, '/', 0, buf, sizeof(buf)), 0);
	ASSERT_STR_EQ(buf, "//Srv/Share/a/b");
	ASSERT_EQ(unc_format(&u, '\\', 0, buf, sizeof(buf)), 0);
	ASSERT_STR_EQ(buf, "\\\\Srv\\Share\\a\\b");
	ASSERT_EQ(unc_format(&u, '\\', 1, buf, sizeof(buf)), 0);
	ASSERT_STR_EQ(buf, "\\\\Srv\\Share");
	ASSERT_EQ(unc_format(&u, '/', 0, buf, 8), -ENAMETOOLONG);
	ASSERT_STR_EQ(buf, "");
	ASSERT_EQ(unc_parse("//srv/share", &u, err, sizeof(err)), 0);
	ASSERT_STR_EQ(u.dir, "");
	/* what is refused, and why */
	ASSERT_EQ(unc_parse("\\\\srv", &u, err, sizeof(err)), -EINVAL);
	ASSERT_TRUE(strstr(err, "no share") != NULL);
	ASSERT_EQ(unc_parse("\\\\srv\\", &u, err, sizeof(err)), -EINVAL);
	ASSERT_EQ(unc_parse("//srv//share", &u, err, sizeof(err)), -EINVAL);
	ASSERT_TRUE(strstr(err, "empty share name") != NULL);
	ASSERT_EQ(unc_parse("//srv/share/a//b", &u, err, sizeof(err)), -EINVAL);
	ASSERT_EQ(unc_parse("//srv/share/../x", &u, err, sizeof(err)), -EINVAL);
	ASSERT_TRUE(strstr(err, "\"..\"") != NULL);
	ASSERT_EQ(unc_parse("//srv/share/./x", &u, err, sizeof(err)), -EINVAL);
	ASSERT_EQ(unc_parse("//srv/..", &u, err, sizeof(err)), -EINVAL);
	memset(name, 'a', 300);
	name[300] = '\0';
	snprintf(path, sizeof(path), "//%s/share", name);
	ASSERT_EQ(unc_parse(path, &u, err, sizeof(err)), -EINVAL);
	ASSERT_TRUE(strstr(err, "server name longer") != NULL);
	/* under: server and share without case, then whole names */
	ASSERT_EQ(unc_parse("\\\\SRV\\Bench\\Dir", &root, err, sizeof(err)), 0);
	ASSERT_EQ(unc_parse("//srv/bench/dir", &u, err, sizeof(err)), 0);
	ASSERT_TRUE(unc_under(&u, &root));
	ASSERT_EQ(unc_parse("//srv/bench/DIR/sub", &u, err, sizeof(err)), 0);
	ASSERT_TRUE(unc_under(&u, &root));
	ASSERT_EQ(unc_parse("//srv/bench/dir2", &u, err, sizeof(err)), 0);
	ASSERT_TRUE(!unc_under(&u, &root));
	ASSERT_EQ(unc_parse("//srv/bench", &u, err, sizeof(err)), 0);
	ASSERT_TRUE(!unc_under(&u, &root));
	ASSERT_EQ(unc_parse("//srv/bench2/dir", &u, err, sizeof(err)), 0);
	ASSERT_TRUE(!unc_under(&u, &root));
	ASSERT_EQ(unc_parse("//srv2/bench/dir", &u, err, sizeof(err)), 0);
	ASSERT_TRUE(!unc_under(&u, &root));
	ASSERT_EQ(unc_parse("//srv/bench", &root, err, sizeof(err)), 0);
	ASSERT_EQ(unc_parse("//Srv/BENCH/any/dir", &u, err, sizeof(err)), 0);
	ASSERT_TRUE(unc_under(&u, &root));
	/* other letters than ASCII must match exactly: narrower, not wider */
	ASSERT_EQ(unc_parse("//srv/bench/\xc3\xa9t\xc3\xa9", &root, err,
			    sizeof(err)),
		  0);
	ASSERT_EQ(unc_parse("//srv/bench/\xc3\x89T\xc3\x89", &u, err,
			    sizeof(err)),
		  0);
	ASSERT_TRUE(!unc_under(&u, &root));

	/* Linux: no path is a share; "//x" is the local "/x" as before */
	ASSERT_TRUE(!sys_path_share("//srv/share"));
	confine_reset();
	path_of(path, "unc-root");
	ASSERT_EQ(mkdir(path, 0700), 0);
	ASSERT_EQ(confine_allow(path, why, sizeof(why)), 0);
	ASSERT_STR_EQ(why, "");
	snprintf(buf, sizeof(buf), "/%s", path);
	ASSERT_EQ(confine_dir(buf, NULL, real, why, sizeof(why)), 0);
	ASSERT_STR_EQ(real, path);
	ASSERT_EQ(confine_share("//srv/share", why, sizeof(why)), -EACCES);
	confine_reset();
}

static void test_setup(void)
{
	char tmpl[] = "/tmp/test_confine.XXXXXX";
	char *d = mkdtemp(tmpl);

	char real[PATH_MAX];

	if (!d || !realpath(d, real) || strlen(real) >= sizeof(base)) {
		perror("mkdtemp");
		exit(1);
	}
	memcpy(base, real, strlen(real) + 1);
}

static void test_teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", base);
}

TEST_MAIN(test_setup, test_roots, test_allow_refusals, test_smb, test_reserve,
	  test_device, test_unc, test_teardown)
