/* wa-extract: the links of the HTML and XML pages of WARC files, and a
 * row of facts per page (man/wa-formats.5, "Links" and "Pages"; the
 * extraction is in extract.h, HTTP in httpresp.h, WARC in warc.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>

#include "extract.h"
#include "httpresp.h"
#include "robots.h"
#include "url.h"
#include "wa.h"
#include "warc.h"

static const char usage[] =
    "usage: wa-extract [-kqv] [-p PAGES] [--max-size SIZE] [--robots-agent TOKEN]\n"
    "                  [--ignore-robots-tags] [WARC...]\n"
    "Reads the response and resource records of the WARC files (or stdin,\n"
    "gzip or plain) and writes the links of their HTML and XML pages on\n"
    "stdout: src, dst, how (see wa-formats(5), \"Links\").\n"
    "  -p FILE          also write a row per page to FILE: url, type, time,\n"
    "                   digest, out-degree, root element, doctype\n"
    "  -k               keep going past records that cannot be read: -p\n"
    "                   holds the others, exit 0 (default: -p is not\n"
    "                   written, exit 1)\n"
    "  --max-size SIZE  largest decoded body parsed (default 64M); a larger\n"
    "                   one is a page of type error\n"
    "  --robots-agent TOKEN  our robots product token, for the meta robots and\n"
    "                   X-Robots-Tag directives named for a robot (default:\n"
    "                   the one the warcinfo record names, if any)\n"
    "  --ignore-robots-tags  follow nofollow links, type noindex pages as\n"
    "                   any other (default: obey meta robots, rel=nofollow,\n"
    "                   X-Robots-Tag)\n"
    "  -q               no progress line, no summary\n"
    "  -v               report every page that could not be parsed or has\n"
    "                   links refused\n"
    "  -h               this help;  --version  the version\n"
    "See wa-extract(1).\n";

enum {
	OPT_MAX_SIZE = WA_OPT_FIRST_TOOL, OPT_ROBOTS_AGENT, OPT_IGNORE_ROBOTS_TAGS,
};

/* Errors shown one by one before only counting them (without -v). */
#define ERRORS_SHOWN 5
/* Of a record whose block is larger than --max-size and this, only this
 * much of its start is read into memory: the HTTP header, whose fields
 * type the page, and the first bytes of the body, which may. */
#define HEAD_KEPT (64 << 10)

static const char *const skipped_types[] = {
	"warcinfo", "request", "metadata", "revisit", "conversion",
	"continuation", "other",
};
#define NSKIPPED (sizeof skipped_types / sizeof *skipped_types)

/* The options, the outputs and the counts of a run. */
struct run {
	uint64_t max_size;
	const char *pages_path;	/* -p */
	bool salvage;		/* -k */
	bool robots_tags;	/* not --ignore-robots-tags */
	const char *robots_agent;	/* --robots-agent */
	/* Else the token of the file's warcinfo record, "" if none. */
	char info_agent[64];

	struct atomic_file *pages_file;
	FILE *pages;		/* its stream, or NULL */
	struct progress pg;
	struct extract *ex;
	unsigned char *decoded;	/* bodies decoded, reused from record to record */
	size_t decoded_cap;

	uint64_t nrecords, nlinks, ntype[PAGE_TYPES], nnofollow;
	uint64_t nrefused, nrefused_pages;
	uint64_t nskipped_not_http;
	uint64_t nskipped[NSKIPPED];
	uint64_t unreadable;	/* records that could not be read */
};

static void
put_link(void *arg, const char *src, const char *dst, const char *how)
{
	struct run *run = arg;
	fputs(src, stdout);
	putchar('\t');
	fputs(dst, stdout);
	putchar('\t');
	fputs(how, stdout);
	putchar('\n');
	run->nlinks++;
}

/* WARC-Date, "2026-11-22T01:05:30Z" with perhaps a fraction of a second
 * (WARC 1.1 sec. 5.4), as Unix seconds; false if it is none. */
static bool
warc_date(const char *s, int64_t *t)
{
	char buf[32];
	size_t n = strlen(s);
	if (n < 20 || n >= sizeof buf || s[n - 1] != 'Z')
		return false;
	memcpy(buf, s, 19);
	if (s[19] == '.') {
		size_t digits = strspn(s + 20, "0123456789");
		if (!digits || 20 + digits != n - 1)
			return false;
	} else if (n != 20) {
		return false;
	}
	strcpy(buf + 19, "Z");
	return parse_time(buf, t);
}

