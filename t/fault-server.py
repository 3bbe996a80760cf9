#!/usr/bin/env python3
"""The misbehaving web server of the tests: each host and path below is one
way a server can hurt a crawler.  Python 3 standard library only; plain
HTTP on ADDR:PORT and, with --tls-port, TLS on ADDR:TLS_PORT with the
certificate given (t/lib.sh fault_start makes a self-signed one for
tls.test with the openssl command).  One thread per connection; the
server exits by itself after --lifetime seconds (default 900) so that a
lost one never lingers.

usage: fault-server.py ADDR PORT [--tls-port PORT --cert PEM --key PEM]
                       [--lifetime SECONDS]

On standard output: "hosts H1 H2 ..." and "ready" once listening, then
one line "req HOST PATH" per request, so tests can count requests.

Hosts (the Host header picks one; tls.test is only a name for the
certificate, every host is served on both ports):
  fault.test, tls.test      /robots.txt is 404 (allow all); the paths below
  robots-500.test           /robots.txt answers 500 (disallow all)
  robots-403.test           /robots.txt answers 403 (allow all)
  robots-redirect.test      /robots.txt redirects 5 times (302, /hop/1 ...
                            /hop/4, then /robots-final.txt), which holds
                            "User-agent: *" "Disallow: /private/"
  robots-loop.test          /robots.txt redirects 6 times (one more than
                            RFC 9309 asks a crawler to follow) to a file
                            that disallows everything: a crawler that gives
                            up at 5 treats the file as unavailable (allow)
  robots-big.test           /robots.txt is 600 KiB: "Disallow: /early" at
                            its start, comment lines, then "Disallow: /late"
                            at 550 KiB, past the 500 KiB parse limit, so
                            /early... is disallowed and /late... allowed
  robots-slow.test          /robots.txt sends one byte every 2 s (the site
                            is unreachable in practice: disallow all)
  robots-endless.test       /robots.txt never ends: chunked, as fast as the
                            client reads, "Disallow: /early" first, then
                            comment lines for ever
  robots-utf8.test          /robots.txt has invalid UTF-8: "Disallow: /early",
                            then rules with bytes 0xff 0xfe 0xc3 in their
                            paths and agent names
  robots-gzip.test          /robots.txt is "User-agent: *" "Disallow: /"
                            sent with Content-Encoding: gzip whatever the
                            request's Accept-Encoding
Every host's other paths are the fault paths:
  /ok              200, a small HTML page (keep-alive)
  /slow            200, Content-Length 30, one byte every 2 s (60 s)
  /stall           reads the request, sends nothing for 60 s, closes
  /stall-body/...  200, Content-Length 100, the header only, then nothing
                   for 60 s
  /excess/...      200 keep-alive, Content-Length 30: its 30 bytes, then in
                   a second write excess bytes that read as a response of
                   their own (EXCESS_RESPONSE), which a client that reuses
                   the connection takes for its next answer
  /overflow-length 200, Content-Length 10^26 (more than any integer type
                   holds), 20 bytes of body, then the close
  /loop/N          302 to /loop/N+1, for ever
  /self            302 to /self
  /chain/N         302 to /chain/N-1; /chain/0 is 200 "end of chain"
  /big             200, Content-Length 52428800 (50 MiB), streamed
  /huge            200, Content-Length 10737418240 (10 GiB), streamed until
                   the client goes
  /big-chunked     200, 50 MiB in chunked encoding, no length given
  /bomb            200 text/html, Content-Encoding gzip: 1 MiB of gzip that
                   decodes to 1 GiB (2^30 bytes) of zeros
  /short           200, Content-Length 1000, 100 bytes sent, then closed
  /bad-chunked     200, chunked; a good 16-byte chunk, then the chunk size
                   "zz", then the connection is closed
  /redirect?to=U   302 to U, percent-decoded to raw bytes (any scheme, any
                   address, any bytes: the tests aim redirects with it)
  /long-redirect   302 to a Location of 100 kB (LONG_SIZE bytes: "/l/"
                   and 'a's), too long for a request line of /redirect
  /429             429 Too Many Requests, Retry-After: 2
  /503             503 Service Unavailable, Retry-After: 2
  anything else    404
Hostile content (t/hostile-content.t); relative links, so that they
resolve to the host and port asked:
  /normal          200 text/html, one link: <a href="/ok">, and a mailto:
  /links/N         200 text/html: N links <a href="/l/0"> ... "/l/N-1" in
                   one page (N at most 10^6)
  /nested/N        200 text/html of N bytes (at most 64 MiB): a link
                   "/first", then <div> nested about N/11 deep, <a href="/deep"> at
                   the bottom, the </div>s, <a href="/last">
  /stray/N         200 text/html: <a href="/first">, N <div>s, N stray
                   </span>s (which libxml2 looks for through all the open
                   elements), <a href="/last">
  /nested-xml/N    the same as /nested/N in application/xml: root <r>,
                   elements <e>, xlink:href links
  /laughs          application/xml, the billion laughs: entities lol1 ...
                   lol9, each ten times the one before (lol9 is 3 GB);
                   xlink:href "/before", a <p>&lol9;</p>, "/after"
  /quadratic       application/xml: one entity of 100 KB referenced 20000
                   times (2 GB if expanded), xlink:href "/before" first and
                   "/after" last
  /long-link       text/html: links "/first", a relative link of LONG_SIZE
                   bytes, "/last"
  /bad-utf8        text/html; charset=utf-8 with invalid UTF-8 (bytes 0xff,
                   0xfe, 0xc3 before '(' and a lone 0x80) in hrefs and text:
                   links "/u/" 0xff, "/u/" 0xc3 "(", "/u/" 0x80 "ok", "/u/last"
  /bad-utf8-meta   text/html naming UTF-8 in <meta charset>, no HTTP charset:
                   the links BAD_UTF8_HREFS, invalid and valid UTF-8 (a cut
                   sequence, a surrogate, U+1F600, past U+10FFFF, an overlong
                   '/', "caf" U+00E9), then "/u/last"
  /bad-utf8.xml    application/xml, the same bytes: not well-formed
                   (libxml2 stops at the first bad byte); "/u/first" before
  /bad-charset     text/html; charset="x-" 0xff "-bogus": a link "/u/caf" 0xe9
                   (Latin-1) and "/u/last"
"""
import argparse
import http.server
import os
import re
import socketserver
import ssl
import sys
import threading
import time
import urllib.parse
import zlib

