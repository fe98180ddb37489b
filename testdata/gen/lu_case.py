"""The machines of Ocelotl's case C (Dosimont et al. 2014, section V.B,
Figure 4): NAS LU class C on 700 processes of three clusters of Grid'5000's
Nancy site, for lu.c under SMPI.

  lu_case.py platform OUT   the SimGrid platform (one Full zone) and, next
                            to it, its bandwidth profiles (*.profile)
  lu_case.py hostfile OUT   line r: the host of rank r
  lu_case.py args           lu's arguments

Graphene: 26 machines of 4 cores on Infiniband-20G; Graphite: 4 machines of
16 cores on 10 Gigabit Ethernet; Griffon: 67 machines of 8 cores on
Infiniband-20G (the paper's Table II). Ranks fill the machines in that
order, one per core: 104 on Graphene, 64 on Graphite, 532 on Griffon (its
last machine holds 4), on a 28 x 25 grid (rows 0-3 Graphene, 3-5 Graphite,
6-24 Griffon). Each machine has its own link to its cluster's switch; the
three switches reach the site's router by 10 GbE uplinks. Cores compute at
1.0 (Graphene), 1.1 (Graphite) and 0.8 (Griffon) Gflop/s.

Ours, to stand for what the paper reports: Graphite's Ethernet under TCP is
slow and irregular (100 us per NIC; each machine's NIC gets a share of its
bandwidth drawn once, times a factor redrawn every 25 ms, from generators
seeded with the machine's name); Griffon's switch is shared with machines
that are not ours (the paper's explanation): from PERTURB_START to
PERTURB_END its bandwidth drops to PERTURB_SHARE of its capacity."""

import os
import random
import sys

import simgrid_platform as sp

# cluster -> (machines, cores per machine, core speed, NIC bandwidth, NIC latency, switch bandwidth)
CLUSTERS = {
    "graphene": (26, 4, "1.0Gf", "2GBps", "2us", "40GBps"),
    "graphite": (4, 16, "1.1Gf", "1.25GBps", "100us", "10GBps"),
    "griffon": (67, 8, "0.8Gf", "2GBps", "2us", "40GBps"),
}
PROCESSES = 700
GRID = (28, 25)  # PX columns, PY rows: rank = row * PX + column
NITER, KB = 40, 8  # INORM = NITER: the norms at the end only, as class C
UPLINK = "1.25GBps"
PERTURBED = "griffon"
PERTURB_START, PERTURB_END, PERTURB_SHARE = 2.9, 2.98, 0.01
# Graphite's 10 GbE under TCP: each machine's NIC gets a share of its
# bandwidth, drawn uniformly in ETHERNET_MACHINE by a generator seeded with
# the machine's name, and every ETHERNET_PERIOD until ETHERNET_END that
# share times a factor drawn uniformly in ETHERNET_JITTER.
ETHERNET = "graphite"
ETHERNET_MACHINE, ETHERNET_JITTER = (0.2, 1.0), (0.3, 1.0)
ETHERNET_PERIOD, ETHERNET_END = 0.025, 10.0


def layout():
    """[(cluster, host)] per rank."""
    ranks = []
    for cluster, (machines, cores, *_) in CLUSTERS.items():
        for i in range(machines):
            ranks += [(cluster, f"{cluster}-{i}")] * cores
    return ranks[:PROCESSES]


def bandwidth(text):
    """Bytes per second of a SimGrid bandwidth such as 40GBps."""
    for unit, scale in (("GBps", 1e9), ("MBps", 1e6), ("kBps", 1e3), ("Bps", 1)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * scale
    raise ValueError(text)


def platform(out):
    ranks = layout()
    hosts, where, cores = [], {}, {}
    for cluster, host in ranks:
        if host not in where:
            hosts.append(host)
            where[host] = cluster
        cores[host] = cores.get(host, 0) + 1
    elements = [sp.host(h, CLUSTERS[where[h]][2], cores[h]) for h in hosts]
    for h in hosts:
        _, _, _, nic, lat, _ = CLUSTERS[where[h]]
        elements.append(sp.link(f"{h}-nic", nic, lat, f"{h}-nic.profile" if where[h] == ETHERNET else None))
    for c, (*_, switch) in CLUSTERS.items():
        elements.append(sp.link(f"{c}-switch", switch, "1us", f"{c}-switch.profile" if c == PERTURBED else None))
        elements.append(sp.link(f"{c}-uplink", UPLINK, "10us"))
    # One site: clusters meet through their uplinks.
    elements += sp.all_routes(hosts, sp.hierarchy_path({h: ("nancy", where[h]) for h in hosts}))
    sp.write_full_zone(out, "nancy", elements)
    # A profile gives the link's bandwidth in bytes per second from each
    # date on, played once; SimGrid finds it next to the platform.
    def profile(name, steps):
        with open(os.path.join(os.path.dirname(out), f"{name}.profile"), "w") as f:
            f.write("".join(f"{t:.6g} {v:.6g}\n" for t, v in steps))

    full = bandwidth(CLUSTERS[PERTURBED][5])
    profile(f"{PERTURBED}-switch", [(0, full), (PERTURB_START, full * PERTURB_SHARE), (PERTURB_END, full)])
    for h in hosts:
        if where[h] == ETHERNET:
            draw = random.Random(h)
            nic = bandwidth(CLUSTERS[ETHERNET][3]) * draw.uniform(*ETHERNET_MACHINE)
            steps = int(round(ETHERNET_END / ETHERNET_PERIOD))
            profile(f"{h}-nic", [(k * ETHERNET_PERIOD, nic * draw.uniform(*ETHERNET_JITTER)) for k in range(steps)])

if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "platform":
        platform(sys.argv[2])
    elif cmd == "hostfile":
        with open(sys.argv[2], "w") as f:
            f.write("".join(host + "\n" for _, host in layout()))
    elif cmd == "args":
        print(*GRID, NITER, KB, NITER)
    else:
        sys.exit(__doc__)