static void
sha1_digest(const unsigned char *data, size_t len, char out[WARC_DIGEST_SIZE])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int md_len;
	if (!EVP_Digest(data, len, md, &md_len, EVP_sha1(), NULL) || md_len != 20)
		wa_die("OpenSSL: SHA-1 failed");
	warc_digest_format(md, out);
}

static void
page_error(struct run *run, const char *file, const struct warc_record *rec,
    const char *url, struct extract_info *info, const char *why)
{
	info->type = PAGE_ERROR;
	if (why)
		snprintf(info->error, sizeof info->error, "%s", why);
	if (run->ntype[PAGE_ERROR] < ERRORS_SHOWN || wa_verbose)
		wa_warn("%s: offset %llu: %s: %s", file ? file : "stdin",
		    (unsigned long long)rec->offset, url, info->error);
}

/* The record's WARC-Payload-Digest if it is one, "algorithm:value"
 * without a blank: whole, whatever the algorithm and the encoding of the
 * value (base32, hex). */
static const char *
payload_digest(const struct warc_record *rec)
{
	const char *d = warc_field(rec, "WARC-Payload-Digest");
	const char *colon = d ? strchr(d, ':') : NULL;
	if (!colon || colon == d || !colon[1] || strpbrk(d, " \t"))
		return NULL;
	return d;
}

static void
put_page(struct run *run, const char *url, const struct extract_info *info,
    const char *date, const char *digest)
{
	int64_t t;
	run->ntype[info->type]++;
	if (!run->pages)
		return;
	fprintf(run->pages, "%s\t%s\t", url, page_type_names[info->type]);
	if (date && warc_date(date, &t))
		fprintf(run->pages, "%lld", (long long)t);
	else
		putc('-', run->pages);
	fprintf(run->pages, "\t%s\t%zu\t%s\t%s\n", digest && *digest ? digest : "-",
	    info->outdeg, *info->root ? info->root : "-",
	    *info->doctype ? info->doctype : "-");
}

static void
x_robots_tag(void *arg, const char *value, size_t len)
{
	extract_x_robots_tag(arg, value, len);
}

/* The HTTP message of a response record into r, or one made for a
 * resource record: status 200, the record's Content-Type, its block as
 * the body.  False if the response cannot be parsed (reported). */
static bool
http_message(struct run *run, const char *file, const struct warc_record *rec,
    const char *url, bool is_response, struct extract_info *info,
    struct http_response *r)
{
	const char *why;
	if (is_response) {
		if (!http_parse_response(rec->block, rec->block_len, r, &why)) {
			page_error(run, file, rec, url, info, why);
			return false;
		}
		return true;
	}
	const char *ct = warc_field(rec, "Content-Type");
	memset(r, 0, sizeof *r);
	r->status = 200;
	if (ct)
		http_content_type(ct, r->media_type, sizeof r->media_type,
		    r->charset, sizeof r->charset);
	r->body = rec->block;
	r->body_len = rec->block_len;
	return true;
}

/* What the status says: false for a dead page or an error answer, which
 * are no documents (the links of their bodies are not the site's); a
 * redirect's Location is a link. */
static bool
status_outcome(struct run *run, const struct http_response *r,
    bool is_response, struct extract_info *info)
{
	if (page_status_dead(r->status)) {
		info->type = PAGE_DEAD;
		return false;
	}
	if (r->status >= 400) {
		info->type = PAGE_ERROR;
		snprintf(info->error, sizeof info->error, "HTTP status %d", r->status);
		return false;
	}
	if (r->status >= 300 && r->status < 400 && *r->location)
		extract_link(run->ex, r->location, "redirect");
	else if (is_response && r->status >= 300 && r->status < 400 &&
	    r->location_too_long) {
		/* Refused like any other link too long, not lost without a word. */
		info->dropped++;
		if (info->refused++ == 0)
			snprintf(info->refused_first, sizeof info->refused_first,
			    "Location longer than %d bytes", URL_MAX);
	}
	return true;
}

/* The body of r decoded (Content-Encoding, chunked) into *body and *len;
 * false if it cannot be or is larger than --max-size (reported). */
