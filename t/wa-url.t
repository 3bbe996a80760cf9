#!/bin/sh
# wa-url: URL lists in canonical form, resolved against a base, with SURT
# key, host and domain columns; bad rows reported and left out.
. "$(dirname "$0")/lib.sh"

tab=$(printf '\t')

cat >"$tmp/list" <<'EOF'
HTTP://Example.COM:80/a/./b/../c#top
https://user:pw@www.example.com:443/%7Euser/
http://bücher.de/straße?q=a b
http://[2001:DB8::1]:8080
EOF
printf '  http://example.com/x?y=1#z  \n' >>"$tmp/list"
cat >"$tmp/want" <<'EOF'
http://example.com/a/c
https://www.example.com/~user/
http://xn--bcher-kva.de/stra%C3%9Fe?q=a%20b
http://[2001:db8::1]:8080/
http://example.com/x?y=1
EOF
exits 0 "a list of URLs" wa-url "$tmp/list"
same_file "$tmp/stdout" "$tmp/want" "each URL in canonical form, in input order"
is "$(cat "$tmp/stderr")" "" "and nothing on stderr"

wa-url <"$tmp/list" >"$tmp/out" 2>"$tmp/stderr"
same_file "$tmp/out" "$tmp/want" "stdin when there is no file"
gzip -c "$tmp/list" >"$tmp/list.gz"
wa-url "$tmp/list.gz" - <"$tmp/list" >"$tmp/out" 2>"$tmp/stderr"
cat "$tmp/want" "$tmp/want" >"$tmp/want2"
same_file "$tmp/out" "$tmp/want2" "gzip input, then stdin as '-'"

wa-url "$tmp/want" >"$tmp/out" 2>"$tmp/stderr"
same_file "$tmp/out" "$tmp/want" "canonical URLs stay as they are"

printf 'HTTP://A.example/x\t3\t-\textra\nhttp://b.example\t\t9\n' >"$tmp/cols"
printf 'http://a.example/x\t3\t-\textra\nhttp://b.example/\t\t9\n' >"$tmp/want"
wa-url "$tmp/cols" >"$tmp/out" 2>"$tmp/stderr"
same_file "$tmp/out" "$tmp/want" "other columns are kept as they are, empty ones too"

cat >"$tmp/refs" <<'EOF'
g
../g?y#s
/g
//other.example/p
?q=1
#frag
https://x.example:443/
EOF
cat >"$tmp/want" <<'EOF'
http://a.example/b/c/g
http://a.example/b/g?y
http://a.example/g
http://other.example/p
http://a.example/b/c/d;p?q=1
http://a.example/b/c/d;p?q
https://x.example/
EOF
exits 0 "-B resolves references" wa-url -B 'http://A.example/b/c/d;p?q#f' "$tmp/refs"
same_file "$tmp/stdout" "$tmp/want" "-B: relative references become absolute and canonical"

# The letter of the release before still works this release: -b BASE as
# -B BASE, with a warning line.
exits 0 "the old letter -b" wa-url -b 'http://A.example/b/c/d;p?q#f' "$tmp/refs"
same_file "$tmp/stdout" "$tmp/want" "gives the same rows"
is "$(cat "$tmp/stderr")" \
	"wa-url: -b is now -B (--base); the old spelling goes in the next release" \
	"with a warning line naming the new spelling"
exits 0 "--base" wa-url --base 'http://A.example/b/c/d;p?q#f' "$tmp/refs"
same_file "$tmp/stdout" "$tmp/want" "gives them too"

