#!/bin/sh
# wa-fetch and TLS with a certificate authority of the test's own, made
# now with openssl: --cacert, --capath, SSL_CERT_FILE and SSL_CERT_DIR
# make its certificates trusted; an untrusted, a self-signed, a wrong-name
# and an expired certificate and a failed handshake each get their own
# status and message.  -H header fields reach the server, robots.txt
# included, and are in the request records; the fields a client may not
# set are refused.  nginx serves every certificate on a loopback address
# of its own.
. "$(dirname "$0")/lib.sh"
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || skip_all "needs nginx (scripts/deps install)"
unset SSL_CERT_FILE SSL_CERT_DIR CURL_CA_BUNDLE

# The authority, and certificates: good (for the address serving it),
# name (for an address that is not), self (self-signed), expired (its
# dates in 2020).
pki=$tmp/pki
mkdir "$pki" "$pki/issued" "$pki/capath" "$pki/empty"
key="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
GOOD=$(t_addr 1) NAME=$(t_addr 2) SELF=$(t_addr 3) EXPIRED=$(t_addr 4) OTHER=$(t_addr 5)
request() {	# NAME ADDR: a key and a signing request for a certificate of ADDR
	openssl req $key -subj "/CN=$2" -keyout "$pki/$1-key.pem" -out "$pki/$1.csr" &&
	printf 'subjectAltName=IP:%s\n' "$2" >"$pki/$1.ext"
}
{
	openssl req -x509 $key -days 2 -subj "/CN=wa test authority" \
	    -keyout "$pki/ca-key.pem" -out "$pki/ca.pem" &&
	request good "$GOOD" && request name "$OTHER" && request expired "$EXPIRED" &&
	for c in good name; do
		openssl x509 -req -in "$pki/$c.csr" -CA "$pki/ca.pem" -CAkey "$pki/ca-key.pem" \
		    -CAcreateserial -days 2 -extfile "$pki/$c.ext" -out "$pki/$c.pem" || exit 1
	done &&
	openssl req -x509 $key -days 2 -subj "/CN=$SELF" -addext "subjectAltName=IP:$SELF" \
	    -keyout "$pki/self-key.pem" -out "$pki/self.pem" &&
	# openssl x509 of Debian 12 cannot date a certificate in the past;
	# openssl ca can.
	: >"$pki/index.txt" && echo 01 >"$pki/serial" &&
	printf '%s\n' '[ca]' 'default_ca = test' '[test]' "database = $pki/index.txt" \
	    "new_certs_dir = $pki/issued" "serial = $pki/serial" 'default_md = sha256' \
	    'policy = any' '[any]' 'commonName = supplied' >"$pki/ca.cnf" &&
	openssl ca -batch -notext -config "$pki/ca.cnf" -cert "$pki/ca.pem" \
	    -keyfile "$pki/ca-key.pem" -in "$pki/expired.csr" -out "$pki/expired.pem" \
	    -startdate 20200101000000Z -enddate 20200102000000Z -extfile "$pki/expired.ext" &&
	cp "$pki/ca.pem" "$pki/capath/" && openssl rehash "$pki/capath" "$pki/empty"
} >"$tmp/openssl.log" 2>&1 || { echo "Bail out! openssl: $(tail -3 "$tmp/openssl.log")"; exit 1; }
is "$(openssl x509 -in "$pki/expired.pem" -noout -enddate)" "notAfter=Jan  2 00:00:00 2020 GMT" \
	"the expired certificate ended in 2020"

