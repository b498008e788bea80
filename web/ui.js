// Small DOM helpers: elements built from tags, attributes and children
// (text is always set as text, never parsed as HTML), the status line, and
// copying to the clipboard.

/** An element: h('a', {href: '#/x'}, 'text', child, ...). Attributes starting with "on" are listeners. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Shows a message in the status line (read out by screen readers); errors in their own style. */
export function say(message, kind = 'info') {
  const status = document.getElementById('status');
  status.textContent = message;
  status.dataset.kind = kind;
}

/** Shows an API failure: its `detail`. */
export const fail = (error) => say(error.message, 'error');

/** Runs an action of a button, with the button disabled meanwhile and failures shown. */
export async function act(button, action) {
  button.disabled = true;
  try {
    await action();
  } catch (e) {
    fail(e);
  } finally {
    button.disabled = false;
  }
}

/** Copies text, or when the clipboard is refused selects it for the user to copy. */
export async function copy(text, field) {
  try {
    await navigator.clipboard.writeText(text);
    say('Copied to the clipboard.');
  } catch {
    field?.select();
    say('Press Ctrl+C (or Cmd+C) to copy the selected text.');
  }
}

export const when = (iso) => (iso ? new Date(iso).toLocaleString() : '');

/** The main region, emptied, with a heading focused for keyboard and screen-reader users. */
export function page(title, ...children) {
  const main = document.getElementById('main');
  const heading = h('h1', { tabindex: '-1' }, title);
  main.replaceChildren(heading, ...children);
  document.title = `${title} · Map Topology Service`;
  return main;
}
