/* WARC/1.1 records (ISO 28500:2017, the IIPC "WARC File Format 1.1"):
 * what the writer (warcwrite.c) and the reader (warcread.c) share.  The
 * layout of a record follows section 4 of the specification: a version
 * line, named fields each ending in CRLF, an empty line, Content-Length
 * bytes of block, and CRLF CRLF.  Digests are "sha1:" with the RFC 4648
 * base32 of the SHA-1 (section 5.8).  Record ids are RFC 4122 version 4
 * UUIDs as urn:uuid URIs (section 5.2). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "msg.h"
#include "warc.h"

void
warc_new_id(char id[WARC_ID_SIZE])
{
	unsigned char u[16];
	size_t got = 0;
	while (got < sizeof u) {
		ssize_t n = getrandom(u + got, sizeof u - got, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			wa_die_errno("getrandom");
		}
		got += (size_t)n;
	}
	u[6] = (unsigned char)((u[6] & 0x0f) | 0x40);	/* version 4 */
	u[8] = (unsigned char)((u[8] & 0x3f) | 0x80);	/* RFC 4122 variant */
	snprintf(id, WARC_ID_SIZE,
	    "<urn:uuid:%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
	    "%02x%02x%02x%02x%02x%02x>",
	    u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
	    u[10], u[11], u[12], u[13], u[14], u[15]);
}

void
warc_digest_format(const unsigned char sha1[20], char out[WARC_DIGEST_SIZE])
{
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
	char *o = out + 5;
	memcpy(out, "sha1:", 5);
	/* 160 bits are exactly 32 groups of 5: no padding. */
	for (int bit = 0; bit < 160; bit += 5) {
		int byte = bit / 8, shift = bit % 8;
		unsigned v = (unsigned)sha1[byte] << 8;
		if (byte + 1 < 20)
			v |= sha1[byte + 1];
		*o++ = alphabet[(v >> (11 - shift)) & 31];
	}
	*o = '\0';
}

bool
warc_field_name_valid(const char *name, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];
		if (c <= 32 || c >= 127 || strchr("()<>@,;:\\\"/[]?={}", c))
			return false;
	}
	return true;
}

const char *
warc_field(const struct warc_record *rec, const char *name)
{
	for (size_t i = 0; i < rec->nfields; i++)
		if (strcasecmp(rec->fields[i].name, name) == 0)
			return rec->fields[i].value;
	return NULL;
}

char *
warc_target_uri(const struct warc_record *rec)
{
	const char *uri = warc_field(rec, "WARC-Target-URI");
	size_t n = uri ? strlen(uri) : 0;
	if (n == 0)
		return NULL;
	if (n >= 2 && uri[0] == '<' && uri[n - 1] == '>')
		return wa_strndup(uri + 1, n - 2);
	return wa_strdup(uri);
}
