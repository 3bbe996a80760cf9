# Helpers for the wa-fetch tests, sourced after t/lib.sh.
#
#   web_nginx NAME ADDR PORT ROOT [EXTRA_SERVER_CONF] [LISTEN_FLAGS]
#       like nginx_start, but its access log $tmp/nginx-NAME/logs/access.log
#       also names the connection and the request's number on it:
#       "MSEC CONN CONN_REQUESTS "REQUEST" STATUS BYTES"
#   sha1_b32 FILE   the WARC payload digest of FILE (sha1:BASE32)
#   mtime FILE      its modification time, Unix seconds
#   col N           column N of the TSV on stdin
#   row URL         the fetch log row of URL in $tmp/log
#   gaps NAME       the gaps between consecutive requests in NAME's log, in ms
command -v nginx >/dev/null || PATH=$PATH:/usr/sbin

web_nginx() {
	name=$1 addr=$2 port=$3 docroot=$4 extra=${5:-} flags=${6:-}
	d=$tmp/nginx-$name
	mkdir -p "$d/logs" "$d/tmp"
	user=
	[ "$(id -u)" = 0 ] && user="user root;"
	cat >"$d/nginx.conf" <<CONF
$user
worker_processes 1;
daemon on;
pid $d/nginx.pid;
error_log $d/logs/error.log warn;
events { worker_connections 256; }
http {
	include /etc/nginx/mime.types;
	default_type application/octet-stream;
	client_body_temp_path $d/tmp; proxy_temp_path $d/tmp;
	fastcgi_temp_path $d/tmp; uwsgi_temp_path $d/tmp; scgi_temp_path $d/tmp;
	log_format conn '\$msec \$connection \$connection_requests "\$request" \$status \$body_bytes_sent';
	access_log $d/logs/access.log conn;
	server {
		listen $addr:$port $flags;
		server_name _;
		root $docroot;
		$extra
	}
}
CONF
	nginx -q -p "$d" -c "$d/nginx.conf" 2>"$d/start.err" || {
		echo "Bail out! nginx $name on $addr:$port did not start: $(cat "$d/start.err")"
		exit 1
	}
	t_servers="$t_servers $name"
}

sha1_b32() { printf 'sha1:%s\n' "$(sha1sum <"$1" | cut -c1-40 | xxd -r -p | base32)"; }
mtime() { stat -c %Y "$1"; }
col() { cut -f "$1"; }
row() { awk -F '\t' -v u="$1" '$1 == u' "$tmp/log"; }
access() { cat "$tmp/nginx-$1/logs/access.log"; }
gaps() {
	awk '{ t = $1 * 1000; if (NR > 1) printf "%d\n", t - prev; prev = t }' \
	    "$tmp/nginx-$1/logs/access.log"
}
