#!/bin/sh
# The HTML tokenizer of src/lib/htmltok.c: its unit test (a page for each
# tokenizer state and tree construction fact, with the elements the HTML
# standard gives), then the same pages and the HTML pages of testdata/
# compared with the tree of Gumbo, an independent HTML5 parser
# (t/unit/html-oracle.c, built where libgumbo is).
. "$(dirname "$0")/lib.sh"
unit test-htmltok
if [ -x "$WA_UNIT/html-oracle" ]; then
	mkdir "$tmp/pages"
	"$WA_UNIT/test-htmltok" --write "$tmp/pages"
	find "$tmp/pages" "$TESTDATA" -type f -name '*.htm*' -print0 |
		xargs -0 "$WA_UNIT/html-oracle" -v >"$tmp/oracle.out" 2>&1
	t_result $? "the tokenizer's link elements are Gumbo's on every page"
	grep -q '^pages [1-9][0-9]* differ 0$' "$tmp/oracle.out"
	t_result $? "the oracle read the pages"
	grep -q . "$tmp/oracle.out" && sed 's/^/# /' "$tmp/oracle.out" | grep -v '^# pages' | head -40
else
	t_result 0 "# SKIP html-oracle not built (no libgumbo: scripts/deps install)"
fi
done_testing
