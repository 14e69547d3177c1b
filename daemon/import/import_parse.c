/*
 * import_parse — see import.h: a result file's format told from its content
 * (import_detect) and the file parsed by its format's importer into runs
 * whose text is UTF-8, whose tests have one name per direction and whose
 * numbers are in their ranges (import_parse). Apart from import.c, which
 * holds the ranges and the helpers every importer calls, so that no
 * importer and this file call each other.
 */
#include "import.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "platform/utf8.h"

/* Does buf hold word, as UTF-8 or as UTF-16LE text? */
static int holds(const char *buf, size_t len, const char *word)
{
	size_t w = strlen(word);

	/* a character every byte (UTF-8), or every other with a NUL after */
	for (size_t step = 1; step <= 2; step++)
		for (size_t i = 0; i + step * w <= len; i++) {
			size_t k = 0;
			while (k < w && buf[i + step * k] == word[k] &&
			       (step == 1 || buf[i + 2 * k + 1] == 0))
				k++;
			if (k == w)
				return 1;
		}
	return 0;
}

/* Is buf meant as storbench's own run document: a JSON object naming a
 * uuid, an engine and tests, and not fio's? Not parsed here: its importer
 * parses it once and says where it breaks. */
static int is_native(const char *buf, size_t len)
{
	size_t i = strspn(buf, " \t\r\n");

	return i < len && buf[i] == '{' && holds(buf, len, "\"uuid\"") &&
	       holds(buf, len, "\"engine\"") && holds(buf, len, "\"tests\"") &&
	       !holds(buf, len, "\"fio version\"");
}

const char *import_detect(const char *buf, size_t len)
{
	if (is_native(buf, len))
		return "storbench";
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
	char *const fields[] = { r->tool,	 r->version,   r->date,
				 r->os,		 r->comment,   r->host,
				 r->profile,	 r->drive,     r->fs_type,
				 r->write_cache, r->test_line, r->mode };

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		utf8_sanitize(fields[i]);
	for (size_t i = 0; i < r->n_warn; i++)
		utf8_sanitize(r->warn[i]);
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

/* Parses buf as a format that holds one run into a new run of out. */
typedef int (*parse_one_fn)(const char *buf, size_t len, struct import_run *r,
			    char *err, size_t err_len, int *line);

static int parse_one(parse_one_fn fn, const char *buf, size_t len,
		     struct import_runs *out, char *err, size_t err_len,
		     int *line)
{
	struct import_run *r = import_runs_add(out);

	return r ? fn(buf, len, r, err, err_len, line) : -ENOMEM;
}

int import_parse(const char *format, const char *buf, size_t len,
		 struct import_runs *out, char *err, size_t err_len)
{
	int line = 0, rc;

	*out = (struct import_runs){ 0 };
	if (strcmp(format, "fio") == 0)
		rc = parse_one(import_fio, buf, len, out, err, err_len, &line);
	else if (strcmp(format, "cdm") == 0)
		rc = parse_one(import_cdm, buf, len, out, err, err_len, &line);
	else if (strcmp(format, "diskspd") == 0)
		rc = holds(buf, len, "<Results>")
			     ? parse_one(import_diskspd, buf, len, out, err,
					 err_len, &line)
			     : import_diskspd_text(buf, len, out, err, err_len,
						   &line);
	else
		rc = -EOPNOTSUPP;
	for (size_t i = 0; rc == 0 && i < out->n; i++) {
		text_fit(&out->v[i]);
		names_unique(&out->v[i]);
		rc = import_check_run(&out->v[i], err, err_len);
	}
	if (rc < 0)
		import_runs_free(out);
	if (rc != -EOPNOTSUPP)
		return rc;
	snprintf(err, err_len,
		 "%s results cannot be imported by this version "
		 "yet (CrystalDiskMark text, fio JSON and DiskSpd "
		 "XML can)",
		 strcmp(format, "diskspd") == 0 ? "DiskSpd text" : format);
	return -EOPNOTSUPP;
}
