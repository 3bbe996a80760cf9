#!/usr/bin/python3
"""Independent check of wa-lambda (t/wa-lambda.t), with numpy and scipy.

  gen SEED N HISTORY            random histories from Poisson changes
  check HISTORY OUTPUT [--prior A,B] [--literal] [--overrides FILE] [--rtol R]
                                recomputes every row, 1e-9 relative by default
  long SEED N HISTORY           one page of N observations, random intervals
  simulate SEED N KIND HISTORY TRUTH
                                N pages of known rates; KIND is ml, lastmod
                                or rare (lastmod, visits far faster than changes)
  consistency TRUTH OUTPUT ESTIMATOR MIN_RATIO MAX_RATIO
                                median of lambda/truth within the bounds, and
                                the 90% intervals cover the truth 84-96% of the time

The estimators are written here from the formulas in man/wa-lambda.1 (Preda,
"Data Acquisition for an XML Warehouse", 2000, eq. 4.1 and 4.2; Cho and
Garcia-Molina's bias-reduced form), with scipy's brentq, gamma.ppf and
chi2.ppf in place of wa-lambda's own solvers.
"""
import math
import sys

import numpy as np
from scipy import optimize, stats

DAY = 86400.0
CHI2 = stats.chi2.ppf(0.90, 1)


def read_history(path):
    pages = {}
    order = []
    with open(path) as f:
        for line in f:
            url, t, changed, lm = line.rstrip('\n').split('\t')[:4]
            if url not in pages:
                pages[url] = []
                order.append(url)
            pages[url].append((int(t), changed, None if lm == '-' else int(lm)))
    return order, pages


def summarise(obs):
    """Statistics of one page, from the definitions in wa-lambda(1)."""
    s = {'obs': len(obs), 'c': [], 'v': 0.0, 'ml_n': 0}
    lm_ok = all(o[2] is not None for o in obs)
    lm_n = lm_x = 0
    lm_t = 0.0
    t0, _, d0 = obs[0]
    lit_c, lit_l = (1, max(0, t0 - d0) / DAY) if d0 is not None else (0, 0.0)
    for (tp, _, _), (t, ch, d) in zip(obs, obs[1:]):
        length = (t - tp) / DAY
        if ch == '1':
            s['c'].append(length)
            s['ml_n'] += 1
        elif ch == '0':
            s['v'] += length
            s['ml_n'] += 1
        if lm_ok:
            changed = d > tp
            if (ch == '1') != changed and ch != '-':
                lm_ok = False
                continue
            lm_n += 1
            if changed:
                age = max(0, t - d) / DAY
                lm_x += 1
                lm_t += age
                lit_c += 1
                lit_l += age
            else:
                lm_t += length
    s.update(lm_ok=lm_ok, lm_n=lm_n, lm_x=lm_x, lm_t=lm_t, lit_c=lit_c, lit_l=lit_l)
    return s


def gamma_interval(a, b):
    return (stats.gamma.ppf(0.05, a, scale=1 / b),
            stats.gamma.ppf(0.95, a, scale=1 / b))


def log_post(x, c, v, a, b):
    return ((a - 1) * math.log(x) - (v + b) * x +
            math.fsum(np.log(-np.expm1(-c * x))))


def mode(c, v, a, b):
    def deriv(x):
        return (a - 1) / x - (v + b) + math.fsum(c / np.expm1(c * x))
    lo, hi = 1e-12, 1.0
    while deriv(hi) > 0:
        hi *= 2
    return optimize.brentq(deriv, lo, hi, xtol=1e-300, rtol=1e-15, maxiter=1000)


def lr_interval(c, v, a, b, xhat):
    top = log_post(xhat, c, v, a, b) - CHI2 / 2

    def f(x):
        return log_post(x, c, v, a, b) - top
    lo = xhat / 2
    while f(lo) > 0:
        lo /= 2
    hi = xhat * 2
    while f(hi) > 0:
        hi *= 2
    return (optimize.brentq(f, lo, xhat, xtol=1e-300, rtol=1e-15, maxiter=1000),
            optimize.brentq(f, xhat, hi, xtol=1e-300, rtol=1e-15, maxiter=1000))


