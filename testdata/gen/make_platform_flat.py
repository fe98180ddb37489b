"""Write platform-flat.xml for the utilization trace (jacobi32-platform.trace).

Same machine as platform.xml -- two groups of 16 hosts (alpha, beta), each
host on its own 1.25 GBps NIC link to its group's 10 GBps switch link, the
groups joined by one 125 MBps interconnect, beta-5 at 85% speed -- plus
one router per group (alpha-gw, beta-gw) standing for the switch. It is
written as ONE routing zone: SimGrid 3.32's platform tracing aborts on
nested zones ("container ... already present in all_containers_"), so
regroup_platform.py puts the alpha/beta zones back into the trace.

Options write other machines of the same shape (other group names and
sizes, bandwidths, speed profiles): see --help."""

import argparse

import simgrid_platform as sp

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--hosts", type=int, default=16, help="hosts per group")
ap.add_argument("--names", default="alpha,beta", help="the groups, comma separated")
ap.add_argument("--nic", default="1.25GBps", help="bandwidth of each host's link")
ap.add_argument("--switch", default="10GBps", help="bandwidth of each group's switch link")
ap.add_argument("--interconnect", default="125MBps", help="bandwidth of the link between the groups")
ap.add_argument("--interconnect-latency", default="1ms", help="latency of the link between the groups")
ap.add_argument("--speed", default="1Gf", help="speed of each host")
ap.add_argument("--slow", default="beta-5", help="hosts at 85%% speed, comma separated")
ap.add_argument("--perturb", default="", metavar="WHO:START:END:FACTOR,...",
                help="WHO (a group: all its hosts, or one host) runs at FACTOR times its speed from START to END "
                     "(simulated seconds); several, comma separated")
ap.add_argument("-o", "--output", default="platform-flat.xml")
args = ap.parse_args()
HOSTS = args.hosts
NAMES = tuple(args.names.split(","))
SLOW = set(filter(None, args.slow.split(",")))


def path(src, dst):
    """Links from host or router src to host or router dst."""
    def side(node):
        group, _, idx = node.rpartition("-")
        return group, ([] if idx == "gw" else [f"{node}-nic"])

    (gs, ls), (gd, ld) = side(src), side(dst)
    if gs == gd:
        return ls + [f"{gs}-switch"] + ld
    return ls + [f"{gs}-switch", "interconnect", f"{gd}-switch"] + ld


nodes = [f"{g}-{i}" for g in NAMES for i in range(HOSTS)] + [f"{g}-gw" for g in NAMES]
elements = []
for g in NAMES:
    for i in range(HOSTS):
        elements.append(sp.host(f"{g}-{i}", "0.85Gf" if f"{g}-{i}" in SLOW else args.speed))
elements += [sp.router(f"{g}-gw") for g in NAMES]
for g in NAMES:
    elements += [sp.link(f"{g}-{i}-nic", args.nic, "5us") for i in range(HOSTS)]
    elements.append(sp.link(f"{g}-switch", args.switch, "2us"))
elements.append(sp.link("interconnect", args.interconnect, args.interconnect_latency))
elements += sp.all_routes(nodes, path)
for p in filter(None, args.perturb.split(",")):
    # A speed profile (SimGrid's <trace>): the factor scales the host's speed
    # from START on, back to 1 at END; periodicity -1: played once. One
    # profile per host: SimGrid 3.32 plays a profile connected to several
    # hosts on the first one only.
    target, start, end, factor = p.split(":")
    for h in ([f"{target}-{i}" for i in range(HOSTS)] if target in NAMES else [target]):
        elements.append(f'<trace id="slow-{h}" periodicity="-1">\n0 1.0\n{start} {factor}\n{end} 1.0\n    </trace>')
        elements.append(f'<trace_connect kind="SPEED" trace="slow-{h}" element="{h}"/>')
sp.write_full_zone(args.output, "grid", elements)
