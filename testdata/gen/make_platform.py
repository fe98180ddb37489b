"""Write platform.xml: two zones (alpha, beta) of 16 hosts each, every
host on its own link to its zone's switch, the zones joined by one slower
link. beta-5 runs at 85% speed. Plain hosts and links (no <cluster>) keep
SimGrid's grouped tracing happy."""

HOSTS = 16


def zone(name, slow=()):
    lines = [f'    <zone id="{name}" routing="Full">']
    for i in range(HOSTS):
        speed = "0.85Gf" if i in slow else "1Gf"
        lines.append(f'      <host id="{name}-{i}" speed="{speed}"/>')
    for i in range(HOSTS):
        lines.append(f'      <link id="{name}-{i}-nic" bandwidth="1.25GBps" latency="5us"/>')
    lines.append(f'      <link id="{name}-switch" bandwidth="10GBps" latency="2us"/>')
    for i in range(HOSTS):
        for j in range(i + 1, HOSTS):
            lines.append(f'      <route src="{name}-{i}" dst="{name}-{j}"><link_ctn id="{name}-{i}-nic"/>'
                         f'<link_ctn id="{name}-switch"/><link_ctn id="{name}-{j}-nic"/></route>')
    lines.append("    </zone>")
    return lines


out = ["<?xml version='1.0'?>", '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
       '<platform version="4.1">', '  <zone id="grid" routing="Full">']
out += zone("alpha") + zone("beta", slow={5})
out += ['    <link id="interconnect" bandwidth="125MBps" latency="1ms"/>',
        '    <zoneRoute src="alpha" dst="beta" gw_src="alpha-0" gw_dst="beta-0"><link_ctn id="interconnect"/></zoneRoute>',
        "  </zone>", "</platform>"]
with open("platform.xml", "w") as f:
    f.write("\n".join(out) + "\n")
