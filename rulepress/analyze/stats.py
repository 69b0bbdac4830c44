"""The statistics behind every finding (scipy): intervals, tests, and the correction for testing many at once.

A finding is *decided* when its interval lies wholly on one side of the threshold that matters to a designer; the
analysis plays more games (up to a stated budget) while any finding is undecided.  Because it looks at the data
several times as it plays on, and tests many things at each look, every test runs at ``ALPHA`` divided by the
number of looks (Bonferroni over looks) and each family of tests is corrected with Benjamini-Hochberg.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from scipy import stats

ALPHA = 0.05
Z95 = 1.959964


def proportion_interval(successes: int, trials: int, alpha: float = ALPHA) -> tuple[float, float]:
    """The Wilson score interval of a proportion at level ``1 - alpha`` (sound near 0% and 100%)."""
    if trials <= 0:
        return 0.0, 1.0
    found = stats.binomtest(successes, trials).proportion_ci(1 - alpha, method="wilson")
    return max(0.0, float(found.low)), min(1.0, float(found.high))


def upper_bound(successes: int, trials: int, alpha: float = ALPHA) -> float:
    """The exact (Clopper-Pearson) one-sided upper bound of a proportion: with 0 of ``trials`` about 3/trials at
    5% (the "rule of three")."""
    if trials <= 0:
        return 1.0
    if successes >= trials:
        return 1.0
    return float(stats.beta.ppf(1 - alpha, successes + 1, trials - successes))


def lower_bound(successes: int, trials: int, alpha: float = ALPHA) -> float:
    """The exact one-sided lower bound of a proportion."""
    if trials <= 0 or successes <= 0:
        return 0.0
    return float(stats.beta.ppf(alpha, successes, trials - successes + 1))


def binomial_p(successes: int, trials: int, expected: float) -> float:
    """Two-sided exact p-value of ``successes`` in ``trials`` against the share ``expected``."""
    if trials <= 0:
        return 1.0
    expected = min(max(expected, 1e-12), 1 - 1e-12)
    return float(stats.binomtest(successes, trials, expected).pvalue)


def normal_p(difference: float, error: float) -> float:
    """Two-sided p-value of a difference with a normal standard error (0 error: 0 difference is no evidence)."""
    if error <= 0:
        return 1.0 if difference == 0 else 0.0
    return float(2 * stats.norm.sf(abs(difference) / error))


def z_for(alpha: float) -> float:
    """The two-sided normal quantile for level ``1 - alpha``."""
    return float(stats.norm.isf(alpha / 2))


def corrected(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (false discovery rate), in the order given."""
    if not p_values:
        return []
    return [float(p) for p in stats.false_discovery_control(list(p_values), method="bh")]


def mean_difference(n: int, total: float, squares: float) -> tuple[float, float]:
    """The mean of paired differences and its standard error, from their count, sum and sum of squares."""
    if n <= 0:
        return 0.0, 0.0
    mean = total / n
    variance = max(squares / n - mean * mean, 0.0) * n / (n - 1) if n > 1 else 0.0
    return mean, math.sqrt(variance / n)


def correlation(n: float, sxy: float, sxx: float, syy: float, alpha: float = ALPHA) -> tuple[float, float, float]:
    """A correlation of centred values from its sums, and its interval (Fisher's z, ``n`` independent units)."""
    if n < 4 or sxx <= 0 or syy <= 0:
        return 0.0, -1.0, 1.0
    r = max(-0.999999, min(0.999999, sxy / math.sqrt(sxx * syy)))
    half = z_for(alpha) / math.sqrt(n - 3)
    z = math.atanh(r)
    return r, math.tanh(z - half), math.tanh(z + half)
