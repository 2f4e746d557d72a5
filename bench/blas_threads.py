"""Why `cardtable` runs numpy's OpenBLAS with one thread (controller/cli.py).

Recognises the same rendered table (three cards, 1280x720) in child processes with the
machine's default BLAS threads and with OPENBLAS_NUM_THREADS=1, alternating, and prints wall
and CPU ms per recognition and their ratio. Run: ``python bench/blas_threads.py [--rounds 3]``.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

PROBE = r"""
import time
from vision.synthetic import synthetic_profile, render_scene, Placement
from vision.recognise import Recogniser
p = synthetic_profile("french-52"); rec = Recogniser(p)
sc = render_scene(p, [Placement("hearts/7", (400, 300), 10), Placement("spades/9", (700, 350), 80),
                      Placement("clubs/king", (900, 400), 30)], size=(1280, 720), table="wood", seed=2)
rec.recognise(sc.image)
c, w = time.process_time(), time.perf_counter()
for _ in range(5):
    rec.recognise(sc.image)
print((time.perf_counter() - w) / 5 * 1000, (time.process_time() - c) / 5 * 1000)
"""


def run(threads: str | None) -> tuple[float, float]:
    env = dict(os.environ)
    env.pop("OPENBLAS_NUM_THREADS", None)
    if threads:
        env["OPENBLAS_NUM_THREADS"] = threads
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    wall, cpu = map(float, out.stdout.split())
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for r in range(args.rounds):
        (dw, dc), (ow, oc) = run(None), run("1")
        print(f"round {r + 1}: default threads {dw:6.0f} ms wall {dc:6.0f} ms CPU | one thread {ow:6.0f} ms wall "
              f"{oc:6.0f} ms CPU | wall ratio {ow / dw:.2f}")


if __name__ == "__main__":
    main()
