/* robots.txt parsing and matching (robots.h) against RFC 9309 and the
 * facts of Google's open-source parser tests (github.com/google/robotstxt,
 * robots_test.cc), re-expressed here with their expected verdicts written
 * out by hand.  Where wa departs from Google on purpose (percent-encoding,
 * the agent's own token) the case says so.  Two randomised parts end it:
 * a naive dynamic-programming matcher checks the verdicts for random rule
 * sets, and random bytes must parse without harm.  Every body is handed
 * over in a buffer of exactly its length, so that a read past the end
 * shows under ASan or valgrind. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robots.h"
#include "tap.h"

static struct robots *
parse_exact(const char *body, size_t len, const char *agent)
{
	char *copy = malloc(len ? len : 1);
	if (!copy)
		abort();
	memcpy(copy, body, len);
	struct robots *r = robots_parse(copy, len, agent);
	free(copy);
	return r;
}

static struct robots *
parse(const char *body, const char *agent)
{
	return parse_exact(body, strlen(body), agent);
}

struct verdict_case {
	const char *body, *agent, *path;
	bool allowed;
	const char *what;
};

/* Groups: rules before the first user-agent line belong to nobody,
 * blank lines end nothing, and two groups naming one agent add up. */
#define GROUPS "allow: /p/q/\n\nuser-agent: alpha\ndisallow: /\nallow: /a/\n" \
	"user-agent: beta\ndisallow: /\nallow: /b/\n\n\nallow: /w/\n" \
	"user-agent: gamma\n\nuser-agent: alpha\nallow: /z/\ndisallow: /\n"
#define FISH "user-agent: wa-fetch\ndisallow: /\nallow: /fish\n"
#define FISH_STAR "user-agent: wa-fetch\ndisallow: /\nallow: /fish*\n"
#define FISH_DIR "user-agent: wa-fetch\ndisallow: /\nallow: /fish/\n"
#define PHP "user-agent: wa-fetch\ndisallow: /\nallow: /*.php\n"
#define PHP_END "user-agent: wa-fetch\ndisallow: /\nallow: /*.php$\n"
#define FISH_PHP "user-agent: wa-fetch\ndisallow: /\nallow: /fish*.php\n"

