/*
 * test_report — the HTML report from JSON whose right rendering is known:
 * the compare's `changed` (another branch adds it) is a table of a row per
 * field and a column per side when present, an empty one says nothing
 * differs, and a compare without it has no such section; every string is
 * escaped; numbers are written as the JSON states them (the shortest
 * decimal that reads back the same) and shown rounded; a metric no side
 * has gets no row; a run report holds each test's figures; JSON of
 * another shape gives a page, not a crash.
 */
#include "report/report_int.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "platform/utf8.h"
#include "report/report.h"

/* A compare of two sides with one test; changed_json: its `changed`
 * member as JSON text, or NULL for none. */
static json_t *compare_doc(const char *changed_json)
{
	json_t *c = json_loads(
		"{\"baseline\": 0, \"sides\": [{\"label\": \"<i>old</i>\", "
		"\"runs\": [{\"id\": 1}]}, {\"label\": \"new & fast\", "
		"\"runs\": "
		"[{\"id\": 2}]}],"
		"\"verdicts\": [{\"side\": 1, \"text\": \"new vs old: "
		"<b>better</b> "
		"on 1\"}], \"warnings\": [],"
		"\"tests\": [{\"test\": \"RND4K Q32T1\", \"rw\": \"read\", "
		"\"headline\": \"iops\", \"metrics\": ["
		"{\"metric\": \"iops\", \"unit\": \"I/O/s\", \"sides\": "
		"[{\"n\": 3, \"mean\": 8410.25}, {\"n\": 3, \"mean\": 9001.5}],"
		"\"vs_baseline\": [null, {\"delta\": 591.25, \"delta_pct\": "
		"7.0302124, \"better\": true, \"p\": 0.00081, \"ci_pct\": "
		"[4.25, 9.8125], \"verdict\": \"significant\", \"test\": "
		"\"runs\", \"how\": \"Welch's t-test\"}]},"
		"{\"metric\": \"lat_mean_us\", \"unit\": \"µs\", \"sides\": "
		"[null, null], \"vs_baseline\": [null, null]}]}],"
		"\"unmatched\": []}",
		0, NULL);

	if (c && changed_json)
		json_object_set_new(c, "changed",
				    json_loads(changed_json, 0, NULL));
	return c;
}

static char *render(json_t *c)
{
	char *out = NULL;
	size_t len = 0;

	if (report_compare_html(c, NULL, &out, &len) < 0)
		return NULL;
	return strlen(out) == len ? out : NULL;
}

static void test_changed_table(void)
{
	json_t *c = compare_doc(
		"[{\"field\": \"device_firmware\", \"label\": \"device "
		"firmware\", \"values\": [\"1B2Q\", \"<3B2Q>\"]},"
		"{\"field\": \"fs_block_size\", \"label\": \"cluster size\", "
		"\"values\": [4096, 65536]}]");
	char *h = render(c);

	ASSERT_TRUE(h);
	ASSERT_TRUE(strstr(h, "<h2 id=\"changed\">What changed</h2>"));
	ASSERT_TRUE(strstr(h, "<tr><th>device firmware</th><td>1B2Q</td>"
			      "<td>&lt;3B2Q&gt;</td></tr>"));
	ASSERT_TRUE(strstr(h, "<tr><th>cluster size</th><td>4096</td>"
			      "<td>65536</td></tr>"));
	/* a column per side, named by the side (escaped) */
	ASSERT_TRUE(strstr(h, "<th>what</th><th>&lt;i&gt;old&lt;/i&gt;</th>"
			      "<th>new &amp; fast</th>"));
	free(h);
	json_decref(c);
}

static void test_changed_empty_and_absent(void)
{
	json_t *c = compare_doc("[]"), *none = compare_doc(NULL);
	char *h = render(c), *g = render(none);

	ASSERT_TRUE(h && g);
	ASSERT_TRUE(strstr(h, "do not differ"));
	ASSERT_TRUE(!strstr(g, "What changed"));
	free(h);
	free(g);
	json_decref(c);
	json_decref(none);
}

