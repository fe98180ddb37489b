"""The machines of Lamarche-Perrin et al.'s work-stealing cases (section 5.1:
188 processes on 5 sites, 9 clusters, one process per machine; section 5.2:
433 processes on 50 machines of 3 clusters), for worksteal.c under SMPI.

  worksteal_case.py platform CASE OUT   the SimGrid platform (one Full zone)
  worksteal_case.py hostfile CASE OUT   line r: the host of rank r
  worksteal_case.py args CASE           worksteal's arguments
  worksteal_case.py paje CASE CSV OUT   the Pajé trace: site > cluster >
                                        machine > process (188) or cluster >
                                        machine > process (433), states Run
                                        and Steal from worksteal's CSV

Case 188: every other machine of the cluster suno (site sophia) is behind a
10 ms link (the paper: "a higher latency network is used to connect this
cluster to the rest of the platform"; here half of it, so that its
processes differ from one another, as the paper's treemaps show); sites are
2 ms apart; 6 simulated seconds. Case 433: five processes run on
cores three times slower, two of them on one machine (the paper does not
say what made its processes heterogeneous); 2 simulated seconds."""

import sys

import simgrid_platform as sp

# site -> [(cluster, machines)]
SITES_188 = {
    "grenoble": [("genepi", 20), ("edel", 22)],
    "lyon": [("sagittaire", 12), ("taurus", 12)],
    "nancy": [("graphene", 22), ("griffon", 20)],
    "rennes": [("paradent", 20), ("parapluie", 24)],
    "sophia": [("suno", 36)],
}
FAR_CLUSTER = "suno"
# cluster -> machines; machine i of cluster c holds 9 processes for the
# first ones, 8 for the rest (433 = 33 x 9 + 17 x 8)
CLUSTERS_433 = [("adonis", 17), ("edel", 17), ("genepi", 16)]
SLOW_433 = {"adonis-3": 2, "edel-5": 1, "edel-11": 1, "genepi-7": 1}  # machine -> slowed processes
SLOW_FACTOR = 3
TASKS = {"188": 188 * 20, "433": 433 * 20}  # per period
PERIOD = 0.05
END = {"188": 6.0, "433": 2.0}


def layout(case):
    """[(path, host)] per rank, path = the process's place in the hierarchy."""
    ranks = []
    if case == "188":
        for site, clusters in SITES_188.items():
            for cluster, machines in clusters:
                for i in range(machines):
                    host = f"{cluster}-{i}"
                    ranks.append(([site, cluster, host], host))
    elif case == "433":
        k = 0
        for cluster, machines in CLUSTERS_433:
            for i in range(machines):
                host = f"{cluster}-{i}"
                for _ in range(9 if k < 33 else 8):
                    ranks.append(([cluster, host], host))
                k += 1
    else:
        sys.exit(f"unknown case {case!r} (188 or 433)")
    return ranks


def slow_ranks(case):
    if case != "433":
        return []
    out, seen = [], {}
    for r, (path, host) in enumerate(layout(case)):
        seen[host] = seen.get(host, 0) + 1
        if seen[host] <= SLOW_433.get(host, 0):
            out.append(r)
    return out


def far(host):
    """The machines behind a high-latency link: every other one of FAR_CLUSTER."""
    cluster, _, i = host.rpartition("-")
    return cluster == FAR_CLUSTER and int(i) % 2 == 0


def platform(case, out):
    ranks = layout(case)
    hosts = []
    where = {}  # host -> (site, cluster)
    for path, host in ranks:
        if host not in where:
            hosts.append(host)
            where[host] = (path[0], path[1]) if case == "188" else ("grid", path[0])
    cores = {h: sum(1 for _, x in ranks if x == h) for h in hosts}
    elements = [sp.host(h, "1Gf", cores[h]) for h in hosts]
    clusters = sorted({c for _, c in where.values()})
    sites = sorted({s for s, _ in where.values()})
    for h in hosts:
        elements.append(sp.link(f"{h}-nic", "1.25GBps", "10ms" if far(h) else "20us"))
    for c in clusters:
        elements.append(sp.link(f"{c}-switch", "10GBps", "10us"))
        elements.append(sp.link(f"{c}-uplink", "10GBps", "50us"))
    for s in sites:
        elements.append(sp.link(f"{s}-wan", "10GBps", "2ms"))
    elements += sp.all_routes(hosts, sp.hierarchy_path(where))
    sp.write_full_zone(out, "grid", elements)


def paje(case, csv, out):
    ranks = layout(case)
    levels = ["SITE", "CLUSTER", "MACHINE"] if case == "188" else ["CLUSTER", "MACHINE"]
    states = {}
    for line in open(csv):
        r, state, a, b = line.strip().split(",")
        states.setdefault(int(r), []).append((state, a, b))
    if sorted(states) != list(range(len(ranks))):
        sys.exit(f"{csv}: states of {len(states)} ranks, want {len(ranks)}")
    end = max(b for spans in states.values() for _, _, b in spans)
    w = ["%EventDef PajeDefineContainerType 0", "% Alias string", "% Type string", "% Name string", "%EndEventDef",
         "%EventDef PajeDefineStateType 1", "% Alias string", "% Type string", "% Name string", "%EndEventDef",
         "%EventDef PajeDefineEntityValue 2", "% Alias string", "% Type string", "% Name string",
         "% Color color", "%EndEventDef",
         "%EventDef PajeCreateContainer 3", "% Time date", "% Alias string", "% Type string",
         "% Container string", "% Name string", "%EndEventDef",
         "%EventDef PajeDestroyContainer 4", "% Time date", "% Type string", "% Name string", "%EndEventDef",
         "%EventDef PajeSetState 5", "% Time date", "% Type string", "% Container string", "% Value string",
         "%EndEventDef"]
    parent = "0"
    for t in levels + ["PROCESS"]:
        w.append(f"0 {t} {parent} {t}")
        parent = t
    w += ["1 STATE PROCESS STATE", '2 RUN STATE Run "0.0 0.8 0.0"', '2 STEAL STATE Steal "0.8 0.0 0.0"']
    made = set()
    for r, (path, _) in enumerate(ranks):
        for d in range(len(path)):
            alias = "/".join(path[:d + 1])
            if alias not in made:
                made.add(alias)
                w.append(f'3 0 {alias} {levels[d]} {"/".join(path[:d]) or 0} "{path[d]}"')
        w.append(f'3 0 p{r} PROCESS {"/".join(path)} "p{r}"')
    # A process's states are contiguous, from 0 to the end of the run:
    # each is set when it begins, and the containers end with the run.
    events = sorted((float(a), r, f"5 {a} STATE p{r} {state.upper()}")
                    for r, spans in states.items() for state, a, _ in spans)
    w += [e[2] for e in events]
    for r in range(len(ranks)):
        w.append(f"4 {end} PROCESS p{r}")
    with open(out, "w") as f:
        f.write("\n".join(w) + "\n")


if __name__ == "__main__":
    cmd, case = sys.argv[1], sys.argv[2]
    if cmd == "platform":
        platform(case, sys.argv[3])
    elif cmd == "hostfile":
        with open(sys.argv[3], "w") as f:
            f.write("".join(host + "\n" for _, host in layout(case)))
    elif cmd == "args":
        print(TASKS[case], PERIOD, END[case], *([SLOW_FACTOR, *slow_ranks(case)] if slow_ranks(case) else []))
    elif cmd == "paje":
        paje(case, sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
