// SRTC Meet: the few icons the app draws (inline SVG: no font or file to load). Decorative:
// the element that shows one carries the text for screen readers.

const PATHS = {
  micOff: '<path d="M12 3a3 3 0 0 0-3 3v5a3 3 0 0 0 6 0V6a3 3 0 0 0-3-3z" fill="currentColor"/>'
    + '<path d="M5 11a7 7 0 0 0 14 0M12 18v3" fill="none" stroke="currentColor" stroke-width="2"/>'
    + '<path d="M3 3l18 18" stroke="currentColor" stroke-width="2.4"/>',
  hand: '<path d="M7 11V5.5a1.5 1.5 0 0 1 3 0V10M10 10V4a1.5 1.5 0 0 1 3 0v6M13 10V5a1.5 1.5 0 0 1 3 0v6'
    + 'M16 11V8a1.5 1.5 0 0 1 3 0v6a7 7 0 0 1-7 7h-1a6 6 0 0 1-5-3l-3-5a1.5 1.5 0 0 1 2.5-1.5L7 14"'
    + ' fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round"/>',
};

/** An `<svg>` icon (`micOff`, `hand`), hidden from screen readers. */
export function icon(name) {
  const span = document.createElement('span');
  span.className = `icon-${name}`;
  span.setAttribute('aria-hidden', 'true');
  span.innerHTML = `<svg viewBox="0 0 24 24" width="16" height="16" focusable="false">${PATHS[name]}</svg>`;
  return span;
}
