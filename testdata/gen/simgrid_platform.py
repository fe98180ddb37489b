"""Writing the SimGrid platforms of the generated traces.

Every platform here is a zone with Full routing: its hosts, routers and
links, then an explicit route between every pair of nodes (SimGrid 3.32's
platform tracing aborts on nested zones, so the machines' hierarchy is
written into the routes rather than into zones; make_platform.py's two
zones are the one exception). The scripts describe their machines; this
module writes the XML, the same bytes for the same machine."""

HEADER = ["<?xml version='1.0'?>", '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
          '<platform version="4.1">']


def host(name, speed, cores=None):
    """A host computing at speed (such as "1Gf"), with cores cores if given."""
    core = f' core="{cores}"' if cores is not None else ""
    return f'<host id="{name}" speed="{speed}"{core}/>'


def router(name):
    return f'<router id="{name}"/>'


def link(name, bandwidth, latency, bandwidth_file=None):
    """A link; bandwidth_file names a bandwidth profile next to the platform."""
    profile = f' bandwidth_file="{bandwidth_file}"' if bandwidth_file else ""
    return f'<link id="{name}" bandwidth="{bandwidth}" latency="{latency}"{profile}/>'


def route(src, dst, links):
    """The route from src to dst through links, in order."""
    ctn = "".join(f'<link_ctn id="{name}"/>' for name in links)
    return f'<route src="{src}" dst="{dst}">{ctn}</route>'


def all_routes(nodes, path):
    """A route for every pair of nodes, in their order: path(a, b) lists the
    links from a to b."""
    return [route(a, b, path(a, b)) for i, a in enumerate(nodes) for b in nodes[i + 1:]]


def hierarchy_path(where):
    """path(a, b) for machines placed in a hierarchy, where[host] = (site,
    cluster): each machine's NIC to its cluster's switch; clusters joined
    through their uplinks, sites through their WAN links."""
    def path(a, b):
        (sa, ca), (sb, cb) = where[a], where[b]
        links = [f"{a}-nic", f"{ca}-switch"]
        if ca != cb:
            links.append(f"{ca}-uplink")
            if sa != sb:
                links += [f"{sa}-wan", f"{sb}-wan"]
            links += [f"{cb}-uplink", f"{cb}-switch"]
        return links + [f"{b}-nic"]
    return path


def zone(name, elements, indent="  "):
    """The lines of a zone with Full routing holding elements (lines), at
    indent."""
    inner = indent + "  "
    return [f'{indent}<zone id="{name}" routing="Full">'] + [inner + e for e in elements] + [f"{indent}</zone>"]


def write(path, body):
    """Writes the platform whose body (lines inside <platform>) is given."""
    with open(path, "w") as f:
        f.write("\n".join(HEADER + body + ["</platform>"]) + "\n")


def write_full_zone(path, name, elements):
    """Writes a platform of one zone with Full routing holding elements."""
    write(path, zone(name, elements))
