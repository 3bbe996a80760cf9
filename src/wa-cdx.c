/* wa-cdx: a CDXJ index of WARC files, the index pywb replays from and
 * looks records up in (man/wa-formats.5, "CDXJ indexes"): a line per
 * record that warcio.js's cdx-index indexes, with the fields it writes,
 * in their order and form, the lines sorted by GNU sort (sorter.h).  The
 * key is url.h's url_cdx_key, the records come from warc.h's reader. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "httpresp.h"
#include "sorter.h"
#include "url.h"
#include "utf8.h"
#include "wa.h"
#include "warc.h"

/* sort -S: an index line is some 300 bytes, so a million records sort in
 * memory; more spill to sort's temporary files. */
#define SORT_MEMORY (256u << 20)
/* The head of a block kept for its HTTP header; the rest is passed over. */
#define BLOCK_KEEP (64u << 10)

static const char usage[] =
    "usage: wa-cdx [-kq] [-o FILE] [-n NAME] WARC...\n"
    "Writes the CDXJ index of the WARC files (\"-\" for stdin; gzip or plain)\n"
    "that pywb replays from: a line per record warcio.js's cdx-index takes\n"
    "(responses, revisits, resources, metadata, conversions),\n"
    "  KEY TIMESTAMP {\"url\", \"mime\", \"status\", \"digest\", \"length\",\n"
    "  \"offset\", \"filename\"}\n"
    "in byte order (see wa-formats(5), \"CDXJ indexes\").\n"
    "  -o FILE  write the index to FILE, whole or not at all (default: stdout)\n"
    "  -k       keep going past records that cannot be read or indexed: -o\n"
    "           holds the others, exit 0 (default: -o is not written, exit 1)\n"
    "  -n NAME  the file name written for stdin (default \"-\")\n"
    "  -q       no summary\n"
    "  -h       this help;  --version  the version\n"
    "See wa-cdx(1).\n";

struct cdx_run {
	bool salvage;			/* -k */
	const char *stdin_name;		/* -n */
	struct sorter sort;
	uint64_t files, indexed, errors;
};

/* A WARC header field's value, NULL if absent or empty: warcio.js keeps
 * no empty field. */
static const char *
header(const struct warc_record *rec, const char *name)
{
	const char *value = warc_field(rec, name);
	return value && *value ? value : NULL;
}

/* Whether warcio.js's cdx-index takes the record: all but requests,
 * warcinfo, and metadata and resources of WARC fields. */
static bool
indexed_type(const struct warc_record *rec)
{
	const char *type = header(rec, "WARC-Type");
	const char *content_type = header(rec, "Content-Type");
	if (!type)
		return true;
	if (strcmp(type, "request") == 0 || strcmp(type, "warcinfo") == 0)
		return false;
	return !((strcmp(type, "metadata") == 0 || strcmp(type, "resource") == 0) &&
	    content_type && strcmp(content_type, "application/warc-fields") == 0);
}

/* s[0, n) as a JSON string, escaped as JSON.stringify escapes it, with
 * what is no UTF-8 replaced by U+FFFD as warcio.js's decoder does. */
static void
put_json_string(FILE *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	putc('"', out);
	while (p < end) {
		unsigned char c = *p;
		const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\b' ? "\\b" :
		    c == '\f' ? "\\f" : c == '\n' ? "\\n" : c == '\r' ? "\\r" :
		    c == '\t' ? "\\t" : NULL;
		size_t len = 1, part;
		if (esc)
			fputs(esc, out);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else if (c < 0x80)
			putc(c, out);
		else if ((len = utf8_sequence(p, end, &part)))
			fwrite(p, 1, len, out);
		else {
			fputs("\xef\xbf\xbd", out);
			len = part;
		}
		p += len;
	}
	putc('"', out);
}

/* Adds ,"name":"value" to the JSON object begun on out; value NULL
 * leaves the field out, as JSON.stringify does with an undefined one. */
static void
put_field(FILE *out, const char *name, const char *value, size_t len)
{
	if (!value)
		return;
	fprintf(out, ",\"%s\":", name);
	put_json_string(out, value, len);
}

static void
put_string_field(FILE *out, const char *name, const char *value)
{
	put_field(out, name, value, value ? strlen(value) : 0);
}

struct http_facts {
	bool parsed;
	char status[16];
	const char *mime;	/* the Content-Type before any ';', trimmed */
	size_t mime_len;
};

static void
first_content_type(void *arg, const char *value, size_t len)
{
	struct http_facts *h = arg;
	if (h->mime || len == 0)
		return;
	size_t n = 0;
	while (n < len && value[n] != ';')
		n++;
	while (n && (value[n - 1] == ' ' || value[n - 1] == '\t'))
		n--;
	h->mime = value;
	h->mime_len = n;
}

/* The status and the media type of the HTTP message in a response or
 * revisit record's block, as warcio.js reads them. */
static struct http_facts
http_facts(const struct warc_record *rec, const char *type)
{
	struct http_facts h = { 0 };
	struct http_response resp;
	const char *why;
	if (strcmp(type, "response") != 0 && strcmp(type, "revisit") != 0)
		return h;
	if (rec->length == 0 || !http_parse_response(rec->block, rec->block_len, &resp, &why))
		return h;
	h.parsed = true;
	snprintf(h.status, sizeof h.status, "%d", resp.status);
	http_each_field(rec->block, &resp, "Content-Type", first_content_type, &h);
	return h;
}

