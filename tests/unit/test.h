/*
 * test.h — the unit-test harness: one header, no framework.
 *
 * Each test file defines `static void test_xxx(void)` functions and lists them
 * in a `TEST_MAIN(test_a, test_b, ...)`. ASSERT_* macros record a failure with
 * file and line and return from the current test; the runner prints one line
 * per test and the closing "N passed, N failed, N skipped" line, and exits 1
 * on any failure. A test that cannot check something here (no root, no loop
 * device, no smbd) says so with TEST_SKIP (and returns) or TEST_SKIPPED (and
 * goes on); a binary with a skip and no failure exits TEST_SKIP_CODE, which
 * CTest shows as "Skipped" (SKIP_RETURN_CODE in tests/CMakeLists.txt), never
 * as passed. CTest runs each test binary.
 */
#ifndef STORBENCH_TEST_H
#define STORBENCH_TEST_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failed_, test_skipped_;

#define TEST_SKIP_CODE 77

/* Notes something this test could not check here, and why; goes on. */
#define TEST_SKIPPED(...)                                                      \
	do {                                                                   \
		printf("# skip: ");                                            \
		printf(__VA_ARGS__);                                           \
		printf("\n");                                                  \
		test_skipped_ = 1;                                             \
	} while (0)

/* The same, and the test ends here. */
#define TEST_SKIP(...)                                                         \
	do {                                                                   \
		TEST_SKIPPED(__VA_ARGS__);                                     \
		return;                                                        \
	} while (0)

#define TEST_FAIL_(...)                                                        \
	do {                                                                   \
		fprintf(stderr, "  %s:%d: ", __FILE__, __LINE__);              \
		fprintf(stderr, __VA_ARGS__);                                  \
		fprintf(stderr, "\n");                                         \
		test_failed_ = 1;                                              \
		return;                                                        \
	} while (0)

#define ASSERT_TRUE(c)                                                         \
	do {                                                                   \
		if (!(c))                                                      \
			TEST_FAIL_("expected true: %s", #c);                   \
	} while (0)

#define ASSERT_EQ(a, b)                                                        \
	do {                                                                   \
		long long a_ = (long long)(a), b_ = (long long)(b);            \
		if (a_ != b_)                                                  \
			TEST_FAIL_("%s == %s: %lld != %lld", #a, #b, a_, b_);  \
	} while (0)

#define ASSERT_U64_EQ(a, b)                                                    \
	do {                                                                   \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);               \
		if (a_ != b_)                                                  \
			TEST_FAIL_("%s == %s: %" PRIu64 " != %" PRIu64, #a,    \
				   #b, a_, b_);                                \
	} while (0)

#define ASSERT_STR_EQ(a, b)                                                    \
	do {                                                                   \
		const char *a_ = (a), *b_ = (b);                               \
		if (!a_ || !b_ || strcmp(a_, b_) != 0)                         \
			TEST_FAIL_("%s == %s: \"%s\" != \"%s\"", #a, #b,       \
				   a_ ? a_ : "(null)", b_ ? b_ : "(null)");    \
	} while (0)

/* |a - b| <= rel * |b| */
#define ASSERT_NEAR_REL(a, b, rel)                                             \
	do {                                                                   \
		double a_ = (double)(a), b_ = (double)(b);                     \
		if (fabs(a_ - b_) > (rel)*fabs(b_))                            \
			TEST_FAIL_("%s ~ %s: %g vs %g (rel %g)", #a, #b, a_,   \
				   b_, (double)(rel));                         \
	} while (0)

/* A new scratch directory NAME.XXXXXX under $TMPDIR (else /var/tmp, on a
 * disk, where direct I/O works), never in the source or build tree, into
 * buf; the test removes it. Exits on failure. */
static inline void test_scratch(char *buf, size_t len, const char *name)
{
	const char *tmp = getenv("TMPDIR");
	int n = snprintf(buf, len, "%s/%s.XXXXXX",
			 tmp && tmp[0] ? tmp : "/var/tmp", name);

	if (n < 0 || (size_t)n >= len || !mkdtemp(buf)) {
		perror("test_scratch");
		exit(1);
	}
}

typedef void (*test_fn_)(void);

static int test_run_(const char *names, test_fn_ *fns, int n)
{
	int passed = 0, failed = 0, skipped = 0;
	char buf[4096];
	snprintf(buf, sizeof(buf), "%s", names);
	char *save = NULL;
	char *name = strtok_r(buf, ", ", &save);
	for (int i = 0; i < n; i++) {
		test_failed_ = test_skipped_ = 0;
		fns[i]();
		printf("%s %s\n",
		       test_failed_    ? "FAIL"
		       : test_skipped_ ? "skip"
				       : "ok  ",
		       name ? name : "?");
		if (test_failed_)
			failed++;
		else if (test_skipped_)
			skipped++;
		else
			passed++;
		name = strtok_r(NULL, ", ", &save);
	}
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : skipped ? TEST_SKIP_CODE : 0;
}

#define TEST_MAIN(...)                                                         \
	int main(void)                                                         \
	{                                                                      \
		test_fn_ fns_[] = { __VA_ARGS__ };                             \
		return test_run_(#__VA_ARGS__, fns_,                           \
				 (int)(sizeof(fns_) / sizeof(fns_[0])));       \
	}

#endif
