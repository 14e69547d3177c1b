/*
 * import — see import.h: the pieces of an import the API and the command
 * line share (detect, parse, store).
 */
#include "import.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <nettle/sha2.h>

#include "archive.h"
#include "utf8.h"

/* Does buf hold word, as UTF-8 or as UTF-16LE text? */
static int holds(const char *buf, size_t len, const char *word)
{
	size_t w = strlen(word);

	if (memmem(buf, len, word, w))
		return 1;
	for (size_t i = 0; i + 2 * w <= len; i++) {
		size_t k = 0;
		while (k < w && buf[i + 2 * k] == word[k] &&
		       buf[i + 2 * k + 1] == 0)
			k++;
		if (k == w)
			return 1;
	}
	return 0;
}

const char *import_detect(const char *buf, size_t len)
{
	/* fio first: a fio run may name CrystalDiskMark in a path */
	if (holds(buf, len, "\"fio version\""))
		return "fio";
	if (holds(buf, len, "CrystalDiskMark"))
		return "cdm";
	if (holds(buf, len, "<Results>") || holds(buf, len, "DiskSpd") ||
	    holds(buf, len, "diskspd") ||
	    (holds(buf, len, "Input parameters:") &&
	     holds(buf, len, "Write IO")))
		return "diskspd";
	return NULL;
}

/*
 * The text a parser kept from the file (a comment, an OS line, a path, a
 * job name) becomes JSON in the archive, and JSON holds only UTF-8: a byte
 * that is not (a Latin-1 comment, a name cut in the middle of a character)
 * becomes '?', rather than failing the import or storing a run no answer
 * could carry.
 */
static void text_fit(struct import_run *r)
{
	char *const fields[] = { r->tool,	r->version, r->date,
				 r->os,		r->comment, r->host,
				 r->profile,	r->drive,   r->fs_type,
				 r->write_cache };

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		utf8_sanitize(fields[i]);
	for (size_t i = 0; i < r->n; i++) {
		utf8_sanitize(r->t[i].name);
		utf8_sanitize(r->t[i].rw);
		utf8_sanitize(r->t[i].pattern);
	}
}

/* Is the name and direction of test i taken by a test before it? */
static int name_taken(const struct import_run *r, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (strcmp(r->t[j].name, r->t[i].name) == 0 &&
		    strcmp(r->t[j].rw, r->t[i].rw) == 0)
			return 1;
	return 0;
}

/*
 * A run holds one test per name and direction (a comparison matches tests
 * by them): a repeat gets " #2", " #3" … — fio without group_reporting
 * prints a job entry per process of numjobs, all of one name, and a name
 * cut to its field's size can meet another.
 */
static void names_unique(struct import_run *r)
{
	for (size_t i = 1; i < r->n; i++) {
		char base[sizeof(r->t[i].name)];
		snprintf(base, sizeof(base), "%s", r->t[i].name);
		for (int k = 2; name_taken(r, i); k++) {
			snprintf(r->t[i].name, sizeof(r->t[i].name),
				 "%.80s #%d", base, k);
			utf8_sanitize(r->t[i].name); /* the cut may split a
							character */
		}
	}
}

int import_parse(const char *format, const char *buf, size_t len,
		 struct import_run *r, char *err, size_t err_len)
{
	int line = 0, rc;

	if (strcmp(format, "fio") == 0)
		rc = import_fio(buf, len, r, err, err_len, &line);
	else if (strcmp(format, "cdm") == 0)
		rc = import_cdm(buf, len, r, err, err_len, &line);
	else if (strcmp(format, "diskspd") == 0)
		rc = holds(buf, len, "<Results>")
			     ? import_diskspd(buf, len, r, err, err_len, &line)
			     : import_diskspd_text(buf, len, r, err, err_len,
						   &line);
	else
		rc = -EOPNOTSUPP;
	if (rc == 0) {
		text_fit(r);
		names_unique(r);
	}
	if (rc != -EOPNOTSUPP)
		return rc;
	snprintf(err, err_len,
		 "%s results cannot be imported by this version "
		 "yet (CrystalDiskMark text, fio JSON and DiskSpd "
		 "XML can)",
		 strcmp(format, "diskspd") == 0 ? "DiskSpd text" : format);
	return -EOPNOTSUPP;
}

