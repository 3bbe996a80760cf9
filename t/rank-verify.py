#!/usr/bin/python3
"""rank-verify.py: an independent check of wa-pagerank and wa-invrank.

In the sense of the GAPBS verifiers: it rebuilds the graph from the same
links and pages TSV that wa-linkmat was given, computes the ranking with
networkx (and numpy/scipy for the literal formulas of Preda, "Data
Acquisition for an XML Warehouse", 2000), and compares.  It shares no code
with the tools.

  rank-verify.py MODE LINKS PAGES OURS [options]
      MODE   pagerank            networkx.pagerank(G), dangling rank along E
             renormalize         Preda's eq. 2.6-2.7 literally (numpy)
             invrank             networkx.pagerank(reverse G), E' uniform on
                                 the xml pages
             invrank-importance  the same, E' = --importance on the xml pages
             transpose           U = r (c A U + (1-c) E'), A averaging over
                                 successors (the literal M^t, numpy)
      LINKS  links TSV (src<TAB>dst[<TAB>how]); self links and duplicates
             are dropped, every URL is a node
      PAGES  pages TSV (url<TAB>type), or - for none; its URLs are nodes too
      OURS   the tool's output (url<TAB>score), or - to print the
             verifier's own scores ("%.17g", sorted by URL) instead
    Prints the L1 distance; exit 0 when it is at most --tol, 1 when it is
    larger or OURS is malformed (not sorted, a URL missing or repeated,
    a score negative or not a number, scores not summing to 1).
    --damping C (0.85), --tol T (1e-6), --personalization FILE (url, weight)
    for pagerank and renormalize, --importance FILE (url, score) for
    invrank-importance and transpose.  --subscriptions FILE (url, or url
    and weight, 1 when left out) and --subscription-weight W (0.1) for
    pagerank: the personalisation becomes (1-W) E + W S, S the
    subscription's weights normalised (the virtual page of Mignet et al.,
    "Acquisition and Maintenance of XML Data from the Web", 2000, sec. 5.3), E the --personalization or uniform.

  rank-verify.py diff A B [--tol T]
    L1 distance between two score files over the same URLs.

  rank-verify.py stats LINKS PAGES
    Prints the graph's counts: nodes, links, dangling pages, xml pages.

  rank-verify.py edges LINKS PAGES
  rank-verify.py degrees LINKS PAGES
    The verifier's graph: its links (src<TAB>dst, sorted), or every node
    with its out- and in-degree (url<TAB>outdeg<TAB>indeg, sorted by URL),
    to compare with wa-linkmat --dump and --dump-nodes.

  rank-verify.py vector VEC OURS
    Checks a -b vector file (VEC8, CRCs) against the scores of OURS: the
    same count and the same values, bit for bit (the vector is in graph id
    order, so the values are compared as sorted lists).

  rank-verify.py iterations FILE
    The largest iteration number that a -v progress output mentions.

  rank-verify.py tamper-outdeg GRAPH
    Swaps two different non-zero out-degrees in GRAPH/outdeg and fixes every
    CRC (the file's and the manifest's): a graph whose files all check out
    but whose out-degrees disagree with its matrix.

  rank-verify.py slices GRAPH
    Reads the slices of GRAPH as wa-formats(5) describes them, with a
    decoder of its own, checks their layout (sections, order, counts), and
    prints every link as src<TAB>dst URLs, sorted: to compare with the
    verifier's edges.

  rank-verify.py tamper-slice GRAPH K
    Swaps the first two links of a block of slice K that has two with
    different majors, and fixes every CRC: a slice that checks out but
    whose links are out of order.

  rank-verify.py flip-byte FILE [OFFSET]
    Flips the bits of one byte (default: the last one).
"""

import collections
import math
import re
import struct
import sys
import zlib

TINY = 1e-15		# L1 change at which our own iterations stop
MAX_ITER = 1000000


def die(msg, code=2):
	sys.stderr.write("rank-verify: %s\n" % msg)
	sys.exit(code)


def read_tsv(path):
	with open(path, "rb") as f:
		for no, raw in enumerate(f, 1):
			line = raw.decode("utf-8").rstrip("\n")
			if line == "":
				continue
			yield no, line.split("\t")


