"""What rocpd-ext compare's paired sections should say (docs/cli.md, "Noise"), computed here from
each run's durations by brute force: medians, the Mann-Whitney p by counting pairs, the verdicts,
the impact and the order."""
import math
import statistics

ALPHA = 0.001
MIN_CALLS = 3


def brute_p(a, b):
    """Two-sided Mann-Whitney p: U by counting the pairs (ties one half), the tie-corrected sigma
    and the continuity correction."""
    u = sum(1.0 if y > x else 0.5 if y == x else 0.0 for x in a for y in b)
    n1, n2 = len(a), len(b)
    n = n1 + n2
    counts = {}
    for v in a + b:
        counts[v] = counts.get(v, 0) + 1
    ties = sum(t ** 3 - t for t in counts.values())
    var = n1 * n2 / 12.0 * ((n + 1) - ties / (n * (n - 1)))
    if var <= 0:
        return 1.0, 0.0
    diff = u - n1 * n2 / 2.0
    z = math.copysign(max(0.0, abs(diff) - 0.5) / math.sqrt(var), diff)
    return math.erfc(abs(z) / math.sqrt(2.0)), z


def expected_rows(ga, gb, scale_a, scale_b):
    """[(name, verdict, p, impact, total_a + total_b)] in the section's order; ga, gb: {name: [durations]},
    scale: steps (or seconds) of each run."""
    rows = []
    for name in set(ga) | set(gb):
        a, b = ga.get(name, []), gb.get(name, [])
        p = impact = None
        if not a or not b:
            verdict = "only in b" if not a else "only in a"
            impact = sum(b) / scale_b if not a else -sum(a) / scale_a
        elif len(a) < MIN_CALLS or len(b) < MIN_CALLS:
            verdict = "too few calls"
        else:
            p, z = brute_p(a, b)
            if p < ALPHA:
                verdict = "slower" if z > 0 else "faster"
                impact = (statistics.median(b) - statistics.median(a)) * (len(a) / scale_a + len(b) / scale_b) / 2
            else:
                verdict = "within noise"
        rows.append((name, verdict, p, impact, sum(a) + sum(b)))
    ranked = sorted((r for r in rows if r[3] is not None), key=lambda r: (-abs(r[3]), r[0]))
    rest = sorted((r for r in rows if r[3] is None), key=lambda r: (-r[4], r[0]))
    return ranked + rest


def same_p(cell, p):
    """The section's p value (3 significant digits) against the brute force's."""
    if p is None:
        return cell in ("", None)
    return math.isclose(float(cell), float(f"{p:.3g}"), rel_tol=2e-3, abs_tol=1e-300)