def estimate(s, a, b, literal):
    """(lambda, estimator, n, changes, lower, upper, flags)"""
    flags = []
    if s['obs'] == 1:
        flags.append('single')
    if s['lm_ok']:
        n, x, t = s['lm_n'], s['lm_x'], s['lm_t']
        if literal:
            if x == 0 and n > 0:
                flags.insert(0, 'none-changed')
            c, l = s['lit_c'], s['lit_l']
            if l > 0:
                return (c / l, 'lastmod-literal', n, c) + gamma_interval(c + 0.5, l) + (flags,)
            return ((a + c) / b, 'prior', n, c) + gamma_interval(a + c, b) + (flags,)
        if n == 0:
            return (a / b, 'prior', n, x) + gamma_interval(a, b) + (flags,)
        if x == 0:
            flags.insert(0, 'none-changed')
            return (a / (b + t), 'prior', n, x) + gamma_interval(a, b + t) + (flags,)
        if x == n:
            flags.insert(0, 'all-changed')
        if (x == n and n < 2) or t <= 0:
            return ((a + x) / (b + t), 'prior', n, x) + gamma_interval(a + x, b + t) + (flags,)
        lo, hi = gamma_interval(x + 0.5, t)
        if x == n:
            lam = (x - 1) / t
        else:
            lam = ((x - 1) - x / (n * math.log(1 - x / n))) / t
        return lam, 'lastmod', n, x, lo, hi, flags
    c, v, n = s['c'], s['v'], s['ml_n']
    if n == 0:
        if 'single' not in flags:
            flags.append('single')
        return (a / b, 'prior', n, 0) + gamma_interval(a, b) + (flags,)
    if not c:
        flags.insert(0, 'none-changed')
        return (a / (b + v), 'prior', n, 0) + gamma_interval(a, b + v) + (flags,)
    if v == 0:
        flags.insert(0, 'all-changed')
        c = np.array(c)
        x = mode(c, v, a, b)
        return (x, 'prior', n, len(c)) + lr_interval(c, v, a, b, x) + (flags,)
    c = np.array(c)
    x = mode(c, v, 1, 0)
    return (x, 'ml', n, len(c)) + lr_interval(c, v, 1, 0, x) + (flags,)


def fit_prior(stats_list):
    """Gamma-Poisson moments on crude rates X_i / E_i (wa-lambda(1))."""
    xs, es = [], []
    for s in stats_list:
        if s['lm_ok']:
            x, e = s['lm_x'], s['lm_t']
        else:
            x, e = len(s['c']), s['v'] + sum(s['c'])
        if e > 0:
            xs.append(x)
            es.append(e)
    xs, es = np.array(xs, float), np.array(es, float)
    if len(xs) == 0 or xs.sum() == 0:
        return 1.0, 7.0
    r = xs / es
    m = r.mean()
    v = np.mean((r - m) ** 2) - np.mean(r / es)
    shape = m * m / v if v > 0 else 100.0
    shape = min(100.0, max(0.05, shape))
    return shape, shape / m


RTOL = 1e-9


def close(got, want, what):
    if not math.isclose(got, want, rel_tol=RTOL, abs_tol=1e-300):
        sys.exit('%s: got %.17g, want %.17g (relative %.3g)' %
                 (what, got, want, abs(got - want) / abs(want)))


def check(args):
    hist, output = args[0], args[1]
    prior, literal, overrides = None, False, {}
    rest = args[2:]
    while rest:
        opt = rest.pop(0)
        if opt == '--prior':
            prior = tuple(float(v) for v in rest.pop(0).split(','))
        elif opt == '--rtol':
            global RTOL
            RTOL = float(rest.pop(0))
        elif opt == '--literal':
            literal = True
        elif opt == '--overrides':
            with open(rest.pop(0)) as f:
                for line in f:
                    url, lam = line.rstrip('\n').split('\t')[:2]
                    overrides[url] = float(lam)
        else:
            sys.exit('unknown option ' + opt)
    order, pages = read_history(hist)
    summaries = {u: summarise(pages[u]) for u in order}
    a, b = prior if prior else fit_prior(summaries.values())
    want = {}
    for u in order:
        want[u] = list(estimate(summaries[u], a, b, literal))
        want[u][2] = summaries[u]['obs']
    for u, lam in overrides.items():
        if u in want:
            want[u][0] = want[u][4] = want[u][5] = lam
            want[u][1] = 'override'
        else:
            want[u] = [lam, 'override', 0, 0, lam, lam, ['no-observation']]
    got = []
    with open(output) as f:
        for line in f:
            got.append(line.rstrip('\n').split('\t'))
    urls = [row[0] for row in got]
    if urls != sorted(want, key=lambda s: s.encode()):
        sys.exit('URLs differ from the history: %d rows, want %d' % (len(urls), len(want)))
    for row in got:
        w = want[row[0]]
        what = row[0]
        if row[2] != w[1] or int(row[3]) != w[2] or int(row[4]) != w[3]:
            sys.exit('%s: got %s, want estimator %s n %d changes %d' %
                     (what, row[2:5], w[1], w[2], w[3]))
        flags = ','.join(w[6]) or '-'
        if row[7] != flags:
            sys.exit('%s: flags %s, want %s' % (what, row[7], flags))
        close(float(row[1]), w[0], what + ' lambda')
        close(float(row[5]), w[4], what + ' lower')
        close(float(row[6]), w[5], what + ' upper')
        lam, lo, hi = float(row[1]), float(row[5]), float(row[6])
        if not (0 < lam < math.inf and 0 < lo <= hi < math.inf):
            sys.exit('%s: not finite and positive: %s' % (what, row))
    print('%d rows agree (prior %.6g,%.6g)' % (len(got), a, b))


