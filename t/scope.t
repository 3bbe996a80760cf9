#!/bin/sh
# Scope rules (src/lib/scope.c, wa-formats(5) "Scope rules"): the unit test
# of the decisions; bad rules refused with FILE:LINE or the option; the
# fetch list of wa-schedule on a hand-made page state, with rules from a
# file and from options; wa-fetch's log and nginx's access log on a small
# loopback site; and two cycles with EXCLUDE that never request the URLs
# excluded.
. "$(dirname "$0")/lib.sh"
. "$T_DIR/wa-fetch-lib.sh"

unit test-scope

# ---- bad rules ----
printf '# a comment\n\n  \n+http://(test,a,)/\n+example.org\n' >"$tmp/bad.scope"
exits 1 "a bad rule in a file stops wa-schedule" wa-schedule -G 100 --scope "$tmp/bad.scope"
is "$(cat "$tmp/stderr")" "wa-schedule: $tmp/bad.scope:5: 'example.org' is no rule: a SURT prefix begins with http://( or https://(, a regular expression with ~, a suffix with '.'" \
	"  with the file and line (comments and blank lines skipped)"
printf '+.pdf\r\n' >"$tmp/crlf.scope"
exits 1 "a rules file with CR LF line ends is refused" wa-fetch --scope "$tmp/crlf.scope"
is "$(cat "$tmp/stderr")" "wa-fetch: $tmp/crlf.scope:1: a carriage return (CR LF line ends?)" \
	"  with the file and line"
exits 2 "a bad ERE given to --exclude is a usage error" wa-fetch --exclude '~a('
like "$(head -1 "$tmp/stderr")" "^wa-fetch: --exclude: 'a\(': bad extended regular expression" \
	"  that names the option"
exits 2 "a bad suffix given to --include too" wa-schedule -G 100 --include '.p-f'
like "$(head -1 "$tmp/stderr")" "^wa-schedule: --include: '.p-f' is no suffix" "  that names it"

# ---- wa-schedule ----
# Two fetched pages due for refresh, five never fetched (three of type
# other by their suffix), one on another site.
T=$(printf '\t')
tr '|' '\t' >"$tmp/state" <<'EOF'
http://a.test/|html|0.3|-|1|1000|-
http://a.test/d.pdf|other|0.1|-|-|-|-
http://a.test/feed.mp3|other|0.1|-|-|-|-
http://a.test/new.html|-|0.2|-|-|-|-
http://a.test/private/old.html|html|0.2|-|1|1000|-
http://a.test/private/x.html|-|0.1|-|-|-|-
http://a.test/s.css|other|0.1|-|-|-|-
http://b.test/|-|0.1|-|-|-|-
EOF
sched() { wa-schedule -G 1000 -T 6h --now 100000 "$@" "$tmp/state"; }
listed() { cut -f1,2 "$tmp/stdout" | sort | tr '\t\n' ' ;'; }
exits 0 "wa-schedule without rules" sched --summary "$tmp/summary0"
is "$(listed)" "http://a.test/ refresh;http://a.test/new.html discover-html;http://a.test/private/old.html refresh;http://a.test/private/x.html discover-html;http://b.test/ discover-html;" \
	"  lists every page but the non-documents"
cp "$tmp/stdout" "$tmp/list0"
is "$(grep -c out-of-scope "$tmp/summary0")" 0 "  and its summary has no out-of-scope row"
cat >"$tmp/a.scope" <<'EOF'
# a.test, not its private directory; its PDF files too
+http://(test,a,)/
-http://(test,a,)/private/
+.pdf
EOF
exits 0 "wa-schedule --scope FILE" sched --scope "$tmp/a.scope" --summary "$tmp/summary1" \
	--plan "$tmp/plan1"
is "$(listed)" "http://a.test/ refresh;http://a.test/d.pdf discover-html;http://a.test/new.html discover-html;" \
	"  lists a.test but its private directory, and the PDF file the suffix rule lets in"
cp "$tmp/stdout" "$tmp/list1"
is "$(awk -F '\t' '$1 == "out-of-scope" { print $2 }' "$tmp/summary1")" 3 \
	"  its summary counts the three pages out of scope"
is "$(awk -F '\t' '$1 == "http://a.test/private/old.html"' "$tmp/plan1")" \
	"http://a.test/private/old.html${T}0${T}-${T}0" "  a page out of scope has no frequency in --plan"
is "$(wc -l <"$tmp/plan1")" 8 "  and --plan still has every page"
exits 0 "the same rules as options" sched --include 'HTTPS://(test,a,)/' \
	--exclude 'http://(test,a,)/private/' --include .PDF
same_file "$tmp/stdout" "$tmp/list1" "  give the same list"
exits 0 "an exclude that matches nothing" sched --exclude '~^ftp:'
same_file "$tmp/stdout" "$tmp/list0" "  gives the list of no rule"
exits 0 "the last matching rule wins" sched --scope "$tmp/a.scope" \
	--include 'http://(test,a,)/private/x'
is "$(listed)" "http://a.test/ refresh;http://a.test/d.pdf discover-html;http://a.test/new.html discover-html;http://a.test/private/x.html discover-html;" \
	"  an include after the exclude of the directory lets one page of it in"
exits 0 "ERE and suffix excludes" sched --exclude '~/new' --exclude .html
is "$(listed)" "http://a.test/ refresh;http://b.test/ discover-html;" \
	"  leave out what they match, wherever it is"

