"""Independent oracle for the producers' samples in this folder.

For each Chrome trace-event JSON file given, prints one JSON object per line:
the states, events and links the reader must produce, and the processes and
threads, counted with Python's json module from the format's rules as the
reader's documentation states them, without its code:
  states: X events, B events (an unclosed B still becomes a state), async
    begins (b, S) that have an id;
  events: instants (i, I, R with scope g, p or t), n, T and p with an id,
    and flow points that no link uses;
  links: flow points (s, t, f; flow_in/flow_out with bind_id on X) matched
    by (cat, id) in time order: s opens, t links from the latest point and
    becomes it, f links from the latest point and leaves the flow open;
  threads: every (pid, tid) of an event other than counters and process or
    global instants, and of thread metadata; a missing pid or tid is 0.
Events without ts, or whose ph is not one character, are left out.
"""
import collections, decimal, gzip, json, sys
def load(path):
    raw = open(path,'rb').read()
    if raw[:2] == b"\x1f\x8b": raw = gzip.decompress(raw)
    text = raw.decode('utf-8')
    try: doc = json.loads(text, parse_float=decimal.Decimal, strict=False)
    except json.JSONDecodeError:
        doc = json.loads(text.rstrip().rstrip(',') + ']', parse_float=decimal.Decimal, strict=False)
    return doc['traceEvents'] if isinstance(doc, dict) else doc
def ns(us):
    return int((decimal.Decimal(us)*1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))
def K(v): return None if v is None else str(v)
for p in sys.argv[1:]:
    ev = load(p)
    st = evn = 0
    flows = collections.defaultdict(list)
    threads=set(); procs=set()
    for i,e in enumerate(ev):
        ph = e.get('ph')
        if not ph or len(ph)!=1: continue
        if ph == 'M':
            if e.get('name','').startswith('process_') and 'pid' in e: procs.add(K(e['pid']))
            if e.get('name','').startswith('thread_') and 'pid' in e and 'tid' in e: procs.add(K(e['pid'])); threads.add((K(e['pid']),K(e['tid'])))
            continue
        if e.get('ts') is None: continue
        pid = K(e.get('pid', 0)); tid = K(e.get('tid', 0))
        if ph in 'XBEstf' or (ph in 'iIR' and e.get('s','t')=='t'): procs.add(pid); threads.add((pid,tid))
        elif ph in 'bnSTpFe' :
            procs.add(pid)
            if 'tid' in e: threads.add((pid,tid))
        elif ph in 'C' or (ph in 'iIR' and e.get('s')=='p'): procs.add(pid)
        if ph == 'X':
            st += 1
            if e.get('flow_in') or e.get('flow_out'):
                bid = e.get('bind_id', e.get('id'))
                if bid is not None:
                    fp = 't' if (e.get('flow_in') and e.get('flow_out')) else ('f' if e.get('flow_in') else 's')
                    flows[(None, K(bid), None)].append((ns(e['ts']), i, fp))
        elif ph == 'B': st += 1
        elif ph in 'bS' and e.get('id', e.get('id2')) is not None: st += 1
        elif ph in 'iIR' and e.get('s','t') in 'gpt': evn += 1
        elif ph in 'nTp' and e.get('id', e.get('id2')) is not None: evn += 1
        elif ph in 'stf':
            bid = e.get('bind_id')
            idv = bid if bid is not None else e.get('id')
            scope=None
            if idv is None and isinstance(e.get('id2'),dict):
                d=e['id2']; idv = d.get('local', d.get('global'))
                if 'local' in d: scope = pid
            if idv is None: continue
            flows[(K(e.get('cat')), K(idv), scope)].append((ns(e['ts']), i, ph))
    links = unm = 0
    for pts in flows.values():
        pts.sort()
        src=None; used=False
        for t,i,ph in pts:
            if ph=='s':
                if src is not None and not used: unm+=1
                src,used=i,False
            elif src is None: unm+=1
            else:
                links+=1; used=True
                if ph=='t': src=i
        if src is not None and not used: unm+=1
    print(json.dumps({"file": p, "states": st, "events": evn + unm, "links": links, "processes": len(procs), "threads": len(threads)}))
