#!/usr/bin/python3
"""Independent check of wa-schedule (t/wa-schedule.t).

  schedule-verify.py gen N SEED OUT [--new FRACTION] [--xml FRACTION] [--now T]
      writes a random page state of N pages, sorted by URL
  schedule-verify.py check STATE PLAN SUMMARY LIST [wa-schedule options]
      recomputes the optimal frequencies under the cap 1/T by bisection on
      the water level L of f_i = min(cap, L u_i) (not the tool's sorted
      fixed point), the chi scale, the slots of each reason, S, the costs,
      and checks the plan (1e-9 relative), the summary and the fetch list
      (never more than G*T rows, as many as there are candidates up to
      G*T, no URL twice, no page read less than T ago, the right pages).
Prints 'ok' lines; exits 1 with the first difference.
"""
import argparse
import math
import sys

import numpy as np

XML_SUFFIXES = ('.xml', '.rss', '.rdf', '.atom', '.wml', '.xsd', '.dtd', '.xsl',
                '.xslt')
# A few suffixes of non-documents; the whole list is t/unit/test-pagetype.c's.
NOT_DOCUMENT = ('.png', '.jpg', '.gif', '.css', '.js', '.pdf', '.zip', '.svg')
DOCUMENTS = ('html', 'xml', 'dtd', 'noindex')
NEVER_FETCHED = ('-', 'xml-suspect', 'html', 'xml', 'dtd', 'noindex')
DAY = 86400.0
REL = 1e-9


def fail(msg):
    print('not ok: ' + msg)
    sys.exit(1)


def close(a, b, what, rel=REL):
    if a == b:
        return
    if not (abs(a - b) <= rel * max(abs(a), abs(b))):
        fail(f'{what}: {a!r} != {b!r}')


