"""Time of the Markov capacity computation (after import), median of repeats.

Run: .venv/bin/python bench/bench_analytic.py
"""

import statistics
import time

from ibsec.models import markov


def median_ms(call, repeats=21):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    cases = [
        ("capacity x=1024, BT/origin2000 duty 0.095, p=0.9", lambda: markov.capacity(1024, 2.0, 19.0526, 0.9)),
        ("capacity x=128, FT/origin2000 duty 0.25, p=0.9", lambda: markov.capacity(128, 8.0, 24.0, 0.9)),
        ("capacity x=10^6, duty 0.05, p=0.9 (n ~ 2e7)", lambda: markov.capacity(1_000_000, 1.0, 19.0, 0.9)),
        ("hit-rate estimate x=1024, n=10^7", lambda: markov.hit_rate_estimate(1024, 10_000_000, 1.0, 19.0)),
    ]
    for name, call in cases:
        print(f"{name:<52} {median_ms(call):8.3f} ms")


if __name__ == "__main__":
    main()
