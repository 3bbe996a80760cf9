#!/usr/bin/env python3
"""Independent checks of wa-partition (the superpages of Teng et al.,
"Collaborative Web Crawling", 1999), for t/wa-partition.t and
scripts/bench-partition.  Computes SURT keys from man/wa-formats.5 "SURT
keys" and looks rules up with bisect, sharing no code with the tool.

  partition-verify.py check RULES K          rules format: exits 1 with a message
  partition-verify.py tag RULES [FILE]       appends the part of column 1
  partition-verify.py hash LINKS K...        the same for "url", "host" and
                                             "range", all K in one pass:
                                             "METHOD K max/avg crossing"
  partition-verify.py metis LINKS K...       the same for METIS (gpmetis, Debian's
                                             metis) on the page graph, loads
                                             within 5%: "metis K max/avg crossing"
  partition-verify.py eval K LINKS METHOD    prints "max/avg crossing-fraction"
        METHOD: a rules file, "url" (hash of the URL), "host" (hash of
        host:port) or "range" (the URLs in SURT order cut into K runs of
        equal length: a balanced cut along the URL tree that ignores the
        links); the load is the number of distinct URLs of a part.
"""
import array
import bisect
import os
import subprocess
import sys
import tempfile
import zlib


def surt(url):
    rest = url.split("://", 1)[1]
    slash = rest.find("/")
    netloc, path = (rest, "/") if slash < 0 else (rest[:slash], rest[slash:])
    if netloc.startswith("["):
        end = netloc.index("]") + 1
        host, port = netloc[:end], netloc[end:]
    else:
        host, _, p = netloc.partition(":")
        port = ":" + p if p else ""
    labels = host.split(".")
    if not host.startswith("[") and not (len(labels) == 4 and all(x.isdigit() for x in labels)):
        host = ",".join(reversed(labels))
    return host + ")" + port + path


def load_rules(path):
    keys, parts = [], []
    with open(path, "rb") as f:
        for n, line in enumerate(f, 1):
            cols = line.rstrip(b"\n").split(b"\t")
            if len(cols) != 2 or not cols[0] or not cols[1].isdigit():
                sys.exit("%s:%d: not 'key TAB part'" % (path, n))
            if keys and cols[0] <= keys[-1]:
                sys.exit("%s:%d: keys not strictly increasing" % (path, n))
            keys.append(cols[0])
            parts.append(int(cols[1]))
    if not keys:
        sys.exit("%s: no rules" % path)
    return keys, parts


def lookup(rules, key):
    keys, parts = rules
    i = bisect.bisect_right(keys, key.encode())
    return parts[i - 1] if i else parts[0]


def surt_rank(urls):
    """The index of each URL in SURT order."""
    return {u: i for i, u in enumerate(sorted(urls, key=lambda u: surt(u).encode()))}