class Graph:
	"""The graph wa-linkmat is asked to build: every URL of LINKS and PAGES
	is a node, Out(i) is a set, self links are dropped."""

	def __init__(self, links, pages):
		nodes = set()
		edges = set()
		self.types = {}
		for no, f in read_tsv(links):
			if len(f) < 2:
				die("%s:%d: fewer than 2 columns" % (links, no))
			s, d = f[0], f[1]
			nodes.add(d)
			# A link from a sitemap or robots.txt is a hint: its target
			# is a node, the link no edge.
			if len(f) > 2 and f[2].startswith("sitemap"):
				continue
			nodes.add(s)
			if s != d:
				edges.add((s, d))
		if pages != "-":
			for no, f in read_tsv(pages):
				if len(f) < 2:
					die("%s:%d: fewer than 2 columns" % (pages, no))
				nodes.add(f[0])
				self.types[f[0]] = f[1]
		# Byte order of UTF-8 = code point order of str.
		self.nodes = sorted(nodes)
		self.index = {u: i for i, u in enumerate(self.nodes)}
		self.edges = sorted(edges)
		self.n = len(self.nodes)

	def nx(self, reverse=False):
		import networkx as nx
		g = nx.DiGraph()
		g.add_nodes_from(self.nodes)
		g.add_edges_from((d, s) if reverse else (s, d) for s, d in self.edges)
		return g

	def arrays(self):
		import numpy as np
		src = np.array([self.index[s] for s, _ in self.edges], dtype=np.int64)
		dst = np.array([self.index[d] for _, d in self.edges], dtype=np.int64)
		return src, dst

	def xml(self):
		return [u for u in self.nodes if self.types.get(u) == "xml"]


def read_scores(path, what):
	"""url -> score of a score file, with its format checked."""
	scores = {}
	prev = None
	for no, f in read_tsv(path):
		if len(f) < 2:
			die("%s:%d: fewer than 2 columns" % (path, no), 1)
		u = f[0]
		try:
			v = float(f[1])
		except ValueError:
			die("%s:%d: %s: not a number: %r" % (path, no, what, f[1]), 1)
		if not math.isfinite(v) or v < 0:
			die("%s:%d: %s: a score must be finite and non-negative: %r"
			    % (path, no, what, f[1]), 1)
		if prev is not None and u.encode() <= prev.encode():
			die("%s:%d: not sorted by URL (or repeated): %s after %s"
			    % (path, no, u, prev), 1)
		prev = u
		scores[u] = v
	return scores


def weights(path, g, only=None):
	"""A personalisation vector from url<TAB>weight rows, missing URLs 0,
	restricted to the URLs of only when given, normalised to sum 1."""
	import numpy as np
	e = np.zeros(g.n)
	for no, f in read_tsv(path):
		if len(f) < 2:
			die("%s:%d: fewer than 2 columns" % (path, no))
		i = g.index.get(f[0])
		if i is None or (only is not None and f[0] not in only):
			continue
		e[i] = float(f[1])
	if e.sum() <= 0:
		die("%s: no weight on the pages it should weight" % path)
	return e / e.sum()


def subscribed(path, w, g, e):
	"""(1-w) e + w S, e uniform when None, S the url[<TAB>weight] rows of
	path (weight 1 when left out) on the URLs of the graph, normalised."""
	import numpy as np
	s = np.zeros(g.n)
	for no, f in read_tsv(path):
		i = g.index.get(f[0])
		if i is not None:
			s[i] = float(f[1]) if len(f) > 1 else 1.0
	if s.sum() <= 0:
		return e
	if e is None:
		e = np.full(g.n, 1.0 / g.n)
	return (1 - w) * e + w * s / s.sum()


def xml_vector(g, importance):
	import numpy as np
	xml = set(g.xml())
	if not xml:
		die("no page of type xml in the pages TSV")
	if importance:
		return weights(importance, g, only=xml)
	e = np.array([1.0 if u in xml else 0.0 for u in g.nodes])
	return e / e.sum()