BIG_SIZE = 50 * 1024 * 1024
HUGE_SIZE = 10 << 30
LONG_SIZE = 100000  # 100 kB: a longer header line is refused by libcurl (100 KiB cap)
MAX_LINKS = 10 ** 6
MAX_NESTED = 64 * 1024 * 1024
BAD_UTF8_HREFS = [b"/u/\xe2\x82", b"/u/\xed\xa0\x80", b"/u/\xf0\x9f\x98\x80",
                  b"/u/\xf4\x90\x80\x80", b"/u/\xc0\xaf", b"/u/caf\xc3\xa9"]
BOMB_SIZE = 1 << 30
TRICKLE_SECONDS = 2
STALL_SECONDS = 60
EXCESS_RESPONSE = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n" \
    b"Content-Length: 27\r\n\r\n<html>smuggled page</html>\n"

ROBOTS_HOSTS = {
    "robots-500.test", "robots-403.test", "robots-redirect.test",
    "robots-loop.test", "robots-big.test", "robots-slow.test",
    "robots-endless.test", "robots-utf8.test", "robots-gzip.test",
}
HOSTS = ["fault.test", "tls.test"] + sorted(ROBOTS_HOSTS)

out_lock = threading.Lock()


def say(line):
    with out_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def big_robots():
    """600 KiB: a rule at the start, comments, a rule after 550 KiB."""
    head = b"User-agent: *\nDisallow: /early\n"
    filler = b"# padding to push the next rule past the 500 KiB limit\n"
    body = bytearray(head)
    while len(body) < 550 * 1024:
        body += filler
    body += b"Disallow: /late\n"
    while len(body) < 600 * 1024:
        body += filler
    return bytes(body[:600 * 1024 - 1]) + b"\n"


