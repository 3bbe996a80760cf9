/* The crawl scope: the include and exclude rules of wa-schedule and
 * wa-fetch (man/wa-formats.5, "Scope rules", is the user's view).
 *
 * A rule is '+' (include) or '-' (exclude) followed by a pattern:
 *   http://(org,example,)/docs/   a SURT prefix as Heritrix writes it:
 *                                 scheme "://(", the host's labels in
 *                                 reverse order each followed by ',',
 *                                 then ":PORT" if not the default, then
 *                                 ')' and the path; cut anywhere.  The
 *                                 scheme is not compared (https is read as
 *                                 http, as Heritrix does); an IP address is
 *                                 kept as it is, with no ',' after it.
 *   ~ERE                          a POSIX extended regular expression,
 *                                 searched for in the canonical URL.
 *   .SUFFIX                       the suffix of the last path segment
 *                                 (".pdf"), letters and digits, in any case.
 * A canonical URL is in scope when both its place and its suffix are:
 *   - place: the last prefix or ERE rule that matches it decides; when
 *     none matches, it is in unless some prefix or ERE rule includes;
 *   - suffix: the last suffix rule naming its suffix decides; when none
 *     does, a suffix that names a non-document (pagetype.h,
 *     page_not_document) gives SCOPE_NOT_DOCUMENT, which each tool reads
 *     as its page says: wa-schedule does not discover such a URL,
 *     wa-fetch fetches it as listed.
 * So "+.pdf" lets PDFs in where the place rules do, and "-.mp3" keeps
 * MP3 files out wherever they are. */
#ifndef WA_SCOPE_H
#define WA_SCOPE_H

#include <stdbool.h>
#include <stddef.h>

enum scope_decision { SCOPE_IN, SCOPE_OUT, SCOPE_NOT_DOCUMENT };

struct scope_rule;

struct scope {
	struct scope_rule *rules;
	size_t n;
	bool place_include;	/* some prefix or ERE rule includes */
};

/* Longest suffix a rule may name. */
#define SCOPE_SUFFIX_MAX 16

void scope_init(struct scope *s);
/* Adds the rule ("+PATTERN" or "-PATTERN"); on a bad rule returns false
 * and writes why to why (why_size bytes). */
bool scope_add(struct scope *s, const char *rule, char *why, size_t why_size);
/* Adds the rules of a file, one a line, in order; a line that begins with
 * '#' is a comment, a line of spaces and tabs is blank; a bad rule stops
 * the program with "FILE:LINE: why". */
void scope_read(struct scope *s, const char *path);
/* Adds PATTERN given to an option as an include (sign '+') or exclude
 * ('-') rule; a bad one is a usage error naming the option. */
void scope_option(struct scope *s, const char *option, char sign, const char *pattern);
/* The decision on a canonical URL. */
enum scope_decision scope_decide(const struct scope *s, const char *url);
/* The Heritrix SURT form of a canonical URL, "http://(org,example,:8080)/a",
 * the string the prefixes are compared with; out holds URL_BUFSIZE + 16
 * bytes.  False if url is not canonical. */
bool scope_surt(const char *url, char *out);
void scope_free(struct scope *s);

#endif