static const struct verdict_case verdicts[] = {
	/* line syntax */
	{ "", "wa-fetch", "/x", true, "an empty file allows everything" },
	{ "user-agent: wa-fetch\ndisallow: /\n", "wa-fetch", "/x/y", false, "key: value lines" },
	{ "foo: wa-fetch\nbar: /\n", "wa-fetch", "/x/y", true, "unknown keys are skipped" },
	{ "user-agent wa-fetch\ndisallow /\n",
	  "wa-fetch", "/x/y", false, "a missing colon is read as a space (two words)" },
	{ "user-agent: wa-fetch\ndisallow / now\n",
	  "wa-fetch", "/x/y", true, "no colon and three words: skipped" },
	{ "user-agent: wa-fetch\ndisallow\n",
	  "wa-fetch", "/x/y", true, "no colon and one word: skipped" },
	{ "user-agent: wa-fetch\n  \tdisallow  :  /x  \t\n",
	  "wa-fetch", "/x/y", false, "blanks around key and value" },
	{ "user-agent: wa-fetch # me\ndisallow: /x # not /\n",
	  "wa-fetch", "/y", true, "comments end a line" },
	{ "user-agent: wa-fetch\ndisallow: /x # not /\n",
	  "wa-fetch", "/x", false, "the value before a comment counts" },
	{ "user-agent: wa-fetch\n#disallow: /\n", "wa-fetch", "/x", true, "a comment line" },
	/* groups */
	{ GROUPS, "alpha", "/a/1", true, "group: own allow" },
	{ GROUPS, "alpha", "/z/1", true, "group: allow from alpha's second group" },
	{ GROUPS, "alpha", "/b/1", false, "group: beta's allow is not alpha's" },
	{ GROUPS, "beta", "/b/1", true, "group: beta's allow" },
	{ GROUPS, "beta", "/w/1", true, "group: blank lines do not end a group" },
	{ GROUPS, "beta", "/z/1", false, "group: alpha's allow is not beta's" },
	{ GROUPS,
	  "gamma", "/z/1", true, "group: user-agent lines split by a blank line share rules" },
	{ GROUPS, "gamma", "/a/1", false, "group: gamma gets the shared disallow" },
	{ GROUPS,
	  "alpha", "/p/q/", false, "group: rules before any user-agent are ignored (alpha)" },
	{ GROUPS, "beta", "/p/q/", false, "group: rules before any user-agent are ignored (beta)" },
	{ GROUPS,
	  "gamma", "/p/q/", false, "group: rules before any user-agent are ignored (gamma)" },
	{ GROUPS, "delta", "/b/1", true, "group: an agent named nowhere, no '*': allowed" },
	{ "disallow: /\nuser-agent: alpha\nallow: /x\n",
	  "beta", "/y", true, "a rule before any group binds nobody" },
	{ "user-agent: alpha\ndisallow: /\nuser-agent: beta\n",
	  "beta", "/x", true, "an empty last group allows everything" },
	{ "user-agent:\ndisallow: /\n",
	  "wa-fetch", "/x", true, "an empty user-agent names nobody" },
	/* key and agent case */
	{ "USER-AGENT: alpha\nALLOW: /x/\nDISALLOW: /\n",
	  "alpha", "/x/y", true, "upper-case keys (allow)" },
	{ "USER-AGENT: alpha\nALLOW: /x/\nDISALLOW: /\n",
	  "alpha", "/a/b", false, "upper-case keys (disallow)" },
	{ "uSeR-aGeNt: alpha\nAlLoW: /x/\ndIsAlLoW: /\n",
	  "alpha", "/x/y", true, "mixed-case keys (allow)" },
	{ "uSeR-aGeNt: alpha\nAlLoW: /x/\ndIsAlLoW: /\n",
	  "alpha", "/a/b", false, "mixed-case keys (disallow)" },
	{ "User-Agent: ALPHA BETA\nAllow: /x/\nDisallow: /\n",
	  "alpha", "/x/y", true, "agent value case-insensitive, cut at the space (allow)" },
	{ "User-Agent: ALPHA BETA\nAllow: /x/\nDisallow: /\n",
	  "alpha", "/a/b", false, "agent value case-insensitive, cut at the space (disallow)" },
	{ "User-Agent: alpha beta\nDisallow: /\n",
	  "AlPhA", "/a/b", false, "our agent's case does not matter" },
	{ "User-Agent: aLpHa\nDisallow: /\n",
	  "ALPHA", "/a/b", false, "neither side's case matters" },
	{ "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n",
	  "foo", "/x/y", true, "\"Foo Bar\" is the group of foo" },
	/* product tokens */
	{ "User-agent: *\nDisallow: /\nUser-agent: wa-fetch/2.1\nAllow: /\n",
	  "wa-fetch", "/x", true, "a version after the token is ignored" },
	{ "User-agent: *\nDisallow: /\nUser-agent: wa-fetch (+http://wa.test/)\nAllow: /\n",
	  "wa-fetch", "/x", true, "a comment after the token is ignored" },
	{ "User-agent: wa-fetcher\nDisallow: /\n",
	  "wa-fetch", "/x", true, "a longer token is another agent" },
	{ "User-agent: wa\nDisallow: /\n",
	  "wa-fetch", "/x", true, "a shorter token is another agent" },
	{ "User-agent: wa_fetch\nDisallow: /\n", "wa-fetch", "/x", true, "'_' and '-' differ" },
	{ "User-agent: wa-fetch\nDisallow: /\n",
	  "wa-fetch/0.1.0", "/x", false, "only our agent's token counts" },
	{ "User-agent: foo\nDisallow: /\n",
	  "", "/x", true, "an empty agent matches no named group" },
	{ "User-agent: *\nDisallow: /\n", "", "/x", false, "an empty agent follows '*'" },
	{ "User-agent: *bot\nDisallow: /\n", "wa-fetch", "/x", true, "'*bot' is no global group" },
	{ "User-agent:   *  \nDisallow: /\n",
	  "wa-fetch", "/x", false, "' * ' is the global group" },
	{ "User-agent: * # all\nDisallow: /\n", "wa-fetch", "/x", false, "'*' with a comment" },
	/* the '*' fallback */
	{ "user-agent: *\nallow: /\nuser-agent: alpha\ndisallow: /\n",
	  "alpha", "/x/y", false, "a named group wins over '*'" },
	{ "user-agent: *\nallow: /\nuser-agent: alpha\ndisallow: /\n",
	  "beta", "/x/y", true, "an unnamed agent follows '*'" },
	{ "user-agent: alpha\nallow: /\nuser-agent: beta\ndisallow: /\nuser-agent: gamma\n"
	  "disallow: /\n", "delta", "/x/y", true, "no named group and no '*': allowed" },
	{ "User-agent: *\nDisallow: /x/\nUser-agent: alpha\nDisallow: /y/\n",
	  "alpha", "/x/page", true, "the '*' rules do not add to a named group" },
	{ "User-agent: *\nDisallow: /x/\nUser-agent: alpha\nDisallow: /y/\n",
	  "alpha", "/y/page", false, "the named group's rule" },
	{ "User-agent: *\nDisallow: /x/\nUser-agent: alpha\nDisallow: /y/\n",
	  "beta", "/x/page", false, "'*' rule for others" },
	{ "User-agent: *\nDisallow: /a\n\nUser-agent: other\nDisallow: /\n\nUser-agent: *\n"
	  "Disallow: /b\n", "wa-fetch", "/a", false, "two '*' groups merge (first)" },
	{ "User-agent: *\nDisallow: /a\n\nUser-agent: other\nDisallow: /\n\nUser-agent: *\n"
	  "Disallow: /b\n", "wa-fetch", "/b", false, "two '*' groups merge (second)" },
	{ "User-agent: *\nDisallow: /a\n\nUser-agent: other\nDisallow: /\n\nUser-agent: *\n"
	  "Disallow: /b\n", "wa-fetch", "/c", true, "two '*' groups merge (neither)" },
	{ "User-agent: *\nUser-agent: alpha\nDisallow: /s\nUser-agent: beta\nDisallow: /t\n",
	  "alpha", "/s", false, "a group naming '*' and alpha is alpha's" },
	{ "User-agent: *\nUser-agent: alpha\nDisallow: /s\nUser-agent: beta\nDisallow: /t\n",
	  "alpha", "/t", true, "beta's group is not alpha's" },
	{ "User-agent: *\nUser-agent: alpha\nDisallow: /s\nUser-agent: beta\nDisallow: /t\n",
	  "gamma", "/s", false, "the shared group is also the '*' group" },
	/* matching */
	{ "user-agent: wa-fetch\ndisallow: /x/\n",
	  "wa-fetch", "/x/y", false, "paths: prefix match" },
	{ "user-agent: wa-fetch\ndisallow: /X/\n",
	  "wa-fetch", "/x/y", true, "paths are case-sensitive" },
	{ "user-agent: wa-fetch\ndisallow: /x/page.html\nallow: /x/\n",
	  "wa-fetch", "/x/page.html", false, "longest match: disallow" },
	{ "user-agent: wa-fetch\nallow: /x/\ndisallow: /x/page.html\n",
	  "wa-fetch", "/x/page.html", false, "longest match, whatever the order" },
	{ "user-agent: wa-fetch\nallow: /x/page.html\ndisallow: /x/\n",
	  "wa-fetch", "/x/page.html", true, "longest match: allow" },
	{ "user-agent: wa-fetch\nallow: /x/page.html\ndisallow: /x/\n",
	  "wa-fetch", "/x/", false, "longest match: the shorter rule where the longer fails" },
	{ "user-agent: wa-fetch\ndisallow: \nallow: \n",
	  "wa-fetch", "/x/page.html", true, "empty rules" },
	{ "user-agent: wa-fetch\ndisallow: /\nallow: /\n",
	  "wa-fetch", "/x/page.html", true, "equal rules: allow wins" },
	{ "user-agent: wa-fetch\nallow: /\ndisallow: /\n",
	  "wa-fetch", "/x/page.html", true, "equal rules: allow wins, whatever the order" },
	{ "user-agent: wa-fetch\ndisallow: /x\nallow: /x/\n",
	  "wa-fetch", "/x", false, "/x vs /x/ (1)" },
	{ "user-agent: wa-fetch\ndisallow: /x\nallow: /x/\n",
	  "wa-fetch", "/x/", true, "/x vs /x/ (2)" },
	{ "user-agent: wa-fetch\ndisallow: /x/page.html\nallow: /x/page.html\n",
	  "wa-fetch", "/x/page.html", true, "the same long rule both ways: allow" },
	{ "user-agent: wa-fetch\nallow: /page\ndisallow: /*.html\n",
	  "wa-fetch", "/page.html", false, "a longer wildcard rule wins" },
	{ "user-agent: wa-fetch\nallow: /page\ndisallow: /*.html\n",
	  "wa-fetch", "/page", true, "the wildcard rule does not match" },
	{ "user-agent: wa-fetch\nallow: /x/page.\ndisallow: /*.html\n",
	  "wa-fetch", "/x/page.html", true, "a longer plain rule wins over a wildcard" },
	{ "user-agent: wa-fetch\nallow: /x/page.\ndisallow: /*.html\n",
	  "wa-fetch", "/x/y.html", false, "the wildcard rule alone" },
	{ "user-agent: wa-fetch\nallow: /a*\ndisallow: /ab\n",
	  "wa-fetch", "/abc", true, "'*' counts in a pattern's length: tie, allow" },
	{ "user-agent: wa-fetch\nallow: /a$\ndisallow: /a\n",
	  "wa-fetch", "/a", true, "'$' counts in a pattern's length" },
	{ "user-agent: wa-fetch\nallow: /a$\ndisallow: /a\n",
	  "wa-fetch", "/ab", false, "'$' stops the longer rule" },
	/* special characters */
	{ "User-agent: wa-fetch\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n",
	  "wa-fetch", "/foo/bar/quz", false, "'*': not matching the literal part" },
	{ "User-agent: wa-fetch\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n",
	  "wa-fetch", "/foo/quz", true, "'*': no rule" },
	{ "User-agent: wa-fetch\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n",
	  "wa-fetch", "/foo//qux", true, "'*' matches the empty string" },
	{ "User-agent: wa-fetch\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n",
	  "wa-fetch", "/foo/a/b/qux", true, "'*' matches across '/'" },
	{ "User-agent: wa-fetch\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n",
	  "wa-fetch", "/foo/bar", false, "'$': exact path" },
	{ "User-agent: wa-fetch\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n",
	  "wa-fetch", "/foo/bar/qux", true, "'$': the other rule" },
	{ "User-agent: wa-fetch\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n",
	  "wa-fetch", "/foo/bar/", true, "'$': a longer path escapes it" },
	{ "User-agent: wa-fetch\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n",
	  "wa-fetch", "/foo/bar?x", true, "'$': a query escapes it" },
	{ "User-agent: wa-fetch\nDisallow: /a$b\n",
	  "wa-fetch", "/a$b", false, "a '$' inside is literal" },
	{ "User-agent: wa-fetch\nDisallow: /a$b\n",
	  "wa-fetch", "/a", true, "a '$' inside anchors nothing" },
	{ "User-agent: wa-fetch\nDisallow: /a$$\n",
	  "wa-fetch", "/a$", false, "only the last '$' anchors" },
	{ "User-agent: wa-fetch\nDisallow: /a$$\n",
	  "wa-fetch", "/a$x", true, "only the last '$' anchors (2)" },
	{ "User-agent: wa-fetch\nDisallow: *\n",
	  "wa-fetch", "/x", false, "'*' alone matches everything" },
	{ "User-agent: wa-fetch\nDisallow: *$\n",
	  "wa-fetch", "/x", false, "'*$' matches everything" },
	{ "User-agent: wa-fetch\nDisallow: /**a**\n", "wa-fetch", "/xyzab", false, "runs of '*'" },
	{ "User-agent: wa-fetch\nDisallow: /*a*b$\n",
	  "wa-fetch", "/xbxa", true, "pieces in order" },
	{ "User-agent: wa-fetch\nDisallow: /*ab*ab$\n",
	  "wa-fetch", "/abab", false, "pieces back to back" },
	{ "User-agent: wa-fetch\nDisallow: /*ab*ab$\n",
	  "wa-fetch", "/aba", true, "pieces must not overlap" },
	{ "User-agent: wa-fetch\nDisallow: /*aa$\n",
	  "wa-fetch", "/aaa", false, "end piece after a '*'" },
	{ "User-agent: wa-fetch\nDisallow: private/\n",
	  "wa-fetch", "/private/x", true, "a pattern without a leading '/' matches no path" },
	/* percent-encoding: both sides as canonical URLs have it */
	{ "User-agent: wa-fetch\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n",
	  "wa-fetch", "/foo/bar?qux=taz&baz=http://foo.bar?tar&par", true,
	  "reserved characters stay as they are" },
	{ "User-agent: wa-fetch\nDisallow: /\nAllow: /foo/bar/\xe3\x83\x84\n",
	  "wa-fetch", "/foo/bar/%E3%83%84", true, "UTF-8 in a rule is percent-encoded" },
	{ "User-agent: wa-fetch\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n",
	  "wa-fetch", "/foo/bar/%E3%83%84", true, "an encoded rule matches the encoded path" },
	{ "User-agent: wa-fetch\nDisallow: /\nAllow: /foo/bar/%e3%83%84\n",
	  "wa-fetch", "/foo/bar/%E3%83%84", true, "hex case does not matter" },
	{ "User-agent: wa-fetch\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n",
	  "wa-fetch", "/foo/bar/\xe3\x83\x84", true,
	  "a raw UTF-8 path is encoded too (Google: disallowed)" },
	{ "User-agent: wa-fetch\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n",
	  "wa-fetch", "/foo/bar/baz", true,
	  "encoded unreserved letters are decoded, RFC 9309 2.2.2 (Google: disallowed)" },
	{ "User-agent: wa-fetch\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n",
	  "wa-fetch", "/foo/bar/%62%61%7A", true, "encoded unreserved letters on both sides" },
	{ "User-agent: wa-fetch\nDisallow: /~user\n",
	  "wa-fetch", "/%7Euser/x", false, "%7E is '~' (path)" },
	{ "User-agent: wa-fetch\nDisallow: /%7euser\n",
	  "wa-fetch", "/~user/x", false, "%7e is '~' (rule)" },
	{ "User-agent: wa-fetch\nDisallow: /a/\n", "wa-fetch", "/a%2Fb", true, "%2F is no '/'" },
	{ "User-agent: wa-fetch\nDisallow: /a%2fb\n", "wa-fetch", "/a%2Fb", false, "%2f is %2F" },
	{ "User-agent: wa-fetch\nDisallow: /a%2fb\n", "wa-fetch", "/a/b", true, "%2f is not '/'" },
	{ "User-agent: wa-fetch\nDisallow: /a b\n",
	  "wa-fetch", "/a%20b", false, "a space in a rule is %20" },
	{ "User-agent: wa-fetch\nDisallow: /100%\n",
	  "wa-fetch", "/100%25", false, "a lone '%' is %25" },
	{ "User-agent: wa-fetch\nDisallow: /%2A\n", "wa-fetch", "/%2Ax", false, "%2A is literal" },
	{ "User-agent: wa-fetch\nDisallow: /%2A\n", "wa-fetch", "/ax", true, "%2A is no wildcard" },
	{ "User-agent: wa-fetch\nDisallow: /a%24\n",
	  "wa-fetch", "/a%24b", false, "%24 is no anchor" },
	/* Google's documentation examples */
	{ FISH, "wa-fetch", "/bar", false, "/fish: /bar" },
	{ FISH, "wa-fetch", "/fish", true, "/fish: /fish" },
	{ FISH, "wa-fetch", "/fish.html", true, "/fish: /fish.html" },
	{ FISH, "wa-fetch", "/fish/salmon.html", true, "/fish: /fish/salmon.html" },
	{ FISH, "wa-fetch", "/fishheads", true, "/fish: /fishheads" },
	{ FISH, "wa-fetch", "/fishheads/yummy.html", true, "/fish: /fishheads/yummy.html" },
	{ FISH, "wa-fetch", "/fish.html?id=anything", true, "/fish: /fish.html?id=anything" },
	{ FISH, "wa-fetch", "/Fish.asp", false, "/fish: /Fish.asp" },
	{ FISH, "wa-fetch", "/catfish", false, "/fish: /catfish" },
	{ FISH, "wa-fetch", "/?id=fish", false, "/fish: /?id=fish" },
	{ FISH_STAR, "wa-fetch", "/bar", false, "/fish*: /bar" },
	{ FISH_STAR, "wa-fetch", "/fish", true, "/fish*: /fish" },
	{ FISH_STAR, "wa-fetch", "/fishheads/yummy.html", true, "/fish*: /fishheads/yummy.html" },
	{ FISH_STAR, "wa-fetch", "/fish.html?id=anything", true, "/fish*: /fish.html?id=anything" },
	{ FISH_STAR, "wa-fetch", "/Fish.bar", false, "/fish*: /Fish.bar" },
	{ FISH_STAR, "wa-fetch", "/catfish", false, "/fish*: /catfish" },
	{ FISH_DIR, "wa-fetch", "/fish/", true, "/fish/: /fish/" },
	{ FISH_DIR, "wa-fetch", "/fish/salmon", true, "/fish/: /fish/salmon" },
	{ FISH_DIR, "wa-fetch", "/fish/?salmon", true, "/fish/: /fish/?salmon" },
	{ FISH_DIR, "wa-fetch", "/fish", false, "/fish/: /fish" },
	{ FISH_DIR, "wa-fetch", "/fish.html", false, "/fish/: /fish.html" },
	{ FISH_DIR, "wa-fetch", "/Fish/Salmon.html", false, "/fish/: /Fish/Salmon.html" },
	{ PHP, "wa-fetch", "/bar", false, "/*.php: /bar" },
	{ PHP, "wa-fetch", "/filename.php", true, "/*.php: /filename.php" },
	{ PHP, "wa-fetch", "/folder/filename.php?parameters", true, "/*.php: with a query" },
	{ PHP, "wa-fetch", "//folder/any.php.file.html", true, "/*.php: in the middle" },
	{ PHP, "wa-fetch", "/index?f=filename.php/", true, "/*.php: in the query" },
	{ PHP, "wa-fetch", "/php/", false, "/*.php: /php/" },
	{ PHP, "wa-fetch", "/index?php", false, "/*.php: /index?php" },
	{ PHP, "wa-fetch", "/windows.PHP", false, "/*.php: /windows.PHP" },
	{ PHP_END, "wa-fetch", "/filename.php", true, "/*.php$: /filename.php" },
	{ PHP_END, "wa-fetch", "/folder/filename.php", true, "/*.php$: /folder/filename.php" },
	{ PHP_END, "wa-fetch", "/filename.php?parameters", false, "/*.php$: with a query" },
	{ PHP_END, "wa-fetch", "/filename.php/", false, "/*.php$: /filename.php/" },
	{ PHP_END, "wa-fetch", "/filename.php5", false, "/*.php$: /filename.php5" },
	{ PHP_END, "wa-fetch", "/aaaphpaaa", false, "/*.php$: /aaaphpaaa" },
	{ FISH_PHP, "wa-fetch", "/fish.php", true, "/fish*.php: /fish.php" },
	{ FISH_PHP, "wa-fetch", "/fishheads/catfish.php?parameters", true, "/fish*.php: deep" },
	{ FISH_PHP, "wa-fetch", "/Fish.PHP", false, "/fish*.php: /Fish.PHP" },
	{ "user-agent: wa-fetch\nallow: /p\ndisallow: /\n",
	  "wa-fetch", "/page", true, "precedence: /p over /" },
	{ "user-agent: wa-fetch\nallow: /folder\ndisallow: /folder\n",
	  "wa-fetch", "/folder/page", true, "precedence: equal, allow" },
	{ "user-agent: wa-fetch\nallow: /page\ndisallow: /*.htm\n",
	  "wa-fetch", "/page.htm", false, "precedence: /*.htm over /page" },
	{ "user-agent: wa-fetch\nallow: /$\ndisallow: /\n",
	  "wa-fetch", "/", true, "precedence: /$ for /" },
	{ "user-agent: wa-fetch\nallow: /$\ndisallow: /\n",
	  "wa-fetch", "/page.html", false, "precedence: / for the rest" },
	/* /robots.txt and odd paths */
	{ "User-agent: *\nDisallow: /\n",
	  "wa-fetch", "/robots.txt", true, "/robots.txt is always allowed" },
	{ "User-agent: *\nDisallow: /robots.txt$\n",
	  "wa-fetch", "/robots.txt", true, "/robots.txt even when named" },
	{ "User-agent: *\nDisallow: /\n",
	  "wa-fetch", "/robots.txt?x=1", false, "but not with a query" },
	{ "User-agent: *\nDisallow: /\n", "wa-fetch", "/robots.txtx", false, "nor a longer name" },
	{ "User-agent: *\nDisallow: /\n", "wa-fetch", "", false, "an empty path is '/'" },
	{ "User-agent: *\nDisallow: /$\n", "wa-fetch", "", false, "an empty path is '/' ('$')" },
	/* misspelt keys */
	{ "User-agent: *\nDisalow: /x\n", "wa-fetch", "/x", false, "typo disalow" },
	{ "User-agent: *\nDissallow: /x\n", "wa-fetch", "/x", false, "typo dissallow" },
	{ "User-agent: *\nDissalow: /x\n", "wa-fetch", "/x", false, "typo dissalow" },
	{ "User-agent: *\nDiasllow: /x\n", "wa-fetch", "/x", false, "typo diasllow" },
	{ "User-agent: *\nDisallaw: /x\n", "wa-fetch", "/x", false, "typo disallaw" },
	{ "Useragent: *\nDisallow: /x\n", "wa-fetch", "/x", false, "typo useragent" },
	{ "User agent: *\nDisallow: /x\n", "wa-fetch", "/x", false, "typo 'user agent'" },
	{ "User-agent: *\nDisallows: /x\n", "wa-fetch", "/x", true, "disallows is no key" },
	{ "User-agent: *\nDisallow: /\nAlow: /x\n", "wa-fetch", "/x", false, "alow is no key" },
	{ "User-agents: *\nDisallow: /x\n", "wa-fetch", "/x", true, "user-agents is no key" },
	/* what ends a run of user-agent lines */
	{ "User-agent: a\nCrawl-delay: 5\nUser-agent: b\nDisallow: /\n",
	  "a", "/x", false, "a crawl-delay line does not end the user-agent lines" },
	{ "User-agent: a\nCrawl-delay: 5\nUser-agent: b\nDisallow: /\n",
	  "b", "/x", false, "the user-agent line after the crawl-delay joins the group" },
	{ "User-agent: a\nSitemap: http://s.test/s.xml\nUser-agent: b\nDisallow: /\n",
	  "a", "/x", false, "a sitemap line does not end the user-agent lines" },
	{ "User-agent: a\nFoo: bar\nUser-agent: b\nDisallow: /\n",
	  "a", "/x", false, "an unknown line does not end the user-agent lines" },
	/* bytes that are no text */
	{ "User-agent: *\nDisallow: /\x01x\n",
	  "wa-fetch", "/%01x", false, "a control byte is %-encoded" },
	{ "User-agent: *\nDisallow: /\xff\n",
	  "wa-fetch", "/%FF", false, "a stray byte is %-encoded" },
};