def range_parts(urls, k):
    """Part of each URL when the URLs in SURT order are cut into k runs
    whose lengths differ by at most one."""
    rank = surt_rank(urls)
    return {u: i * k // len(rank) for u, i in rank.items()}


def part_fn(k, method):
    if method == "url":
        return lambda u: zlib.crc32(u.encode()) % k
    if method == "host":
        return lambda u: zlib.crc32(u.split("://", 1)[1].split("/", 1)[0].encode()) % k
    rules = load_rules(method)
    return lambda u: lookup(rules, surt(u))


def metis(path, ks):
    """A reference for a balanced cut: METIS's k-way partition of the page
    graph (a link in either direction is an edge weighing the number of
    links), loads within 5% (-ufactor=50), no URL tree."""
    ids, src, dst = {}, array.array("L"), array.array("L")
    with open(path) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            src.append(ids.setdefault(cols[0], len(ids)))
            dst.append(ids.setdefault(cols[1], len(ids)))
    n = len(ids)
    keys = sorted(min(a, b) * n + max(a, b) for a, b in zip(src, dst) if a != b)
    adj = [[] for _ in range(n)]
    i = 0
    while i < len(keys):
        j = i
        while j < len(keys) and keys[j] == keys[i]:
            j += 1
        a, b = divmod(keys[i], n)
        adj[a].append((b, j - i))
        adj[b].append((a, j - i))
        i = j
    nedges = sum(len(x) for x in adj) // 2
    with tempfile.TemporaryDirectory() as tmp:
        graph = os.path.join(tmp, "graph")
        with open(graph, "w") as g:
            g.write("%d %d 001\n" % (n, nedges))
            for x in adj:
                g.write(" ".join("%d %d" % (b + 1, w) for b, w in x) + "\n")
        for k in ks:
            if k == 1:
                part = array.array("L", [0]) * n
            else:
                subprocess.run(["gpmetis", "-ufactor=50", graph, str(k)], check=True,
                               stdout=subprocess.DEVNULL)
                with open("%s.part.%d" % (graph, k)) as f:
                    part = array.array("L", (int(x) for x in f))
            load = [0] * k
            for p in part:
                load[p] += 1
            cross = sum(part[a] != part[b] for a, b in zip(src, dst))
            print("metis %d %.4f %.4f" % (k, max(load) / (n / k), cross / len(src) if src else 0))


def main():
    cmd = sys.argv[1]
    if cmd == "check":
        keys, parts = load_rules(sys.argv[2])
        k = int(sys.argv[3])
        bad = [p for p in parts if p >= k]
        if bad:
            sys.exit("part %d out of range 0..%d" % (bad[0], k - 1))
        print("%d rules, parts %s" % (len(keys), " ".join(str(p) for p in sorted(set(parts)))))
    elif cmd == "tag":
        rules = load_rules(sys.argv[2])
        f = open(sys.argv[3]) if len(sys.argv) > 3 else sys.stdin
        for line in f:
            line = line.rstrip("\n")
            sys.stdout.write("%s\t%d\n" % (line, lookup(rules, surt(line.split("\t", 1)[0]))))
    elif cmd == "eval":
        k = int(sys.argv[2])
        if sys.argv[4] == "range":
            urls = set()
            with open(sys.argv[3]) as f:
                for line in f:
                    urls.update(line.rstrip("\n").split("\t")[:2])
            ranges = range_parts(urls, k)
            part = ranges.__getitem__
        else:
            part = part_fn(k, sys.argv[4])
        of = {}
        cross = links = 0
        with open(sys.argv[3]) as f:
            for line in f:
                cols = line.rstrip("\n").split("\t")
                a = of.get(cols[0])
                if a is None:
                    a = of[cols[0]] = part(cols[0])
                b = of.get(cols[1])
                if b is None:
                    b = of[cols[1]] = part(cols[1])
                links += 1
                cross += a != b
        load = [0] * k
        for p in of.values():
            load[p] += 1
        print("%.4f %.4f" % (max(load) / (len(of) / k), cross / links if links else 0))
    elif cmd == "hash":
        ks = [int(k) for k in sys.argv[3:]]
        url_of = {}
        cross = {(m, k): 0 for m in ("url", "host", "range") for k in ks}
        links = 0
        ids, src, dst = {}, array.array("L"), array.array("L")
        with open(sys.argv[2]) as f:
            for line in f:
                cols = line.rstrip("\n").split("\t")
                src.append(ids.setdefault(cols[0], len(ids)))
                dst.append(ids.setdefault(cols[1], len(ids)))
                h = []
                for u in cols[:2]:
                    x = url_of.get(u)
                    if x is None:
                        x = url_of[u] = (zlib.crc32(u.encode()),
                                         zlib.crc32(u.split("://", 1)[1].split("/", 1)[0].encode()))
                    h.append(x)
                links += 1
                for k in ks:
                    cross["url", k] += h[0][0] % k != h[1][0] % k
                    cross["host", k] += h[0][1] % k != h[1][1] % k
        for m, i in (("url", 0), ("host", 1)):
            for k in ks:
                load = [0] * k
                for x in url_of.values():
                    load[x[i] % k] += 1
                print("%s %d %.4f %.4f" % (m, k, max(load) / (len(url_of) / k),
                                           cross[m, k] / links if links else 0))
        rank = surt_rank(ids)
        at = array.array("L", [0]) * len(ids)
        for u, i in ids.items():
            at[i] = rank[u]
        n = len(ids)
        for k in ks:
            load = [0] * k
            for r in at:
                load[r * k // n] += 1
            c = sum(at[a] * k // n != at[b] * k // n for a, b in zip(src, dst))
            print("range %d %.4f %.4f" % (k, max(load) / (n / k), c / links if links else 0))
    elif cmd == "metis":
        metis(sys.argv[2], [int(k) for k in sys.argv[3:]])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
