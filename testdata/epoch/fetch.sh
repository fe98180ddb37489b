#!/bin/sh
# Downloads the 8- and 16-process EPOCH traces of pypop (see README.md)
# next to this script; the tests that need the whole series skip without
# them.
set -e
cd "$(dirname "$0")"
BASE=https://raw.githubusercontent.com/numericalalgorithmsgroup/pypop/830913dd1ad4c7e854f408c991f4171bdc69b18b/pypop/examples/mpi/epoch_example_traces
for n in 8 16; do
  for ext in prv.gz pcf row; do
    [ -s epoch_${n}proc.$ext ] || curl -fsSL -o epoch_${n}proc.$ext "$BASE/epoch_${n}proc.$ext"
  done
done
sha256sum -c <<'SUMS'
1653572264a7e8180bcd8f248d5de37c919e638384ed5b9c8e5e014936c32fb5  epoch_8proc.prv.gz
814fce6244668c77c3b0af671b7e2111ae6f67da9f93a017035dbfa1f110c2b8  epoch_8proc.pcf
d20475d111ca32be60033caa41c95eabbc9fb16803acc1d8a3bae555b231e02f  epoch_8proc.row
213e895c5cab56f522b5fe35660462b129bc75632cd9cb558dcad32430e9be43  epoch_16proc.prv.gz
0acf22bef74bf1a8d91fa7693224162456e8f7c278458ea56c65e4776d90c857  epoch_16proc.pcf
8191ad8ffe813b85c3994b7db03eae657cb838f044d1b5097667d13fcfb51d0f  epoch_16proc.row
SUMS
