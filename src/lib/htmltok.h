/* The start tags of an HTML page that carry its links, read as the HTML
 * standard (WHATWG) tokenizes a document, without building its tree.
 *
 * The tokenizer has every state the standard gives it, except that text
 * is skipped rather than told: data, tags and attributes (names, values
 * double-quoted, single-quoted and unquoted, duplicates dropped, the first
 * kept), self-closing tags, comments, DOCTYPEs, bogus comments, CDATA
 * sections (only in foreign content), RCDATA (title, textarea), RAWTEXT
 * (style, xmp, iframe, noembed, noframes, and noscript, as a parser with
 * scripting enabled reads it), script data with its escaped and double
 * escaped states, and PLAINTEXT.  Character references in attribute
 * values are decoded with the standard's whole table of names, and its
 * rules for the legacy names without ';'.  Input stream preprocessing
 * holds too: CR and CR LF are LF, U+0000 in a name or value is U+FFFD.
 *
 * Of the tree construction, what changes the tokens or which elements
 * exist: the elements that switch the tokenizer's state; foreign content
 * (svg, math) with its integration points and the tags that break out of
 * it, whose elements are not HTML ones; a form inside an open form, which
 * is dropped; a select, in which other start tags are dropped (the
 * insertion mode "in select" of the standard before 2025); a frameset,
 * after which only frame elements count, and frame elements outside one,
 * which are dropped.  The stack of open elements is kept only inside
 * foreign content, so a malformed page may have its end of foreign content
 * placed otherwise than by a full tree builder (htmltok.c says how).
 *
 * The input is UTF-8: an invalid sequence in a name or value becomes
 * U+FFFD, as the WHATWG decoder makes it. */
#ifndef WA_HTMLTOK_H
#define WA_HTMLTOK_H

#include <stddef.h>
#include <stdint.h>

struct htmltok;

/* An HTML element the tree would hold, in document order: its name in
 * lower case and its attributes as name, value pairs ending in NULL (names
 * in lower case, values decoded).  The strings live until the next call. */
typedef void htmltok_element_fn(void *arg, const char *name,
    const char *const *atts);

struct htmltok *htmltok_new(void);
void htmltok_free(struct htmltok *tok);
/* Reads the len bytes of html (UTF-8), calling fn for each HTML element's
 * start tag.  tok keeps its buffers from one page to the next. */
void htmltok_parse(struct htmltok *tok, const unsigned char *html, size_t len,
    htmltok_element_fn *fn, void *arg);
/* The code point that the standard's numeric character reference end state
 * makes of the value v: U+FFFD for 0, a surrogate or past U+10FFFF, the
 * character of windows-1252 for most of U+0080..U+009F, else v. */
uint32_t htmltok_charref_code_point(uint32_t v);

#endif