cat >"$tmp/list" <<'EOF'
http://www.example.co.uk:8080/a?b
https://a.b.example.com/
http://127.0.0.2:8080/
http://[::1]/x
http://localhost/
EOF
cat >"$tmp/want" <<EOF
http://www.example.co.uk:8080/a?b${tab}uk,co,example,www):8080/a?b${tab}www.example.co.uk${tab}example.co.uk
https://a.b.example.com/${tab}com,example,b,a)/${tab}a.b.example.com${tab}example.com
http://127.0.0.2:8080/${tab}127.0.0.2):8080/${tab}127.0.0.2${tab}127.0.0.2
http://[::1]/x${tab}[::1])/x${tab}[::1]${tab}[::1]
http://localhost/${tab}localhost)/${tab}localhost${tab}localhost
EOF
wa-url -a surt -a host -a domain "$tmp/list" >"$tmp/out" 2>"$tmp/stderr"
same_file "$tmp/out" "$tmp/want" "-a surt -a host -a domain append three columns"
printf 'http://www.example.com/\tx\nhttp://example.com/\ty\n' >"$tmp/list"
printf 'http://www.example.com/\tx\texample.com\tcom,example,www)/\nhttp://example.com/\ty\texample.com\tcom,example)/\n' >"$tmp/want"
wa-url -a domain -a surt "$tmp/list" >"$tmp/out" 2>"$tmp/stderr"
same_file "$tmp/out" "$tmp/want" "-a columns follow the input's own, in the order given"

cat >"$tmp/bad" <<'EOF'
http://example.com/1
mailto:someone@example.com
http://ex ample.com/
http://example.com/2
/relative
http://example.com:99999/
EOF
printf 'http://example.com/1\nhttp://example.com/2\n' >"$tmp/want"
exits 0 "bad rows do not change the exit status" wa-url "$tmp/bad"
same_file "$tmp/stdout" "$tmp/want" "bad rows are left out of the output"
cat >"$tmp/want" <<EOF
wa-url: $tmp/bad:2: unsupported scheme: mailto:someone@example.com
wa-url: $tmp/bad:3: bad host: http://ex ample.com/
wa-url: $tmp/bad:5: no scheme: /relative
wa-url: $tmp/bad:6: bad port: http://example.com:99999/
wa-url: $tmp/bad: 4 lines rejected
EOF
same_file "$tmp/stderr" "$tmp/want" "each bad row reported as FILE:LINE: reason: URL, then the count"

exits 2 "an unknown option is a usage error" wa-url -x "$tmp/list"
like "$(cat "$tmp/stderr")" "usage: wa-url -h" "and points to -h"
exits 2 "an unknown -a key is a usage error" wa-url -a path "$tmp/list"
is "$(head -1 "$tmp/stderr")" "wa-url: -a: unknown key 'path' (surt, cdx, host or domain)" "and names it"

# -a cdx: the key of CDXJ indexes, port before ')', query sorted, www.
# left out (pywb's and warcio.js's form), beside wa's own SURT key.
printf 'HTTP://www.Example.com:8080/a?c=2&b=1\tx\nhttp://example.com/\n' >"$tmp/cdx"
is "$(wa-url -q -a cdx -a surt "$tmp/cdx" | tr '\t\n' ' ;')" \
	"http://www.example.com:8080/a?c=2&b=1 x com,example:8080)/a?b=1&c=2 com,example,www):8080/a?c=2&b=1;http://example.com/ com,example)/ com,example)/;" \
	"-a cdx: the key of CDXJ indexes, beside the SURT key"
exits 2 "a base that is no absolute URL is a usage error" wa-url -B /x "$tmp/list"
is "$(head -1 "$tmp/stderr")" "wa-url: -B: bad base URL '/x': no scheme" "and says why"
exits 1 "a missing file is an error" wa-url "$tmp/nonexistent"
like "$(cat "$tmp/stderr")" "^wa-url: .*nonexistent: No such file" "and names it"

exits 0 "-h exits 0" wa-url -h
like "$(head -1 "$tmp/stdout")" '^usage: wa-url \[-q\] \[-B BASE\] \[-a KEY\]\.\.\. \[FILE\.\.\.\]$' "-h prints the usage"
ok "the usage fits a screen" test "$(wc -l <"$tmp/stdout")" -le 24
exits 0 "--version exits 0" wa-url --version
like "$(cat "$tmp/stdout")" '^wa-url \(wa\) [0-9]+\.[0-9]+\.[0-9]+$' "--version prints the version"

done_testing