static void test_escaped_and_exact(void)
{
	json_t *c = compare_doc(NULL);
	char *h = render(c);

	ASSERT_TRUE(h);
	ASSERT_TRUE(!strstr(h, "<b>better</b>"));
	ASSERT_TRUE(strstr(h, "new vs old: &lt;b&gt;better&lt;/b&gt; on 1"));
	ASSERT_TRUE(!strstr(h, "<i>old</i>"));
	ASSERT_TRUE(!strstr(h, "<script"));
	/* exact in value, rounded in the text */
	ASSERT_TRUE(strstr(h, "<data value=\"7.0302124\">+7.03</data> %"));
	ASSERT_TRUE(strstr(h, "<data value=\"591.25\">+591.2</data>"));
	ASSERT_TRUE(strstr(h, "<data value=\"0.00081\">0.00081</data>"));
	ASSERT_TRUE(strstr(h, "<data value=\"4.25\">+4.25</data> … "
			      "<data value=\"9.8125\">+9.81</data> %"));
	/* the metric no side has: no row */
	ASSERT_TRUE(!strstr(h, "lat_mean_us"));
	/* the explanation once, cited by its row */
	ASSERT_TRUE(strstr(h, "<li>Welch&#39;s t-test</li>"));
	ASSERT_TRUE(strstr(h, "significant (runs) <sup>1</sup>"));
	free(h);
	json_decref(c);
}

static void test_numbers(void)
{
	char s[48];

	report_num(-0.02400000000000091, 0, s, sizeof(s));
	ASSERT_STR_EQ(s, "-0.02400000000000091");
	ASSERT_TRUE(strtod(s, NULL) == -0.02400000000000091);
	report_num(1e-7, 0, s, sizeof(s));
	ASSERT_STR_EQ(s, "0.0000001");
	report_num(1520435200, 0, s, sizeof(s));
	ASSERT_STR_EQ(s, "1520435200");
	report_num(-12.4, 1, s, sizeof(s));
	ASSERT_STR_EQ(s, "−12.4");
	report_shown(158.635, s, sizeof(s));
	ASSERT_STR_EQ(s, "158.6");
	report_shown(-2.345678, s, sizeof(s));
	ASSERT_STR_EQ(s, "−2.35");
	ASSERT_STR_EQ(report_unit("10^6 B/s"), "MB/s");
	ASSERT_STR_EQ(report_unit("s"), "s");
}