static bool
decoded_body(struct run *run, const char *file, const struct warc_record *rec,
    const char *url, struct http_response *r, struct extract_info *info,
    const unsigned char **body, size_t *len)
{
	const char *why;
	*body = r->body;
	*len = r->body_len;
	if (rec->block_len < rec->length) {
		page_error(run, file, rec, url, info, "body larger than --max-size");
		return false;
	}
	if (*r->content_encoding || r->chunked) {
		if (!http_decode_body(r, run->max_size, &run->decoded,
		    &run->decoded_cap, len, &why)) {
			page_error(run, file, rec, url, info, why);
			return false;
		}
		*body = run->decoded;
	} else if (*len > run->max_size) {
		page_error(run, file, rec, url, info, "body larger than --max-size");
		return false;
	}
	return true;
}

/* The page of a response record's HTTP message, or of a resource; the
 * payload's digest is computed into digest if the record has none and
 * the pages stream is written. */
static void
page(struct run *run, const char *file, const struct warc_record *rec,
    const char *url, bool is_response, struct extract_info *info,
    char digest[WARC_DIGEST_SIZE])
{
	struct http_response r;
	if (!http_message(run, file, rec, url, is_response, info, &r))
		return;
	/* The digest of the payload as the fetch log has it, when the writer
	 * left the record's out (and kept the whole payload here). */
	bool cut = rec->block_len < rec->length;
	if (run->pages && !payload_digest(rec) && !cut)
		sha1_digest(r.body, r.body_len, digest);

	if (is_response && run->robots_tags)
		http_each_field(rec->block, &r, "X-Robots-Tag", x_robots_tag, run->ex);
	if (!status_outcome(run, &r, is_response, info))
		return;
	bool robots = is_response && r.status >= 200 && r.status < 300 &&
	    strcmp(url_path(url), "/robots.txt") == 0;
	enum page_type type = extract_type_of(r.media_type, url, NULL, 0);
	if (!robots && type == PAGE_OTHER && !extract_media_generic(r.media_type))
		return;
	const unsigned char *body;
	size_t len;
	if (!decoded_body(run, file, rec, url, &r, info, &body, &len))
		return;
	if (robots) {
		extract_robots(run->ex, body, len);
		return;
	}
	type = extract_type_of(r.media_type, url, body, len);
	extract_document(run->ex, type, *r.charset ? r.charset : NULL, body, len);
	if (info->type == PAGE_ERROR)
		page_error(run, file, rec, url, info, NULL);
}

/* The value of the field name in a warcinfo block (application/
 * warc-fields: "name: value" lines), into out; false if absent or too
 * long. */
static bool
info_field(const struct warc_record *rec, const char *name, char *out,
    size_t size)
{
	const char *p = (const char *)rec->block, *end = p + rec->block_len;
	size_t n = strlen(name);
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *e = eol ? eol : end;
		if ((size_t)(e - p) > n && p[n] == ':' && strncasecmp(p, name, n) == 0) {
			const char *v = p + n + 1;
			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			while (e > v && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
				e--;
			if ((size_t)(e - v) >= size)
				return false;
			memcpy(out, v, (size_t)(e - v));
			out[e - v] = '\0';
			return true;
		}
		p = e + 1;
	}
	return false;
}

/* The robots agent of a warcinfo record: the token wa-fetch obeyed, else
 * that of the User-Agent another crawler names. */
static void
warcinfo(struct run *run, const struct warc_record *rec)
{
	char ua[512];
	char *token = NULL;
	if (info_field(rec, "wa-fetch-robots-agent", ua, sizeof ua) &&
	    robots_token_valid(ua))
		token = wa_strdup(ua);
	else if (info_field(rec, "http-header-user-agent", ua, sizeof ua))
		token = robots_agent_token(ua);
	snprintf(run->info_agent, sizeof run->info_agent, "%s",
	    token && strlen(token) < sizeof run->info_agent ? token : "");
	free(token);
	extract_obey_robots_tags(run->ex, run->info_agent);
}

/* The canonical URL of a record's WARC-Target-URI into url; false if it
 * has none of http or https. */
static bool
target_url(const struct warc_record *rec, char url[URL_BUFSIZE])
{
	/* WARC 1.0 writers put the URI in angle brackets. */
	const char *target = warc_field(rec, "WARC-Target-URI");
	char uri[URL_BUFSIZE];
	const char *why;
	size_t n = target ? strlen(target) : 0;
	if (n >= 2 && target[0] == '<' && target[n - 1] == '>') {
		target++;
		n -= 2;
	}
	if (!target || n >= sizeof uri)
		return false;
	memcpy(uri, target, n);
	uri[n] = '\0';
	/* dns: records and the like: no pages. */
	return url_canon(uri, url, &why);
}