def nx_pagerank(g, c, e, reverse):
	"""networkx's PageRank; dangling nodes (of the graph it runs on) follow
	the personalisation, as with dangling=None."""
	import networkx as nx
	import numpy as np
	pers = None if e is None else {u: float(e[i]) for i, u in enumerate(g.nodes)}
	pr = nx.pagerank(g.nx(reverse), alpha=c, personalization=pers,
	    dangling=None, tol=TINY, max_iter=MAX_ITER)
	return np.array([pr[u] for u in g.nodes])


def solve_pagerank(g, c, e, reverse):
	"""The same fix-point by a direct sparse solve, to check networkx:
	x = c P^T x + (1-c) e, P row-stochastic, dangling rows = e."""
	import numpy as np
	import scipy.sparse as sp
	import scipy.sparse.linalg as sla
	n = g.n
	if e is None:
		e = np.full(n, 1.0 / n)
	src, dst = g.arrays()
	if reverse:
		src, dst = dst, src
	out = np.bincount(src, minlength=n).astype(float)
	# x_new[d] = c sum_{s->d} x[s]/out[s] + c e[d] sum_{dangling} x + (1-c) e[d]
	mt = sp.csr_matrix((1.0 / out[src], (dst, src)), shape=(n, n))
	dang = (out == 0).astype(float)
	# A = B - c e dang^T with B = I - c M^T: Sherman-Morrison on one LU of B.
	# B is well conditioned (c < 1): GMRES, its residual checked.
	bm = (sp.identity(n, format="csr") - c * mt).tocsr()

	def solve(rhs):
		try:
			y, info = sla.gmres(bm, rhs, rtol=1e-15, atol=0, restart=60, maxiter=2000)
		except TypeError:	# scipy before 1.12
			y, info = sla.gmres(bm, rhs, tol=1e-15, atol=0, restart=60, maxiter=2000)
		if np.abs(bm @ y - rhs).sum() > 1e-12 * np.abs(rhs).sum():
			die("GMRES did not converge (info %d)" % info, 3)
		return y
	b = (1 - c) * e
	bb, be = solve(b), solve(e)
	x = bb + c * be * (dang @ bb) / (1 - c * (dang @ be))
	return x / x.sum()


def renormalized(op, e0, e, c):
	"""PR_{i+1} = r (c op(PR_i) + (1-c) E), r = |PR_i|_1 / |c op(PR_i) +
	(1-c) E|_1, from PR_0 = e0 (Preda, "Data Acquisition for an XML
	Warehouse", 2000, eq. 2.6-2.7), until the L1 change is below TINY or
	stops falling at round-off level."""
	import numpy as np
	x = e0.copy()
	best, since = math.inf, 0
	for _ in range(MAX_ITER):
		y = c * op(x) + (1 - c) * e
		y *= x.sum() / y.sum()
		d = np.abs(y - x).sum()
		x = y
		if d < TINY:
			return x
		if d < best:
			best, since = d, 0
		else:
			since += 1
			if best < 1e-13 and since > 50:
				return x
	die("the literal iteration did not converge")


def compute(mode, g, args):
	import numpy as np
	import scipy.sparse as sp
	c = args.damping
	if mode in ("pagerank", "renormalize"):
		e = weights(args.personalization, g) if args.personalization else None
		if args.subscriptions:
			e = subscribed(args.subscriptions, args.subscription_weight, g, e)
		if mode == "pagerank":
			x = nx_pagerank(g, c, e, False)
			check = solve_pagerank(g, c, e, False)
		else:
			n = g.n
			if e is None:
				e = np.full(n, 1.0 / n)
			src, dst = g.arrays()
			out = np.bincount(src, minlength=n).astype(float)
			m = sp.csr_matrix((1.0 / out[src], (dst, src)), shape=(n, n))
			return renormalized(lambda v: m @ v, e, e, c)
	elif mode in ("invrank", "invrank-importance"):
		if mode == "invrank-importance" and not args.importance:
			die("invrank-importance needs --importance FILE")
		e = xml_vector(g, args.importance if mode == "invrank-importance" else None)
		x = nx_pagerank(g, c, e, True)
		check = solve_pagerank(g, c, e, True)
	elif mode == "transpose":
		e = xml_vector(g, args.importance)
		n = g.n
		src, dst = g.arrays()
		out = np.bincount(src, minlength=n).astype(float)
		# (A U)[i] = mean of U over Out(i); 0 without out-links.
		a = sp.csr_matrix((1.0 / out[src], (src, dst)), shape=(n, n))
		return renormalized(lambda v: a @ v, e, e, c)
	else:
		die("unknown mode %s" % mode)
	d = np.abs(x - check).sum()
	if d > 1e-10:
		die("networkx and the direct solve disagree by %.3g (L1): verifier bug?" % d, 3)
	return x