static void test_run_report(void)
{
	json_t *run = json_loads(
		"{\"id\": 7, \"profile\": \"custom\", \"target\": "
		"\"/mnt/a b/<x>\", \"state\": \"done\", \"labels\": [], "
		"\"units\": {\"mb_s\": \"10^6 B/s\", \"iops\": \"I/O/s\"}, "
		"\"spec\": {\"size\": 16777216, \"duration_s\": 0.5}, "
		"\"probe\": {\"hostname\": \"srv&1\", \"fs_type\": \"ext4\"}, "
		"\"tests\": [{\"test\": \"SEQ1M Q8T1\", \"rw\": \"read\", "
		"\"pattern\": \"sequential\", \"best\": {\"mb_s\": 1520.4, "
		"\"iops\": 1450.0}, \"iterations\": [{\"iteration\": 1, "
		"\"mb_s\": 1500.25}, {\"iteration\": 2, \"mb_s\": 1520.4}]}]}",
		0, NULL);
	char *h = NULL;
	size_t len = 0;

	ASSERT_TRUE(run);
	ASSERT_EQ(report_run_html(run, &h, &len), 0);
	ASSERT_TRUE(strstr(h, "<title>storbench run 7: custom on /mnt/a "
			      "b/&lt;x&gt;</title>"));
	ASSERT_TRUE(strstr(h, "<data value=\"1520.4\">1520.4</data>"));
	ASSERT_TRUE(strstr(h, ">iteration 2</text>"));
	ASSERT_TRUE(strstr(h, "1500.2 MB/s"));
	ASSERT_TRUE(strstr(h, "<td>srv&amp;1</td>"));
	ASSERT_TRUE(strstr(h, "&quot;size&quot;: 16777216"));
	/* the request that runs it again, on its target */
	ASSERT_TRUE(strstr(h, "<pre class=\"rerun\">"));
	ASSERT_TRUE(strstr(
		h, "&quot;target&quot;: &quot;/mnt/a b/&lt;x&gt;&quot;"));
	free(h);
	/* a preset's tests are the preset's: not in the request */
	json_object_set_new(json_object_get(run, "spec"), "profile",
			    json_string("cdm-default"));
	json_object_set_new(json_object_get(run, "spec"), "tests",
			    json_pack("[{s:s}]", "name", "SEQ1M Q8T1"));
	ASSERT_EQ(report_run_html(run, &h, &len), 0);
	ASSERT_TRUE(strstr(strstr(h, "<pre class=\"rerun\">"), "tests") ==
		    NULL);
	ASSERT_TRUE(strstr(h, "&quot;tests&quot;")); /* the spec keeps them */
	free(h);
	json_decref(run);
}

/* A target of 600 bytes of three-byte characters: the title holds it
 * whole, and the page is valid UTF-8 (a title cut at 511 bytes ended
 * inside a character). An import's engine version is its tool's. */
static void test_long_target_and_import(void)
{
	char target[700] = "/mnt/";
	json_t *run;
	char *h = NULL;
	size_t len = 0;

	for (int i = 0; i < 200; i++) /* 日 */
		memcpy(target + 5 + 3 * i, "\xe6\x97\xa5", 4);
	run = json_pack("{s:i, s:s, s:s, s:s, s:{s:s, s:s, s:b}, s:{s:s, "
			"s:s}}",
			"id", 3, "profile", "crystaldiskmark", "target", target,
			"state", "done", "engine", "target", "CrystalDiskMark",
			"version", "3.0.1", "direct", 1, "import", "tool",
			"CrystalDiskMark", "version", "3.0.1");
	ASSERT_TRUE(run);
	ASSERT_EQ(report_run_html(run, &h, &len), 0);
	ASSERT_TRUE(utf8_valid(h));
	ASSERT_TRUE(strstr(h, target) != NULL);
	ASSERT_TRUE(strstr(h, "CrystalDiskMark 3.0.1, direct I/O"));
	ASSERT_TRUE(strstr(h, "(storbench 3.0.1") == NULL);
	free(h);
	json_decref(run);
}

/* Members missing or of other types: a page all the same, no crash. */
static void test_odd_json(void)
{
	const char *docs[] = {
		"{}",
		"{\"sides\": [{}], \"tests\": [{\"metrics\": [{}]}]}",
		"{\"sides\": 3, \"tests\": [1, null, {\"test\": 5}], "
		"\"changed\": [{\"values\": [{\"a\": 1}, [1, 2]]}], "
		"\"verdicts\": [{}]}",
	};
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		json_t *j = json_loads(docs[i], 0, NULL);
		char *h = NULL;
		size_t len = 0;
		ASSERT_TRUE(j);
		ASSERT_EQ(report_compare_html(j, NULL, &h, &len), 0);
		ASSERT_TRUE(strstr(h, "</html>"));
		free(h);
		ASSERT_EQ(report_run_html(j, &h, &len), 0);
		ASSERT_TRUE(strstr(h, "</html>"));
		free(h);
		json_decref(j);
	}
}

TEST_MAIN(test_long_target_and_import, test_changed_table, test_odd_json,
	  test_changed_empty_and_absent, test_escaped_and_exact, test_numbers,
	  test_run_report)