def poisson_page(rng, lam, times, lastmod):
    """Rows of one page: the change process runs from before the first visit."""
    rows = []
    t_prev = None
    last_change = times[0] - rng.exponential(1 / lam) * DAY
    for t in times:
        changed = False
        if t_prev is not None:
            s = t_prev
            while True:
                s += rng.exponential(1 / lam) * DAY
                if s > t:
                    break
                last_change = s
                changed = True
        ch = '-' if t_prev is None else ('1' if changed else '0')
        lm = '%d' % math.ceil(last_change) if lastmod else '-'
        rows.append((t, ch, lm))
        t_prev = t
    return rows


def write_pages(path, pages):
    with open(path, 'w') as f:
        for url in sorted(pages, key=lambda s: s.encode()):
            for t, ch, lm in pages[url]:
                f.write('%s\t%d\t%s\t%s\n' % (url, t, ch, lm))


def gen(args):
    rng = np.random.default_rng(int(args[0]))
    n = int(args[1])
    pages = {}
    for i in range(n):
        lam = math.exp(rng.uniform(math.log(0.01), math.log(10)))
        nobs = int(rng.integers(1, 30))
        gap = math.exp(rng.uniform(math.log(0.05), math.log(10)))
        t = 1.7e9 + rng.uniform(0, DAY)
        times = []
        for _ in range(nobs):
            times.append(int(t))
            t += max(1.0, rng.exponential(gap) * DAY)
        times = sorted(set(times))
        kind = rng.integers(0, 4)
        rows = poisson_page(rng, lam, times, kind != 0)
        if kind == 2 and len(rows) > 2:
            # an unknown change state in the middle, and a missing date
            j = int(rng.integers(1, len(rows)))
            rows[j] = (rows[j][0], '-', '-')
        if kind == 3 and len(rows) > 2:
            # a Last-Modified that disagrees with the digest
            j = int(rng.integers(1, len(rows)))
            rows[j] = (rows[j][0], '0' if rows[j][1] == '1' else '1', rows[j][2])
        pages['http://h%d.example/p%d' % (i % 7, i)] = rows
    write_pages(args[2], pages)


def long_page(args):
    """One page with more distinct interval lengths than wa-lambda keeps."""
    rng = np.random.default_rng(int(args[0]))
    n = int(args[1])
    t = 1.7e9
    with open(args[2], 'w') as f:
        for i in range(n):
            ch = '-' if i == 0 else ('1' if rng.random() < 0.5 else '0')
            f.write('http://long.example/\t%d\t%s\t-\n' % (t, ch))
            t += int(rng.integers(1, 10 ** 6))


def simulate(args):
    rng = np.random.default_rng(int(args[0]))
    n, kind = int(args[1]), args[2]
    pages, truth = {}, {}
    for i in range(n):
        lam = math.exp(rng.uniform(math.log(0.05), math.log(5)))
        # Visits irregular, 300 of them, about one per 1/lambda
        # (rare: one per 1/(20 lambda), where eq. 4.2 goes wrong).
        gap = 1 / lam if kind != 'rare' else 1 / (20 * lam)
        t = 1.7e9
        times = []
        for _ in range(300):
            times.append(int(t))
            t += max(1.0, rng.uniform(0.2, 1.8) * gap * DAY)
        url = 'http://sim.example/%05d' % i
        pages[url] = poisson_page(rng, lam, times, kind != 'ml')
        truth[url] = lam
    write_pages(args[3], pages)
    with open(args[4], 'w') as f:
        for url in sorted(truth):
            f.write('%s\t%.17g\n' % (url, truth[url]))


def consistency(args):
    truth = {}
    with open(args[0]) as f:
        for line in f:
            u, lam = line.split('\t')
            truth[u] = float(lam)
    want_est, lo_bound, hi_bound = args[2], float(args[3]), float(args[4])
    ratios, covered = [], 0
    with open(args[1]) as f:
        for line in f:
            row = line.rstrip('\n').split('\t')
            if row[2] != want_est:
                sys.exit('%s: estimator %s, want %s' % (row[0], row[2], want_est))
            lam = truth[row[0]]
            ratios.append(float(row[1]) / lam)
            covered += float(row[5]) <= lam <= float(row[6])
    med = float(np.median(ratios))
    cov = covered / len(ratios)
    print('median ratio %.4f, coverage %.3f over %d pages' % (med, cov, len(ratios)))
    if not lo_bound <= med <= hi_bound:
        sys.exit('median ratio %.4f outside [%g, %g]' % (med, lo_bound, hi_bound))
    if want_est != 'lastmod-literal' and not 0.84 <= cov <= 0.96:
        sys.exit('coverage %.3f outside [0.84, 0.96]' % cov)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    {'gen': gen, 'check': check, 'simulate': simulate, 'long': long_page,
     'consistency': consistency}[cmd](args)


if __name__ == '__main__':
    main()