# ---- wa-fetch ----
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || skip_all "needs nginx (scripts/deps install)"
a=$(t_addr 1)
site=$tmp/site
mkdir -p "$site/private"
cat >"$site/index.html" <<'EOF'
<html><body><a href="/other.html">o</a> <a href="/private/x.html">p</a>
<a href="/ep.mp3">e</a> <a href="/d.pdf">d</a> <link rel="stylesheet" href="/s.css">
</body></html>
EOF
for f in other.html private/x.html private/seed.html; do
	printf '<html><body>%s</body></html>\n' "$f" >"$site/$f"
done
printf 'audio' >"$site/ep.mp3"
printf 'body {}' >"$site/s.css"
printf '%%PDF-1.4' >"$site/d.pdf"
nginx_start one "$a" 8080 "$site" 'location = /go.html { return 301 /private/x.html; }'
access=$tmp/nginx-one/logs/access.log
R="--resolve one.test:8080:$a --allow-private -w 0"
U=http://one.test:8080
printf '%s\n' $U/index.html $U/private/x.html $U/ep.mp3 $U/s.css $U/d.pdf >"$tmp/urls"
exits 0 "wa-fetch without rules" sh -c "wa-fetch -q $R $tmp/urls >$tmp/log"
is "$(cut -f1,3 "$tmp/log" | sort | tr '\t\n' ' ;')" \
	"$U/d.pdf 200;$U/ep.mp3 200;$U/index.html 200;$U/private/x.html 200;$U/s.css 200;" \
	"  fetches every URL of its list, the non-documents too, as before"
: >"$access"
exits 0 "wa-fetch --exclude" sh -c "wa-fetch $R --exclude 'http://(test,one,:8080)/private/' --exclude .mp3 $tmp/urls >$tmp/log"
is "$(cut -f1,3 "$tmp/log" | sort | tr '\t\n' ' ;')" \
	"$U/d.pdf 200;$U/ep.mp3 out-of-scope;$U/index.html 200;$U/private/x.html out-of-scope;$U/s.css 200;" \
	"  logs the URLs out of scope with the status out-of-scope"
is "$(row $U/ep.mp3)" "$U/ep.mp3$T-${T}out-of-scope$T-$T-$T-$T-$T-$T-$T-$T-" \
	"  with no time and no response"
like "$(cat "$tmp/stderr")" "2 URLs out of scope, logged with status out-of-scope" "  and says how many"
is "$(grep -Ec '/private/|\.mp3' "$access")" 0 "  and never requests them (nginx's access log)"
is "$(grep -c '"GET /' "$access")" 4 "  but requests the others, and robots.txt"
echo $U/go.html >"$tmp/go"
: >"$access"
exits 0 "wa-fetch -L 3 follows a redirect in scope" sh -c "wa-fetch -q $R -L 3 $tmp/go >$tmp/log"
is "$(cut -f1,3 "$tmp/log")" "$U/go.html${T}200" "  its row is the target's answer"
is "$(grep -c '"GET /private/x.html' "$access")" 1 "  which nginx served"
: >"$access"
exits 0 "wa-fetch -L 3 --exclude: a redirect out of scope" \
	sh -c "wa-fetch -q $R -L 3 --exclude 'http://(test,one,:8080)/private/' $tmp/go >$tmp/log"
is "$(cut -f1,3 "$tmp/log")" "$U/go.html${T}301" "  is not followed: its row is the 301, as with -L 0"
is "$(grep -c '/private/' "$access")" 0 "  and the target is never requested"

# ---- the cycle ----
command -v flock >/dev/null || { done_testing; exit; }
st=$tmp/st
mkdir "$st"
printf '%s\n' $U/index.html $U/private/seed.html >"$st/seeds.tsv"
: >"$access"
cycle() {
	wa-cycle "$@" "$st" WAIT=0 ALLOW_PRIVATE=1 G=100 RESOLVE="one.test:8080:$a" \
	    EXCLUDE="http://(test,one,:8080)/private/ .mp3" INCLUDE=.pdf
}
ok "cycle 1 with EXCLUDE" cycle --now 1800000000
is "$(awk -F '\t' '$1 ~ /seed/ { print $3 }' "$st/cycle-1/fetch.log")" out-of-scope \
	"  the seed out of scope is not fetched"
ok "cycle 2 with EXCLUDE" cycle --now 1800086400
is "$(awk -F '\t' '$1 ~ /(other.html|d.pdf)$/ { print $1, $3 }' "$st/cycle-2/fetch.log" | sort |
	tr '\n' ';')" "$U/d.pdf 200;$U/other.html 200;" \
	"  cycle 2 discovers the page and the PDF file INCLUDE lets in"
is "$(grep -Ec '/private/|\.mp3' "$access")" 0 \
	"  no cycle requests a URL excluded (nginx's access log)"
is "$(grep -c 's\.css' "$access")" 0 "  nor the style sheet, a non-document"
is "$(grep -c '^error out-of-scope' "$st/cycle-1/report.txt")" 1 \
	"  the report of cycle 1 counts the URL out of scope"
mkdir "$tmp/bad"
cp "$st/seeds.tsv" "$tmp/bad/"
exits 2 "a cycle with a bad rule in EXCLUDE is refused before it begins" \
	wa-cycle "$tmp/bad" RESOLVE="one.test:8080:$a" EXCLUDE='~a('
like "$(cat "$tmp/stderr")" "--exclude: 'a\\(': bad extended regular expression" "  with the tools' message"
exits 2 "and so is one with a SCOPE_FILE that cannot be read" \
	wa-cycle "$tmp/bad" RESOLVE="one.test:8080:$a" SCOPE_FILE="$tmp/none"
like "$(cat "$tmp/stderr")" "$tmp/none: No such file" "  with the tools' message"
is "$(ls "$tmp/bad" | grep -v -e "^seeds.tsv$" -e "^lock$")" "" "  and no cycle begun"
done_testing
