#!/bin/sh
# Addresses, robots.txt and URLs by their standards: the address classes
# against the IANA special-purpose registries (t/unit/test-netaddr.c) and
# wa-fetch refusing them in a network namespace of its own; robots.txt
# by RFC 9309's examples (t/unit/test-robots.c, run by robots-parser.t);
# hosts by RFC 5952, the WHATWG URL host parser and UTS #46
# (t/unit/test-url.c, run by url-canonical.t).
. "$(dirname "$0")/lib.sh"

unit test-netaddr

# wa-fetch in a network namespace with only loopback, where the test's
# addresses are put on lo: an address wrongly judged public is contacted
# there and nowhere else.  One HTTP server answers on all of them.
if offline true 2>/dev/null && command -v ip >/dev/null; then
	mkdir "$tmp/www" && echo page >"$tmp/www/x"
	refused="http://[::127.0.0.1]:8080/x http://[::ffff:0:7f00:1]:8080/x
	    http://[64:ff9b::7f00:1]:8080/x http://[2002:7f00:1::1]:8080/x
	    http://192.0.2.1:8080/x http://[2001:db8::1]:8080/x http://198.18.0.1:8080/x
	    http://[100::1]:8080/x http://[fec0::1]:8080/x http://[3fff::1]:8080/x
	    http://[2001:2::1]:8080/x http://[5f00::1]:8080/x http://100.64.0.1:8080/x"
	allowed_net="http://192.0.2.1:8080/x http://[2001:db8::1]:8080/x"
	public="http://192.31.196.1:8080/x http://[2620:4f:8000::1]:8080/x"
	printf '%s\n' $refused >"$tmp/refused"
	printf '%s\n' $allowed_net >"$tmp/allowed"
	printf '%s\n' $public >"$tmp/public"
	cat >"$tmp/netns.sh" <<-'END'
	set -e
	ip link set lo up
	for a in 192.0.2.1/32 198.18.0.1/32 100.64.0.1/32 192.31.196.1/32; do
		ip addr add $a dev lo
	done
	for a in ::127.0.0.1 ::ffff:0:7f00:1 64:ff9b::7f00:1 2002:7f00:1::1 2001:db8::1 \
	    100::1 fec0::1 3fff::1 2001:2::1 5f00::1 2620:4f:8000::1; do
		ip -6 addr add $a/128 dev lo nodad 2>/dev/null || exit 3
	done
	"$PY" -m http.server --bind :: --directory "$tmp/www" 8080 \
	    >/dev/null 2>"$tmp/server.log" &
	server=$!
	i=0
	until "$PY" -c 'import socket; socket.create_connection(("::1", 8080), 1)' 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 100 ] || exit 1; sleep 0.1
	done
	set +e
	wa-fetch -q -w 0 <"$tmp/refused" >"$tmp/refused.log" 2>"$tmp/refused.err"
	cp "$tmp/server.log" "$tmp/server-refused.log"
	wa-fetch -q -w 0 <"$tmp/allowed" >"$tmp/allowed-no.log" 2>/dev/null
	wa-fetch -q -w 0 --allow-net 192.0.2.0/24 --allow-net 2001:db8::/32 \
	    <"$tmp/allowed" >"$tmp/allowed.log" 2>/dev/null
	wa-fetch -q -w 0 <"$tmp/public" >"$tmp/public.log" 2>/dev/null
	cp "$tmp/server.log" "$tmp/server-allowed.log"
	wa-fetch -q -w 0 --allow-net 127.0.0.0/8 <"$tmp/refused" >"$tmp/loopback.log" 2>/dev/null
	kill $server
	END
	tmp=$tmp PY=$PY offline sh "$tmp/netns.sh"
	rc=$?
fi
if [ "${rc:-}" = 3 ]; then
	ok "wa-fetch and special-purpose addresses # SKIP no IPv6 in a network namespace" true
elif [ -n "${rc:-}" ]; then
	is "$rc" 0 "the network namespace is set up"
	is "$(cut -f 1,3 "$tmp/refused.log" | sort)" \
	    "$(sed 's/$/	private-address/' "$tmp/refused" | sort)" \
	    "special-purpose and embedded-IPv4 addresses are refused as private-address"
	is "$(grep -c 'refused: the host has a non-public address' "$tmp/refused.err")" \
	    "$(wc -l <"$tmp/refused")" "each with a reason on stderr"
	is "$(grep -c 'GET ' "$tmp/server-refused.log")" 0 "and none of them was contacted"
	is "$(cut -f 3 "$tmp/allowed-no.log" | sort -u)" private-address \
	    "documentation addresses are refused without --allow-net"
	is "$(cut -f 1,3 "$tmp/allowed.log" | sort)" \
	    "$(sed 's/$/	200/' "$tmp/allowed" | sort)" "and fetched with --allow-net of their blocks"
	is "$(cut -f 1,3 "$tmp/public.log" | sort)" "$(sed 's/$/	200/' "$tmp/public" | sort)" \
	    "AS112 addresses are public and fetched"
	is "$(grep -c 'GET /x' "$tmp/server-allowed.log")" 4 "the server saw exactly the allowed requests"
	is "$(awk -F '\t' '$3 == "private-address"' "$tmp/loopback.log" | cut -f 1 | sort)" \
	    "$(grep -v -e '\[::' -e '\[64:' -e '\[2002:' "$tmp/refused" | sort)" \
	    "--allow-net 127.0.0.0/8 lets in the IPv6 forms of 127.0.0.1, nothing else"
else
	ok "wa-fetch and special-purpose addresses # SKIP needs unshare -n and ip (root)" true
fi

is "$(printf '%s\n' 'http://[::7f00:1]/' 'http://[0:0::127.0.0.1]/' 'http://[::127.0.0.1]/' |
    wa-url -q | sort -u)" "http://[::127.0.0.1]/" "wa-url: one canonical form for an IPv6 address"
printf '%s\n' http://foo.0x7f/ http://xn--ls8h.la/ http://xn--a.de/ http://0x7f.1/ >"$tmp/hosts"
is "$(wa-url -q "$tmp/hosts" 2>"$tmp/err")" "http://127.0.0.1/" \
    "wa-url: a hexadecimal last label and invalid A-labels refused"
is "$(grep -c 'bad host' "$tmp/err")" 3 "each reported as a bad host"

done_testing