static void
check_verdicts(const struct verdict_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct verdict_case *c = &cases[i];
		struct robots *r = parse(c->body, c->agent);
		bool got = robots_allowed(r, c->path);
		ok(got == c->allowed, "%s: %s %s for %s", c->what, c->path,
		    c->allowed ? "allowed" : "disallowed", c->agent);
		robots_free(r);
	}
}

static bool
allowed_in(const char *body, size_t len, const char *agent, const char *path)
{
	struct robots *r = parse_exact(body, len, agent);
	bool a = robots_allowed(r, path);
	robots_free(r);
	return a;
}

static void
check_line_ends(void)
{
	static const struct {
		const char *name, *body;
	} files[] = {
		{ "LF", "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n" },
		{ "CRLF", "User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\n"
		  "Disallow: /\r\n" },
		{ "CR", "User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r" },
		{ "no final newline", "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\n"
		  "Disallow: /" },
		{ "mixed", "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\n"
		  "Disallow: /" },
		{ "CR CRLF", "User-Agent: foo\r\r\nAllow: /some/path\rUser-Agent: bar\r\n"
		  "Disallow: /\r\r\n" },
	};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		size_t len = strlen(files[i].body);
		ok(allowed_in(files[i].body, len, "foo", "/x") &&
		    allowed_in(files[i].body, len, "foo", "/some/path") &&
		    !allowed_in(files[i].body, len, "bar", "/x"),
		    "line ends %s: foo and bar get their own groups", files[i].name);
	}
}