def compare(ours, ref_urls, ref, tol, label):
	"""L1 distance of ours (dict) to ref over ref_urls; exit status."""
	import numpy as np
	missing = [u for u in ref_urls if u not in ours]
	extra = [u for u in ours if u not in set(ref_urls)] if len(ours) != len(ref_urls) or missing else []
	if missing or extra:
		print("%s: %d URLs missing (%s), %d not in the graph (%s)" % (label,
		    len(missing), " ".join(missing[:3]), len(extra), " ".join(extra[:3])))
		return 1
	v = np.array([ours[u] for u in ref_urls])
	s = v.sum()
	diff = np.abs(v - ref)
	l1 = diff.sum()
	status = 0 if l1 <= tol else 1
	# Over the pages listed: 1 less what the pages not listed hold.
	want = ref.sum()
	print("L1 %.3e (tolerance %.0e, %d nodes, scores sum to %.9f%+.1e)" % (l1, tol, len(v),
	    want, s - want))
	# All pages listed, the scores sum to 1 exactly; else what the others
	# hold is off by no more than the L1 allowed.
	if abs(s - want) > (1e-9 if abs(want - 1) < 1e-12 else max(1e-9, tol)):
		print("%s: the scores sum to %.17g, not %.17g" % (label, s, want))
		status = 1
	if status:
		for i in np.argsort(-diff)[:5]:
			print("  %s ours %.17g want %.17g" % (ref_urls[i], v[i], ref[i]))
	return status


class Args:
	damping = 0.85
	tol = 1e-6
	personalization = None
	importance = None
	subscriptions = None
	subscription_weight = 0.1


def parse(argv):
	args = Args()
	pos = []
	i = 0
	while i < len(argv):
		a = argv[i]
		opts = {"--damping": "damping", "--tol": "tol",
		    "--personalization": "personalization", "--importance": "importance",
		    "--subscriptions": "subscriptions",
		    "--subscription-weight": "subscription_weight"}
		if a in opts:
			if i + 1 >= len(argv):
				die("%s needs a value" % a)
			v = argv[i + 1]
			setattr(args, opts[a], float(v) if a in ("--damping", "--tol",
			    "--subscription-weight") else v)
			i += 2
		elif a in ("-h", "--help"):
			print(__doc__)
			sys.exit(0)
		elif a.startswith("--"):
			die("unknown option %s" % a)
		else:
			pos.append(a)
			i += 1
	return args, pos


def iterations(path):
	"""The largest iteration count a progress or -v output shows."""
	best = None
	pats = [r"iterations?[ :=]+(\d+)", r"(\d+) iterations?", r"\biter[ :=]+(\d+)"]
	with open(path, errors="replace") as f:
		for line in f:
			for p in pats:
				for m in re.finditer(p, line, re.I):
					k = int(m.group(1))
					best = k if best is None else max(best, k)
	return best


HEADER = 64
# The page types that wa-pagerank and wa-invrank rank but do not list, and
# the suffixes that make a URL never fetched such a page (wa-formats(5),
# "Page types").
NOT_RANKED = {"other", "error", "dead", "robots", "sitemap"}
NOT_DOCUMENT = set("""7z apk avi avif bin bmp bz2 css csv deb dmg doc docx eot epub exe
flac gif gz ico iso jar jpeg jpg js json m4a mjs mkv mov mp3 mp4 mpeg mpg msi odp ods
odt ogg otf pdf pl png ppt pptx ps py rar rpm rtf sh svg swf tar tgz tif tiff ttf txt
wasm wav webm webp woff woff2 xls xlsx xz zip zst""".split())


