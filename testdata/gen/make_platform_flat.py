"""Write platform-flat.xml for the utilization trace (jacobi32-platform.trace).

Same machine as platform.xml -- two groups of 16 hosts (alpha, beta), each
host on its own 1.25 GBps NIC link to its group's 10 GBps switch link, the
groups joined by one 125 MBps interconnect, beta-5 at 85% speed -- plus
one router per group (alpha-gw, beta-gw) standing for the switch. It is
written as ONE routing zone: SimGrid 3.32's platform tracing aborts on
nested zones ("container ... already present in all_containers_"), so
regroup_platform.py puts the alpha/beta zones back into the trace."""

HOSTS = 16
NAMES = ("alpha", "beta")


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
out = ["<?xml version='1.0'?>", '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
       '<platform version="4.1">', '  <zone id="grid" routing="Full">']
for g in NAMES:
    for i in range(HOSTS):
        speed = "0.85Gf" if (g, i) == ("beta", 5) else "1Gf"
        out.append(f'    <host id="{g}-{i}" speed="{speed}"/>')
for g in NAMES:
    out.append(f'    <router id="{g}-gw"/>')
for g in NAMES:
    for i in range(HOSTS):
        out.append(f'    <link id="{g}-{i}-nic" bandwidth="1.25GBps" latency="5us"/>')
    out.append(f'    <link id="{g}-switch" bandwidth="10GBps" latency="2us"/>')
out.append('    <link id="interconnect" bandwidth="125MBps" latency="1ms"/>')
for a in range(len(nodes)):
    for b in range(a + 1, len(nodes)):
        links = "".join(f'<link_ctn id="{l}"/>' for l in path(nodes[a], nodes[b]))
        out.append(f'    <route src="{nodes[a]}" dst="{nodes[b]}">{links}</route>')
out += ["  </zone>", "</platform>"]
with open("platform-flat.xml", "w") as f:
    f.write("\n".join(out) + "\n")
