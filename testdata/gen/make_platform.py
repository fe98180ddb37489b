"""Write platform.xml: two zones (alpha, beta) of 16 hosts each, every
host on its own link to its zone's switch, the zones joined by one slower
link. beta-5 runs at 85% speed. Plain hosts and links (no <cluster>) keep
SimGrid's grouped tracing happy."""

import simgrid_platform as sp

HOSTS = 16


def zone(name, slow=()):
    hosts = [f"{name}-{i}" for i in range(HOSTS)]
    elements = [sp.host(h, "0.85Gf" if i in slow else "1Gf") for i, h in enumerate(hosts)]
    elements += [sp.link(f"{h}-nic", "1.25GBps", "5us") for h in hosts]
    elements.append(sp.link(f"{name}-switch", "10GBps", "2us"))
    elements += sp.all_routes(hosts, lambda a, b: [f"{a}-nic", f"{name}-switch", f"{b}-nic"])
    return sp.zone(name, elements, indent="")


grid = zone("alpha") + zone("beta", slow={5}) + [
    sp.link("interconnect", "125MBps", "1ms"),
    '<zoneRoute src="alpha" dst="beta" gw_src="alpha-0" gw_dst="beta-0"><link_ctn id="interconnect"/></zoneRoute>']
sp.write("platform.xml", sp.zone("grid", grid))
