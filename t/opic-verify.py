#!/usr/bin/python3
"""Independent check of wa-opic (seed 004, OPIC and Adaptive OPIC with the
Interpolation window): a dense, direct simulation in numpy, where the
virtual page hands out its cash to every page right away (wa-opic spreads
it lazily), the Variable Window keeps Python lists, and a reader of the state file written from man/wa-formats.5.

  opic-verify.py sim [-c C] [-W READS | -k K] STATE OUT LINKS...
      simulates the links stream from an empty state; checks its own Lemma
      2.3 identity (history + cash = initial + inflow) and total cash 1 at
      every read; checks STATE's total cash is 1 and that STATE and OUT
      (wa-opic's output) agree with the simulation to 1e-9 relative (the
      output to 1e-8: the lazy spread loses digits on tiny scores).
  opic-verify.py l1 A B LIMIT
      L1 distance between two url TAB score files, relative to |B|_1, must
      be below LIMIT.
  opic-verify.py cash STATE
      checks that STATE is well-formed and its total cash is 1.
  opic-verify.py samestate A B
      two states hold the same URLs, parameters and values to 1e-12
      relative (the lazy spread of the virtual page rounds differently
      across a save).
  opic-verify.py gen SEED N ROUNDS
      writes a crawl-order links stream: N pages with random out-links
      (some to never-read URLs), read ROUNDS times each in random order,
      so sources come back non-adjacently.
  opic-verify.py pagerank LINKS OUT
      writes the PageRank vector (c = 0.85, dangling mass spread uniformly)
      of the links' graph, by numpy power iteration to 1e-14.
"""
import struct
import sys
import zlib

import numpy as np


def read_links(paths):
    rows = []
    for p in paths:
        with open(p) as f:
            for line in f:
                s, d = line.rstrip("\n").split("\t")[:2]
                rows.append((s, d))
    return rows


def groups(rows):
    out = []
    for s, d in rows:
        if not out or out[-1][0] != s:
            out.append((s, []))
        out[-1][1].append(d)
    return out


def read_state(path):
    b = open(path, "rb").read()
    assert b[:8] == b"\x89WAB\r\n\x1a\n", "magic"
    version, kind, count, plen, n, reads, ubytes, pcrc, hcrc = struct.unpack(
        "<I4sQQQQQII", b[8:64])
    assert kind == b"OPIC" and version == 1, "kind/version"
    assert zlib.crc32(b[:60]) == hcrc and zlib.crc32(b[64:]) == pcrc, "crc"
    head = np.frombuffer(b, "<f8", 5, 64)
    k = int(head[2])
    w = 3 + (2 + 2 * k if k else 0)
    assert n == count and plen == len(b) - 64 == (5 + w * n) * 8 + ubytes
    rec = np.frombuffer(b, "<f8", w * n, 104).reshape(n, w)
    urls = b[104 + 8 * w * n:].split(b"\0")[:-1]
    assert len(urls) == n
    return head, {u.decode(): rec[i] for i, u in enumerate(urls)}, reads


def simulate(c, window, gs, k=0):
    idx, urls = {}, []
    cash, hist, init, inflow, tlast = [], [], [], [], []
    base, meas = [], []
    vcash, vhist = 1.0, 0.0

    def intern(u, reads):
        if u not in idx:
            recent = hist[-64:]
            h = sum(recent) / len(recent) if recent else 0.0
            idx[u] = len(urls)
            urls.append(u)
            cash.append(0.0)
            hist.append(h)
            init.append(h)
            inflow.append(0.0)
            tlast.append(float(reads))
            base.append(float(reads))
            meas.append([])
        return idx[u]

    for reads, (s, ds) in enumerate(gs):
        si = intern(s, reads)
        kids = []
        for d in ds:
            di = intern(d, reads)
            if di != si and di not in kids:
                kids.append(di)
        x = cash[si]
        if window:
            dt = reads - tlast[si]
            hist[si] = 0.0 if dt >= window else hist[si] * (window - dt) / window
            init[si] = 0.0  # the identity holds for unwindowed runs only
        if k:
            if len(meas[si]) == k:
                base[si] = meas[si].pop(0)[1]
            meas[si].append((x, reads))
            hist[si] = sum(m[0] for m in meas[si])
            init[si] = 0.0
        else:
            hist[si] += x
        tlast[si] = reads
        cash[si] = 0.0
        give = c * x if kids else 0.0
        for kid in kids:
            cash[kid] += give / len(kids)
            inflow[kid] += give / len(kids)
        vcash += x - give
        n = len(urls)
        a = np.array(cash) + vcash / n
        for i in range(n):
            inflow[i] += vcash / n
        cash = list(a)
        vhist += vcash
        vcash = 0.0
        total = sum(cash) + vcash
        assert abs(total - 1) < 1e-9, f"read {reads}: total cash {total}"
        if not window and not k:
            lhs = np.array(hist) + np.array(cash)
            rhs = np.array(init) + np.array(inflow)
            assert np.allclose(lhs, rhs, rtol=1e-9, atol=1e-15), \
                f"read {reads}: Lemma 2.3 identity fails"
    span = len(gs) - np.array(base) if k else np.ones(len(urls))
    return urls, np.array(cash), np.array(hist), span


