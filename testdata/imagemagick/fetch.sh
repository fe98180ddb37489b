#!/bin/sh
# Downloads the 1-, 4-, 6- and 8-thread ImageMagick traces of pypop (see
# README.md) next to this script; the tests that use them skip without.
set -e
cd "$(dirname "$0")"
BASE=https://raw.githubusercontent.com/numericalalgorithmsgroup/pypop/830913dd1ad4c7e854f408c991f4171bdc69b18b/pypop/examples/openmp/imagemagick_example_traces
for n in 1 4 6 8; do
  for ext in prv.gz pcf row; do
    [ -s omp$n.$ext ] || curl -fsSL -o omp$n.$ext "$BASE/omp$n.$ext"
  done
done
sha256sum -c <<'SUMS'
882f38022608fccb23f86c4299b687d9655b1416fbfd0916c001d36f88fa2ffd  omp1.pcf
8ebbb339f0ef67ec19f2d8407219bda09ab8b4485940e12967b43bc80f2cb8a2  omp1.prv.gz
59c948e5ebf47d18d5d6a743134081c47d79a84abeab447db107addfd951b22a  omp1.row
882f38022608fccb23f86c4299b687d9655b1416fbfd0916c001d36f88fa2ffd  omp4.pcf
1e7c3b92f6fd897953d0ea258ea0b60bd8bf47f447d5cdb285921cbb985145f5  omp4.prv.gz
ee8d18a9510d24bea2cb51c7cabceb72a31b5dd6bbe309263be4526059e53d20  omp4.row
882f38022608fccb23f86c4299b687d9655b1416fbfd0916c001d36f88fa2ffd  omp6.pcf
e8d79e7350fb0ab49e63a29e2c7e3f173f22c6dc473c59a852cee196b6a26c53  omp6.prv.gz
a2803783c834e035fb701079e923d28d41ad2db2f7fa160c78c38414cf5a0ae6  omp6.row
882f38022608fccb23f86c4299b687d9655b1416fbfd0916c001d36f88fa2ffd  omp8.pcf
d918ab9784218424adfee42319327baaac9992a25ab6ef093a69304439fe0989  omp8.prv.gz
cbf2d5ef46f60c31ec4355bdc657d28d19dcc585c051dbe744905b3b75dbaa6f  omp8.row
SUMS
