// Round ticks of a time axis, in a module of its own: it imports nothing,
// so that node can check it without the bundle's dependencies.

// roundTicks returns the round instants (seconds) between t0 and t1, about
// n of them, 1, 2 or 5 times a power of ten apart, with the unit their
// labels share (s, ms, µs or ns), its scale and the decimals the step
// needs in it.
export function roundTicks(t0, t1, n) {
  const span = t1 - t0;
  if (!(span > 0) || !isFinite(span)) return { ticks: [t0], unit: "s", scale: 1, digits: 0 };
  const raw = span / n, p = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) || 10 * p;
  const units = [["s", 1], ["ms", 1e-3], ["µs", 1e-6], ["ns", 1e-9]];
  const [unit, scale] = units.find(([, u]) => step >= 0.1 * u) || units[units.length - 1];
  const digits = Math.max(0, -Math.floor(Math.log10(step / scale) + 1e-9));
  const ticks = [];
  for (let k = Math.ceil(t0 / step - 1e-9); k * step <= t1 + step * 1e-9; k++) ticks.push(k * step);
  return { ticks, unit, scale, digits };
}
