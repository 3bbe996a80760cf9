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

static uint64_t max_size = 64ULL << 20;
static FILE *pages;
static struct progress pg;
static struct extract *ex;

static bool robots_tags = true;
static const char *robots_agent;	/* --robots-agent */
/* Else the token of the file's warcinfo record, "" if none. */
static char info_agent[64];

static uint64_t nrecords, nlinks, ntype[PAGE_TYPES], nnofollow;
static uint64_t nrefused, nrefused_pages;
static uint64_t nskipped_not_http;
static const char *const skipped_types[] = {
	"warcinfo", "request", "metadata", "revisit", "conversion",
	"continuation", "other",
};
#define NSKIPPED (sizeof skipped_types / sizeof *skipped_types)
static uint64_t nskipped[NSKIPPED];

/* Buffers reused from record to record. */
static unsigned char *decoded;
static size_t decoded_cap;

static void
put_link(void *arg, const char *src, const char *dst, const char *how)
{
	(void)arg;
	fputs(src, stdout);
	putchar('\t');
	fputs(dst, stdout);
	putchar('\t');
	fputs(how, stdout);
	putchar('\n');
	nlinks++;
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
page_error(const char *file, const struct warc_record *rec, const char *url,
    struct extract_info *info, const char *why)
{
	info->type = PAGE_ERROR;
	if (why)
		snprintf(info->error, sizeof info->error, "%s", why);
	if (ntype[PAGE_ERROR] < ERRORS_SHOWN || wa_verbose)
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
put_page(const char *url, const struct extract_info *info, const char *date,
    const char *digest)
{
	int64_t t;
	ntype[info->type]++;
	if (!pages)
		return;
	fprintf(pages, "%s\t%s\t", url, page_type_names[info->type]);
	if (date && warc_date(date, &t))
		fprintf(pages, "%lld", (long long)t);
	else
		putc('-', pages);
	fprintf(pages, "\t%s\t%zu\t%s\t%s\n", digest && *digest ? digest : "-",
	    info->outdeg, *info->root ? info->root : "-",
	    *info->doctype ? info->doctype : "-");
}

static void
x_robots_tag(void *arg, const char *value, size_t len)
{
	extract_x_robots_tag(ex, value, len);
	(void)arg;
}

/* The page of a response record's HTTP message, or of a resource; the
 * payload's digest is computed into digest if the record has none and
 * the pages stream is written. */
static void
page(const char *file, const struct warc_record *rec, const char *url,
    bool is_response, struct extract_info *info, char digest[WARC_DIGEST_SIZE])
{
	struct http_response r;
	const char *why;
	const unsigned char *payload = rec->block;
	size_t payload_len = rec->block_len;

	if (is_response) {
		if (!http_parse_response(rec->block, rec->block_len, &r, &why)) {
			page_error(file, rec, url, info, why);
			return;
		}
		payload = r.body;
		payload_len = r.body_len;
	} else {
		const char *ct = warc_field(rec, "Content-Type");
		memset(&r, 0, sizeof r);
		r.status = 200;
		if (ct)
			http_content_type(ct, r.media_type, sizeof r.media_type,
			    r.charset, sizeof r.charset);
		r.body = payload;
		r.body_len = payload_len;
	}
	/* The digest of the payload as the fetch log has it, when the writer
	 * left the record's out (and kept the whole payload here). */
	bool cut = rec->block_len < rec->length;
	if (pages && !payload_digest(rec) && !cut)
		sha1_digest(payload, payload_len, digest);

	if (is_response && robots_tags)
		http_each_field(rec->block, &r, "X-Robots-Tag", x_robots_tag, NULL);
	/* A dead page and an error answer are no documents: the links of
	 * their bodies are not the site's. */
	if (page_status_dead(r.status)) {
		info->type = PAGE_DEAD;
		return;
	}
	if (r.status >= 400) {
		info->type = PAGE_ERROR;
		snprintf(info->error, sizeof info->error, "HTTP status %d", r.status);
		return;
	}
	if (r.status >= 300 && r.status < 400 && *r.location)
		extract_link(ex, r.location, "redirect");
	else if (is_response && r.status >= 300 && r.status < 400 &&
	    r.location_too_long) {
		/* Refused like any other link too long, not lost without a word. */
		info->dropped++;
		if (info->refused++ == 0)
			snprintf(info->refused_first, sizeof info->refused_first,
			    "Location longer than %d bytes", URL_MAX);
	}
	/* url is canonical: "scheme://host[:port]/path". */
	const char *path = strchr(strstr(url, "://") + 3, '/');
	bool robots = is_response && r.status >= 200 && r.status < 300 &&
	    strcmp(path, "/robots.txt") == 0;
	enum page_type type = extract_type_of(r.media_type, url, NULL, 0);
	if (!robots && type == PAGE_OTHER && !extract_media_generic(r.media_type))
		return;
	const unsigned char *body = r.body;
	size_t len = r.body_len;
	if (cut) {
		page_error(file, rec, url, info, "body larger than --max-size");
		return;
	}
	if (*r.content_encoding || r.chunked) {
		if (!http_decode_body(&r, max_size, &decoded, &decoded_cap, &len, &why)) {
			page_error(file, rec, url, info, why);
			return;
		}
		body = decoded;
	} else if (len > max_size) {
		page_error(file, rec, url, info, "body larger than --max-size");
		return;
	}
	if (robots) {
		extract_robots(ex, body, len);
		return;
	}
	type = extract_type_of(r.media_type, url, body, len);
	extract_document(ex, type, *r.charset ? r.charset : NULL, body, len);
	if (info->type == PAGE_ERROR)
		page_error(file, rec, url, info, NULL);
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
warcinfo(const struct warc_record *rec)
{
	char ua[512];
	char *token = NULL;
	if (info_field(rec, "wa-fetch-robots-agent", ua, sizeof ua) &&
	    robots_token_valid(ua))
		token = wa_strdup(ua);
	else if (info_field(rec, "http-header-user-agent", ua, sizeof ua))
		token = robots_agent_token(ua);
	snprintf(info_agent, sizeof info_agent, "%s",
	    token && strlen(token) < sizeof info_agent ? token : "");
	free(token);
	extract_obey_robots_tags(ex, info_agent);
}

static void
record(const char *file, const struct warc_record *rec)
{
	const char *type = warc_field(rec, "WARC-Type");
	bool is_response = type && strcmp(type, "response") == 0;
	size_t i;
	nrecords++;
	if (type && strcmp(type, "warcinfo") == 0 && robots_tags && !robots_agent)
		warcinfo(rec);
	if (!is_response && !(type && strcmp(type, "resource") == 0)) {
		for (i = 0; i < NSKIPPED - 1; i++)
			if (type && strcmp(type, skipped_types[i]) == 0)
				break;
		nskipped[i]++;
		return;
	}
	/* WARC 1.0 writers put the URI in angle brackets. */
	const char *target = warc_field(rec, "WARC-Target-URI");
	char uri[URL_BUFSIZE], url[URL_BUFSIZE];
	const char *why;
	size_t n = target ? strlen(target) : 0;
	if (n >= 2 && target[0] == '<' && target[n - 1] == '>') {
		target++;
		n -= 2;
	}
	if (!target || n >= sizeof uri) {
		nskipped_not_http++;
		return;
	}
	memcpy(uri, target, n);
	uri[n] = '\0';
	if (!url_canon(uri, url, &why)) {
		/* dns: records and the like: no pages. */
		nskipped_not_http++;
		return;
	}
	struct extract_info info;
	char digest[WARC_DIGEST_SIZE] = "";
	extract_begin(ex, url, &info);
	page(file, rec, url, is_response, &info, digest);
	if (info.refused) {
		/* Links of the web's schemes that no URL can be made of (too
		 * long, a bad host): lost, so told. */
		if (nrefused_pages++ < ERRORS_SHOWN || wa_verbose)
			wa_warn("%s: offset %llu: %s: %zu links refused, the first: %s",
			    file ? file : "stdin", (unsigned long long)rec->offset, url,
			    info.refused, info.refused_first);
		nrefused += info.refused;
	}
	/* A noindex document is still parsed for its links: it stays in
	 * the graph and passes importance on, but is no XML target and is
	 * weighed as an HTML page. */
	if (info.noindex && (info.type == PAGE_HTML || page_type_xml(info.type)))
		info.type = PAGE_NOINDEX;
	nnofollow += info.nofollowed;
	const char *field = payload_digest(rec);
	put_page(url, &info, warc_field(rec, "WARC-Date"), field ? field : digest);
}

/* Returns the records that could not be read. */
static uint64_t
read_warc(const char *path)
{
	struct warc_reader *r = warc_reader_open(path);
	struct warc_record rec;
	warc_reader_max_block(r, max_size > UINT64_MAX - HEAD_KEPT ? UINT64_MAX :
	    max_size + HEAD_KEPT, HEAD_KEPT);
	/* A warcinfo record speaks for the records of its file. */
	if (robots_tags && !robots_agent && *info_agent) {
		*info_agent = '\0';
		extract_obey_robots_tags(ex, NULL);
	}
	while (warc_read(r, &rec)) {
		record(path, &rec);
		progress_set(&pg, nrecords);
	}
	uint64_t errors = warc_reader_errors(r);
	warc_reader_close(r);
	return errors;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "robots-agent", required_argument, NULL, OPT_ROBOTS_AGENT },
		{ "ignore-robots-tags", no_argument, NULL, OPT_IGNORE_ROBOTS_TAGS },
		WA_COMMON_LONGOPTS
	};
	const char *pages_path = NULL;
	struct atomic_file *af = NULL;
	bool salvage = false;
	int c;

	wa_init(argc, argv, usage);
	while ((c = getopt_long(argc, argv, "hkp:qv", longopts, NULL)) != -1) {
		switch (c) {
		case 'k':
			salvage = true;
			break;
		case 'p':
			pages_path = optarg;
			break;
		case OPT_MAX_SIZE:
			max_size = opt_size("--max-size", optarg);
			if (max_size == 0)
				wa_usage_error("--max-size: must be more than 0");
			break;
		case OPT_ROBOTS_AGENT:
			if (!robots_token_valid(optarg))
				wa_usage_error("--robots-agent: '%s' is no product token "
				    "(letters, '_' and '-' only)", optarg);
			robots_agent = optarg;
			break;
		case OPT_IGNORE_ROBOTS_TAGS:
			robots_tags = false;
			break;
		default:
			wa_common_option(c);
		}
	}
	if (pages_path) {
		af = atomic_open(pages_path);
		pages = af->fp;
	}
	static char outbuf[1 << 16];
	setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
	ex = extract_new(put_link, NULL);
	if (robots_tags)
		extract_obey_robots_tags(ex, robots_agent);

	uint64_t unreadable = 0;
	progress_start(&pg, "records", 0);
	if (optind == argc)
		unreadable += read_warc(NULL);
	for (int i = optind; i < argc; i++)
		unreadable += read_warc(argv[i]);
	progress_end(&pg);

	if (fflush(stdout) == EOF || ferror(stdout))
		wa_die_errno("standard output");
	/* A file under its final name is the whole of its inputs, unless
	 * asked for what could be read. */
	if (af && (salvage || !unreadable))
		atomic_commit(af);
	else if (af)
		atomic_abort(af);

	uint64_t npages = 0;
	char types[256];
	size_t tlen = 0;
	for (int t = PAGE_HTML; t < PAGE_TYPES; t++) {
		npages += ntype[t];
		if (ntype[t] || t <= PAGE_ERROR)
			tlen += (size_t)snprintf(types + tlen, sizeof types - tlen, "%s%llu %s",
			    tlen ? ", " : "", (unsigned long long)ntype[t], page_type_names[t]);
	}
	char nofollow[64] = "";
	if (nnofollow)
		snprintf(nofollow, sizeof nofollow, ", %llu not followed (nofollow)",
		    (unsigned long long)nnofollow);
	wa_note("%llu records: %llu pages (%s), %llu links%s",
	    (unsigned long long)nrecords, (unsigned long long)npages, types,
	    (unsigned long long)nlinks, nofollow);
	char skipped[512];
	size_t len = 0;
	for (size_t i = 0; i < NSKIPPED; i++)
		if (nskipped[i])
			len += (size_t)snprintf(skipped + len, sizeof skipped - len,
			    "%s%llu %s", len ? ", " : "",
			    (unsigned long long)nskipped[i], skipped_types[i]);
	if (nskipped_not_http)
		len += (size_t)snprintf(skipped + len, sizeof skipped - len,
		    "%s%llu without an http(s) target", len ? ", " : "",
		    (unsigned long long)nskipped_not_http);
	if (len)
		wa_note("skipped records: %s", skipped);
	if (nrefused_pages > ERRORS_SHOWN && !wa_verbose)
		wa_warn("%llu links refused on %llu pages (-v lists the pages)",
		    (unsigned long long)nrefused, (unsigned long long)nrefused_pages);
	if (ntype[PAGE_ERROR] > ERRORS_SHOWN && !wa_verbose)
		wa_note("%llu pages could not be parsed (-v lists them all)",
		    (unsigned long long)ntype[PAGE_ERROR]);
	extract_free(ex);
	free(decoded);
	url_cleanup();
	if (unreadable) {
		unsigned long long n = unreadable;
		if (!pages_path)
			wa_warn("%llu records could not be read", n);
		else if (salvage)
			wa_warn("%llu records could not be read: %s holds the others",
			    n, pages_path);
		else
			wa_warn("%llu records could not be read: %s is left as it was "
			    "(-k writes the others)", n, pages_path);
		if (!salvage)
			return WA_EXIT_ERROR;
	}
	return WA_EXIT_OK;
}
