// The one reader of link rates ("400 Gbps", "10GE", "100M", "400"): one unit
// table for every place a rate is written by a user - a traffic binding's
// capacity template (checked at save, a unit required) and a circuit's
// capacity in a sheet (drawn as stroke width, a bare number meaning Gbps,
// the unit R&E circuit lists use). The two differ only by the rules a flag
// picks, so a unit means the same thing wherever it is read.

/** Powers of ten of the SI prefixes a rate may carry (M and m alike: no link runs at millibits). */
const PREFIX: Readonly<Record<string, number>> = { '': 0, k: 3, m: 6, g: 9, t: 12 };
/** What may follow the prefix: a rate (bps, bit/s, b/s), or, in a sheet's capacity, a bare size (b, bit) or Ethernet (E, bE: 10GE, 400GbE). */
const RATE_SUFFIX = /^(?:bps|bits?\/s|b\/s)$/;
const LOOSE_SUFFIX = /^(?:bps|bits?\/s|b\/s|bits?|b?e|b)$/;
const SHAPE = /^\s*(\d+(?:[.,]\d+)?)\s*([kmgt]?)\s*([a-z/]*)\s*$/i;

export interface RateRules {
  /**
   * `unit`: a unit is required ("10 Gbps", "400 Mbit/s"; not "400" nor "400G"), a decimal point only, zero allowed
   * (a traffic binding's capacity). `gbps`: a bare number is Gbps, a prefix alone is enough ("400G"), E and bE name
   * Ethernet rates, a decimal comma and thousands separators are read, and only a positive rate counts (a circuit's
   * capacity in a sheet).
   */
  bare: 'unit' | 'gbps';
  /** The unit of the answer as a power of ten of bit/s: 0 bit/s (default), 9 Gbit/s. */
  in?: number;
}

/** The rate written in `text` under `rules`, in the unit `rules.in` names, or undefined when it names no rate. */
export function parseBitRate(text: string, rules: RateRules): number | undefined {
  if (text.length > 40) return undefined;
  const loose = rules.bare === 'gbps';
  // 1,000 and 1 000 are thousands; 1,6 is a decimal comma.
  const m = SHAPE.exec(loose ? text.replace(/(\d)[, ](?=\d{3}(?!\d))/g, '$1') : text);
  if (!m) return undefined;
  const [, digits, prefix, suffix] = m;
  const unit = suffix.toLowerCase();
  if (!loose && (digits.includes(',') || !RATE_SUFFIX.test(unit))) return undefined;
  // A unit without a prefix is bits (400 bps); a prefix alone or a bare number only when the rules allow it.
  if (loose && unit && !prefix && !RATE_SUFFIX.test(unit)) return undefined;
  if (unit && !LOOSE_SUFFIX.test(unit)) return undefined;
  // One multiplication or division by an exact power of ten: 100M is 0.1 Gbps exactly as written, not 0.1000…02.
  const shift = (loose && !prefix && !unit ? 9 : PREFIX[prefix.toLowerCase()]) - (rules.in ?? 0);
  const written = Number(digits.replace(',', '.'));
  const n = shift >= 0 ? written * 10 ** shift : written / 10 ** -shift;
  if (!Number.isFinite(n)) return undefined;
  return loose && n <= 0 ? undefined : n;
}