def cmd_sim(args):
    c, window, k = 0.85, 0, 0
    while args[0] in ("-c", "-W", "-k"):
        if args[0] == "-c":
            c = float(args[1])
        elif args[0] == "-k":
            k = int(args[1])
        else:
            window = float(args[1])
        args = args[2:]
    state, out, links = args[0], args[1], args[2:]
    urls, cash, hist, span = simulate(c, window, groups(read_links(links)), k)
    head, rec, reads = read_state(state)
    assert abs(sum(r[0] for r in rec.values()) + head[3] - 1) < 1e-9, \
        "state: total cash is not 1"
    assert set(rec) == set(urls), "state: URL sets differ"
    for i, u in enumerate(urls):
        assert np.allclose(rec[u][:2], [cash[i], hist[i]], rtol=1e-9, atol=1e-15), \
            f"state: {u}: cash, history {rec[u][:2]} != {cash[i]}, {hist[i]}"
    score = (hist + cash) / span
    score /= score.sum()
    got = {}
    with open(out) as f:
        for line in f:
            u, v = line.split("\t")
            got[u] = float(v)
    assert list(got) == sorted(got, key=lambda u: u.encode()), "output not sorted"
    for i, u in enumerate(urls):
        assert abs(got[u] - score[i]) <= 1e-8 * max(score[i], 1e-12), \
            f"output: {u}: {got[u]} != {score[i]}"
    print(f"{len(urls)} URLs, {len(groups(read_links(links)))} reads agree")


def load_scores(p):
    d = {}
    with open(p) as f:
        for line in f:
            u, v = line.split("\t")[:2]
            d[u] = float(v)
    return d


def cmd_l1(args):
    a, b, limit = load_scores(args[0]), load_scores(args[1]), float(args[2])
    assert set(a) == set(b), "URL sets differ"
    l1 = sum(abs(a[u] - b[u]) for u in b) / sum(abs(v) for v in b.values())
    print(f"relative L1 {l1:.3g} (limit {limit})")
    assert l1 < limit


def cmd_cash(args):
    head, rec, _ = read_state(args[0])
    total = sum(r[0] for r in rec.values()) + head[3]
    print(f"total cash {total!r}")
    assert abs(total - 1) < 1e-9


def cmd_samestate(args):
    ha, ra, na = read_state(args[0])
    hb, rb, nb = read_state(args[1])
    assert na == nb, f"reads {na} != {nb}"
    assert list(ra) == list(rb), "URL tables differ"
    assert np.allclose(ha, hb, rtol=1e-12, atol=1e-15), "heads differ"
    for u in ra:
        assert np.allclose(ra[u], rb[u], rtol=1e-12, atol=1e-15), f"{u} differs"
    print(f"{len(ra)} URLs, {na} reads agree")


def cmd_gen(args):
    import random
    rnd = random.Random(int(args[0]))
    n, rounds = int(args[1]), int(args[2])
    links = {}
    for i in range(n):
        ds = [f"http://h{i % 5}/{rnd.randrange(n)}" for _ in range(rnd.randrange(0, 5))]
        if rnd.random() < 0.3:
            ds.append(f"http://h{i % 5}/leaf{rnd.randrange(3 * n)}")
        links[f"http://h{i % 5}/{i}"] = ds
    srcs = list(links) * rounds
    rnd.shuffle(srcs)
    for s in srcs:
        for d in links[s] or [s]:
            print(f"{s}\t{d}")


def cmd_pagerank(args):
    rows = read_links([args[0]])
    urls = sorted({u for r in rows for u in r}, key=lambda u: u.encode())
    idx = {u: i for i, u in enumerate(urls)}
    n = len(urls)
    out = [set() for _ in range(n)]
    for s, d in rows:
        if s != d:
            out[idx[s]].add(idx[d])
    pr = np.full(n, 1.0 / n)
    for _ in range(100000):
        nxt = np.zeros(n)
        dangling = 0.0
        for i in range(n):
            if out[i]:
                for j in out[i]:
                    nxt[j] += 0.85 * pr[i] / len(out[i])
            else:
                dangling += pr[i]
        nxt += (0.15 + 0.85 * dangling) / n
        if np.abs(nxt - pr).sum() < 1e-14:
            pr = nxt
            break
        pr = nxt
    with open(args[1], "w") as f:
        for i, u in enumerate(urls):
            f.write(f"{u}\t{pr[i]:.17g}\n")


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    try:
        {"sim": cmd_sim, "l1": cmd_l1, "pagerank": cmd_pagerank,
         "cash": cmd_cash, "gen": cmd_gen, "samestate": cmd_samestate}[cmd](args)
    except AssertionError as e:
        print(f"opic-verify: {e}", file=sys.stderr)
        sys.exit(1)


main()