class Bomb:
    """A gzip member of BOMB_SIZE zeros, built from one compressed MiB.

    A full flush resets the deflate dictionary and aligns to a byte, so
    the compressed form of every MiB of zeros is the same bytes: the
    stream is a header, that piece repeated, an empty final block and
    the trailer (CRC-32 and length of the decoded data)."""
    lock = threading.Lock()
    parts = None

    @classmethod
    def get(cls):
        with cls.lock:
            if cls.parts is None:
                mib = bytes(1 << 20)
                deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
                piece = deflate.compress(mib) + deflate.flush(zlib.Z_FULL_FLUSH)
                again = deflate.compress(mib) + deflate.flush(zlib.Z_FULL_FLUSH)
                assert piece == again
                tail = deflate.flush(zlib.Z_FINISH)
                crc = 0
                for _ in range(BOMB_SIZE >> 20):
                    crc = zlib.crc32(mib, crc)
                header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
                trailer = crc.to_bytes(4, "little") + \
                    (BOMB_SIZE & 0xffffffff).to_bytes(4, "little")
                cls.parts = (header, piece, BOMB_SIZE >> 20, tail + trailer)
            return cls.parts


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fault-server"
    sys_version = ""

    def setup(self):
        context = getattr(self.server, "tls_context", None)
        if context is not None:
            self.request.settimeout(10)
            try:
                self.request = context.wrap_socket(self.request, server_side=True)
            except (ssl.SSLError, OSError):
                self.request = None
                return
            self.request.settimeout(None)
        super().setup()

    def handle(self):
        if self.request is None:
            return
        try:
            super().handle()
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, TimeoutError):
            pass

    def finish(self):
        if self.request is None:
            return
        try:
            super().finish()
        except OSError:
            pass

    def log_message(self, format, *args):
        pass

    def send(self, status, body=b"", ctype="text/html", extra=(), close=False):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra:
            self.send_header(name, value)
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def redirect(self, location, status=302):
        self.send(status, b"<html><body>moved</body></html>\n",
                  extra=[("Location", location)])

    def trickle(self, body, ctype):
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True
        for i in range(len(body)):
            self.wfile.write(body[i:i + 1])
            self.wfile.flush()
            time.sleep(TRICKLE_SECONDS)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        host = (self.headers.get("Host") or "").split(":")[0].lower()
        path = self.path
        say("req %s %s" % (host or "-", path))
        if path == "/robots.txt" or host in ROBOTS_HOSTS and \
                (path.startswith("/hop/") or path == "/robots-final.txt"):
            return self.robots(host, path)
        self.fault(path)

    def robots(self, host, path):
        plain = "text/plain"
        if host == "robots-500.test":
            self.send(500, b"<html><body>server error</body></html>\n")
        elif host == "robots-403.test":
            self.send(403, b"<html><body>forbidden</body></html>\n")
        elif host in ("robots-redirect.test", "robots-loop.test"):
            hops = 5 if host == "robots-redirect.test" else 6
            n = 0 if path == "/robots.txt" else None
            m = re.fullmatch(r"/hop/([0-9]+)", path)
            if m:
                n = int(m.group(1))
            if n is not None and n + 1 < hops:
                self.redirect("/hop/%d" % (n + 1))
            elif n is not None:
                self.redirect("/robots-final.txt")
            elif host == "robots-redirect.test":
                self.send(200, b"User-agent: *\nDisallow: /private/\n", plain)
            else:
                self.send(200, b"User-agent: *\nDisallow: /\n", plain)
        elif host == "robots-big.test":
            self.send(200, self.server.big_robots, plain)
        elif host == "robots-slow.test":
            self.trickle(b"User-agent: *\nDisallow:\n", plain)
        elif host == "robots-endless.test":
            self.endless_robots()
        elif host == "robots-gzip.test":
            gz = zlib.compressobj(9, zlib.DEFLATED, 16 + 15)
            body = gz.compress(b"User-agent: *\nDisallow: /\n") + gz.flush()
            self.send(200, body, plain, extra=[("Content-Encoding", "gzip")])
        elif host == "robots-utf8.test":
            self.send(200, b"User-agent: *\nDisallow: /early\n"
                           b"Disallow: /\xff\xfe\n# caf\xc3 \x80\n"
                           b"User-agent: bot\xff\nDisallow: /\n"
                           b"Disallow: /x\xc3(\n", plain)
        else:
            self.send(404, b"<html><body>no robots.txt</body></html>\n")

    def fault(self, path):
        m = re.fullmatch(r"/(loop|chain)/([0-9]+)", path)
        if path == "/ok":
            self.send(200, b"<html><head><title>ok</title></head>"
                           b"<body><p>ok</p></body></html>\n")
        elif path == "/slow":
            self.trickle(b"<html><body>slow</body></html>", "text/html")
        elif path == "/stall":
            self.close_connection = True
            time.sleep(STALL_SECONDS)
        elif path.startswith("/stall-body/"):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.flush()
            self.close_connection = True
            time.sleep(STALL_SECONDS)
        elif path.startswith("/excess/"):
            self.send(200, b"<html>%-17s</html>" % path[-17:].encode())
            self.wfile.flush()
            time.sleep(0.05)
            self.wfile.write(EXCESS_RESPONSE)
        elif path == "/overflow-length":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", "1" + "0" * 26)
            self.end_headers()
            self.wfile.write(b"<a href=/x>x</a>\n\n\n\n")
            self.close_connection = True
        elif m and m.group(1) == "loop":
            self.redirect("/loop/%d" % (int(m.group(2)) + 1))
        elif path == "/self":
            self.redirect("/self")
        elif m:
            n = int(m.group(2))
            if n > 0:
                self.redirect("/chain/%d" % (n - 1))
            else:
                self.send(200, b"<html><body>end of chain</body></html>\n")
        elif path == "/big":
            self.big(chunked=False)
        elif path == "/huge":
            self.big(chunked=False, size=HUGE_SIZE)
        elif path == "/big-chunked":
            self.big(chunked=True)
        elif path == "/bomb":
            self.bomb()
        elif path == "/short":
            self.broken(("Content-Length", "1000"), b"<html><body>" + b"x" * 88)
        elif path == "/bad-chunked":
            self.broken(("Transfer-Encoding", "chunked"),
                        b"10\r\n<html><body>ok!!\r\nzz\r\nbroken")
        elif path.startswith("/redirect?to="):
            to = urllib.parse.unquote_to_bytes(path[len("/redirect?to="):])
            self.redirect(to.decode("latin-1"))
        elif path == "/long-redirect":
            self.redirect("/l/" + "a" * (LONG_SIZE - 3))
        elif self.hostile(path):
            pass
        elif path in ("/429", "/503"):
            status = int(path[1:])
            self.send(status, b"<html><body>later</body></html>\n",
                      extra=[("Retry-After", "2")])
        else:
            self.send(404, b"<html><body>not found</body></html>\n")

    def broken(self, framing, body):
        """A page whose body breaks the framing header's promise, then
        the connection closed."""
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header(*framing)
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def endless_robots(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        if self.command == "HEAD":
            return
        head = b"User-agent: *\nDisallow: /early\n"
        self.wfile.write(b"%x\r\n%s\r\n" % (len(head), head))
        filler = b"# this robots.txt never ends\n" * 2048
        chunk = b"%x\r\n%s\r\n" % (len(filler), filler)
        while True:	# until the client hangs up
            self.wfile.write(chunk)

    def hostile(self, path):
        """The pages of hostile content; False if path is none of them."""
        m = re.fullmatch(r"/(links|nested|nested-xml)/([0-9]{1,9})", path)
        if m and m.group(1) == "links" and int(m.group(2)) <= MAX_LINKS:
            n = int(m.group(2))
            body = b"<html><body>\n" + b"".join(
                b'<a href="/l/%d">%d</a>\n' % (i, i) for i in range(n)) + \
                b"</body></html>\n"
            self.send(200, body)
        elif path.startswith("/stray/") and path[7:].isdigit() and \
                int(path[7:]) <= MAX_LINKS:
            n = int(path[7:])
            self.send(200, b'<html><body><a href="/first">f</a>' +
                      b"<div>" * n + b"</span>" * n +
                      b'<a href="/last">l</a></body></html>\n')
        elif m and m.group(1) != "links" and int(m.group(2)) <= MAX_NESTED:
            size = int(m.group(2))
            if m.group(1) == "nested":
                head, tail = b'<html><body><a href="/first">f</a>', \
                    b'<a href="/last">l</a></body></html>\n'
                open_tag, close_tag = b"<div>", b"</div>"
                deep = b'<a href="/deep">d</a>'
                ctype = "text/html"
            else:
                head = b'<?xml version="1.0"?>\n<r xmlns:xl="' \
                    b'http://www.w3.org/1999/xlink"><a xl:href="/first"/>'
                tail = b'<a xl:href="/last"/></r>\n'
                open_tag, close_tag = b"<e>", b"</e>"
                deep = b'<a xl:href="/deep"/>'
                ctype = "application/xml"
            depth = max(0, (size - len(head) - len(tail) - len(deep)) //
                        (len(open_tag) + len(close_tag)))
            body = head + open_tag * depth + deep + close_tag * depth + tail
            self.send(200, body, ctype)
        elif path == "/laughs":
            ents = b'<!ENTITY lol "lol">\n' + b"".join(
                b'<!ENTITY lol%d "%s">\n' % (i, (b"&lol%d;" % (i - 1) if i > 1
                                               else b"&lol;") * 10)
                for i in range(1, 10))
            self.send(200, b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n' + ents +
                      b']>\n<lolz xmlns:xl="http://www.w3.org/1999/xlink">'
                      b'<a xl:href="/before"/><p>&lol9;</p>'
                      b'<a xl:href="/after"/></lolz>\n', "application/xml")
        elif path == "/quadratic":
            self.send(200, b'<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY a "' +
                      b"x" * 100000 + b'">]>\n<r xmlns:xl="http://www.w3.org/'
                      b'1999/xlink"><a xl:href="/before"/>' +
                      b"<p>&a;</p>" * 20000 + b'<a xl:href="/after"/></r>\n',
                      "application/xml")
        elif path == "/normal":
            self.send(200, b'<html><body><a href="/ok">ok</a>'
                      b'<a href="mailto:x@fault.test">m</a></body></html>\n')
        elif path == "/long-link":
            self.send(200, b'<html><body><a href="/first">f</a><a href="/l/' +
                      b"a" * (LONG_SIZE - 3) + b'">long</a><a href="/last">l'
                      b'</a></body></html>\n')
        elif path == "/bad-utf8":
            self.send(200, b'<html><head><title>bad \xff\xfe</title></head>'
                      b'<body><p>caf\xc3 \x80 \xff</p>'
                      b'<a href="/u/\xff">\xfe</a><a href="/u/\xc3(">x</a>'
                      b'<a href="/u/\x80ok">\xc3</a><a href="/u/last">l</a>'
                      b'</body></html>\n', "text/html; charset=utf-8")
        elif path == "/bad-utf8-meta":
            self.send(200, b'<html><head><meta charset="utf-8"></head><body>' +
                      b"".join(b'<a href="%s">x</a>' % h for h in BAD_UTF8_HREFS) +
                      b'<a href="/u/last">l</a></body></html>\n')
        elif path == "/bad-utf8.xml":
            self.send(200, b'<?xml version="1.0" encoding="UTF-8"?>\n<r xmlns:'
                      b'xl="http://www.w3.org/1999/xlink"><a xl:href="/u/first"/>'
                      b'<a xl:href="/u/\xff"/><p>\xc3(</p><a xl:href="/u/last"/>'
                      b'</r>\n', "application/xml")
        elif path == "/bad-charset":
            self.send(200, b'<html><body><a href="/u/caf\xe9">c</a>'
                      b'<a href="/u/last">l</a></body></html>\n',
                      'text/html; charset="x-\xff-bogus"')
        else:
            return False
        return True

    def big(self, chunked, size=BIG_SIZE):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(size))
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        if self.command == "HEAD":
            return
        block = b"x" * 65536
        for _ in range(size // len(block)):
            if chunked:
                self.wfile.write(b"10000\r\n" + block + b"\r\n")
            else:
                self.wfile.write(block)
        if chunked:
            self.wfile.write(b"0\r\n\r\n")

    def bomb(self):
        header, piece, count, tail = Bomb.get()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length",
                         str(len(header) + len(piece) * count + len(tail)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        if self.command == "HEAD":
            return
        self.wfile.write(header)
        for _ in range(count):
            self.wfile.write(piece)
        self.wfile.write(tail)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("addr")
    parser.add_argument("port", type=int)
    parser.add_argument("--tls-port", type=int)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--lifetime", type=float, default=900)
    args = parser.parse_args()
    if args.tls_port and not (args.cert and args.key):
        parser.error("--tls-port needs --cert and --key")

    servers = [Server((args.addr, args.port), Handler)]
    if args.tls_port:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        tls = Server((args.addr, args.tls_port), Handler)
        tls.tls_context = context
        servers.append(tls)
    robots = big_robots()
    for server in servers:
        server.big_robots = robots
        threading.Thread(target=server.serve_forever, daemon=True).start()
    say("hosts " + " ".join(HOSTS))
    say("ready")
    time.sleep(args.lifetime)
    os._exit(0)


if __name__ == "__main__":
    main()
