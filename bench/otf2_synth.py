"""A synthetic OTF2 archive of a given number of events, for bench/compare.py.

    python bench/otf2_synth.py EVENTS DIR [--ranks 16]

Written with the otf2 Python package (PyPI otf2, the bindings of the OTF2
library): DIR/traces.otf2 with one process of one thread per rank under a
node, each thread a sequence of time steps ("step") holding nested regions
(compute, MPI_Send, MPI_Recv, MPI_Wait drawn with a fixed seed). EVENTS
counts Enter and Leave records alike, so the archive holds EVENTS / 2
regions; the same arguments always give the same archive.
"""

import argparse
import os
import random
import shutil

import otf2
from otf2.enums import Paradigm, RegionRole

INNER = ("compute", "MPI_Send", "MPI_Recv", "MPI_Wait")
PER_STEP = 8        # inner regions per step


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("events", type=int)
    ap.add_argument("dir")
    ap.add_argument("--ranks", type=int, default=16)
    args = ap.parse_args()
    rng = random.Random(1)
    if os.path.exists(args.dir):
        shutil.rmtree(args.dir)
    steps = max(1, args.events // 2 // args.ranks // (PER_STEP + 1))
    with otf2.writer.open(args.dir, timer_resolution=1_000_000_000) as trace:
        defs = trace.definitions
        step = defs.region("step", region_role=RegionRole.LOOP, paradigm=Paradigm.USER)
        inner = [defs.region(name, region_role=RegionRole.FUNCTION,
                             paradigm=Paradigm.MPI if name.startswith("MPI") else Paradigm.USER)
                 for name in INNER]
        machine = defs.system_tree_node("machine")
        node = defs.system_tree_node("node0", parent=machine)
        for rank in range(args.ranks):
            group = defs.location_group(f"rank {rank}", system_tree_parent=node)
            writer = trace.event_writer(f"rank {rank} thread 0", group=group)
            t = 1_000 * rank
            for _ in range(steps):
                writer.enter(t, step)
                t += 10
                for _ in range(PER_STEP):
                    region = inner[rng.randrange(len(inner))]
                    writer.enter(t, region)
                    t += rng.randrange(100, 10_000)
                    writer.leave(t, region)
                    t += 10
                writer.leave(t, step)
                t += 10


if __name__ == "__main__":
    main()
