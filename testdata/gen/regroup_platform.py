"""Put the zones back into SimGrid's platform trace of platform-flat.xml.

SimGrid 3.32 writes the platform of a single routing zone as hosts
(HOST), routers (ROUTER) and links (LINK) directly under the root. This
script adds a ZONE container type under the root with the containers
alpha and beta, and moves each host, router and link named "alpha-..."
or "beta-..." under its zone; the interconnect between the zones stays
under the root with its own container type (LINK at depth 1, variables
bandwidth, latency, bandwidth_used redefined for it, and topology link
types to and from it), as Pajé types have a single parent type. Events
are otherwise copied unchanged.
Usage: regroup_platform.py in.trace out.trace [zone,zone,...] (default alpha,beta)
"""

import shlex
import sys

ZONES = ("alpha", "beta")


def main(src_path, out_path, zones=",".join(ZONES)):
    zones = tuple(zones.split(","))
    lines = [l for l in open(src_path) if not l.startswith("#[")]  # command line: temporary paths
    ids, order = {}, []
    for l in lines:
        if l.startswith("%EventDef"):
            w = l.split()
            ids[w[1]] = w[2]
    ev = {v: k for k, v in ids.items()}
    # first pass: container aliases, the interconnect, link ends
    name_of, backbone, ctype = {}, None, {}
    host_types = set()
    starts, ends = {}, {}
    for l in lines:
        if l.startswith("%") or l.startswith("#") or not l.strip():
            continue
        f = shlex.split(l)
        kind = ev[f[0]]
        if kind == "PajeCreateContainer":
            name_of[f[2]] = f[5]
            ctype[f[2]] = f[3]
            if f[5] == "interconnect":
                backbone = f[2]
        elif kind == "PajeStartLink":
            starts[(f[2], f[6])] = f[5]
        elif kind == "PajeEndLink":
            ends[(f[2], f[6])] = f[5]
    assert backbone is not None, "no interconnect link in the trace"
    link_type = ctype[backbone]
    var_of_link = {}  # variable type alias of LINK -> alias for the backbone type
    linktypes = {}  # link type alias -> (start type, end type)
    new_linktype = {}  # (old alias, start is backbone, end is backbone) -> alias
    extra = []
    out = []
    done_header = False
    for l in lines:
        if l.startswith("%") or l.startswith("#") or not l.strip():
            out.append(l)
            continue
        f = shlex.split(l)
        kind = ev[f[0]]
        if not done_header:
            done_header = True
            out.append(f'{ids["PajeDefineContainerType"]} ZONE 0 ZONE\n')
            out.append(f'{ids["PajeDefineContainerType"]} BACKBONE 0 LINK\n')
            for z in zones:
                out.append(f'{ids["PajeCreateContainer"]} 0.000000 {z} ZONE 0 "{z}"\n')
        if kind == "PajeDefineContainerType" and f[2] == "0" and f[3] in ("HOST", "ROUTER", "LINK"):
            f[2] = "ZONE"
        elif kind == "PajeDefineVariableType" and f[2] == link_type:
            alias = f"BACKBONE-{f[1]}"
            var_of_link[f[1]] = alias
            out.append(" ".join([f[0], f[1], f[2], f'"{f[3]}"', f'"{f[4]}"']) + "\n")
            f = [f[0], alias, "BACKBONE", f[3], f[4]]
            out.append(" ".join([f[0], f[1], f[2], f'"{f[3]}"', f'"{f[4]}"']) + "\n")
            continue
        elif kind == "PajeDefineLinkType":
            out.append(l)
            if link_type in (f[3], f[4]):
                for sb, eb in ((True, False), (False, True)):
                    if (sb and f[3] != link_type) or (eb and f[4] != link_type):
                        continue
                    alias = f"{f[1]}-{'B' if sb else 'L'}{'B' if eb else 'L'}"
                    new_linktype[(f[1], sb, eb)] = alias
                    st = "BACKBONE" if sb else f[3]
                    et = "BACKBONE" if eb else f[4]
                    out.append(f'{f[0]} {alias} {f[2]} {st} {et} "{f[5]}-interconnect"\n')
            continue
        elif kind == "PajeCreateContainer":
            name = f[5]
            if f[2] == backbone:
                f[3] = "BACKBONE"
            else:
                zone = name.split("-")[0]
                assert zone in zones, f"container {name} is in no zone"
                f[4] = zone
        elif kind == "PajeDestroyContainer" and f[3] == backbone:
            f[2] = "BACKBONE"
        elif kind in ("PajeSetVariable", "PajeAddVariable", "PajeSubVariable") and f[3] == backbone:
            f[2] = var_of_link[f[2]]
        elif kind in ("PajeStartLink", "PajeEndLink"):
            key = (f[2], f[6])
            sb, eb = starts[key] == backbone, ends[key] == backbone
            if sb or eb:
                f[2] = new_linktype[(f[2], sb, eb)]
        out.append(" ".join(w if w and " " not in w and '"' not in w else '"' + w + '"' for w in f) + "\n")
    with open(out_path, "w") as dst:
        dst.writelines(out)


if __name__ == "__main__":
    main(*sys.argv[1:])