def gen(args):
    rng = np.random.default_rng(args.seed)
    now = args.now
    rows = []
    for i in range(args.n):
        site = rng.integers(0, max(1, args.n // 20) + 1)
        xml = rng.random() < args.xml
        new = rng.random() < args.new
        suffix = '.xml' if xml else '.html'
        url = f'http://s{site}.example/p{i}{suffix}'
        imp = rng.pareto(1.5) + 0.01
        use = rng.pareto(1.5) + 0.01
        lam = math.exp(rng.uniform(math.log(1 / 365), math.log(10)))
        typ = ('xml' if xml else 'html') if not new else '-'
        access = '-' if new else str(now - int(rng.integers(0, 30 * 86400)))
        lam_s = '-' if new else repr(lam)
        use_s = '-' if rng.random() < 0.05 else repr(use)
        cat = '-'
        if args.categories and rng.random() < 0.3:
            cat = 'news' if rng.random() < 0.5 else 'archive'
        rows.append((url, typ, repr(imp), use_s, lam_s, access, cat))
    rows.sort(key=lambda r: r[0].encode())
    with open(args.out, 'w') as f:
        for r in rows:
            f.write('\t'.join(r) + '\n')


def parse_duration(s):
    units = {'s': 1, 'm': 60, 'h': 3600, 'd': 86400}
    if s[-1] in units:
        return float(s[:-1]) * units[s[-1]]
    return float(s)


def path_of(url):
    rest = url.split('://', 1)[1]
    path = rest[rest.find('/'):] if '/' in rest else ''
    return path.split('?', 1)[0].lower()


def suspect(url, typ):
    if typ in ('xml', 'dtd', 'xml-suspect'):
        return True
    if typ != '-':
        return False
    return any(path_of(url).endswith(s) for s in XML_SUFFIXES)


def discoverable(url, typ):
    return typ in NEVER_FETCHED and not any(path_of(url).endswith(s) for s in NOT_DOCUMENT)


def read_tsv(path):
    with open(path, encoding='utf-8') as f:
        return [line.rstrip('\n').split('\t') for line in f if line != '\n']


def check(args):
    G = args.G
    T = parse_duration(args.T) / DAY
    alpha = args.alpha
    now = args.now
    cap = 1 / T
    rows_max = math.floor(G * T)
    cats = {'-': 1.0}
    if args.categories:
        for name, factor in read_tsv(args.categories):
            cats[name] = float(factor)
    overrides = {}
    if args.overrides:
        for url, action, period in read_tsv(args.overrides):
            overrides[url] = (action, None if period == '-' else parse_duration(period))

    state = read_tsv(args.state)
    n = len(state)
    url = [r[0] for r in state]
    typ = [r[1] for r in state]
    xml = np.array([t in ('xml', 'dtd') for t in typ])
    imp = np.array([0.0 if r[2] == '-' else float(r[2]) for r in state])
    use = np.array([math.nan if r[3] == '-' else float(r[3]) for r in state])
    lam = np.array([math.nan if r[4] == '-' else float(r[4]) for r in state])
    access = np.array([-1 if r[5] == '-' else int(r[5]) for r in state], dtype=np.int64)
    factor = np.array([cats[r[6]] for r in state])
    action = [overrides.get(u, (None, None))[0] for u in url]
    period = np.array([overrides.get(u, (None, math.nan))[1] or math.nan for u in url])
    base = np.where(xml | np.isnan(use), imp, use)
    ov_none = np.array([a is None for a in action])
    ov_now = np.array([a == 'now' for a in action])
    ov_period = np.array([a == 'period' for a in action])
    document = np.array([t in DOCUMENTS for t in typ])
    refreshable = document & (access >= 0) & ~np.isnan(lam) & (ov_none | ov_now)
    new = (access < 0) & ov_none & np.array([discoverable(u_, t) for u_, t in zip(url, typ)])
    rested = document & (access >= 0) & ov_none & ((now - access) >= T * DAY)
    sus = np.array([suspect(u, t) for u, t in zip(url, typ)]) & new
    period_is_due = ov_period & ((access < 0) | ((now - access) >= np.nan_to_num(period)))

    # the slots, in the documented order
    left = rows_max
    slots = {}
    for reason, want in (('now', int(ov_now.sum())), ('period', int(period_is_due.sum())),
                         ('discover-xml', min(int(sus.sum()),
                                              math.floor(args.discover_xml / 100 * rows_max))),
                         ('discover-html', min(int((new & ~sus).sum()),
                                               math.floor(args.discover_html / 100 * rows_max)))):
        slots[reason] = min(want, left)
        left -= slots[reason]
    g_refresh = G - float(np.sum(DAY / period[ov_period])) - \
        (slots['now'] + slots['discover-xml'] + slots['discover-html']) / T
    g_refresh = max(g_refresh, 0.0)

    rx = refreshable & xml
    rh = refreshable & ~xml
    scale = args.chi
    if rx.any() and rh.any() and base[rx].sum() > 0 and base[rh].sum() > 0:
        scale = args.chi * base[rh].mean() / base[rx].mean()
    w = base * factor * np.where(xml, scale, 1.0)
    a = np.where(refreshable, w * np.nan_to_num(lam) ** alpha, 0.0)
    u = a ** (1 / (alpha + 1))
    S = float(u.sum())

    # water level by bisection on the bandwidth used, which grows with L
    upos = u[refreshable & (u > 0)]
    if g_refresh <= 0 or upos.size == 0:
        level = 0.0
    elif upos.size * cap <= g_refresh:
        level = math.inf
    else:
        lo, hi = 0.0, g_refresh / upos.min() * 2
        for _ in range(3000):
            mid = (lo + hi) / 2
            used = np.minimum(cap, mid * upos).sum()
            if used < g_refresh:
                lo = mid
            else:
                hi = mid
            if hi - lo <= 1e-15 * hi:
                break
        level = (lo + hi) / 2
    f = np.zeros(n)
    capped = np.zeros(n, dtype=bool)
    for i in np.nonzero(refreshable & (u > 0))[0]:
        if level == 0:
            continue
        if u[i] * level >= cap * (1 + 1e-12):
            capped[i] = True
        f[i] = min(cap, u[i] * level)
    f[ov_period] = DAY / period[ov_period]

    plan = read_tsv(args.plan)
    if [r[0] for r in plan] != url:
        fail('the plan has not one row per page in URL order')
    n_capped = 0
    for i, r in enumerate(plan):
        pf = float(r[1])
        close(pf, f[i], f'f of {url[i]}')
        if capped[i] and r[3] != '1' and abs(f[i] - cap) > REL * cap:
            fail(f'{url[i]} should be capped')
        if r[3] == '1':
            n_capped += 1
            close(pf, cap, f'capped f of {url[i]}')
            if u[i] * level < cap * (1 - 1e-9):
                fail(f'{url[i]} capped but under the cap')
        if f[i] > 0 and access[i] >= 0:
            due = access[i] + DAY / f[i]
            if r[2] == '-' or abs(int(r[2]) - math.ceil(min(due, 253402300799))) > 1:
                fail(f'due of {url[i]}: {r[2]} != {due}')
        elif r[2] != '-':
            fail(f'due of {url[i]} should be -')
    used = float(f[refreshable].sum())
    if level not in (0.0, math.inf):
        close(used, g_refresh, 'bandwidth used by the plan', 1e-9)
    print(f'ok plan: {n} pages, f to 1e-9, {n_capped} capped, sum f = G_refresh')

    summ = dict(read_tsv(args.summary))
    close(float(summ['S']), S, 'S')
    close(float(summ['G-refresh']), g_refresh, 'G-refresh')
    close(float(summ['chi-scale']), scale, 'chi-scale')
    if int(summ['capped']) != n_capped:
        fail('capped count')
    if level > 0 and refreshable.any():
        fr = f[refreshable & (u > 0)]
        cost = float(np.sum(a[refreshable & (u > 0)] * fr ** -alpha) / (alpha + 1))
        close(float(summ['cost']), cost, 'cost')
        nr = int(refreshable.sum())
        fu = min(cap, g_refresh / nr)
        close(float(summ['uniform-cost']), float(a.sum()) * fu ** -alpha / (alpha + 1),
              'uniform-cost')
        close(float(summ['optimum']), S ** (alpha + 1) / ((alpha + 1) * g_refresh ** alpha),
              'optimum')
        if n_capped == 0:
            close(cost, S ** (alpha + 1) / ((alpha + 1) * g_refresh ** alpha),
                  'cost and the analytic optimum with no cap binding')
            print('ok cost = S^(alpha+1)/((alpha+1) G^alpha)')
        if cost > float(summ['uniform-cost']) * (1 + 1e-12):
            fail('the optimal plan costs more than the uniform one')
    print('ok summary: S, G-refresh, chi-scale, capped, cost, uniform-cost, optimum')

    lst = read_tsv(args.list)
    if len(lst) > rows_max:
        fail(f'{len(lst)} rows > G*T = {rows_max}')
    candidates = int(new.sum() + rested.sum() + ov_now.sum() + period_is_due.sum())
    if int(summ['candidates']) != candidates:
        fail(f"candidates {summ['candidates']} != {candidates}")
    if len(lst) != min(rows_max, candidates):
        fail(f'{len(lst)} rows, want min(G*T, candidates) = {min(rows_max, candidates)}')
    position = {u_: i for i, u_ in enumerate(url)}
    for r in lst:
        i = position.get(r[0])
        if i is not None and r[1] in ('refresh', 'discover-xml', 'discover-html') and \
                access[i] >= 0 and now - access[i] < T * DAY:
            fail(f'{r[0]} read {now - access[i]} s ago, less than T')
    seen = set()
    for r in lst:
        if r[0] in seen:
            fail(f'{r[0]} listed twice')
        seen.add(r[0])
    index = {u_: i for i, u_ in enumerate(url)}
    got = {}
    for r in lst:
        got.setdefault(r[1], []).append(r)
    # which pages each reason must hold: the best ones by its key
    to_refresh = refreshable & ov_none & (f > 0) & (access >= 0)
    due_t = np.array([math.ceil(access[i] + DAY / f[i]) if to_refresh[i] else 0
                      for i in range(n)])
    due_refresh = to_refresh & (now >= due_t)
    early = rested & ~due_refresh
    if int(summ['due']) != int(due_refresh.sum()):
        fail(f"due {summ['due']} != {int(due_refresh.sum())}")
    # the slots: overrides, discovery up to its shares, the due pages, more
    # discovery, then the pages nearest to due
    left = rows_max - slots['now'] - slots['period']
    k = {}
    k['discover-xml'] = min(int(sus.sum()), math.floor(args.discover_xml / 100 * rows_max), left)
    left -= k['discover-xml']
    k['discover-html'] = min(int((new & ~sus).sum()),
                             math.floor(args.discover_html / 100 * rows_max), left)
    left -= k['discover-html']
    k['due'] = min(int(due_refresh.sum()), left)
    left -= k['due']
    for reason, mask in (('discover-xml', sus), ('discover-html', new & ~sus)):
        more = min(int(mask.sum()) - k[reason], left)
        k[reason] += more
        left -= more
    k['early'] = min(int(early.sum()), left)
    age = (now - access) / DAY
    early_key = np.where(f > 0, age * f, -1 / (1 + age))
    # a page read in a spare slot is a refresh if it has a frequency (and
    # so a due time), else a reread
    for r in got.get('reread', []):
        if f[index[r[0]]] > 0 or r[3] != '-':
            fail(f'{r[0]}: a reread with a frequency or a due time')
    for r in got.get('refresh', []):
        if r[3] == '-':
            fail(f'{r[0]}: a refresh without a due time')
    listed_refresh = got.get('refresh', []) + got.get('reread', [])
    got['due'] = [r for r in listed_refresh if due_refresh[index[r[0]]]]
    got['early'] = [r for r in listed_refresh if not due_refresh[index[r[0]]]]
    if int(summ['early']) + int(summ['reread']) != len(got['early']):
        fail(f"early {summ['early']} + reread {summ['reread']} != {len(got['early'])}")
    for reason, mask, key, want_n in (
            ('now', ov_now, w, slots['now']),
            ('period', period_is_due,
             np.where(access < 0, math.inf, (now - access) / np.nan_to_num(period, nan=1)),
             slots['period']),
            ('discover-xml', sus, imp, k['discover-xml']),
            ('discover-html', new & ~sus, imp, k['discover-html']),
            ('due', due_refresh, (now - access) * f / DAY, k['due']),
            ('early', early, early_key, k['early'])):
        listed = got.get(reason, [])
        if len(listed) != want_n:
            fail(f'{reason}: {len(listed)} rows, want {want_n}')
        for r in listed:
            i = index.get(r[0])
            if i is None or not mask[i]:
                fail(f'{r[0]} is not a {reason} page')
        if listed:
            worst = min(key[index[r[0]]] for r in listed)
            best_left = max([key[i] for i in np.nonzero(mask)[0] if url[i] not in seen],
                            default=-math.inf)
            if best_left > worst * (1 + 1e-12):
                fail(f'{reason}: a better page was left out')
        print(f'ok {reason}: {len(listed)} rows, the best by its key')
    # sites interleaved: a site's rows are in decreasing priority
    last = {}
    for r in lst:
        site = r[0].split('/')[2]
        if site in last and last[site] < int(r[2]):
            fail(f'{site}: priority grows in its queue')
        last[site] = int(r[2])
    print(f'ok list: {len(lst)} rows <= G*T = {rows_max}, no URL twice, per-site order')


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='cmd', required=True)
    g = sub.add_parser('gen')
    g.add_argument('n', type=int)
    g.add_argument('seed', type=int)
    g.add_argument('out')
    g.add_argument('--new', type=float, default=0.0)
    g.add_argument('--xml', type=float, default=0.3)
    g.add_argument('--now', type=int, default=1700000000)
    g.add_argument('--categories', action='store_true')
    c = sub.add_parser('check')
    for name in ('state', 'plan', 'summary', 'list'):
        c.add_argument(name)
    c.add_argument('-G', type=float, required=True)
    c.add_argument('-T', default='6h')
    c.add_argument('--alpha', type=float, default=0.95)
    c.add_argument('--chi', type=float, default=1.0)
    c.add_argument('--discover-xml', type=float, default=20)
    c.add_argument('--discover-html', type=float, default=20)
    c.add_argument('--now', type=int, required=True)
    c.add_argument('--categories')
    c.add_argument('--overrides')
    args = ap.parse_args()
    if args.cmd == 'gen':
        gen(args)
    else:
        check(args)


if __name__ == '__main__':
    main()
