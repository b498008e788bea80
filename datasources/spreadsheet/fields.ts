// Small helpers for putting spreadsheet-named fields on objects safely and
// for reading coordinates. Header texts are file data: a column called
// `__proto__` must become an own property, never the object's prototype.

/** Sets obj[key] as an own, enumerable property even when key is `__proto__`. */
export function setField(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/** obj[key] only when it is the object's own property (never an inherited `constructor`, `toString`, …). */
export function ownField(obj: object, key: string): unknown {
  return Object.hasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

export const COORDINATE_RANGE = { latitude: 90, longitude: 180 } as const;
export type CoordinateField = keyof typeof COORDINATE_RANGE;
export const isCoordinateField = (key: string): key is CoordinateField => key === 'latitude' || key === 'longitude';

/**
 * A decimal number, or NaN. Number() alone also reads hex/binary/octal
 * ("0x10") and Infinity; those are refused. (Cells are already trimmed.)
 */
function decimal(text: string): number {
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