static void
record(struct run *run, const char *file, const struct warc_record *rec)
{
	const char *type = warc_field(rec, "WARC-Type");
	bool is_response = type && strcmp(type, "response") == 0;
	size_t i;
	run->nrecords++;
	if (type && strcmp(type, "warcinfo") == 0 && run->robots_tags &&
	    !run->robots_agent)
		warcinfo(run, rec);
	if (!is_response && !(type && strcmp(type, "resource") == 0)) {
		for (i = 0; i < NSKIPPED - 1; i++)
			if (type && strcmp(type, skipped_types[i]) == 0)
				break;
		run->nskipped[i]++;
		return;
	}
	char url[URL_BUFSIZE];
	if (!target_url(rec, url)) {
		run->nskipped_not_http++;
		return;
	}
	struct extract_info info;
	char digest[WARC_DIGEST_SIZE] = "";
	extract_begin(run->ex, url, &info);
	page(run, file, rec, url, is_response, &info, digest);
	if (info.refused) {
		/* Links of the web's schemes that no URL can be made of (too
		 * long, a bad host): lost, so told. */
		if (run->nrefused_pages++ < ERRORS_SHOWN || wa_verbose)
			wa_warn("%s: offset %llu: %s: %zu links refused, the first: %s",
			    file ? file : "stdin", (unsigned long long)rec->offset, url,
			    info.refused, info.refused_first);
		run->nrefused += info.refused;
	}
	/* A noindex document is still parsed for its links: it stays in
	 * the graph and passes importance on, but is no XML target and is
	 * weighed as an HTML page. */
	if (info.noindex && (info.type == PAGE_HTML || page_type_xml(info.type)))
		info.type = PAGE_NOINDEX;
	run->nnofollow += info.nofollowed;
	const char *field = payload_digest(rec);
	put_page(run, url, &info, warc_field(rec, "WARC-Date"), field ? field : digest);
}

/* Reads the records of a WARC file, stdin if path is NULL. */
static void
read_warc(struct run *run, const char *path)
{
	struct warc_reader *r = warc_reader_open(path);
	struct warc_record rec;
	warc_reader_max_block(r, run->max_size > UINT64_MAX - HEAD_KEPT ?
	    UINT64_MAX : run->max_size + HEAD_KEPT, HEAD_KEPT);
	/* A warcinfo record speaks for the records of its file. */
	if (run->robots_tags && !run->robots_agent && *run->info_agent) {
		*run->info_agent = '\0';
		extract_obey_robots_tags(run->ex, NULL);
	}
	while (warc_read(r, &rec)) {
		record(run, path, &rec);
		progress_set(&run->pg, run->nrecords);
	}
	run->unreadable += warc_reader_errors(r);
	warc_reader_close(r);
}

static void
parse_options(struct run *run, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "robots-agent", required_argument, NULL, OPT_ROBOTS_AGENT },
		{ "ignore-robots-tags", no_argument, NULL, OPT_IGNORE_ROBOTS_TAGS },
		WA_COMMON_LONGOPTS
	};
	int c;
	while ((c = getopt_long(argc, argv, "hkp:qv", longopts, NULL)) != -1) {
		switch (c) {
		case 'k':
			run->salvage = true;
			break;
		case 'p':
			run->pages_path = optarg;
			break;
		case OPT_MAX_SIZE:
			run->max_size = opt_size("--max-size", optarg);
			if (run->max_size == 0)
				wa_usage_error("--max-size: must be more than 0");
			break;
		case OPT_ROBOTS_AGENT:
			if (!robots_token_valid(optarg))
				wa_usage_error("--robots-agent: '%s' is no product token "
				    "(letters, '_' and '-' only)", optarg);
			run->robots_agent = optarg;
			break;
		case OPT_IGNORE_ROBOTS_TAGS:
			run->robots_tags = false;
			break;
		default:
			wa_common_option(c);
		}
	}
}