def listed(url, types):
	"""Whether the tools give url a row: by its type, or by its suffix
	when it was never fetched."""
	if url in types:
		return types[url] not in NOT_RANKED
	path = url.split("://", 1)[-1].partition("/")[2].split("?", 1)[0]
	name = path.rsplit("/", 1)[-1]
	suffix = name.rsplit(".", 1)[1].lower() if "." in name[1:] else ""
	return suffix not in NOT_DOCUMENT


def fix_crcs(data):
	"""A binary file (bytes) with its payload and header CRCs recomputed."""
	b = bytearray(data)
	struct.pack_into("<I", b, 56, zlib.crc32(bytes(b[HEADER:])) & 0xffffffff)
	struct.pack_into("<I", b, 60, zlib.crc32(bytes(b[:60])) & 0xffffffff)
	return b


MAGIC = b"\x89WAB\r\n\x1a\n"


def check_vector(vec, ours):
	import numpy as np
	with open(vec, "rb") as f:
		b = f.read()
	fault = None
	if len(b) < HEADER or b[:8] != MAGIC:
		fault = "not a wa binary file"
	elif zlib.crc32(b[:60]) & 0xffffffff != struct.unpack_from("<I", b, 60)[0]:
		fault = "bad header CRC"
	else:
		version, = struct.unpack_from("<I", b, 8)
		kind = b[12:16]
		count, payload = struct.unpack_from("<QQ", b, 16)
		if kind != b"VEC8" or version != 1:
			fault = "kind %r version %d, not VEC8 version 1" % (kind, version)
		elif payload != 8 * count or len(b) != HEADER + payload:
			fault = "%d records, %d payload bytes, file of %d bytes" % (count, payload, len(b))
		elif zlib.crc32(b[HEADER:]) & 0xffffffff != struct.unpack_from("<I", b, 56)[0]:
			fault = "bad payload CRC"
	if fault:
		print("%s: %s" % (vec, fault))
		return 1
	v = np.frombuffer(b, dtype="<f8", offset=HEADER)
	scores = read_scores(ours, "scores")
	if len(v) < len(scores):
		print("%s: %d values, %s has %d rows" % (vec, len(v), ours, len(scores)))
		return 1
	# The rows are the ranked pages: each value a value of the vector.
	left = collections.Counter(v.tolist())
	bad = 0
	for w in scores.values():
		if left[w] > 0:
			left[w] -= 1
		else:
			bad += 1
	print("%d values, %d rows, %d not in the vector" % (len(v), len(scores), bad))
	return 1 if bad else 0


def tamper_outdeg(gdir):
	path = gdir + "/outdeg"
	with open(path, "rb") as f:
		b = bytearray(f.read())
	old_crc = struct.unpack_from("<I", b, 56)[0]
	n = struct.unpack_from("<Q", b, 16)[0]
	deg = list(struct.unpack_from("<%dI" % n, b, HEADER))
	pair = None
	for i in range(n):
		for j in range(i + 1, n):
			if deg[i] and deg[j] and deg[i] != deg[j]:
				pair = (i, j)
				break
		if pair:
			break
	if not pair:
		die("%s: no two different non-zero out-degrees to swap" % path)
	i, j = pair
	deg[i], deg[j] = deg[j], deg[i]
	struct.pack_into("<%dI" % n, b, HEADER, *deg)
	b = fix_crcs(b)
	new_crc = struct.unpack_from("<I", b, 56)[0]
	with open(path, "wb") as f:
		f.write(b)
	mpath = gdir + "/manifest"
	with open(mpath, "rb") as f:
		m = bytearray(f.read())
	slices = struct.unpack_from("<Q", m, 40)[0]	# aux[1]
	off = HEADER + (slices + 1) * 8 + 3 * 4		# outdeg is the 4th file
	if struct.unpack_from("<I", m, off)[0] != old_crc:
		die("%s: the manifest does not list outdeg's CRC where expected" % mpath)
	struct.pack_into("<I", m, off, new_crc)
	with open(mpath, "wb") as f:
		f.write(fix_crcs(m))
	print("swapped the out-degrees of ids %d and %d (%d, %d)" % (i, j, deg[j], deg[i]))


