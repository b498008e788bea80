// Small helpers for putting spreadsheet-named fields on objects safely and
// for reading coordinates. Header texts are file data: a column called
// `__proto__` must become an own property, never the object's prototype.
import type { FieldPlan } from './header.ts';
import { cellAt } from './raw.ts';

/** Sets obj[key] as an own, enumerable property even when key is `__proto__`. */
export function setField(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/** obj[key] only when it is the object's own property (never an inherited `constructor`, `toString`, …). */
export function ownField(obj: object, key: string): unknown {
  return Object.hasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

const COORDINATE_RANGE = { latitude: 90, longitude: 180 } as const;
export type CoordinateField = keyof typeof COORDINATE_RANGE;
export const isCoordinateField = (key: string): key is CoordinateField => key === 'latitude' || key === 'longitude';

const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * A decimal number, or NaN. Plain decimals of up to 15 digits ("-41.8781",
 * the shape of nearly every coordinate) are read here: digits as an exact
 * integer divided by an exact power of ten is the correctly rounded value,
 * the same number Number() gives, several times faster. Anything else goes
 * to Number(), minus what it reads beyond decimals (hex, binary, octal,
 * Infinity). Cells are already trimmed.
 */
function decimal(text: string): number {
  let i = 0;
  let negative = false;
  const first = text.charCodeAt(0);
  if (first === 45 || first === 43) {
    negative = first === 45;
    i = 1;
  }
  let mantissa = 0;
  let digits = 0;
  let scale = -1;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      digits++;
      if (scale >= 0) scale++;
    } else if (c === 46 && scale < 0) scale = 0;
    else break;
  }
  if (i === text.length && digits > 0 && digits <= 15) {
    const value = scale > 0 ? mantissa / POW10[scale] : mantissa;
    return negative ? -value : value;
  }
  const value = Number(text);
  if (!Number.isFinite(value) || text === '') return NaN;
  if (text.length > 1 && text.charCodeAt(0) === 48) {
    const second = text.charCodeAt(1) | 32;
    if (second === 120 || second === 98 || second === 111) return NaN;
  }
  return value;
}

/**
 * A coordinate cell as a number, or an error message. Accepts a decimal comma
 * ("52,37") as European spreadsheets write it.
 */
export function parseCoordinate(field: CoordinateField, text: string): number | string {
  let value = decimal(text);
  if (Number.isNaN(value) && text.includes(',') && !text.includes('.')) value = decimal(text.replace(',', '.'));
  if (Number.isNaN(value)) return `${field} ${JSON.stringify(text)} is not a number`;
  const limit = field === 'latitude' ? 90 : 180;
  if (!(value >= -limit && value <= limit)) return `${field} ${text} is outside -${limit}..${limit}`;
  return value;
}

/** One planned field's value in a row: the trimmed cell, or the filled cells of a repeated header. */
export function fieldValue(field: FieldPlan, cells: string[]): string | string[] {
  const indexes = field.indexes;
  if (indexes.length === 1) return cellAt(cells, indexes[0]);
  // Sized up front: a pushed-to empty array reserves room for 17 items.
  const list = new Array<string>(indexes.length);
  let n = 0;
  for (const index of indexes) {
    const text = cellAt(cells, index);
    if (text) list[n++] = text;
  }
  list.length = n;
  return list;
}

/** Copies the planned fields' cells onto an object; with `keepFilled`, an empty cell leaves a present value alone. */
export function filler(fields: FieldPlan[], keepFilled = false) {
  const keys = fields.map((f) => f.key);
  // A header named __proto__ needs defineProperty; every other key a plain (faster) assignment.
  const put = keys.includes('__proto__') ? setField : (o: Record<string, unknown>, k: string, v: unknown) => { o[k] = v; };
  return (target: Record<string, unknown>, cells: string[]) => {
    for (let i = 0; i < keys.length; i++) {
      const value = fieldValue(fields[i], cells);
      if (keepFilled && value === '' && Object.hasOwn(target, keys[i])) continue;
      put(target, keys[i], value);
    }
  };
}
