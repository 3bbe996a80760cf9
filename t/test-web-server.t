#!/bin/sh
# The test library's loopback web server: nginx serves a directory on a
# 127/8 address of the test's own, logs each request with its time, and
# is gone when the test ends.
. "$(dirname "$0")/lib.sh"

mkdir -p "$tmp/site/a"
printf 'hello\n' >"$tmp/site/index.html"
printf '<rss/>\n' >"$tmp/site/a/feed.xml"
a1=$(t_addr 1) a2=$(t_addr 2)
like "$a1" '^127\.[0-9]+\.[0-9]+\.1$' "test addresses are on the loopback network"

nginx_start one "$a1" 8080 "$tmp/site"
nginx_start two "$a2" 8080 "$tmp/site" 'location /a/ { return 404; }'
is "$(curl -s "http://$a1:8080/")" hello "the first server serves the directory"
is "$(curl -s -o /dev/null -w '%{content_type}' "http://$a1:8080/a/feed.xml")" \
	"text/xml" "with nginx's MIME types"
is "$(curl -s -o /dev/null -w '%{http_code}' "http://$a2:8080/a/feed.xml")" 404 \
	"the second server takes its extra configuration"
lm=$(curl -sI "http://$a1:8080/index.html" | tr -d '\r' | sed -n 's/^Last-Modified: //p')
like "$lm" '^[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9:]{8} GMT$' "Last-Modified is sent"
log=$tmp/nginx-one/logs/access.log
like "$(head -1 "$log")" '^[0-9]{10}\.[0-9]{3} [0-9]+ 1 "GET / HTTP/1.1" 200 6 127\.0\.0\.1$' \
	"the access log has the time in milliseconds, the connection and the client"

pid=$(cat "$tmp/nginx-one/nginx.pid")
nginx_stop one
ok "a stopped server is gone" sh -c "! kill -0 $pid 2>/dev/null"
curl -s -m 2 "http://$a1:8080/" >/dev/null
ok "and its address refuses connections" test $? = 7

done_testing
