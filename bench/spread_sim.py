#!/usr/bin/env python3
"""Simulation (not a test, standard library only): how three spreading rules share requests among
three deployments of weights 1,1,2 and mean latencies 80, 100 and 120 ms (log-normal jitter), at 5
and 50 req/s Poisson, 20,000 requests: smooth weighted round robin (what the gateway does),
power of two choices by weight scored on live latency times requests in flight, and least busy
(ties to the first listed). Run: python3 bench/spread_sim.py
"""
import heapq, random, statistics
W = [1, 1, 2]
LAT = [0.080, 0.100, 0.120]  # mean service time, s
def run(policy, rate=50.0, n=20000, seed=1):
    rng = random.Random(seed)
    t, inflight, done, ewma, cur = 0.0, [0, 0, 0], [], [None] * 3, [0, 0, 0]
    counts = [0, 0, 0]
    for _ in range(n):
        t += rng.expovariate(rate)
        while done and done[0][0] <= t:
            _, d, took = heapq.heappop(done)
            inflight[d] -= 1
            ewma[d] = took if ewma[d] is None else 0.9 * ewma[d] + 0.1 * took
        if policy == "swrr":
            total = sum(W)
            for i in range(3): cur[i] += W[i]
            d = max(range(3), key=lambda i: (cur[i], -i)); cur[d] -= total
        elif policy == "p2c":
            a, b = rng.choices(range(3), weights=W, k=2)
            while b == a: b = rng.choices(range(3), weights=W)[0]
            score = lambda i: (ewma[i] or 0.0) * (inflight[i] + 1)
            d = a if score(a) <= score(b) else b
        else:  # least busy, ties to the first listed
            d = min(range(3), key=lambda i: (inflight[i], i))
        counts[d] += 1; inflight[d] += 1
        took = rng.lognormvariate(0, 0.3) * LAT[d]
        heapq.heappush(done, (t + took, d, took))
    shares = [100 * c / n for c in counts]
    want = [100 * w / sum(W) for w in W]
    return shares, max(abs(s - w) for s, w in zip(shares, want))
for p in ["swrr", "p2c", "least_busy"]:
    for rate in (5.0, 50.0):
        s, dev = run(p, rate)
        print(f"{p:10} {rate:4.0f} req/s: shares {', '.join(f'{x:.1f}%' for x in s)} (weights 25/25/50), off by up to {dev:.1f} points")
