"""The hold model and the lease pattern of bench/kernel_hold.cpp, in SimPy (issue 15).

Run by bench/side-by-side.sh with Debian's python3-simpy3 (/usr/bin/python3). Prints one line
per variant, as bench_kernel_hold does: "NAME events N wall S s R M events/s".

hold:  10,000 processes, each waiting an exponential time (mean 1 ms) again and again; one
       event is one timeout processed.
reset: 10,000 lease holders, each renewing after an exponential time (mean 1 ms); a renewal
       interrupts the holder's deadline process, which waits 15 ms and is reset before it
       fires (SimPy cannot cancel a timeout: the interrupt abandons it). One event is one
       renewal.
Random draws use Python's own generator: a benchmark, not a simulation result.
"""
import random
import sys
import time

import simpy

PENDING = 10_000
MEAN = 1e-3  # seconds
DEADLINE = 15e-3


def hold(steps):
    env = simpy.Environment()
    rng = random.Random(1)
    count = [0]

    def proc():
        while True:
            yield env.timeout(rng.expovariate(1.0 / MEAN))
            count[0] += 1

    for _ in range(PENDING):
        env.process(proc())
    # Each simulated second runs about PENDING / MEAN timeouts.
    until = steps * MEAN / PENDING
    start = time.perf_counter()
    env.run(until=until)
    return count[0], time.perf_counter() - start


def reset(steps):
    env = simpy.Environment()
    rng = random.Random(1)
    count = [0]

    def deadline():
        while True:
            try:
                yield env.timeout(DEADLINE)
            except simpy.Interrupt:
                pass  # reset: wait a whole deadline again

    def holder(timer):
        while True:
            yield env.timeout(rng.expovariate(1.0 / MEAN))
            timer.interrupt()
            count[0] += 1

    for _ in range(PENDING):
        env.process(holder(env.process(deadline())))
    until = steps * MEAN / PENDING
    start = time.perf_counter()
    env.run(until=until)
    return count[0], time.perf_counter() - start


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000_000
    for name, variant in (("simpy hold", hold), ("simpy reset", reset)):
        events, seconds = variant(steps)
        print(f"{name:<12} events {events:9d}  wall {seconds:6.3f} s  "
              f"{events / seconds / 1e6:6.2f} M events/s")


if __name__ == "__main__":
    main()
