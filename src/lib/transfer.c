/* An HTTP request and its WARC records (see transfer.h). */
#include <dirent.h>
#include <errno.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509_vfy.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ascii.h"
#include "msg.h"
#include "netaddr.h"
#include "opt.h"
#include "transfer.h"
#include "url.h"

static void
buf_add(struct buf *b, const void *data, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = b->cap ? b->cap : 4096;
		while (b->len + n > b->cap)
			b->cap *= 2;
		b->p = wa_realloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

/* libcurl callbacks */

static size_t
on_header(char *data, size_t size, size_t n, void *arg)
{
	static const char te[] = "transfer-encoding:";
	struct transfer *x = arg;
	n *= size;
	if (n >= 5 && memcmp(data, "HTTP/", 5) == 0)
		x->head.len = 0;	/* a new response: after a redirect or a 1xx */
	/* libcurl undoes the chunking: the stored header must not announce it. */
	if (n >= sizeof te - 1 && strncasecmp(data, te, sizeof te - 1) == 0)
		buf_add(&x->head, "X-WA-", 5);
	buf_add(&x->head, data, n);
	return n;
}

const char *
transfer_header(const struct transfer *x, const char *name)
{
	struct curl_header *h;
	if (curl_easy_header(x->easy, name, 0, CURLH_HEADER, -1, &h) != CURLHE_OK)
		return NULL;
	return h->value;
}

/* Keeps the body up to the cap, counting its decoded size as it comes, so
 * that a gzip bomb stops at the cap too. */
static size_t
on_body(char *data, size_t size, size_t n, void *arg)
{
	struct transfer *x = arg;
	size_t keep;

	n *= size;
	if (!x->body_started) {
		x->body_started = true;
		decoded_init(&x->decoded, transfer_header(x, "Content-Encoding"),
		    x->decode ? NULL : &x->plain, &x->plain_cap);
	}
	keep = n;
	if (x->body.len + keep > x->cap) {
		keep = (size_t)(x->cap - x->body.len);
		x->truncated = true;
	}
	if (!decoded_feed(&x->decoded, data, keep, x->cap))
		x->truncated = true;
	buf_add(&x->body, data, keep);
	EVP_DigestUpdate(x->sha1, data, keep);
	return x->truncated ? CURL_WRITEFUNC_ERROR : n;
}

/* The request header as sent, for the request record. */
static int
on_debug(CURL *easy, curl_infotype type, char *data, size_t n, void *arg)
{
	struct transfer *x = arg;
	(void)easy;
	if (type != CURLINFO_HEADER_OUT)
		return 0;
	if (n >= 4 && memcmp(data, "GET ", 4) == 0)
		x->request.len = 0;	/* the request of a new hop */
	buf_add(&x->request, data, n);
	return 0;
}

static bool
address_allowed(const struct transfer_config *cfg, const struct sockaddr *sa)
{
	if (cfg->allow_private || netaddr_is_public(sa))
		return true;
	for (size_t i = 0; i < cfg->nallowed; i++)
		if (netaddr_in_block(sa, &cfg->allowed[i]))
			return true;
	return false;
}

static curl_socket_t
on_open_socket(void *arg, curlsocktype purpose, struct curl_sockaddr *a)
{
	struct transfer *x = arg;
	(void)purpose;
	if (!address_allowed(x->cfg, &a->addr)) {
		x->refused_private = true;
		return CURL_SOCKET_BAD;
	}
	int fd = socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
	if (fd < 0)
		x->local_errno = errno;
	else
		x->site->sock = fd;
	return fd;
}

/* Its data is the site, not the transfer: a connection outlives the
 * request that opened it. */
static int
on_close_socket(void *arg, curl_socket_t fd)
{
	struct site *site = arg;
	if (site->sock == fd)
		site->sock = -1;
	return close(fd);
}

static void
setopt_failed(const char *what)
{
	wa_die("libcurl refused option %s", what);
}

#define SET(easy, o, v) \
	do { if (curl_easy_setopt(easy, o, v) != CURLE_OK) setopt_failed(#o); } while (0)

/* Bytes waiting on the site's idle connection before a request is sent
 * answer no request of it: they are the excess of a response longer than
 * its Content-Length (or the server's close), which libcurl, reusing the
 * connection, would take for the next response.  Such a connection is
 * shut, so that nothing reuses it, and the request opens a new one. */
static void
check_idle_connection(struct transfer *x)
{
	struct pollfd p = { .fd = x->site->sock, .events = POLLIN };
	if (p.fd < 0 || poll(&p, 1, 0) <= 0)
		return;
	shutdown(p.fd, SHUT_RDWR);
	SET(x->easy, CURLOPT_FRESH_CONNECT, 1L);
}

static void
add_header_line(struct transfer *x, const char *line)
{
	struct curl_slist *l = curl_slist_append(x->headers, line);
	if (!l)
		wa_die("out of memory for a header");
	x->headers = l;
	SET(x->easy, CURLOPT_HTTPHEADER, x->headers);
}

struct transfer *
transfer_new(const struct transfer_config *cfg, struct site *site,
    const char *url, struct curl_slist *resolve, uint64_t cap, bool decode,
    bool forbid_reuse)
{
	struct transfer *x = wa_calloc(1, sizeof *x);
	struct timespec ts;
	CURL *e = curl_easy_init();

	if (!e || !(x->sha1 = EVP_MD_CTX_new()) ||
	    !EVP_DigestInit_ex(x->sha1, EVP_sha1(), NULL))
		wa_die("out of memory for a transfer");
	x->easy = e;
	x->site = site;
	x->cap = cap;
	x->decode = decode;
	x->cfg = cfg;
	x->forbid_reuse = forbid_reuse;
	SET(e, CURLOPT_URL, url);
	SET(e, CURLOPT_PRIVATE, x);
	SET(e, CURLOPT_SHARE, cfg->share);
	SET(e, CURLOPT_PROTOCOLS_STR, "http,https");
	SET(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	/* The address check needs the server's own address, not a proxy's. */
	SET(e, CURLOPT_PROXY, "");
	SET(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	SET(e, CURLOPT_USERAGENT, cfg->agent);
	SET(e, CURLOPT_NOSIGNAL, 1L);
	SET(e, CURLOPT_FILETIME, 1L);
	SET(e, CURLOPT_HTTP_TRANSFER_DECODING, 1L);
	SET(e, CURLOPT_HTTP_CONTENT_DECODING, 0L);
	SET(e, CURLOPT_CONNECTTIMEOUT_MS, (long)(cfg->connect_timeout * 1000));
	SET(e, CURLOPT_TIMEOUT_MS, (long)(cfg->timeout * 1000));
	SET(e, CURLOPT_LOW_SPEED_LIMIT, (long)cfg->low_speed_limit);
	SET(e, CURLOPT_LOW_SPEED_TIME, (long)cfg->low_speed_time);
	SET(e, CURLOPT_SSL_VERIFYPEER, cfg->insecure ? 0L : 1L);
	SET(e, CURLOPT_SSL_VERIFYHOST, cfg->insecure ? 0L : 2L);
	if (cfg->cainfo)
		SET(e, CURLOPT_CAINFO, cfg->cainfo);
	if (cfg->capath)
		SET(e, CURLOPT_CAPATH, cfg->capath);
	SET(e, CURLOPT_ERRORBUFFER, x->error);
	if (resolve)
		SET(e, CURLOPT_RESOLVE, resolve);
	SET(e, CURLOPT_OPENSOCKETFUNCTION, on_open_socket);
	SET(e, CURLOPT_OPENSOCKETDATA, x);
	SET(e, CURLOPT_CLOSESOCKETFUNCTION, on_close_socket);
	SET(e, CURLOPT_CLOSESOCKETDATA, site);
	SET(e, CURLOPT_HEADERFUNCTION, on_header);
	SET(e, CURLOPT_HEADERDATA, x);
	SET(e, CURLOPT_WRITEFUNCTION, on_body);
	SET(e, CURLOPT_WRITEDATA, x);
	/* The debug callback sees the request header as sent. */
	SET(e, CURLOPT_DEBUGFUNCTION, on_debug);
	SET(e, CURLOPT_DEBUGDATA, x);
	SET(e, CURLOPT_VERBOSE, 1L);
	SET(e, CURLOPT_FORBID_REUSE, forbid_reuse ? 1L : 0L);
	if (decode)
		transfer_add_header(x, "Accept-Encoding", DECODED_ACCEPT);
	for (const struct curl_slist *h = cfg->headers; h; h = h->next)
		add_header_line(x, h->data);
	check_idle_connection(x);
	clock_gettime(CLOCK_REALTIME, &ts);
	x->sec = ts.tv_sec;
	x->usec = ts.tv_nsec / 1000;
	return x;
}

void
transfer_add_header(struct transfer *x, const char *name, const char *value)
{
	char *line = wa_asprintf("%s: %s", name, value);
	add_header_line(x, line);
	free(line);
}

/* The fields a request of wa-fetch may not be given, and why. */
static const struct {
	const char *name, *why;
} refused_fields[] = {
	{ "Host", "Host comes from the URL" },
	/* The connection is libcurl's to manage. */
	{ "Connection", "Connection is a hop-by-hop field" },
	{ "Keep-Alive", "Keep-Alive is a hop-by-hop field" },
	{ "Proxy-Connection", "Proxy-Connection is a hop-by-hop field" },
	{ "TE", "TE is a hop-by-hop field" },
	{ "Trailer", "Trailer is a hop-by-hop field" },
	{ "Transfer-Encoding", "Transfer-Encoding is a hop-by-hop field" },
	{ "Upgrade", "Upgrade is a hop-by-hop field" },
	/* A second one would contradict the one wa-fetch sends. */
	{ "User-Agent", "User-Agent is the agent of -A" },
	{ "Accept-Encoding", "Accept-Encoding is wa-fetch's own: it decodes "
	    "the codings it asks for" },
	{ "If-None-Match", "If-None-Match is wa-fetch's own, from -P" },
	{ "If-Modified-Since", "If-Modified-Since is wa-fetch's own, from -P" },
	{ "Content-Length", "Content-Length announces a body, and a GET has none" },
};

/* A character of a field name, RFC 9110 sec. 5.6.2. */
static bool
is_tchar(unsigned char c)
{
	return is_alpha(c) || is_digit(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

const char *
transfer_header_refused(const char *line)
{
	size_t n = 0;
	while (is_tchar((unsigned char)line[n]))
		n++;
	if (!strchr(line, ':'))
		return "no colon: not 'Name: value'";
	if (n == 0 || line[n] != ':')
		return "the name is empty or has a character no field name has";
	for (size_t i = 0; i < sizeof refused_fields / sizeof refused_fields[0]; i++)
		if (strlen(refused_fields[i].name) == n &&
		    strncasecmp(line, refused_fields[i].name, n) == 0)
			return refused_fields[i].why;
	const char *value = line + n + 1 + strspn(line + n + 1, " \t");
	/* libcurl takes a field without a value for one of its own to remove. */
	if (*value == '\0')
		return "the value is empty";
	for (const unsigned char *p = (const unsigned char *)value; *p; p++)
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			return "CR, LF or another control character in the value";
	return NULL;
}

bool
transfer_ca_usable(const char *path, bool dir, char *why, size_t size)
{
	if (dir) {
		DIR *d = opendir(path);
		if (!d) {
			snprintf(why, size, "%s", strerror(errno));
			return false;
		}
		closedir(d);
		return true;
	}
	FILE *fp = fopen(path, "r");
	if (!fp) {
		snprintf(why, size, "%s", strerror(errno));
		return false;
	}
	X509 *cert = PEM_read_X509(fp, NULL, NULL, NULL);
	fclose(fp);
	if (!cert) {
		ERR_clear_error();
		snprintf(why, size, "no PEM certificate in it");
		return false;
	}
	X509_free(cert);
	return true;
}

void
transfer_free(struct transfer *x)
{
	curl_easy_cleanup(x->easy);
	curl_slist_free_all(x->headers);
	if (x->body_started)
		decoded_end(&x->decoded);
	EVP_MD_CTX_free(x->sha1);
	free(x->request.p);
	free(x->head.p);
	free(x->body.p);
	free(x->plain);
	free(x->job.url);
	free(x);
}

char *
transfer_mime(const struct transfer *x)
{
	char *ct = NULL;
	curl_easy_getinfo(x->easy, CURLINFO_CONTENT_TYPE, &ct);
	if (!ct)
		return NULL;
	size_t n = strcspn(ct, ";");
	while (n > 0 && (ct[n - 1] == ' ' || ct[n - 1] == '\t'))
		n--;
	char *m = wa_strndup(ct, n);
	for (char *p = m; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p += 'a' - 'A';
	return m;
}

char *
transfer_redirect_target(const struct transfer *x, long code, const char **refused)
{
	char *loc = NULL, canon[URL_BUFSIZE];
	*refused = NULL;
	if (code < 300 || code >= 400 || code == 304 || !transfer_header(x, "Location"))
		return NULL;
	/* libcurl resolves the Location against the URL, for its schemes. */
	curl_easy_getinfo(x->easy, CURLINFO_REDIRECT_URL, &loc);
	if (!loc) {
		*refused = "not an http or https URL";
		return NULL;
	}
	return url_canon(loc, canon, refused) ? wa_strdup(canon) : NULL;
}

/* A certificate libcurl refused: the verdict of OpenSSL on its chain
 * (CURLINFO_SSL_VERIFYRESULT, an X509_V_ERR_ code), or else libcurl's
 * own check of the host name, which leaves no verdict of the chain's
 * (X509_V_OK, or the X509_V_ERR_UNSPECIFIED libcurl starts with) and says
 * "name" in its message. */
static const char *
certificate_failure(const struct transfer *x)
{
	long verdict = X509_V_OK;
	curl_easy_getinfo(x->easy, CURLINFO_SSL_VERIFYRESULT, &verdict);
	switch (verdict) {
	case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
	case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
	case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
	case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
	case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
	case X509_V_ERR_CERT_UNTRUSTED:
		return "tls-untrusted";
	case X509_V_ERR_CERT_HAS_EXPIRED:
	case X509_V_ERR_CERT_NOT_YET_VALID:
		return "tls-expired";
	case X509_V_ERR_HOSTNAME_MISMATCH:
	case X509_V_ERR_IP_ADDRESS_MISMATCH:
		return "tls-name";
	case X509_V_OK:
	case X509_V_ERR_UNSPECIFIED:
		return strstr(x->error, "name") ? "tls-name" : "tls";
	default:
		return "tls";
	}
}

const char *
transfer_error_name(const struct transfer *x, CURLcode rc)
{
	switch (rc) {
	case CURLE_COULDNT_RESOLVE_HOST:
		return "dns";
	case CURLE_COULDNT_CONNECT:
		return "connect";
	case CURLE_OPERATION_TIMEDOUT:
		return "timeout";
	case CURLE_PEER_FAILED_VERIFICATION:
		return certificate_failure(x);
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CIPHER:
		return "tls-handshake";
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
		return "tls";
	case CURLE_TOO_MANY_REDIRECTS:
		return "too-many-redirects";
	case CURLE_PARTIAL_FILE:
		return "partial";
	case CURLE_GOT_NOTHING:
		return "empty-reply";
	case CURLE_WEIRD_SERVER_REPLY:
	case CURLE_UNSUPPORTED_PROTOCOL:
		return "protocol";
	default:
		return "network";	/* send, receive, chunked coding errors */
	}
}

/* What each TLS status means, for a message. */
static const struct {
	const char *status, *meaning;
} tls_meanings[] = {
	{ "tls-untrusted", "TLS: the certificate is not trusted: no authority "
	    "trusted here signed it" },
	{ "tls-name", "TLS: the certificate is for another host name" },
	{ "tls-expired", "TLS: the certificate has expired, or is not valid yet" },
	{ "tls-handshake", "TLS: the handshake failed" },
	{ "tls", "TLS failed" },
};

bool
transfer_tls_status(const char *status)
{
	return strcmp(status, "tls") == 0 || strncmp(status, "tls-", 4) == 0;
}

const char *
transfer_error_message(const struct transfer *x, CURLcode rc, char *buf, size_t size)
{
	const char *status = transfer_error_name(x, rc);
	for (size_t i = 0; i < sizeof tls_meanings / sizeof tls_meanings[0]; i++)
		if (strcmp(status, tls_meanings[i].status) == 0) {
			snprintf(buf, size, "%s (%s)", tls_meanings[i].meaning,
			    *x->error ? x->error : curl_easy_strerror(rc));
			return buf;
		}
	snprintf(buf, size, "%s", curl_easy_strerror(rc));
	return buf;
}

/* libcurl takes a Content-Length too large for its type as no length and
 * reads to the close, so the body it calls whole is shorter than the one
 * declared: a partial transfer like any other short body. */
CURLcode
transfer_result(const struct transfer *x, CURLcode rc)
{
	const char *cl = rc == CURLE_OK ? transfer_header(x, "Content-Length") : NULL;
	if (!cl)
		return rc;
	size_t digits = strspn(cl, "0123456789");
	if (digits == 0 || cl[digits + strspn(cl + digits, " \t")])
		return rc;
	errno = 0;
	unsigned long long n = strtoull(cl, NULL, 10);
	return errno == ERANGE || n > INT64_MAX ? CURLE_PARTIAL_FILE : rc;
}

const char *
transfer_truncation(const struct transfer *x, CURLcode rc)
{
	if (x->truncated)
		return "length";
	if (rc == CURLE_OPERATION_TIMEDOUT)
		return "time";
	if (rc != CURLE_OK)
		return "disconnect";
	return NULL;
}

/* WARC records */

uint64_t
transfer_archive(const struct transfer *x, struct warc_writer *w,
    const char *target, const char *digest, const char *truncated,
    enum record_kind kind, int64_t refers_time)
{
	char req_id[WARC_ID_SIZE], resp_id[WARC_ID_SIZE], refers_date[32];
	struct warc_field req[3], resp[7];
	size_t nreq = 0, nresp = 0;
	char *ip = NULL;
	struct iovec block[2];

	warc_new_id(req_id);
	warc_new_id(resp_id);
	curl_easy_getinfo(x->easy, CURLINFO_PRIMARY_IP, &ip);

	req[nreq++] = (struct warc_field){ "WARC-Target-URI", target };
	req[nreq++] = (struct warc_field){ "WARC-Concurrent-To", resp_id };
	resp[nresp++] = (struct warc_field){ "WARC-Target-URI", target };
	if (ip && *ip) {
		req[nreq++] = (struct warc_field){ "WARC-IP-Address", ip };
		resp[nresp++] = (struct warc_field){ "WARC-IP-Address", ip };
	}
	if (kind != RECORD_NOT_MODIFIED)
		resp[nresp++] = (struct warc_field){ "WARC-Payload-Digest", digest };
	if (truncated)
		resp[nresp++] = (struct warc_field){ "WARC-Truncated", truncated };
	if (kind != RECORD_RESPONSE) {
		resp[nresp++] = (struct warc_field){ "WARC-Profile",
		    kind == RECORD_NOT_MODIFIED ?
		    "http://netpreserve.org/warc/1.1/revisit/server-not-modified" :
		    "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest" };
		resp[nresp++] = (struct warc_field){ "WARC-Refers-To-Target-URI", target };
		if (refers_time >= 0) {
			format_time(refers_time, "%Y-%m-%dT%H:%M:%SZ", refers_date, sizeof refers_date);
			resp[nresp++] = (struct warc_field){ "WARC-Refers-To-Date",
			    refers_date };
		}
	}

	block[0] = (struct iovec){ x->request.p, x->request.len };
	warc_write(w, "request", req_id, x->sec, x->usec, req, nreq,
	    "application/http;msgtype=request", block, 1);
	block[0] = (struct iovec){ x->head.p, x->head.len };
	block[1] = (struct iovec){ x->body.p, x->body.len };
	return warc_write(w, kind == RECORD_RESPONSE ? "response" : "revisit", resp_id,
	    x->sec, x->usec, resp, nresp, "application/http;msgtype=response",
	    block, kind == RECORD_RESPONSE ? 2 : 1);
}
