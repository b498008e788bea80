// Turns one exceljs cell value into the text a record carries. Values are
// kept as text whatever the file format, so an xlsx and the same data saved
// as CSV give the same records and filters compare like with like.
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  switch (typeof value) {
    case 'string':
      return value.trim();
    case 'number':
      return Number.isFinite(value) ? String(value) : '';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      return objectText(value as Record<string, unknown>);
    default:
      return '';
  }
}

function objectText(value: Record<string, unknown>): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return '';
    const iso = value.toISOString();
    // A date without a time of day reads better as just the date.
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  if (Array.isArray(value.richText)) {
    return value.richText.map((run) => (typeof run?.text === 'string' ? run.text : '')).join('').trim();
  }
  // Formula cells: the cached result is what the spreadsheet program showed.
  if ('result' in value) return cellText(value.result);
  if ('formula' in value || 'sharedFormula' in value) return '';
  if ('text' in value) return cellText(value.text);
  if (typeof value.error === 'string') return value.error;
  return '';
}