static bool
allowed(const char *body, const char *agent, const char *path)
{
	return allowed_in(body, strlen(body), agent, path);
}

static void
check_bom(void)
{
	ok(!allowed("\xef\xbb\xbfUser-agent: foo\nDisallow: /x\n", "foo", "/x"),
	    "a byte-order mark is skipped");
	ok(!allowed("\xef\xbbUser-agent: foo\nDisallow: /x\n", "foo", "/x"),
	    "two bytes of a byte-order mark are skipped");
	ok(!allowed("\xefUser-agent: foo\nDisallow: /x\n", "foo", "/x"),
	    "one byte of a byte-order mark is skipped");
	ok(allowed("\xef\x11\xbfUser-agent: foo\nDisallow: /x\n", "foo", "/x"),
	    "a broken mark spoils the first line only (rule then outside a group)");
	ok(!allowed("\xef\x11\xbfUser-agent: foo\nUser-agent: bar\nDisallow: /x\n", "bar", "/x"),
	    "a broken mark spoils the first line only (next line read)");
	ok(allowed("User-agent: foo\n\xef\xbb\xbf" "Disallow: /x\n", "foo", "/x"),
	    "a mark in the middle is no mark");
}

/* A file of exactly limit + extra bytes: "User-agent: *", comment lines
 * filling up to where the tail line must start, then tail. */
