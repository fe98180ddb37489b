#!/usr/bin/env python3
"""Run pipit (hpcgroup/pipit @05d9563, source tree, pandas 2.2.3, numpy 2.1.3,
Debian python3-otf2) on a trace and write its analyses as CSV oracles.
usage: run_pipit.py otf2|hpctoolkit TRACE_DIR OUT_DIR"""
import sys, os, json
import numpy as np, pandas as pd
from pipit import Trace

kind, src, out = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
t = Trace.from_otf2(src, num_processes=1) if kind == 'otf2' else Trace.from_hpctoolkit(src)
ev = t.events
if 'Process' not in ev.columns:
    # a HPCToolkit database whose trace lines carry no MPI rank: pipit's
    # profile needs the column; every row is of the one process, 0
    ev['Process'] = 0
summary = dict(kind=kind, src=src, rows=len(ev),
               event_types={k: int(v) for k, v in ev['Event Type'].value_counts().items()},
               processes=sorted(int(p) for p in set(ev['Process'])),
               threads_per_process={str(int(p)): int(ev.loc[ev['Process'] == p, 'Thread'].nunique())
                                    for p in sorted(set(ev['Process']))})
fp = t.flat_profile(metrics=['time.exc', 'time.inc'])
fp.to_csv(f'{out}/flat_profile.csv', float_format='%.17g')
fpp = t.flat_profile(metrics=['time.exc', 'time.inc'], per_process=True)
fpp.to_csv(f'{out}/flat_profile_per_process.csv', float_format='%.17g')
# count of matched Enter rows per name (pipit has no count column; for our 'count')
enters = ev.loc[ev['Event Type'] == 'Enter']
cnt = enters.groupby(['Name'], observed=True).size().rename('count')
cnt.to_csv(f'{out}/enter_count.csv')
# pipit's Trace.load_imbalance (trace.py:555) fails at HEAD: flat_profile wraps the metric
# in a list, so flat_profile.loc[function] is a DataFrame and .sort_values() needs 'by'.
# Patch flat_profile to hand load_imbalance a Series, i.e. the function's intended semantics.
_fp = Trace.flat_profile
def _fp_series(self, metrics='time.exc', groupby_column='Name', per_process=False):
    r = _fp(self, metrics, groupby_column, per_process)
    return r[metrics] if isinstance(metrics, str) else r
Trace.flat_profile = _fp_series
li = t.load_imbalance(metric='time.exc', num_processes=3)
li['Top processes'] = li['Top processes'].map(lambda l: ' '.join(str(int(x)) for x in l))
li.index.name = 'Name'
li.sort_index().to_csv(f'{out}/load_imbalance_exc.csv', float_format='%.17g')
li = t.load_imbalance(metric='time.inc', num_processes=3)
li['Top processes'] = li['Top processes'].map(lambda l: ' '.join(str(int(x)) for x in l))
li.index.name = 'Name'
li.sort_index().to_csv(f'{out}/load_imbalance_inc.csv', float_format='%.17g')
if kind == 'otf2':
    for o in ('size', 'count'):
        m = t.comm_matrix(output=o)
        np.savetxt(f'{out}/comm_matrix_{o}.csv', m, fmt='%d', delimiter=',')
    summary['messages'] = int(ev['Name'].isin(['MpiSend', 'MpiIsend']).sum())
    summary['receives'] = int(ev['Name'].isin(['MpiRecv', 'MpiIrecv']).sum())
summary['unmatched_enter_leave'] = int(((ev['Event Type'].isin(['Enter', 'Leave'])) &
                                        ev['_matching_event'].isna()).sum())
json.dump(summary, open(f'{out}/summary.json', 'w'), indent=1)
print(json.dumps(summary))
print(fp.sort_values('time.exc', ascending=False).head(15).to_string())