/* Opens the pages file and the links' stream, and the extraction. */
static void
start(struct run *run)
{
	static char outbuf[1 << 16];
	if (run->pages_path) {
		run->pages_file = atomic_open(run->pages_path);
		run->pages = run->pages_file->fp;
	}
	setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
	run->ex = extract_new(put_link, run);
	if (run->robots_tags)
		extract_obey_robots_tags(run->ex, run->robots_agent);
}

/* The WARC files named, or stdin if none. */
static void
read_inputs(struct run *run, int npaths, char **paths)
{
	progress_start(&run->pg, "records", 0);
	if (npaths == 0)
		read_warc(run, NULL);
	for (int i = 0; i < npaths; i++)
		read_warc(run, paths[i]);
	progress_end(&run->pg);
}

/* A file under its final name is the whole of its inputs, unless asked
 * for what could be read. */
static void
finish_outputs(struct run *run)
{
	if (fflush(stdout) == EOF || ferror(stdout))
		wa_die_errno("standard output");
	if (run->pages_file && (run->salvage || !run->unreadable))
		atomic_commit(run->pages_file);
	else if (run->pages_file)
		atomic_abort(run->pages_file);
}

static void
note_pages(const struct run *run)
{
	uint64_t npages = 0;
	char types[256];
	size_t tlen = 0;
	for (int t = PAGE_HTML; t < PAGE_TYPES; t++) {
		npages += run->ntype[t];
		if (run->ntype[t] || t <= PAGE_ERROR)
			tlen += (size_t)snprintf(types + tlen, sizeof types - tlen, "%s%llu %s",
			    tlen ? ", " : "", (unsigned long long)run->ntype[t],
			    page_type_names[t]);
	}
	char nofollow[64] = "";
	if (run->nnofollow)
		snprintf(nofollow, sizeof nofollow, ", %llu not followed (nofollow)",
		    (unsigned long long)run->nnofollow);
	wa_note("%llu records: %llu pages (%s), %llu links%s",
	    (unsigned long long)run->nrecords, (unsigned long long)npages, types,
	    (unsigned long long)run->nlinks, nofollow);
}

static void
note_skipped(const struct run *run)
{
	char skipped[512];
	size_t len = 0;
	for (size_t i = 0; i < NSKIPPED; i++)
		if (run->nskipped[i])
			len += (size_t)snprintf(skipped + len, sizeof skipped - len,
			    "%s%llu %s", len ? ", " : "",
			    (unsigned long long)run->nskipped[i], skipped_types[i]);
	if (run->nskipped_not_http)
		len += (size_t)snprintf(skipped + len, sizeof skipped - len,
		    "%s%llu without an http(s) target", len ? ", " : "",
		    (unsigned long long)run->nskipped_not_http);
	if (len)
		wa_note("skipped records: %s", skipped);
}

/* The summary, and the counts of what was shown only in part. */
static void
summarize(const struct run *run)
{
	note_pages(run);
	note_skipped(run);
	if (run->nrefused_pages > ERRORS_SHOWN && !wa_verbose)
		wa_warn("%llu links refused on %llu pages (-v lists the pages)",
		    (unsigned long long)run->nrefused,
		    (unsigned long long)run->nrefused_pages);
	if (run->ntype[PAGE_ERROR] > ERRORS_SHOWN && !wa_verbose)
		wa_note("%llu pages could not be parsed (-v lists them all)",
		    (unsigned long long)run->ntype[PAGE_ERROR]);
}

static void
run_free(struct run *run)
{
	extract_free(run->ex);
	free(run->decoded);
	url_cleanup();
}

/* Records that could not be read are an error, unless -k. */
static int
exit_status(const struct run *run)
{
	unsigned long long n = run->unreadable;
	if (!n)
		return WA_EXIT_OK;
	if (!run->pages_path)
		wa_warn("%llu records could not be read", n);
	else if (run->salvage)
		wa_warn("%llu records could not be read: %s holds the others",
		    n, run->pages_path);
	else
		wa_warn("%llu records could not be read: %s is left as it was "
		    "(-k writes the others)", n, run->pages_path);
	return run->salvage ? WA_EXIT_OK : WA_EXIT_ERROR;
}

int
main(int argc, char **argv)
{
	struct run run = { .max_size = 64ULL << 20, .robots_tags = true };
	wa_init(argc, argv, usage);
	parse_options(&run, argc, argv);
	start(&run);
	read_inputs(&run, argc - optind, argv + optind);
	finish_outputs(&run);
	summarize(&run);
	run_free(&run);
	return exit_status(&run);
}
