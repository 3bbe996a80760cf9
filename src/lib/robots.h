/* robots.txt, as RFC 9309 (Robots Exclusion Protocol) says.
 *
 * Parsing: only the first ROBOTS_MAX_BYTES of a file are read (sec. 2.5),
 * and a line the limit cuts is dropped whole; a UTF-8 byte-order mark (or
 * the start of one) is skipped; CR, LF and CRLF end lines.  Lines are
 * "key: value" with '#' comments, keys case-insensitive, unknown keys
 * skipped; a line without a colon counts if it is exactly two words
 * ("Disallow /").  As Google's parser does, the misspellings "useragent",
 * "user agent", "dissallow", "dissalow", "disalow", "diasllow" and
 * "disallaw" are accepted (their meaning is plain), and so are
 * "crawldelay" and "site-map"; other spellings ("alow", "disallows") are
 * not.  A group is one or more user-agent lines followed by rules; only
 * a rule (allow or disallow) ends the user-agent lines: blank, Sitemap,
 * Crawl-delay and unknown lines do not, as in Google's parser and
 * crawler-commons; rules before the first user-agent line bind nobody.
 *
 * Agents: a user-agent value and the agent given here both reduce to
 * their product token, the leading run of letters, '-' and '_'
 * ("wa-fetch/1.0" and "wa-fetch (+url)" are "wa-fetch"), compared
 * case-insensitively.  The
 * groups for wa are those whose token equals the agent's, all of them
 * merged (sec. 2.2.1); if none, all the "*" groups merged; if none
 * either, everything is allowed.
 *
 * Matching (sec. 2.2.2): the rule with the longest matching pattern (in
 * bytes, '*' and '$' included) wins, allow wins a tie; "*" matches any
 * sequence, a final "$" anchors the end (a '$' elsewhere is literal), and
 * otherwise a pattern need only match a prefix; patterns and paths compare
 * after normalising percent-encoding the way canonical URLs are (so
 * "/a%7e" and "/a~" are the same path, "%62" is "b" as sec. 2.2.2 asks,
 * "%2F" stays no '/', and UTF-8 in a pattern matches its %XX form); a
 * "%2A" or "%24" in a pattern matches a literal '*' or '$' (sec. 2.2.3:
 * "/path/foo-%24" matches "/path/foo-$"), as a '$' before the end does; an
 * empty Disallow or Allow is no rule; "/robots.txt" is always allowed,
 * even by robots_all(false); an empty path is "/".  Time is linear in
 * pattern and path for each rule, whatever the number of '*'.
 *
 * Crawl-delay and Sitemap are not in RFC 9309 but are widely used: the
 * delay of the chosen groups (the first valid one given for the agents
 * named before it: seconds as strtod reads them, "2", "0.5" or "1e3",
 * "inf" and anything above ROBOTS_MAX_DELAY made ROBOTS_MAX_DELAY; NaN,
 * negative and hexadecimal values skipped), and every Sitemap line of the
 * file whatever its group (values holding control characters, which no
 * URL has, left out). */
#ifndef WA_ROBOTS_H
#define WA_ROBOTS_H
#include <stdbool.h>
#include <stddef.h>

#define ROBOTS_MAX_BYTES (500 * 1024)
/* The largest Crawl-delay, in seconds (30 years). */
#define ROBOTS_MAX_DELAY 1e9

struct robots;

/* The rules of body[0..len) (no NUL needed) for the product token agent
 * (such as "wa-fetch"). */
struct robots *robots_parse(const char *body, size_t len, const char *agent);
/* The rules for a site without a usable file: allow everything (4xx) or
 * nothing (5xx, unreachable). */
struct robots *robots_all(bool allow);
/* Whether path, the path and query of a canonical URL ("/a/b?c"), may
 * be fetched. */
bool robots_allowed(const struct robots *r, const char *path);
/* The Crawl-delay in seconds of the chosen groups, or -1 if none. */
double robots_crawl_delay(const struct robots *r);
/* The Sitemap URLs of the file, as written; NULL for i past the end. */
size_t robots_sitemap_count(const struct robots *r);
const char *robots_sitemap(const struct robots *r, size_t i);
void robots_free(struct robots *r);

/* Whether s is a product token as RFC 9309 sec. 2.2.1 has them: one or
 * more letters, '_' and '-'. */
bool robots_token_valid(const char *s);
/* The product token of a User-Agent value, malloc'd: the name of a
 * "(compatible; NAME/..." comment if there is one and NAME starts with a
 * letter, '_' or '-', else the first product's; in both cases the leading
 * run of letters, '_' and '-' ("Mozilla/5.0 (compatible; mybot/1.0;
 * +https://example.org/bot)" gives "mybot", "wa-fetch/1.0" "wa-fetch").
 * NULL if that run is empty. */
char *robots_agent_token(const char *user_agent);
#endif