static char *
padded_file(size_t tail_start, const char *tail, size_t *len)
{
	static const char head[] = "User-agent: *\n";
	size_t tlen = strlen(tail);
	char *b = malloc(tail_start + tlen);
	if (!b)
		abort();
	memcpy(b, head, sizeof head - 1);
	for (size_t i = sizeof head - 1; i < tail_start; i += 100) {
		size_t n = tail_start - i < 100 ? tail_start - i : 100;
		memset(b + i, '#', n);
		b[i + n - 1] = '\n';
	}
	memcpy(b + tail_start, tail, tlen);
	*len = tail_start + tlen;
	return b;
}

static void
check_size_limit(void)
{
	static const char rule[] = "Disallow: /cut\n";
	const size_t max = ROBOTS_MAX_BYTES, rlen = sizeof rule - 1;
	struct {
		size_t start;
		const char *tail;
		bool allowed;
		const char *what;
	} cases[] = {
		{ max - rlen, "Disallow: /cut\nDisallow: /after\n", false,
		  "a rule ending at the limit counts" },
		{ max - rlen + 1, "Disallow: /cut\n", false,
		  "a rule whose newline is the first byte past it counts" },
		{ max - rlen + 2, "Disallow: /cut\n", true,
		  "a rule whose last byte is past the limit is dropped" },
		{ max - 5, "Disallow: /cut\n", true,
		  "a rule cut by the limit is dropped, not shortened" },
		{ max - rlen, "Disallow: /cut\r\n", false, "CRLF straddling the limit" },
		{ max, "Disallow: /cut\n", true, "a rule after the limit is ignored" },
		{ max - rlen - 2, "Disallow: /cut\nDisallow: /\n", false,
		  "the rule before the limit counts" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t len;
		char *b = padded_file(cases[i].start, cases[i].tail, &len);
		struct robots *r = robots_parse(b, len, "wa-fetch");
		ok(robots_allowed(r, "/cut") == cases[i].allowed, "limit: %s", cases[i].what);
		robots_free(r);
		free(b);
	}
	/* the rule after "/cut" lies past the limit in case 0 */
	size_t len;
	char *b = padded_file(max - rlen, "Disallow: /cut\nDisallow: /after\n", &len);
	ok(allowed_in(b, len, "wa-fetch", "/after"), "limit: the rule after it is ignored");
	free(b);
	b = malloc(max + 10);
	if (!b)
		abort();
	memset(b, 'x', max + 10);
	ok(allowed_in(b, max + 10, "wa-fetch", "/x"), "limit: one endless line is dropped");
	free(b);
}

static void
check_crawl_delay(void)
{
	static const struct {
		const char *body, *agent;
		double want;
		const char *what;
	} cases[] = {
		{ "User-agent: *\nCrawl-delay: 2.5\n", "wa-fetch", 2.5, "decimal seconds" },
		{ "User-agent: *\nCrawl-delay: 0.3\n", "wa-fetch", 0.3, "0.3 rounds as 0.3 does" },
		{ "User-agent: *\nCrawl-delay: 12.345\n", "wa-fetch", 12.345, "12.345 rounds as 12.345 does" },
		{ "User-agent: *\nDisallow: /\n", "wa-fetch", -1, "none given" },
		{ "", "wa-fetch", -1, "empty file" },
		{ "User-agent: *\nCrawl-delay: 10\nCrawl-delay: 3\n", "wa-fetch", 10,
		  "the first one" },
		{ "User-agent: *\nCrawl-delay: 7\nUser-agent: wa-fetch\nCrawl-delay: 1.25\n",
		  "wa-fetch", 1.25, "the named group's" },
		{ "User-agent: *\nCrawl-delay: 7\nUser-agent: wa-fetch\nCrawl-delay: 1.25\n",
		  "other", 7, "the '*' group's" },
		{ "User-agent: *\nCrawl-delay: 7\nUser-agent: wa-fetch\nDisallow: /x\n",
		  "wa-fetch", -1, "a named group without one does not take '*''s" },
		{ "User-agent: wa-fetch\nDisallow: /x\nUser-agent: b\nCrawl-delay: 4\n"
		  "User-agent: wa-fetch\nCrawl-delay: 9\n",
		  "wa-fetch", 9, "from the second named group" },
		{ "Crawl-delay: 3\nUser-agent: *\nDisallow: /\n", "wa-fetch", -1,
		  "outside a group: ignored" },
		{ "User-agent: *\nCrawl-delay: abc\nCrawl-delay: 4\n", "wa-fetch", 4,
		  "a bad value is skipped" },
		{ "User-agent: *\nCrawl-delay: -1\n", "wa-fetch", -1, "negative: ignored" },
		{ "User-agent: *\nCrawl-delay: 1e3\n", "wa-fetch", 1000, "exponent" },
		{ "User-agent: *\nCrawl-delay: 5s\n", "wa-fetch", -1, "unit suffix: ignored" },
		{ "User-agent: *\nCrawl-delay: .5\n", "wa-fetch", 0.5, "leading point" },
		{ "User-agent: *\nCrawl-delay: 5.\n", "wa-fetch", 5, "trailing point" },
		{ "User-agent: *\nCrawl-delay: 0\n", "wa-fetch", 0, "zero" },
		{ "User-agent: *\nCrawl-delay: .\n", "wa-fetch", -1, "a point alone: ignored" },
		{ "User-agent: *\nCrawl-delay:   20   # slow\n", "wa-fetch", 20,
		  "blanks and comment" },
		{ "User-agent: *\nCRAWL-DELAY: 8\n", "wa-fetch", 8, "key case" },
		{ "User-agent: *\ncrawldelay: 6\n", "wa-fetch", 6, "crawldelay" },
		{ "User-agent: *\nCrawl-delay: 99999999999999999999\n", "wa-fetch", 1e9,
		  "absurdly large: the maximum" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct robots *r = parse(cases[i].body, cases[i].agent);
		double got = robots_crawl_delay(r);
		ok(got == cases[i].want, "crawl-delay: %s (%g, got %g)", cases[i].what,
		    cases[i].want, got);
		robots_free(r);
	}
	struct robots *r = robots_all(true);
	ok(robots_crawl_delay(r) == -1, "crawl-delay: none for allow-all");
	robots_free(r);
}

static void
check_sitemaps(void)
{
	static const char body[] =
	    "Sitemap: http://s.test/first.xml\n"
	    "User-Agent: foo\n"
	    "Allow: /some/path\n"
	    "SITEMAP:   https://s.test/Second.xml   # comment\n"
	    "User-Agent: bar\n"
	    "\n"
	    "site-map: http://other.test/third.xml\n"
	    "Sitemap:\n"
	    "Sitemap: http://s.test/a\tb.xml\n"
	    "sitemap: /relative.xml\n"
	    "Sitemap: http://s.test/first.xml\n";
	static const char *want[] = {
		"http://s.test/first.xml", "https://s.test/Second.xml",
		"http://other.test/third.xml", "/relative.xml", "http://s.test/first.xml",
	};
	const size_t nwant = sizeof want / sizeof want[0];
	const char *agents[] = { "foo", "bar", "other" };
	for (size_t a = 0; a < 3; a++) {
		struct robots *r = parse(body, agents[a]);
		ok(robots_sitemap_count(r) == nwant, "sitemaps for %s: %zu of them (got %zu)",
		    agents[a], nwant, robots_sitemap_count(r));
		for (size_t i = 0; i < nwant && i < robots_sitemap_count(r); i++)
			is_str(robots_sitemap(r, i), want[i], "sitemap %zu for %s", i, agents[a]);
		ok(robots_sitemap(r, nwant) == NULL, "no sitemap past the end");
		robots_free(r);
	}
	struct robots *r = robots_all(false);
	ok(robots_sitemap_count(r) == 0, "no sitemaps for disallow-all");
	robots_free(r);
}

static void
check_all(void)
{
	struct robots *r = robots_all(true);
	ok(robots_allowed(r, "/") && robots_allowed(r, "/a/b?c"), "allow-all allows");
	robots_free(r);
	r = robots_all(false);
	ok(!robots_allowed(r, "/") && !robots_allowed(r, "/a/b?c"), "disallow-all disallows");
	ok(robots_allowed(r, "/robots.txt"), "disallow-all still allows /robots.txt");
	robots_free(r);
	robots_free(NULL);
	ok(true, "robots_free(NULL) is harmless");
}

/* Patterns a backtracking matcher would take exponential time over; a
 * linear one finishes at once.  No clock: a slow matcher hangs the test. */
static void
check_hard_patterns(void)
{
	char body[20100], path[9000];
	size_t n = (size_t)snprintf(body, sizeof body, "User-agent: *\nDisallow: /");
	for (int i = 0; i < 5000; i++) {
		body[n++] = '*';
		body[n++] = 'a';
	}
	memcpy(body + n, "b\n", 2);
	n += 2;
	path[0] = '/';
	memset(path + 1, 'a', sizeof path - 2);
	path[sizeof path - 1] = '\0';
	struct robots *r = parse_exact(body, n, "wa-fetch");
	ok(robots_allowed(r, path), "5000 '*a' pieces and a missing 'b': no match, no hang");
	path[sizeof path - 2] = 'b';
	ok(!robots_allowed(r, path), "5000 '*a' pieces and the 'b': a match");
	robots_free(r);

	/* many rules, each with many stars, over one long path */
	size_t cap = 200000, len = 0;
	char *many = malloc(cap);
	if (!many)
		abort();
	len += (size_t)snprintf(many, cap, "User-agent: *\n");
	while (len + 100 < cap)
		len += (size_t)snprintf(many + len, cap - len,
		    "Disallow: /*a*a*a*a*a*a*a*a*%zu*b\n", len);
	r = parse_exact(many, len, "wa-fetch");
	path[sizeof path - 2] = 'a';
	ok(robots_allowed(r, path), "thousands of star rules, no match");
	robots_free(r);
	free(many);
}

/* Reference matcher: the textbook table of which pattern prefixes match
 * which path prefixes, O(len(p) * len(s)). */
static bool
reference_match(const char *p, const char *s)
{
	size_t m = strlen(p), n = strlen(s);
	bool anchored = m > 0 && p[m - 1] == '$';
	if (anchored)
		m--;
	bool *prev = calloc(n + 1, 1), *cur = calloc(n + 1, 1);
	if (!prev || !cur)
		abort();
	prev[0] = true;
	for (size_t i = 1; i <= m; i++) {
		cur[0] = prev[0] && p[i - 1] == '*';
		for (size_t j = 1; j <= n; j++)
			cur[j] = p[i - 1] == '*' ? prev[j] || cur[j - 1] :
			    prev[j - 1] && p[i - 1] == s[j - 1];
		bool *t = prev;
		prev = cur;
		cur = t;
	}
	bool match = false;
	if (anchored) {
		match = prev[n];
	} else {
		for (size_t j = 0; j <= n; j++)
			match = match || prev[j];
	}
	free(prev);
	free(cur);
	return match;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint32_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 11);
}

static void
random_string(char *out, size_t max, const char *alphabet, const char *first)
{
	size_t n = rng() % max, k = strlen(alphabet);
	size_t i = 0;
	if (first)
		out[i++] = first[rng() % strlen(first)];
	for (; i < n + 1; i++)
		out[i] = alphabet[rng() % k];
	out[i] = '\0';
}

static void
check_against_reference(void)
{
	const int rounds = 20000;
	int wrong = 0;
	for (int round = 0; round < rounds; round++) {
		char body[400], pats[4][24], path[24];
		bool allow[4];
		int nrules = 1 + (int)(rng() % 4);
		size_t n = (size_t)snprintf(body, sizeof body, "User-agent: *\n");
		for (int i = 0; i < nrules; i++) {
			random_string(pats[i], 12, "ab/*$", "/*");
			allow[i] = rng() % 2;
			n += (size_t)snprintf(body + n, sizeof body - n, "%s: %s\n",
			    allow[i] ? "Allow" : "Disallow", pats[i]);
		}
		random_string(path, 14, "ab/$", "/");
		/* the longest matching patterns decide; allow if any of them allows */
		size_t best = 0;
		bool want = true;
		for (int i = 0; i < nrules; i++) {
			size_t len = strlen(pats[i]);
			if (!reference_match(pats[i], path) || len < best)
				continue;
			want = len > best ? allow[i] : want || allow[i];
			best = len;
		}
		bool got = allowed_in(body, n, "wa-fetch", path);
		if (got != want && wrong++ == 0)
			diag("first difference: path %s, file:\n%s", path, body);
	}
	ok(wrong == 0, "%d random rule sets agree with a reference matcher (%d differ)", rounds,
	    wrong);
}

/* Random bytes, and random lines made of robots.txt words, parse and
 * answer without harm; a few facts hold for any input. */
static void
check_random_input(void)
{
	static const char *words[] = {
		"User-agent", "Allow", "Disallow", "Sitemap", "Crawl-delay", ":", " ", "\t", "\n",
		"\r", "\r\n", "*", "$", "/", "%", "%4", "%41", "%e3", "#", "wa-fetch",
		"\xef\xbb\xbf", "a", "1.5", ".", "\0", "\xff",
	};
	const int rounds = 3000;
	int bad = 0;
	char body[2048], path[64], agent[16];
	for (int round = 0; round < rounds; round++) {
		size_t n = 0, want = rng() % sizeof body;
		if (round % 2) {
			while (n < want)
				body[n++] = (char)rng();
		} else {
			while (n + 16 < want) {
				const char *w = words[rng() % (sizeof words / sizeof words[0])];
				size_t wl = *w ? strlen(w) : 1;
				memcpy(body + n, w, wl);
				n += wl;
			}
		}
		random_string(agent, 10, "wa-fetch*_ X/", NULL);
		struct robots *r = parse_exact(body, n, round % 3 ? "wa-fetch" : agent);
		for (int k = 0; k < 8; k++) {
			random_string(path, 40, "/ab*$%?#\x01\xe3~", "/");
			(void)robots_allowed(r, path);
		}
		if (!robots_allowed(r, "/robots.txt"))
			bad++;
		double d = robots_crawl_delay(r);
		if (!(d == -1 || (d >= 0 && d <= 1e9)))
			bad++;
		for (size_t i = 0; i < robots_sitemap_count(r); i++) {
			const char *s = robots_sitemap(r, i);
			for (; *s; s++)
				if ((unsigned char)*s < 0x20)
					bad++;
		}
		robots_free(r);
	}
	ok(bad == 0, "%d random files parse; /robots.txt allowed, delays sane, sitemaps clean",
	    rounds);
}

static void
check_agent_token(void)
{
	static const struct { const char *ua, *want; } cases[] = {
		{ "wa-fetch/0.1.0", "wa-fetch" },
		{ "wa-fetch/0.1.0 (+https://example.org/)", "wa-fetch" },
		{ "wa_bot", "wa_bot" },
		{ "Mozilla/5.0 (compatible; mybot/1.0; +https://example.org/bot)", "mybot" },
		{ "Mozilla/5.0 (COMPATIBLE;Googlebot/2.1)", "Googlebot" },
		{ "Mozilla/5.0 (X11; Linux) (compatible; bingbot)", "bingbot" },
		{ "Mozilla/5.0 (Windows NT 10.0; Win64)", "Mozilla" },
		{ "Mozilla/5.0 (compatible; 360Spider/1)", "Mozilla" },
		{ "Mozilla/5.0 (compatible", "Mozilla" },
		{ "bot2/1.0", "bot" },
		{ "2bot/1.0", NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *got = robots_agent_token(cases[i].ua);
		ok(cases[i].want ? got && strcmp(got, cases[i].want) == 0 : !got,
		    "product token of '%s': %s (got %s)", cases[i].ua,
		    cases[i].want ? cases[i].want : "none", got ? got : "none");
		free(got);
	}
	ok(robots_token_valid("my-bot_X") && !robots_token_valid("") &&
	    !robots_token_valid("my bot") && !robots_token_valid("bot/1") &&
	    !robots_token_valid("bot2") && !robots_token_valid("b\xc3\xa9"),
	    "product tokens: letters, '_' and '-' only, at least one");
}

/* RFC 9309's own examples and the readings of Google's parser and
 * crawler-commons (SimpleRobotRulesParser since its RFC 9309 change):
 * percent-encoded special characters (sec. 2.2.3), the lines that do not
 * end a group's user-agent lines (sec. 2.1), the worked example of
 * sec. 5.1, and the Crawl-delay values a site may write. */
static double
delay_of(const char *body, const char *agent)
{
	struct robots *r = parse(body, agent);
	double d = robots_crawl_delay(r);
	robots_free(r);
	return d;
}

/* RFC 9309 section 5.1. */
#define RFC_EXAMPLE "User-Agent: *\nDisallow: *.gif$\nDisallow: /example/\n" \
	"Allow: /publications/\n\nUser-Agent: foobot\nDisallow:/\n" \
	"Allow:/example/page.html\nAllow:/example/allowed.gif\n\n" \
	"User-Agent: barbot\nUser-Agent: bazbot\nDisallow: /example/page.html\n\n" \
	"User-Agent: quxbot\n\nEOF\n"

static void
check_rfc_rules(void)
{
	static const struct verdict_case cases[] = {
		/* sec. 2.2.3: "%2A" and "%24" match '*' and '$' verbatim */
		{ "User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "wa-fetch",
		  "/path/file-with-a-*.html", false, "sec. 2.2.3: %2A matches '*'" },
		{ "User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "wa-fetch",
		  "/path/file-with-a-b.html", true, "sec. 2.2.3: %2A is no wildcard" },
		{ "User-agent: *\nDisallow: /path/foo-%24\n", "wa-fetch",
		  "/path/foo-$", false, "sec. 2.2.3: /path/foo-%24 matches /path/foo-$" },
		{ "User-agent: *\nDisallow: /path/foo-%24\n", "wa-fetch",
		  "/path/foo-", true, "sec. 2.2.3: %24 is no end anchor" },
		{ "User-agent: *\nDisallow: /path/foo-%24\n", "wa-fetch",
		  "/path/foo-$/x", false, "sec. 2.2.3: a prefix as any rule" },
		{ "User-agent: *\nDisallow: /a%2a\n", "wa-fetch", "/a*", false,
		  "lower-case %2a as well" },
		{ "User-agent: *\nDisallow: /a$b\n", "wa-fetch", "/a$b", false,
		  "a '$' before the end is itself" },
		{ "User-agent: *\nDisallow: /a$b\n", "wa-fetch", "/a%24b", false,
		  "and matches its encoded form" },
		/* sec. 2.2.2: percent-encoding of the path */
		{ "User-agent: *\nDisallow: /foo/bar?baz=quz\n", "wa-fetch",
		  "/foo/bar?baz=quz", false, "sec. 2.2.2: /foo/bar?baz=quz" },
		{ "User-agent: *\nDisallow: /foo/bar/\xe3\x83\x84\n", "wa-fetch",
		  "/foo/bar/%E3%83%84", false, "sec. 2.2.2: UTF-8 in a rule is %E3%83%84" },
		{ "User-agent: *\nDisallow: /foo/bar/%62%61%7A\n", "wa-fetch",
		  "/foo/bar/baz", false, "sec. 2.2.2: %62%61%7A is baz" },
		/* sec. 2.1: only a rule ends the user-agent lines (Google's
		 * ID_LineSyntax_Groups_OtherRules; crawler-commons alike) */
		{ "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\n"
		  "Disallow: /\n", "BarBot", "/", false, "a Sitemap line does not end a group" },
		{ "User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\n"
		  "Disallow: /\n", "FooBot", "/", false, "an unknown line does not end a group" },
		{ "User-agent: bingbot\nCrawl-delay: 30\n\nUser-agent: AhrefsBot\n"
		  "Disallow: /\n", "bingbot", "/x", false,
		  "a Crawl-delay line does not end a group" },
		{ "User-agent: bingbot\nCrawl-delay: 30\n\nUser-agent: AhrefsBot\n"
		  "Disallow: /\n", "AhrefsBot", "/x", false, "the group's other agent" },
		{ "User-agent: a\nDisallow: /x\nUser-agent: b\nDisallow: /y\n", "a", "/y", true,
		  "a rule does end it" },
		/* sec. 5.1 */
		{ RFC_EXAMPLE, "foobot", "/", false, "sec. 5.1: foobot /" },
		{ RFC_EXAMPLE, "foobot", "/example/page.html", true,
		  "sec. 5.1: foobot /example/page.html" },
		{ RFC_EXAMPLE, "foobot", "/example/allowed.gif", true,
		  "sec. 5.1: foobot /example/allowed.gif" },
		{ RFC_EXAMPLE, "barbot", "/example/page.html", false,
		  "sec. 5.1: barbot /example/page.html" },
		{ RFC_EXAMPLE, "bazbot", "/example/page.html", false,
		  "sec. 5.1: bazbot /example/page.html" },
		{ RFC_EXAMPLE, "barbot", "/example/x.gif", true,
		  "sec. 5.1: barbot does not obey '*'" },
		{ RFC_EXAMPLE, "quxbot", "/example/x.gif", true,
		  "sec. 5.1: quxbot's empty group allows all" },
		{ RFC_EXAMPLE, "otherbot", "/a.gif", false, "sec. 5.1: '*': *.gif$" },
		{ RFC_EXAMPLE, "otherbot", "/a.gif?x", true, "sec. 5.1: '*': $ ends it" },
		{ RFC_EXAMPLE, "otherbot", "/example/x", false, "sec. 5.1: '*': /example/" },
		{ RFC_EXAMPLE, "otherbot", "/publications/x", true, "sec. 5.1: '*': /publications/" },
		/* sec. 5.2 */
		{ "User-Agent: foobot\nAllow: /example/page/\n"
		  "Disallow: /example/page/disallowed.gif\n", "foobot",
		  "/example/page/disallowed.gif", false, "sec. 5.2: the longest match" },
	};
	check_verdicts(cases, sizeof cases / sizeof *cases);
}

static void
check_rfc_crawl_delay(void)
{
	static const struct {
		const char *value;
		double want;
	} cases[] = {
		{ "1e3", 1000 }, { "2.5E1", 25 }, { "inf", ROBOTS_MAX_DELAY },
		{ "Infinity", ROBOTS_MAX_DELAY }, { "1e10", ROBOTS_MAX_DELAY },
		{ "1e999", ROBOTS_MAX_DELAY }, { "1000000001", ROBOTS_MAX_DELAY },
		{ "99999999999999999999", ROBOTS_MAX_DELAY }, { "1000000000", 1e9 },
		{ "nan", -1 }, { "-5", -1 }, { "-inf", -1 }, { "0x10", -1 }, { "5s", -1 },
	};
	char body[64];
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		snprintf(body, sizeof body, "User-agent: *\nCrawl-delay: %s\n", cases[i].value);
		double got = delay_of(body, "wa-fetch");
		ok(got == cases[i].want, "Crawl-delay: %s is %g (got %g)", cases[i].value,
		    cases[i].want, got);
	}
	ok(delay_of("User-agent: bingbot\nCrawl-delay: 30\n\nUser-agent: AhrefsBot\n"
	    "Disallow: /\n", "bingbot") == 30, "a Crawl-delay inside the user-agent lines "
	    "is the delay of the agents named before it");
	ok(delay_of("User-agent: bingbot\nCrawl-delay: 30\n\nUser-agent: AhrefsBot\n"
	    "Disallow: /\n", "AhrefsBot") == -1, "not of those named after it");
}

int
main(void)
{
	check_agent_token();
	check_verdicts(verdicts, sizeof verdicts / sizeof *verdicts);
	check_line_ends();
	check_bom();
	check_size_limit();
	check_crawl_delay();
	check_sitemaps();
	check_all();
	check_hard_patterns();
	check_against_reference();
	check_random_input();
	check_rfc_rules();
	check_rfc_crawl_delay();
	return done_testing();
}
