/* A response or resource record of a WARC file to the links of its page
 * and its row of the pages stream (extract-run.h; the extraction is in
 * extract.h, HTTP in httpresp.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>

#include "extract-run.h"
#include "httpresp.h"
#include "linkstream.h"
#include "robots.h"
#include "url.h"
#include "wa.h"

const char *const skipped_types[NSKIPPED] = {
	"warcinfo", "request", "metadata", "revisit", "conversion",
	"continuation", "other",
};

void
run_put_link(void *arg, const char *src, const char *dst, const char *how)
{
	struct extract_run *run = arg;
	links_write(stdout, src, dst, how);
	run->nlinks++;
}

void
run_put_hint(void *arg, const struct hint_row *row)
{
	struct extract_run *run = arg;
	hints_write(run->hints, row);
	run->nhints++;
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

/* A page that could not be parsed, for why (NULL: info->error says). */
static void
page_error(struct record_outcome *out, const char *why)
{
	out->info.type = PAGE_ERROR;
	if (why)
		snprintf(out->info.error, sizeof out->info.error, "%s", why);
	out->parse_error = true;
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
put_page(struct extract_run *run, const char *url, const struct extract_info *info,
    const char *date, const char *digest)
{
	run->ntype[info->type]++;
	if (!run->pages)
		return;
	struct page_row row = {
		.url = url, .type = info->type, .digest = digest, .outdeg = info->outdeg,
		.root = info->root, .doctype = info->doctype,
	};
	row.timed = date && warc_date(date, &row.time);
	pages_write(run->pages, &row);
}

static void
x_robots_tag(void *arg, const char *value, size_t len)
{
	extract_x_robots_tag(arg, value, len);
}

/* The HTTP message of a response record into r, or one made for a
 * resource record: status 200, the record's Content-Type, its block as
 * the body.  False if the response cannot be parsed (page_error). */
static bool
http_message(const struct warc_record *rec, bool is_response,
    struct record_outcome *out, struct http_response *r)
{
	const char *why;
	if (is_response) {
		if (!http_parse_response(rec->block, rec->block_len, r, &why)) {
			page_error(out, why);
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
status_outcome(struct extract *ex, const struct http_response *r,
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
		extract_link(ex, r->location, "redirect");
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
 * false if it cannot be or is larger than --max-size (page_error). */
static bool
decoded_body(struct record_parser *p, uint64_t max_size, const struct warc_record *rec,
    struct http_response *r, struct record_outcome *out,
    const unsigned char **body, size_t *len)
{
	const char *why;
	*body = r->body;
	*len = r->body_len;
	if (rec->block_len < rec->length) {
		page_error(out, "body larger than --max-size");
		return false;
	}
	if (*r->content_encoding || r->chunked) {
		if (!http_decode_body(r, max_size, &p->decoded, &p->decoded_cap, len, &why)) {
			page_error(out, why);
			return false;
		}
		*body = p->decoded;
	} else if (*len > max_size) {
		page_error(out, "body larger than --max-size");
		return false;
	}
	return true;
}

/* The page of a response record's HTTP message, or of a resource; the
 * payload's digest is computed into out->digest if the record has none and
 * the pages stream is written. */
static void
page(struct record_parser *p, const struct extract_run *run,
    const struct warc_record *rec, bool is_response, struct record_outcome *out)
{
	struct http_response r;
	struct extract_info *info = &out->info;
	if (!http_message(rec, is_response, out, &r))
		return;
	/* The digest of the payload as the fetch log has it, when the writer
	 * left the record's out (and kept the whole payload here). */
	bool cut = rec->block_len < rec->length;
	if (run->pages && !payload_digest(rec) && !cut)
		sha1_digest(r.body, r.body_len, out->digest);

	if (is_response && run->robots_tags)
		http_each_field(rec->block, &r, "X-Robots-Tag", x_robots_tag, p->ex);
	if (!status_outcome(p->ex, &r, is_response, info))
		return;
	bool robots = is_response && r.status >= 200 && r.status < 300 &&
	    strcmp(url_path(out->url), "/robots.txt") == 0;
	enum page_type type = extract_type_of(r.media_type, out->url, NULL, 0);
	if (!robots && type == PAGE_OTHER && !extract_media_generic(r.media_type))
		return;
	const unsigned char *body;
	size_t len;
	if (!decoded_body(p, run->max_size, rec, &r, out, &body, &len))
		return;
	if (robots) {
		extract_robots(p->ex, body, len);
		return;
	}
	type = extract_type_of(r.media_type, out->url, body, len);
	extract_document(p->ex, type, *r.charset ? r.charset : NULL, body, len);
	if (info->type == PAGE_ERROR)
		page_error(out, NULL);
}

/* The canonical URL of a record's WARC-Target-URI into url; false if it
 * has none of http or https. */
static bool
target_url(const struct warc_record *rec, char url[URL_BUFSIZE])
{
	char *uri = warc_target_uri(rec);
	const char *why;
	/* dns: records and the like: no pages. */
	bool ok = uri && url_canon(uri, url, &why);
	free(uri);
	return ok;
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

/* A warcinfo record, when --robots-agent names no agent: the robots
 * directives of the records of its file are obeyed for the agent it names
 * (none if it names none): the token wa-fetch obeyed, else that of the
 * User-Agent another crawler names. */
static void
warcinfo(struct extract_run *run, const struct warc_record *rec)
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
}

const char *
run_agent(const struct extract_run *run)
{
	return run->robots_agent ? run->robots_agent : run->info_agent;
}

bool
run_follows_block(const struct extract_run *run, const struct warc_record *rec)
{
	const char *type = warc_field(rec, "WARC-Type");
	return type && strcmp(type, "warcinfo") == 0 && run->robots_tags && !run->robots_agent;
}

void
run_follow_record(struct extract_run *run, const struct warc_record *rec)
{
	if (run_follows_block(run, rec))
		warcinfo(run, rec);
}

void
record_parser_init(struct record_parser *p, extract_link_fn *fn,
    extract_hint_fn *hint_fn, void *arg)
{
	*p = (struct record_parser){ .ex = extract_new(fn, arg) };
	if (hint_fn)
		extract_on_hints(p->ex, hint_fn, arg);
}

void
record_parser_free(struct record_parser *p)
{
	extract_free(p->ex);
	free(p->agent);
	free(p->decoded);
}

/* The extractor obeys the robots directives for agent ("": none). */
static void
obey_agent(struct record_parser *p, const char *agent)
{
	if (p->agent && strcmp(p->agent, agent) == 0)
		return;
	free(p->agent);
	p->agent = wa_strdup(agent);
	extract_obey_robots_tags(p->ex, agent);
}

/* The index in skipped_types of a record's type, the last for any other. */
static size_t
skipped_index(const char *type)
{
	size_t i;
	for (i = 0; i < NSKIPPED - 1; i++)
		if (type && strcmp(type, skipped_types[i]) == 0)
			break;
	return i;
}

void
record_parse(struct record_parser *p, const struct extract_run *run,
    const char *agent, const struct warc_record *rec, struct record_outcome *out)
{
	const char *type = warc_field(rec, "WARC-Type");
	bool is_response = type && strcmp(type, "response") == 0;
	out->parse_error = false;
	if (!is_response && !(type && strcmp(type, "resource") == 0)) {
		out->kind = RECORD_SKIPPED;
		out->skipped = skipped_index(type);
		return;
	}
	if (!target_url(rec, out->url)) {
		out->kind = RECORD_NOT_HTTP;
		return;
	}
	out->kind = RECORD_PAGE;
	*out->digest = '\0';
	if (run->robots_tags)
		obey_agent(p, agent);
	extract_begin(p->ex, out->url, &out->info);
	page(p, run, rec, is_response, out);
	/* A noindex document is still parsed for its links: it stays in
	 * the graph and passes importance on, but is no XML target and is
	 * weighed as an HTML page. */
	if (out->info.noindex && (out->info.type == PAGE_HTML ||
	    page_type_xml(out->info.type)))
		out->info.type = PAGE_NOINDEX;
}

void
run_count_record(struct extract_run *run, const char *file,
    const struct warc_record *rec, const struct record_outcome *out)
{
	const struct extract_info *info = &out->info;
	run->nrecords++;
	if (out->kind == RECORD_SKIPPED) {
		run->nskipped[out->skipped]++;
		return;
	}
	if (out->kind == RECORD_NOT_HTTP) {
		run->nskipped_not_http++;
		return;
	}
	if (out->parse_error && (run->ntype[PAGE_ERROR] < ERRORS_SHOWN || wa_verbose))
		wa_warn("%s: offset %llu: %s: %s", file ? file : "stdin",
		    (unsigned long long)rec->offset, out->url, info->error);
	if (info->refused) {
		/* Links of the web's schemes that no URL can be made of (too
		 * long, a bad host): lost, so told. */
		if (run->nrefused_pages++ < ERRORS_SHOWN || wa_verbose)
			wa_warn("%s: offset %llu: %s: %zu links refused, the first: %s",
			    file ? file : "stdin", (unsigned long long)rec->offset, out->url,
			    info->refused, info->refused_first);
		run->nrefused += info->refused;
	}
	if (info->bad_hints) {
		if (run->nbad_hint_pages++ < ERRORS_SHOWN || wa_verbose)
			wa_warn("%s: offset %llu: %s: %zu sitemap hints left out, the "
			    "first: %s", file ? file : "stdin",
			    (unsigned long long)rec->offset, out->url, info->bad_hints,
			    info->bad_hint_first);
		run->nbad_hints += info->bad_hints;
	}
	run->nnofollow += info->nofollowed;
	const char *field = payload_digest(rec);
	put_page(run, out->url, info, warc_field(rec, "WARC-Date"),
	    field ? field : out->digest);
}

void
run_record(struct extract_run *run, const char *file, const struct warc_record *rec)
{
	struct record_outcome out;
	run_follow_record(run, rec);
	record_parse(&run->parser, run, run_agent(run), rec, &out);
	run_count_record(run, file, rec, &out);
}