/*
 * The next label of the comma list at *p into out (size IMPORT_LABEL_MAX +
 * 1); *p moves past it and its comma (NULL after the last). Returns its
 * length, or -1 when it is longer than IMPORT_LABEL_MAX bytes (out is then
 * ""). Every piece counts, empty ones too ("a,,b" has three).
 */
#define IMPORT_LABEL_MAX 64
#define IMPORT_MAX_LABELS 24
static int next_label(const char **p, char out[IMPORT_LABEL_MAX + 1])
{
	const char *comma = strchr(*p, ',');
	size_t n = comma ? (size_t)(comma - *p) : strlen(*p);
	int rc = n > IMPORT_LABEL_MAX ? -1 : (int)n;

	if (rc < 0)
		n = 0;
	memcpy(out, *p, n);
	out[n] = '\0';
	*p = comma ? comma + 1 : NULL;
	return rc;
}

int import_check_args(const char *labels, const char *filename, char *err,
		      size_t len)
{
	if (filename) {
		size_t n = strlen(filename);
		if (n > 255 || strpbrk(filename, "/\"\\")) {
			snprintf(err, len,
				 "filename: at most 255 bytes, without '/', "
				 "'\\' or '\"'");
			return -EINVAL;
		}
		if (utf8_has_control(filename) || !utf8_valid(filename)) {
			snprintf(err, len,
				 "filename: UTF-8 text without control "
				 "characters");
			return -EINVAL;
		}
	}
	if (labels) {
		char seen[IMPORT_MAX_LABELS][IMPORT_LABEL_MAX + 1];
		const char *p = labels;
		int k = 0, n;
		while (p) {
			if (k == IMPORT_MAX_LABELS) {
				snprintf(err, len,
					 "labels: at most %d (the file's own "
					 "labels come on top)",
					 IMPORT_MAX_LABELS);
				return -EINVAL;
			}
			n = next_label(&p, seen[k]);
			if (n <= 0 || seen[k][0] == ' ' ||
			    seen[k][n - 1] == ' ') {
				snprintf(err, len,
					 "labels: each 1 to 64 bytes, no "
					 "leading "
					 "or trailing space");
				return -EINVAL;
			}
			if (utf8_has_control(seen[k]) || !utf8_valid(seen[k])) {
				snprintf(err, len,
					 "labels: UTF-8 text without control "
					 "characters");
				return -EINVAL;
			}
			for (int j = 0; j < k; j++)
				if (strcmp(seen[j], seen[k]) == 0) {
					snprintf(err, len,
						 "labels: \"%.64s\" twice",
						 seen[k]);
					return -EINVAL;
				}
			k++;
		}
	}
	return 0;
}

static void sha256_hex(const void *data, size_t len, char out[65])
{
	struct sha256_ctx c;
	uint8_t d[SHA256_DIGEST_SIZE];

	sha256_init(&c);
	sha256_update(&c, len, data);
	sha256_digest(&c, sizeof(d), d);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* The run's labels: "imported", the tool, what the file says (filesystem,
 * cluster, cache), and the caller's; as a JSON array text. */
