"""Turn SMPI's flat Pajé trace (one container per rank under the root)
into a hierarchical one: zone > host > rank, following the hostfile
placement, and mark the time a rank spends outside MPI as a "Compute"
state (the program only computes there, through smpi_execute_flops).
With --no-links, the point-to-point messages (Pajé links) are left out.

SimGrid 3.32's own grouped tracing (-trace-grouped) aborts on these
platforms, hence this step. Usage: regroup.py flat.trace hostfile out.trace [--no-links]
"""

import shlex
import sys


def main(flat, hostfile, out, *opts):
    drop_links = "--no-links" in opts
    hosts = [h.strip() for h in open(hostfile) if h.strip()]
    ids = {}  # event name -> id
    defining = None
    created_hosts = set()
    rank_alias = {}
    with open(flat) as src, open(out, "w") as dst:
        header_done = False
        for line in src:
            if line.startswith("#["):
                continue  # SimGrid's command line: temporary paths, not data
            if line.startswith("#") or not line.strip():
                dst.write(line)
                continue
            if line.startswith("%"):
                words = line[1:].split()
                if words and words[0] == "EventDef":
                    defining = words[1]
                    ids[defining] = words[2]
                dst.write(line)
                continue
            fields = shlex.split(line) if '"' in line else line.split()  # shlex is slow
            if drop_links and fields[0] in (ids["PajeStartLink"], ids["PajeEndLink"]):
                continue
            if not header_done:
                header_done = True
                dst.write(f'{ids["PajeDefineContainerType"]} ZONE 0 ZONE\n')
                dst.write(f'{ids["PajeDefineContainerType"]} HOST ZONE HOST\n')
            ev = fields[0]
            if ev == ids["PajeDefineContainerType"] and fields[3] == "MPI":
                line = f"{ev} {fields[1]} HOST MPI\n"
            elif ev == ids["PajeDefineStateType"] and fields[3] == "MPI_STATE":
                dst.write(line)
                line = f'{ids["PajeDefineEntityValue"]} COMPUTE {fields[1]} Compute "0.6 0.8 0.6"\n'
                state_type = fields[1]
            elif ev == ids["PajeCreateContainer"] and fields[5].startswith("rank-"):
                time, alias, ctype, _, name = fields[1:6]
                host = hosts[int(name[len("rank-"):])]
                zone = host.rsplit("-", 1)[0]
                if zone not in created_hosts:
                    created_hosts.add(zone)
                    dst.write(f'{ev} {time} {zone} ZONE 0 "{zone}"\n')
                if host not in created_hosts:
                    created_hosts.add(host)
                    dst.write(f'{ev} {time} {host} HOST {zone} "{host}"\n')
                rank_alias[alias] = name
                dst.write(f'{ev} {time} {alias} {ctype} {host} "{name}"\n')
                line = f'{ids["PajePushState"]} {time} {state_type} {alias} COMPUTE\n'
            elif ev == ids["PajeDestroyContainer"] and fields[3] in rank_alias:
                dst.write(f'{ids["PajePopState"]} {fields[1]} {state_type} {fields[3]}\n')
            dst.write(line)


if __name__ == "__main__":
    main(*sys.argv[1:])
