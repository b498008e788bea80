// <map-picture src="/api/…/svg/" alt="…" [auth] [refresh="60"] [zoomable]>:
// a picture from the API. With `auth` it is fetched with the user's token
// (the private outputs need one) and shown from an object URL; with
// `refresh` it is fetched again every so many seconds (live maps), keeping
// the old picture until the new one is there; with `zoomable` it gets zoom
// and pan by buttons, keyboard (+, -, 0, arrows), wheel and drag.
import { pictureUrl } from './api.js';
import { h } from './ui.js';

const STEP = 1.25;

class MapPicture extends HTMLElement {
  connectedCallback() {
    if (this.img) return;
    this.scale = 1;
    this.x = 0;
    this.y = 0;
    this.img = h('img', { alt: this.getAttribute('alt') ?? '', draggable: 'false' });
    this.img.addEventListener('error', () => this.dispatchEvent(new CustomEvent('picture-error')));
    const frame = h('div', { class: 'frame' }, this.img);
    this.append(frame);
    if (this.hasAttribute('zoomable')) this.zoomControls(frame);
    this.load();
    const every = Number(this.getAttribute('refresh'));
    if (every > 0) this.timer = setInterval(() => this.load(), every * 1000);
  }

  disconnectedCallback() {
    clearInterval(this.timer);
    if (this.objectUrl) URL.revokeObjectURL(this.objectUrl);
  }

  async load() {
    const src = this.getAttribute('src');
    if (!this.hasAttribute('auth')) {
      // A reload asks again (the answer is no-cache: a 304 when nothing changed).
      this.img.src = this.loaded ? `${src}${src.includes('?') ? '&' : '?'}t=${Date.now()}` : src;
      this.loaded = true;
      return;
    }
    try {
      const url = await pictureUrl(src);
      if (this.objectUrl) URL.revokeObjectURL(this.objectUrl);
      this.objectUrl = url;
      this.img.src = url;
    } catch (e) {
      this.dispatchEvent(new CustomEvent('picture-error', { detail: e }));
    }
  }

  zoomControls(frame) {
    const apply = () => {
      this.img.style.transform = `translate(${this.x}px, ${this.y}px) scale(${this.scale})`;
    };
    const zoom = (factor) => {
      this.scale = Math.min(16, Math.max(0.25, this.scale * factor));
      apply();
    };
    const reset = () => {
      this.scale = 1;
      this.x = 0;
      this.y = 0;
      apply();
    };
    const pan = (dx, dy) => {
      this.x += dx;
      this.y += dy;
      apply();
    };
    this.prepend(h('div', { class: 'tools', role: 'group', 'aria-label': 'Zoom and pan' },
      h('button', { type: 'button', onclick: () => zoom(STEP) }, 'Zoom in'),
      h('button', { type: 'button', onclick: () => zoom(1 / STEP) }, 'Zoom out'),
      h('button', { type: 'button', onclick: reset }, 'Reset view')));
    frame.tabIndex = 0;
    frame.setAttribute('role', 'img');
    frame.setAttribute('aria-label', `${this.getAttribute('alt') ?? 'Picture'}: use + and - to zoom, the arrow keys to pan, 0 to reset`);
    frame.addEventListener('keydown', (e) => {
      const moves = { ArrowLeft: [40, 0], ArrowRight: [-40, 0], ArrowUp: [0, 40], ArrowDown: [0, -40] };
      if (e.key === '+' || e.key === '=') zoom(STEP);
      else if (e.key === '-') zoom(1 / STEP);
      else if (e.key === '0') reset();
      else if (moves[e.key]) pan(...moves[e.key]);
      else return;
      e.preventDefault();
    });
    frame.addEventListener('wheel', (e) => {
      e.preventDefault();
      zoom(e.deltaY < 0 ? STEP : 1 / STEP);
    }, { passive: false });
    let drag;
    frame.addEventListener('pointerdown', (e) => {
      drag = { x: e.clientX, y: e.clientY };
      frame.setPointerCapture(e.pointerId);
    });
    frame.addEventListener('pointermove', (e) => {
      if (!drag) return;
      pan(e.clientX - drag.x, e.clientY - drag.y);
      drag = { x: e.clientX, y: e.clientY };
    });
    frame.addEventListener('pointerup', () => {
      drag = undefined;
    });
  }
}

customElements.define('map-picture', MapPicture);
