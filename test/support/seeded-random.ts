// A small seeded PRNG (mulberry32), so that generated inputs are a pure function of their seed:
// the same texts in every property-test run that replays a seed, and in every benchmark run.
// Used by test/compaction-props.test.ts and, bundled, by bench/compaction.mjs.

/** A deterministic random source: next() in [0, 1), int(lo, hi) inclusive, pick, chance. */
export function seededRandom(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
  return { next, int, pick, chance: (p: number) => next() < p };
}

export type SeededRandom = ReturnType<typeof seededRandom>;