static char *labels_for(const struct import_run *r, const char *extra)
{
	char buf[64], *out;
	json_t *l;

	for (size_t i = 0; i < sizeof(buf) - 1 &&
			   (buf[i] = (char)tolower((unsigned char)r->tool[i]));
	     i++)
		;
	buf[sizeof(buf) - 1] = '\0';
	l = json_pack("[s, s]", "imported", buf);
	if (r->fs_type[0])
		json_array_append_new(l, json_string(r->fs_type));
	if (r->cluster > 0) {
		snprintf(buf, sizeof(buf), "cluster-%lld",
			 (long long)r->cluster);
		json_array_append_new(l, json_string(buf));
	}
	if (r->write_cache[0]) {
		snprintf(buf, sizeof(buf), "cache-%s", r->write_cache);
		json_array_append_new(l, json_string(buf));
	}
	/* the caller's labels (checked: import_check_args), each once */
	for (const char *p = extra; p;) {
		char tok[IMPORT_LABEL_MAX + 1];
		size_t i, n = json_array_size(l);
		if (next_label(&p, tok) <= 0)
			continue;
		for (i = 0;
		     i < n &&
		     strcmp(json_string_value(json_array_get(l, i)), tok) != 0;
		     i++)
			;
		if (i == n)
			json_array_append_new(l, json_string(tok));
	}
	out = json_dumps(l, JSON_COMPACT);
	json_decref(l);
	return out;
}

int import_store(struct archive *a, const struct import_run *r,
		 const char *format, const void *original, size_t len,
		 const char *filename, const char *labels_extra, int64_t *id)
{
	struct archive_import_result res[IMPORT_MAX_TESTS];
	struct archive_import_in in;
	char target[256], sha[65], *labels, *spec = NULL, *probe = NULL;
	json_t *p, *sp;
	int rc;

	for (size_t i = 0; i < r->n; i++)
		res[i] = (struct archive_import_result){
			.name = r->t[i].name,
			.rw = r->t[i].rw,
			.pattern = r->t[i].pattern,
			.block_size = r->t[i].block_size,
			.queue_depth = r->t[i].queue_depth,
			.threads = r->t[i].threads,
			.mb_s = r->t[i].mb_s,
			.iops = r->t[i].iops,
			.lat_mean_us = r->t[i].lat_mean_us
		};
	/* what was tested: CrystalDiskMark's drive, fio's file or device */
	snprintf(target, sizeof(target), "%s",
		 r->drive[0]	 ? r->drive
		 : r->comment[0] ? r->comment
				 : "(unknown)");
	sha256_hex(original, len, sha);
	labels = labels_for(r, labels_extra);
	p = json_pack(
		"{s:s?, s:s?, s:s?, s:o, s:s?, s:s, s:s?}", "hostname",
		r->host[0] ? r->host : NULL, "os", r->os[0] ? r->os : NULL,
		"fs_type", r->fs_type[0] ? r->fs_type : NULL, "fs_block_size",
		r->cluster > 0 ? json_integer(r->cluster) : json_null(),
		"write_cache", r->write_cache[0] ? r->write_cache : NULL,
		"device", target, "comment", r->comment[0] ? r->comment : NULL);
	sp = json_pack("{s:{s:s, s:s, s:s, s:s?, s:I, s:i, s:s?}}", "imported",
		       "tool", r->tool, "version", r->version, "format", format,
		       "profile", r->profile[0] ? r->profile : NULL,
		       "test_size", (json_int_t)r->test_size, "best_of",
		       r->iterations, "date", r->date[0] ? r->date : NULL);
	probe = p ? json_dumps(p, JSON_COMPACT) : NULL;
	spec = sp ? json_dumps(sp, JSON_COMPACT) : NULL;
	json_decref(p);
	json_decref(sp);
	if (!labels || !probe || !spec) {
		rc = -ENOMEM;
		goto out;
	}
	in = (struct archive_import_in){ .tool = r->tool,
					 .version = r->version,
					 .format = format,
					 .profile = strcmp(format, "cdm") == 0
							    ? "crystaldiskmark"
							    : format,
					 .target = target,
					 .notes = r->comment,
					 .spec_json = spec,
					 .labels_json = labels,
					 .probe_json = probe,
					 .started_at = r->date,
					 .sha256 = sha,
					 .filename = filename ? filename : "",
					 .original = original,
					 .len = len,
					 .results = res,
					 .n = r->n };
	rc = archive_import(a, &in, id);
out:
	free(labels);
	free(spec);
	free(probe);
	return rc;
}