def read_bin(path):
	with open(path, "rb") as f:
		b = f.read()
	count, payload = struct.unpack_from("<QQ", b, 16)
	aux = struct.unpack_from("<3Q", b, 32)
	return b, count, aux


def slice_layout(b):
	"""The counts, block offsets and first ids of a slice, and where its
	words start."""
	ext, inner = struct.unpack_from("<QQ", b, HEADER)
	nb = ext + inner
	off = list(struct.unpack_from("<%dQ" % nb, b, HEADER + 16))
	first = list(struct.unpack_from("<%dI" % nb, b, HEADER + 16 + 8 * nb))
	start = HEADER + 16 + 12 * nb
	return ext, off, first, start


def decode_slice(path, lo, hi):
	"""The links of a slice as (src, dst, major, word index) in file order."""
	b, count, aux = read_bin(path)
	ext, off, first, start = slice_layout(b)
	words = struct.unpack_from("<%dI" % ((len(b) - start) // 4), b, start)
	bits = max(1, (hi - lo - 1).bit_length())
	escape = (1 << (32 - bits)) - 1
	off.append(len(words))
	links = []
	for blk in range(len(first)):
		major, w = first[blk], off[blk]
		while w < off[blk + 1]:
			at = w
			delta, minor = words[w] >> bits, words[w] & ((1 << bits) - 1)
			w += 1
			if delta == escape:
				delta = words[w]
				w += 1
			major += delta
			inner = blk >= ext
			links.append((lo + minor if inner else major, major if inner else lo + minor,
			    blk, at))
	return links, count, aux, ext


def check_slices(gdir):
	m, n, maux = read_bin(gdir + "/manifest")
	slices = maux[1]
	bound = struct.unpack_from("<%dQ" % (slices + 1), m, HEADER)
	ub, _, _ = read_bin(gdir + "/urls")
	urls = ub[HEADER:].decode().split("\n")[:-1]
	ib, _, _ = read_bin(gdir + "/urlid")
	ids = struct.unpack_from("<%dI" % n, ib, HEADER)
	url = [None] * n
	for u, i in zip(urls, ids):
		url[i] = u
	out = []
	faults = 0
	for k in range(slices):
		lo, hi = bound[k], bound[k + 1]
		path = "%s/slice-%04d" % (gdir, k)
		links, count, aux, ext = decode_slice(path, lo, hi)
		internal = 0
		prev = None
		for src, dst, blk, _ in links:
			inner = lo <= src < hi
			internal += inner
			key = (blk >= ext, dst, src) if blk >= ext else (False, src, dst)
			if not lo <= dst < hi or inner != (blk >= ext) or (prev and key <= prev):
				print("%s: link %d -> %d out of place" % (path, src, dst))
				faults += 1
			prev = key
			out.append("%s\t%s" % (url[src], url[dst]))
		if count != len(links) or aux[:3] != (lo, hi, internal):
			print("%s: header says %d links, %r; the words give %d, (%d, %d, %d)" % (
			    path, count, aux, len(links), lo, hi, internal))
			faults += 1
	if faults:
		sys.exit(1)
	for line in sorted(out):
		sys.stdout.write(line + "\n")


def tamper_slice(gdir, k):
	m, n, maux = read_bin(gdir + "/manifest")
	bound = struct.unpack_from("<%dQ" % (maux[1] + 1), m, HEADER)
	path = "%s/slice-%04d" % (gdir, k)
	links, _, _, _ = decode_slice(path, bound[k], bound[k + 1])
	b = bytearray(read_bin(path)[0])
	_, _, _, start = slice_layout(b)
	for (s1, d1, blk1, w1), (s2, d2, blk2, w2) in zip(links, links[1:]):
		if blk1 == blk2 and w2 == w1 + 1 and (s1 != s2 and d1 != d2):
			a = b[start + 4 * w1:start + 4 * w1 + 4]
			b[start + 4 * w1:start + 4 * w1 + 4] = b[start + 4 * w2:start + 4 * w2 + 4]
			b[start + 4 * w2:start + 4 * w2 + 4] = a
			break
	else:
		die("%s: no two neighbouring links to swap" % path)
	old_crc = struct.unpack_from("<I", b, 56)[0]
	b = fix_crcs(b)
	with open(path, "wb") as f:
		f.write(b)
	mb = bytearray(m)
	off = HEADER + (maux[1] + 1) * 8 + (6 + k) * 4	# after the six node files
	if struct.unpack_from("<I", mb, off)[0] != old_crc:
		die("%s: the manifest does not list the slice's CRC where expected" % gdir)
	struct.pack_into("<I", mb, off, struct.unpack_from("<I", b, 56)[0])
	with open(gdir + "/manifest", "wb") as f:
		f.write(fix_crcs(mb))
	print("swapped links %d -> %d and %d -> %d" % (s1, d1, s2, d2))


def main():
	args, pos = parse(sys.argv[1:])
	if not pos:
		die("usage: rank-verify.py MODE LINKS PAGES OURS [options] (-h)")
	mode = pos[0]
	if mode == "diff":
		if len(pos) != 3:
			die("usage: rank-verify.py diff A B [--tol T]")
		import numpy as np
		a = read_scores(pos[1], "A")
		b = read_scores(pos[2], "B")
		urls = sorted(b)
		sys.exit(compare(a, urls, np.array([b[u] for u in urls]), args.tol, pos[1]))
	if mode == "stats":
		if len(pos) != 3:
			die("usage: rank-verify.py stats LINKS PAGES")
		g = Graph(pos[1], pos[2])
		src, _ = g.arrays()
		has_out = set(src.tolist())
		print("nodes %d links %d dangling %d xml %d" % (g.n, len(g.edges),
		    g.n - len(has_out), len(g.xml())))
		return
	if mode in ("edges", "degrees"):
		if len(pos) != 3:
			die("usage: rank-verify.py %s LINKS PAGES" % mode)
		g = Graph(pos[1], pos[2])
		if mode == "edges":
			for a, b in g.edges:
				sys.stdout.write("%s\t%s\n" % (a, b))
		else:
			out = {u: 0 for u in g.nodes}
			inn = {u: 0 for u in g.nodes}
			for a, b in g.edges:
				out[a] += 1
				inn[b] += 1
			for u in g.nodes:
				sys.stdout.write("%s\t%d\t%d\n" % (u, out[u], inn[u]))
		return
	if mode == "vector":
		if len(pos) != 3:
			die("usage: rank-verify.py vector VEC OURS")
		sys.exit(check_vector(pos[1], pos[2]))
	if mode == "iterations":
		k = iterations(pos[1])
		if k is None:
			sys.exit(1)
		print(k)
		return
	if mode == "tamper-outdeg":
		tamper_outdeg(pos[1])
		return
	if mode == "slices":
		check_slices(pos[1])
		return
	if mode == "tamper-slice":
		tamper_slice(pos[1], int(pos[2]))
		return
	if mode == "flip-byte":
		with open(pos[1], "r+b") as f:
			f.seek(0, 2)
			off = int(pos[2]) if len(pos) > 2 else f.tell() - 1
			f.seek(off)
			byte = f.read(1)
			f.seek(off)
			f.write(bytes([byte[0] ^ 0xff]))
		return
	if len(pos) != 4:
		die("usage: rank-verify.py MODE LINKS PAGES OURS [options]")
	g = Graph(pos[1], pos[2])
	x = compute(mode, g, args)
	if pos[3] == "-":
		out = sys.stdout
		for u, v in zip(g.nodes, x):
			out.write("%s\t%.17g\n" % (u, v))
		return
	ours = read_scores(pos[3], mode)
	# Pages that are no documents are nodes of the computation but have
	# no row of their own.
	ranked = [i for i, u in enumerate(g.nodes) if listed(u, g.types)]
	sys.exit(compare(ours, [g.nodes[i] for i in ranked], x[ranked], args.tol, pos[3]))


if __name__ == "__main__":
	main()
