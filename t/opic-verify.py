#!/usr/bin/python3
"""Independent check of wa-opic (OPIC and Adaptive OPIC of Abiteboul,
Preda, Cobena, "Adaptive On-Line Page Importance Computation", 2003, with
the Interpolation, Variable Window and (Improved) Fixed Window policies,
time in reads or in seconds from a fetch log): a dense, direct simulation
in numpy, where the virtual page hands out its cash to every page right
away (wa-opic spreads it lazily), the windows keep Python lists, and a
reader of the state file (version 2) written from man/wa-formats.5.

  opic-verify.py sim [-c C] [-t FETCHLOG] [-W T | -k K | -F T [-M MIN]]
                     STATE OUT LINKS...
      simulates the links stream from an empty state (T in reads, or in
      seconds with -t); checks its own Lemma 2.3 identity (history + cash =
      initial + inflow) and total cash 1 at every read; checks that STATE's
      total cash is 1, that its parameters, clock, and every URL's cash,
      history, times and measures agree with the simulation to 1e-9
      relative, and that OUT (wa-opic's output) does to 1e-8 relative
      (plus the absolute error of the lazy spread on a cash, 1e-13, over
      the page's span).
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
  opic-verify.py fetchlog SEED START LINKS
      writes a fetch log (wa-formats(5)) for the reads of the links stream:
      a row per read, times from START up in steps of 0 to 20 s with a
      jitter of up to 30 s either way (so a page's fetch may precede the
      read that introduced it), and rows of pages not fetched ('-').
  opic-verify.py patch STATE OFFSET FORMAT VALUE
      writes VALUE (struct FORMAT, e.g. <Q) at OFFSET of STATE and makes
      both CRC-32 right again: damage that only the checks after the CRC
      can find.
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


POLICIES = ("plain", "interpolation", "variable", "fixed")
MAX_MEASURES = 4096


def read_state(path):
    """The state as (head dict, {url: page dict}), checking its sizes."""
    b = open(path, "rb").read()
    assert b[:8] == b"\x89WAB\r\n\x1a\n", "magic"
    version, kind, count, plen, reads, nmeas, ubytes, pcrc, hcrc = struct.unpack(
        "<I4sQQQQQII", b[8:64])
    assert kind == b"OPIC" and version == 2, "kind/version"
    assert zlib.crc32(b[:60]) == hcrc and zlib.crc32(b[64:]) == pcrc, "crc"
    n = count
    assert plen == len(b) - 64 == 64 + 40 * n + 16 * nmeas + ubytes, "sizes"
    policy, unit, c, window, keep, now, vcash, vhist = struct.unpack("<QQddQddd", b[64:128])
    head = dict(policy=POLICIES[policy], unit=("reads", "seconds")[unit], c=c,
                window=window, keep=keep, now=now, vcash=vcash, vhist=vhist, reads=reads)
    recs = [struct.unpack_from("<ddddQ", b, 128 + 40 * i) for i in range(n)]
    off = 128 + 40 * n
    urls = b[off + 16 * nmeas:].split(b"\0")[:-1]
    assert len(urls) == n, "URL count"
    pages = {}
    for i, u in enumerate(urls):
        cash, hist, tlast, base, k = recs[i]
        m = [struct.unpack_from("<dd", b, off + 16 * j) for j in range(k)]
        off += 16 * k
        pages[u.decode()] = dict(cash=cash, hist=hist, tlast=tlast, base=base, meas=m)
    assert off == 128 + 40 * n + 16 * nmeas, "measure count"
    return head, pages


def read_fetch_times(path):
    """URL -> its fetch times in the log's order; a row of a redirect chain
    followed with -L gives its time to the URL it led to as well."""
    times = {}
    with open(path) as f:
        for line in f:
            col = line.rstrip("\n").split("\t")
            if col[1] == "-":
                continue
            times.setdefault(col[0], []).append(float(col[1]))
            if col[9] != "-" and not col[2].startswith("3"):
                times.setdefault(col[9], []).append(float(col[1]))
    return times


def simulate(gs, c=0.85, window=0, k=0, fixed=0, keep=0, times=None):
    idx, urls = {}, []
    cash, hist, init, inflow, tlast = [], [], [], [], []
    base, meas = [], []
    vcash, vhist, now = 1.0, 0.0, 0.0
    taken = {}
    lemma = not window and not k and not fixed  # the identity holds for these

    def intern(u, t):
        if u not in idx:
            recent = hist[-64:]
            h = sum(recent) / len(recent) if recent else 0.0
            idx[u] = len(urls)
            urls.append(u)
            cash.append(0.0)
            hist.append(h)
            init.append(h)
            inflow.append(0.0)
            tlast.append(t)
            base.append(t)
            meas.append([])
        return idx[u]

    def expire(i, now):
        dropped = False
        while len(meas[i]) > keep and meas[i][0][1] < now - fixed:
            base[i] = meas[i].pop(0)[1]
            dropped = True
        return dropped

    for reads, (s, ds) in enumerate(gs):
        if times is None:
            t = float(reads)
        else:
            n_taken = taken.get(s, 0)
            assert n_taken < len(times.get(s, [])), f"no fetch time for read of {s}"
            t = times[s][n_taken]
            taken[s] = n_taken + 1
        si = intern(s, t)
        t = max(t, tlast[si])
        after = t + 1 if times is None else max(now, t)
        kids = []
        for d in ds:
            di = intern(d, t)
            if di != si and di not in kids:
                kids.append(di)
        x = cash[si]
        if window:
            # The cash came in evenly over dt: only its last T counts.
            dt = t - tlast[si]
            if dt < window:
                hist[si] = hist[si] * (window - dt) / window + x
            else:
                hist[si] = x * window / dt
        elif k or fixed:
            if len(meas[si]) == (k or MAX_MEASURES):
                base[si] = meas[si].pop(0)[1]
            meas[si].append((x, t))
            if fixed:
                expire(si, after)
            hist[si] = sum(m[0] for m in meas[si])
        else:
            hist[si] += x
        tlast[si] = t
        now = after
        cash[si] = 0.0
        give = c * x if kids else 0.0
        for kid in kids:
            cash[kid] += give / len(kids)
            inflow[kid] += give / len(kids)
        vcash += x - give
        n = len(urls)
        a = np.array(cash) + vcash / n
        if lemma:
            for i in range(n):
                inflow[i] += vcash / n
        cash = list(a)
        vhist += vcash
        vcash = 0.0
        total = sum(cash) + vcash
        assert abs(total - 1) < 1e-9, f"read {reads}: total cash {total}"
        if lemma:
            lhs = np.array(hist) + np.array(cash)
            rhs = np.array(init) + np.array(inflow)
            assert np.allclose(lhs, rhs, rtol=1e-9, atol=1e-15), \
                f"read {reads}: Lemma 2.3 identity fails"
    if fixed:
        for i in range(len(urls)):
            if expire(i, now):
                hist[i] = sum(m[0] for m in meas[i])
    if k or fixed:
        span = np.maximum(now - np.array(base), 1.0)
    elif window:
        # The window before the last read, as much of it as the page
        # lived, then the time since.
        tl, b = np.array(tlast), np.array(base)
        span = np.maximum(np.minimum(window, tl - b) + (now - tl), 1.0)
    else:
        span = np.ones(len(urls))
    pages = {u: dict(cash=cash[i], hist=hist[i], tlast=tlast[i], base=base[i],
                     meas=meas[i]) for i, u in enumerate(urls)}
    return urls, np.array(cash), np.array(hist), span, pages, now


def close(a, b, rtol=1e-9):
    return np.allclose(a, b, rtol=rtol, atol=1e-15)


def cmd_sim(args):
    opts = dict(c=0.85)
    log = None
    while args[0] in ("-c", "-W", "-k", "-F", "-M", "-t"):
        o, v = args[0], args[1]
        if o == "-t":
            log = v
        else:
            opts[{"-c": "c", "-W": "window", "-k": "k", "-F": "fixed", "-M": "keep"}[o]] = \
                int(v) if o in ("-k", "-M") else float(v)
        args = args[2:]
    state, out, links = args[0], args[1], args[2:]
    gs = groups(read_links(links))
    times = read_fetch_times(log) if log else None
    urls, cash, hist, span, pages, now = simulate(gs, times=times, **opts)
    head, rec = read_state(state)
    policy = "interpolation" if opts.get("window") else "variable" if opts.get("k") \
        else "fixed" if opts.get("fixed") else "plain"
    assert head["policy"] == policy, f"state: policy {head['policy']} != {policy}"
    assert head["unit"] == ("seconds" if log else "reads"), "state: time unit"
    assert head["c"] == opts["c"], "state: c"
    assert head["window"] == opts.get("window", opts.get("fixed", 0)), "state: window"
    assert head["keep"] == opts.get("k", opts.get("keep", 0)), "state: K or min measures"
    assert head["reads"] == len(gs), f"state: {head['reads']} reads, not {len(gs)}"
    assert head["now"] == now, f"state: now {head['now']} != {now}"
    assert abs(sum(r["cash"] for r in rec.values()) + head["vcash"] - 1) < 1e-9, \
        "state: total cash is not 1"
    assert list(rec) == urls, "state: URLs or their order differ"
    for u, p in pages.items():
        r = rec[u]
        assert close([r["cash"], r["hist"]], [p["cash"], p["hist"]]), \
            f"state: {u}: cash, history {r['cash']}, {r['hist']} != {p['cash']}, {p['hist']}"
        assert (r["tlast"], r["base"]) == (p["tlast"], p["base"]), \
            f"state: {u}: times {r['tlast']}, {r['base']} != {p['tlast']}, {p['base']}"
        assert len(r["meas"]) == len(p["meas"]) and all(
            a[1] == b[1] and close(a[0], b[0]) for a, b in zip(r["meas"], p["meas"])), \
            f"state: {u}: measures {r['meas'][:4]}... != {p['meas'][:4]}..."
    score = (hist + cash) / span
    # The lazy spread leaves an absolute error of some 1e-16 on a cash;
    # that error, over a short span, dominates a tiny windowed score.
    slack = 1e-13 / span / score.sum()
    score /= score.sum()
    got = {}
    with open(out) as f:
        for line in f:
            u, v = line.split("\t")
            got[u] = float(v)
    assert list(got) == sorted(got, key=lambda u: u.encode()), "output not sorted"
    assert set(got) == set(urls), "output: URL sets differ"
    for i, u in enumerate(urls):
        assert abs(got[u] - score[i]) <= 1e-8 * score[i] + slack[i], \
            f"output: {u}: {got[u]} != {score[i]}"
    nm = sum(len(p["meas"]) for p in pages.values())
    print(f"{len(urls)} URLs, {len(gs)} reads, {nm} measures agree")


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
    head, rec = read_state(args[0])
    total = sum(r["cash"] for r in rec.values()) + head["vcash"]
    print(f"total cash {total!r}")
    assert abs(total - 1) < 1e-9


def cmd_samestate(args):
    ha, ra = read_state(args[0])
    hb, rb = read_state(args[1])
    for key in ("policy", "unit", "c", "window", "keep", "now", "reads"):
        assert ha[key] == hb[key], f"{key}: {ha[key]} != {hb[key]}"
    assert close([ha["vcash"], ha["vhist"]], [hb["vcash"], hb["vhist"]], 1e-12), \
        "virtual page differs"
    assert list(ra) == list(rb), "URL tables differ"
    for u, a in ra.items():
        b = rb[u]
        assert close([a["cash"], a["hist"]], [b["cash"], b["hist"]], 1e-12), f"{u} differs"
        assert (a["tlast"], a["base"]) == (b["tlast"], b["base"]), f"{u}: times differ"
        assert len(a["meas"]) == len(b["meas"]) and all(
            x[1] == y[1] and close(x[0], y[0], 1e-12) for x, y in zip(a["meas"], b["meas"])), \
            f"{u}: measures differ"
    nm = sum(len(p["meas"]) for p in ra.values())
    print(f"{len(ra)} URLs, {ha['reads']} reads, {nm} measures agree")


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


def cmd_fetchlog(args):
    import random
    rnd = random.Random(int(args[0]))
    t = int(args[1])
    for s, _ in groups(read_links(args[2:])):
        t += rnd.randrange(21)
        print(f"{s}\t{t + rnd.randrange(-30, 31)}\t200\ttext/html\t100\t-\t-\t-\t-\t-\tallow")
        if rnd.random() < 0.1:
            print(f"{s}x\t-\trobots\t-\t-\t-\t-\t-\t-\t-\tdisallow")


def cmd_patch(args):
    path, off, fmt = args[0], int(args[1]), args[2]
    value = float(args[3]) if fmt.endswith("d") else int(args[3])
    b = bytearray(open(path, "rb").read())
    struct.pack_into(fmt, b, off, value)
    struct.pack_into("<I", b, 56, zlib.crc32(b[64:]))
    struct.pack_into("<I", b, 60, zlib.crc32(b[:60]))
    open(path, "wb").write(b)


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
         "cash": cmd_cash, "gen": cmd_gen, "samestate": cmd_samestate,
         "fetchlog": cmd_fetchlog, "patch": cmd_patch}[cmd](args)
    except AssertionError as e:
        print(f"opic-verify: {e}", file=sys.stderr)
        sys.exit(1)


main()