# Each server: plain HTTP on 8080, TLS on 8443 with its certificate; /echo
# and robots.txt answer with the From field the server got.
mkdir "$tmp/www" && echo hello >"$tmp/www/ok"
serve() {	# NAME ADDR
	nginx_start "$1" "$2" 8080 "$tmp/www" "listen $2:8443 ssl;
		ssl_certificate $pki/$1.pem; ssl_certificate_key $pki/$1-key.pem;
		default_type text/plain;
		location = /echo { return 200 \"from=\$http_from x-crawl=\$http_x_crawl\n\"; }
		location = /robots.txt { return 200 \"User-agent: *\nAllow: /\n# from=\$http_from\n\"; }"
}
serve good "$GOOD"
serve name "$NAME"
serve self "$SELF"
serve expired "$EXPIRED"

fetch() {	# URL [OPTIONS]: the status and bytes of URL; stderr in $tmp/err
	f_url=$1; shift
	echo "$f_url" | timeout 60 wa-fetch --allow-private -q -w 0 --timeout 10 "$@" \
	    >"$tmp/log" 2>"$tmp/err"
	cut -f 3,5 "$tmp/log"
}
G=https://$GOOD:8443

# A private authority, trusted four ways; the options win over the
# environment.
is "$(fetch $G/ok)" "tls-untrusted	-" "without the authority the certificate is not trusted"
like "$(cat "$tmp/err")" "robots.txt: TLS: the certificate is not trusted.*unable to get local issuer" \
	"and the message says so"
is "$(fetch $G/ok --cacert "$pki/ca.pem")" "200	6" "--cacert: trusted"
is "$(fetch $G/ok --capath "$pki/capath")" "200	6" "--capath with a rehashed directory: trusted"
is "$(SSL_CERT_FILE=$pki/ca.pem fetch $G/ok)" "200	6" "SSL_CERT_FILE: trusted"
is "$(SSL_CERT_DIR=$pki/capath fetch $G/ok)" "200	6" "SSL_CERT_DIR: trusted"
is "$(SSL_CERT_FILE=$pki/ca.pem fetch $G/ok --cacert "$pki/self.pem")" "tls-untrusted	-" \
	"--cacert wins over SSL_CERT_FILE"
is "$(SSL_CERT_FILE=$pki/ca.pem fetch $G/ok --capath "$pki/empty")" "tls-untrusted	-" \
	"and so does --capath"
is "$(SSL_CERT_FILE=$pki/self.pem SSL_CERT_DIR=$pki/capath fetch $G/ok)" "200	6" \
	"without options both variables count"

exits 1 "--cacert: a missing file stops the run" wa-fetch --cacert "$tmp/none.pem" /dev/null
is "$(cat "$tmp/stderr")" "wa-fetch: --cacert: $tmp/none.pem: No such file or directory" "  naming it"
exits 1 "SSL_CERT_FILE: a file with no certificate stops the run" \
	env SSL_CERT_FILE="$tmp/www/ok" wa-fetch /dev/null
is "$(cat "$tmp/stderr")" "wa-fetch: SSL_CERT_FILE: $tmp/www/ok: no PEM certificate in it" "  naming it"
exits 1 "--capath: a file is no directory" wa-fetch --capath "$pki/ca.pem" /dev/null
is "$(cat "$tmp/stderr")" "wa-fetch: --capath: $pki/ca.pem: Not a directory" "  naming it"

# The failures told apart, in the log and on the standard error.
C="--cacert $pki/ca.pem"
is "$(fetch https://$NAME:8443/ok $C)" "tls-name	-" "a certificate for another address: tls-name"
like "$(cat "$tmp/err")" "TLS: the certificate is for another host name .*'$NAME'" "  and its message"
is "$(fetch https://$EXPIRED:8443/ok $C)" "tls-expired	-" "an expired certificate: tls-expired"
like "$(cat "$tmp/err")" "TLS: the certificate has expired.*certificate has expired" "  and its message"
is "$(fetch https://$SELF:8443/ok $C)" "tls-untrusted	-" "a self-signed certificate: tls-untrusted"
like "$(cat "$tmp/err")" "TLS: the certificate is not trusted.*self-signed certificate" "  and its message"
is "$(fetch https://$GOOD:8080/ok $C)" "tls-handshake	-" "TLS to a plain HTTP port: tls-handshake"
like "$(cat "$tmp/err")" "TLS: the handshake failed" "  and its message"
printf '%s\n' https://$EXPIRED:8443/a https://$EXPIRED:8443/b https://$NAME:8443/c |
	wa-fetch --allow-private -q -w 0 $C >"$tmp/log" 2>"$tmp/err"
is "$(cut -f 1,3 "$tmp/log" | sort | tr '\t\n' ' :')" \
	"https://$NAME:8443/c tls-name:https://$EXPIRED:8443/a tls-expired:https://$EXPIRED:8443/b tls-expired:" \
	"every URL of a failing site gets its status, each site its own"
is "$(wc -l <"$tmp/err")" 2 "  with one message a site"
is "$(fetch https://$SELF:8443/ok --insecure)" "200	6" "--insecure checks nothing"

# -H: the fields reach the server with the page and robots.txt, and the
# request records show them.
is "$(fetch $G/echo $C -H 'From: crawler@example.org' -H 'X-Crawl: tls test' -o "$tmp/h.warc.gz")" \
	"200	42" "-H: the page is fetched"
gzip -dc "$tmp/h.warc.gz" >"$tmp/h.warc"
is "$(grep -ac '^from=crawler@example.org x-crawl=tls test' "$tmp/h.warc")" 1 \
	"the server got both fields with the page"
is "$(grep -ac '^# from=crawler@example.org' "$tmp/h.warc")" 1 "and the From field with robots.txt"
is "$(tr -d '\r' <"$tmp/h.warc" | grep -ac '^From: crawler@example.org$')" 2 \
	"both request records show the From field"
is "$(tr -d '\r' <"$tmp/h.warc" | grep -ac '^X-Crawl: tls test$')" 2 "and the other"
is "$(fetch $G/echo $C -H 'From: crawler@example.org' -H 'From: crawler@example.org' -o "$tmp/h.warc.gz")" \
	"200	34" "a field given twice"
is "$(gzip -dc "$tmp/h.warc.gz" | tr -d '\r' | grep -ac '^From: ')" 4 "  is sent twice"

refused() {	# FIELD REGEX [NAME]: NAME shows a FIELD of many lines
	exits 2 "-H '${3:-$1}' is refused" wa-fetch -H "$1" /dev/null
	like "$(head -1 "$tmp/stderr")" "^wa-fetch: -H '.*': .*$2" "  saying why"
}
refused 'Host: example.org' "Host comes from the URL"
for f in Connection Keep-Alive Proxy-Connection TE Trailer Transfer-Encoding Upgrade; do
	refused "$f: x" "$f is a hop-by-hop field"
done
refused 'transfer-encoding: chunked' "Transfer-Encoding is a hop-by-hop field"
refused 'User-Agent: x/1' "User-Agent is the agent of -A"
refused 'Accept-Encoding: br' "Accept-Encoding is wa-fetch's own"
refused 'If-None-Match: "x"' "If-None-Match is wa-fetch's own"
refused 'From crawler@example.org' "no colon"
refused 'From : crawler@example.org' "character no field name has"
refused 'Fr(om: x' "character no field name has"
refused ': x' "the name is empty"
refused 'From:' "the value is empty"
refused 'From:  ' "the value is empty"
refused "$(printf 'From: a\r\nX-Evil: b')" "CR, LF or another control character" 'From: a CR LF X-Evil: b'
refused "$(printf 'From: a\nb')" "CR, LF or another control character" 'From: a LF b'
refused "$(printf 'From: a\001b')" "control character" 'From: a ^A b'

# The cycle's CACERT and HEADERS become these options, quoted for the shell.
printf 'include %s\nshow:\n\t@printf "%%s\\n" "$(FETCH_OPTS)"\n' "$ROOT/src/cycle/cycle.mk" >"$tmp/show.mk"
opts=$(make -s -f "$tmp/show.mk" STATE="$tmp/state" show CACERT="$tmp/my ca.pem" \
	HEADERS="From: o'neil@example.org|X-Crawl: a b")
eval "set -- $opts"
for a; do shift; set -- "$@" "[$a]"; done
like "$*" "\[--cacert\] \[$tmp/my ca.pem\] \[-H\] \[From: o'neil@example.org\] \[-H\] \[X-Crawl: a b\]" \
	"the cycle passes CACERT as --cacert and HEADERS as -H options"

help=$(wa-fetch -h 2>&1)
ok "-h fits in 24 lines" test "$(printf '%s\n' "$help" | wc -l)" -le 24
like "$help" "-H 'NAME: VALUE'.*" "-h names -H"
like "$help" "--cacert FILE, --capath DIR" "and --cacert, --capath"

done_testing
