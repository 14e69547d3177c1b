/*
 * fuzz_env — see fuzz_env.h: a temporary directory for the API fuzz
 * targets, removed at exit.
 */
#include "fuzz_env.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/child.h"
#include "platform/confine.h"
#include "platform/creds.h"
#include "targets/smb.h"

char fuzz_dir[PATH_MAX];
static pid_t owner; /* only the process that made DIR removes it */

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

static void cleanup(void)
{
	if (fuzz_dir[0] && getpid() == owner)
		nftw(fuzz_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void die(const char *what)
{
	fprintf(stderr, "fuzz_env: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* DIR/name into buf. */
static void in_dir(char *buf, size_t len, const char *name)
{
	if (snprintf(buf, len, "%s/%s", fuzz_dir, name) >= (int)len) {
		errno = ENAMETOOLONG;
		die(name);
	}
}

void fuzz_env_init(void)
{
	static const char *const dirs[] = { "a", "b", "scratch" };
	const char *tmp = getenv("TMPDIR");
	char path[PATH_MAX], why[512];
	int fd, created;

	if (fuzz_dir[0])
		return;
	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/storbench-fuzz.XXXXXX",
		     tmp) >= (int)sizeof(fuzz_dir) ||
	    !mkdtemp(fuzz_dir))
		die("mkdtemp");
	owner = getpid();
	atexit(cleanup);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		in_dir(path, sizeof(path), dirs[i]);
		if (mkdir(path, 0700) != 0)
			die(path);
	}
	/* jobs may name DIR and two shares (whose checks fail: see below) */
	if (confine_allow(fuzz_dir, why, sizeof(why)) < 0 ||
	    confine_allow("smb://filer1/bench", why, sizeof(why)) < 0 ||
	    confine_allow("smb://[fd00::5]/share", why, sizeof(why)) < 0) {
		fprintf(stderr, "fuzz_env: %s\n", why);
		exit(2);
	}
	in_dir(path, sizeof(path), "f");
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600)) < 0)
		die(path);
	close(fd);
	in_dir(path, sizeof(path), "credentials.db");
	if (creds_init(path) < 0 ||
	    creds_put("fuzz", "bench", "secret", "WORKGROUP", 0, &created) < 0)
		die("credential store");
	/* no SMB check may spawn a child (which would be this fuzzer) or
	 * connect anywhere: a helper that does not exist fails at once */
	in_dir(path, sizeof(path), "no-smb-helper");
	child_set_program(path);
}

/* Is "@TMP@" at data[i..size)? Byte by byte: a memcmp per byte would be
 * traced by libFuzzer, and slow every input down. */
static int mark_at(const uint8_t *data, size_t size, size_t i)
{
	return i + 5 <= size && data[i] == '@' && data[i + 1] == 'T' &&
	       data[i + 2] == 'M' && data[i + 3] == 'P' && data[i + 4] == '@';
}

int fuzz_env_subst(const uint8_t *data, size_t size, char **out, size_t *len)
{
	const size_t ml = 5, dl = strlen(fuzz_dir);
	size_t n = 0, i, marks = 0;
	char *s;

	for (i = 0; i < size; i++)
		if (mark_at(data, size, i))
			marks++, i += ml - 1;
	if (!(s = malloc(size + marks * dl + 1)))
		return -ENOMEM;
	for (i = 0; i < size;) {
		if (mark_at(data, size, i)) {
			memcpy(s + n, fuzz_dir, dl);
			n += dl;
			i += ml;
		} else {
			s[n++] = (char)data[i++];
		}
	}
	s[n] = '\0';
	*out = s;
	*len = n;
	return 0;
}
