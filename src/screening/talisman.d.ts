/** Types of the two talisman functions screening uses (the package ships none; docs/screening.md "Matching"). */
declare module 'talisman/metrics/jaro-winkler' {
  /** Jaro-Winkler similarity of two strings, 0 (nothing alike) to 1 (equal); prefix scale 0.1, boost threshold 0.7. */
  const jaroWinkler: (a: string, b: string) => number;
  export default jaroWinkler;
}
declare module 'talisman/phonetics/soundex' {
  /** American Soundex code of a word (`R163` for `Robert`); letters a-z only. */
  const soundex: (word: string) => string;
  export default soundex;
}