/* The index line of one record, to the sort. */
static void
put_line(FILE *out, const struct warc_record *rec, const char *uri, const char *key,
    const char *filename)
{
	const char *type = header(rec, "WARC-Type");
	const char *date = header(rec, "WARC-Date");
	const char *digest = header(rec, "WARC-Payload-Digest");
	struct http_facts h = http_facts(rec, type ? type : "");
	fprintf(out, "%s ", key);
	for (int n = 0; date && *date && n < 14; date++)
		if (!strchr("-:T", *date)) {
			putc(*date, out);
			n++;
		}
	putc(' ', out);
	fputs("{\"url\":", out);
	put_json_string(out, uri, strlen(uri));
	if (type && strcmp(type, "revisit") == 0)
		put_string_field(out, "mime", "warc/revisit");
	else if (type && strcmp(type, "response") == 0)
		put_field(out, "mime", h.mime, h.mime_len);
	else
		put_string_field(out, "mime", header(rec, "Content-Type"));
	put_string_field(out, "status", h.parsed ? h.status : NULL);
	if (digest && (digest = strchr(digest, ':')))
		put_field(out, "digest", digest + 1, strcspn(digest + 1, ":"));
	fprintf(out, ",\"length\":\"%" PRIu64 "\",\"offset\":\"%" PRIu64 "\",\"filename\":",
	    rec->end - rec->offset, rec->offset);
	put_json_string(out, filename, strlen(filename));
	fputs("}\n", out);
}

/* One input file: its name in messages and in the index, and the count
 * of its records that share a gzip member, which are told once. */
struct cdx_input {
	const char *name, *filename;
	uint64_t shared;
};

static void
index_record(struct cdx_run *run, struct cdx_input *in, const struct warc_record *rec)
{
	if (!indexed_type(rec))
		return;
	char *uri = warc_target_uri(rec);
	const char *why = !uri ? "no WARC-Target-URI" : NULL;
	if (uri && rec->end == 0 && in->shared++ == 0)
		why = "the record shares its gzip member with others, so no offset "
		    "finds it (index the decompressed file)";
	if (why)
		wa_warn("%s: offset %" PRIu64 ": %s: not indexed", in->name, rec->offset, why);
	if (!uri || rec->end == 0) {
		run->errors++;
		free(uri);
		return;
	}
	char *key = url_cdx_key(uri);
	put_line(run->sort.in, rec, uri, key, in->filename);
	free(key);
	free(uri);
	run->indexed++;
}

static void
index_file(struct cdx_run *run, const char *path)
{
	bool is_stdin = strcmp(path, "-") == 0;
	const char *slash = strrchr(path, '/');
	struct cdx_input in = {
		.name = is_stdin ? "stdin" : path,
		.filename = is_stdin ? run->stdin_name : slash ? slash + 1 : path,
	};
	struct warc_reader *r = warc_reader_open(path);
	struct warc_record rec;
	warc_reader_max_block(r, BLOCK_KEEP, BLOCK_KEEP);
	while (warc_read(r, &rec))
		index_record(run, &in, &rec);
	if (in.shared > 1)
		wa_warn("%s: %" PRIu64 " more records share a gzip member: not indexed",
		    in.name, in.shared - 1);
	run->errors += warc_reader_errors(r);
	run->files++;
	warc_reader_close(r);
}

static void
parse_options(struct cdx_run *run, int argc, char **argv, const char **out_path)
{
	static const struct option longopts[] = { WA_COMMON_LONGOPTS };
	int c;
	while ((c = getopt_long(argc, argv, "hkn:o:q", longopts, NULL)) != -1) {
		switch (c) {
		case 'k':
			run->salvage = true;
			break;
		case 'n':
			run->stdin_name = optarg;
			break;
		case 'o':
			*out_path = optarg;
			break;
		default:
			wa_common_option(c);
		}
	}
	if (optind == argc)
		wa_usage_error("no WARC file given (\"-\" for stdin)");
}

int
main(int argc, char **argv)
{
	struct cdx_run run = { .stdin_name = "-" };
	const char *out_path = NULL;
	wa_init(argc, argv, usage);
	parse_options(&run, argc, argv, &out_path);
	struct atomic_file *out = out_path ? atomic_open(out_path) : NULL;
	sorter_start(&run.sort, "index lines", SORT_MEMORY, 1, NULL, false,
	    out ? fileno(out->fp) : STDOUT_FILENO);
	for (int i = optind; i < argc; i++)
		index_file(&run, argv[i]);
	sorter_close_input(&run.sort);
	sorter_finish(&run.sort);
	bool good = run.errors == 0 || run.salvage;
	if (out && good)
		atomic_commit(out);
	else if (out)
		atomic_abort(out);
	wa_note("%" PRIu64 " records indexed from %" PRIu64 " files; %" PRIu64
	    " could not be read or indexed%s", run.indexed, run.files, run.errors,
	    run.errors && !good ? out ? ": no index written" : ": exit 1" : "");
	url_cleanup();
	return good ? WA_EXIT_OK : WA_EXIT_ERROR;
}
