/*
 * test_jobspec.h — the fixture test_jobspec.c and test_jobspec_plan.c share:
 * real directories made under a scratch folder of the test's own
 * (setup: "scratch", reached through a symlink and "." so the realpath is
 * visible, "other", and a regular file), the daemon's allowed roots set to
 * it, and expect_bad, the refusal every test checks: a 400 whose field
 * names the culprit, whose detail mentions it, and an empty spec.
 */
#ifndef STORBENCH_TEST_JOBSPEC_H
#define STORBENCH_TEST_JOBSPEC_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "archive/archive.h"
#include "platform/confine.h"
#include "test.h"

static char dir[PATH_MAX];
static char scratch_real[PATH_MAX + 32], other[PATH_MAX + 32];
static char file[PATH_MAX + 32], link_path[PATH_MAX + 32];
static char scratch_arg[PATH_MAX + 64];
static char why[PATH_MAX + 256];

/* Appends to buf (size n), snprintf-style; exits if it would not fit. */
static void add(char *buf, size_t n, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(buf + len, n - len, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= n - len) {
		fprintf(stderr, "test_jobspec: body too long\n");
		exit(1);
	}
}

static int spec_empty(const struct job_spec *s)
{
	return !s->profile && !s->target && !s->labels_json && !s->notes &&
	       !s->plan_json && !s->engine && s->size == 0 &&
	       s->iterations == 0;
}

/* Parses body and expects a 400 naming field, a detail that mentions the
 * field and needle, and an empty spec. */
static void expect_bad(const char *body, const char *field, const char *needle)
{
	struct job_spec s;
	struct api_problem p;
	int rc;

	memset(&p, 0, sizeof(p));
	rc = jobspec_parse(body, body ? strlen(body) : 0, scratch_arg, &s, &p);
	if (rc != -EINVAL || p.status != 400 || strcmp(p.field, field) ||
	    !strstr(p.detail, field) || !strstr(p.detail, needle))
		fprintf(stderr,
			"  body %.120s -> rc %d status %u field \"%s\" "
			"detail \"%s\"\n",
			body ? body : "(none)", rc, p.status, p.field,
			p.detail);
	ASSERT_EQ(rc, -EINVAL);
	ASSERT_EQ(p.status, 400);
	ASSERT_STR_EQ(p.field, field);
	ASSERT_TRUE(strstr(p.detail, field) != NULL);
	ASSERT_TRUE(strstr(p.detail, needle) != NULL);
	ASSERT_TRUE(spec_empty(&s));
}

static void setup(void)
{
	char real[PATH_MAX - 64];
	int fd;

	test_scratch(dir, sizeof(dir), "jobspec_test");
	/* canonical from here on (the cwd itself may sit behind a symlink) */
	if (!realpath(dir, real) ||
	    snprintf(dir, sizeof(dir), "%s", real) >= (int)sizeof(dir)) {
		perror("test_jobspec: realpath");
		exit(1);
	}
	snprintf(scratch_real, sizeof(scratch_real), "%s/scratch", dir);
	snprintf(other, sizeof(other), "%s/other", dir);
	snprintf(file, sizeof(file), "%s/file.txt", dir);
	snprintf(link_path, sizeof(link_path), "%s/link", dir);
	snprintf(scratch_arg, sizeof(scratch_arg), "%s/./", link_path);
	fd = open(file, O_CREAT | O_WRONLY, 0600);
	if (mkdir(scratch_real, 0700) || mkdir(other, 0700) || fd < 0 ||
	    symlink("scratch", link_path)) {
		perror("test_jobspec: setup");
		exit(1);
	}
	close(fd);
	/* the daemon's --allow: the test's folder, and /proc (to reach the
	 * "filesystem without storage" refusal behind the root check) */
	if (confine_allow(dir, why, sizeof(why)) < 0 ||
	    confine_allow("/proc", why, sizeof(why)) < 0) {
		fprintf(stderr, "test_jobspec: %s\n", why);
		exit(1);
	}
}

static void test_setup(void)
{
	struct stat st;

	setup();
	ASSERT_EQ(lstat(link_path, &st), 0);
	ASSERT_TRUE(S_ISLNK(st.st_mode));
	ASSERT_TRUE(strcmp(scratch_arg, scratch_real) != 0);
}

static void test_cleanup(void)
{
	ASSERT_EQ(unlink(link_path), 0);
	ASSERT_EQ(unlink(file), 0);
	ASSERT_EQ(rmdir(scratch_real), 0);
	ASSERT_EQ(rmdir(other), 0);
	ASSERT_EQ(rmdir(dir), 0);
}

#endif
