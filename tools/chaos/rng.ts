/** A seeded pseudo-random generator (mulberry32) so that a chaos run can be replayed with `--seed`. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** A weighted choice: `[[weight, value], ...]`. */
  weighted<T>(choices: readonly (readonly [number, T])[]): T {
    const total = choices.reduce((s, [w]) => s + w, 0);
    let r = this.next() * total;
    for (const [w, v] of choices) {
      r -= w;
      if (r < 0) return v;
    }
    return choices[choices.length - 1]![1];
  }
  /** A child generator (independent stream for a concurrent client). */
  fork(): Rng {
    return new Rng(this.int(1, 2 ** 31));
  }
}
