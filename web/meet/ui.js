// SRTC Meet: small DOM helpers shared by the app's screens.

/** `document.getElementById`. */
export const $ = (id) => document.getElementById(id);

/** Creates an element: `el('button', {type: 'button', onclick}, 'text', child…)`. */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key === 'class') node.className = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key in node && typeof node[key] !== 'function' && !key.includes('-')) node[key] = value;
    else node.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat()) if (child != null) node.append(child);
  return node;
}

/**
 * A button that runs `run` (a failure becomes a toast), then `after` (a redraw). `action` goes to
 * `data-action`: it keeps the focus across redraws and names the control for tests.
 */
export function actionButton(action, label, run, { cls, ariaLabel, after } = {}) {
  return el('button', {
    type: 'button', class: cls ?? undefined, dataset: { action }, 'aria-label': ariaLabel ?? undefined,
    onclick: async () => {
      try { await run(); } catch (e) { toast(errorText(e)); }
      after?.();
    },
  }, label);
}

/** Shows one screen (`prejoin`, `home`, `meeting`) and hides the others. */
export function showScreen(id) {
  for (const screen of document.querySelectorAll('.screen')) screen.hidden = screen.id !== id;
}

/** A short notification in the corner, read by screen readers. */
export function toast(text, ms = 5000) {
  const node = el('div', { class: 'toast' }, text);
  $('toasts').append(node);
  setTimeout(() => node.remove(), ms);
}

/** The answer function of the question on screen. */
let answerOpenQuestion = null;

/**
 * A modal question; resolves with the value of the button pressed (`buttons`: `[{label, value,
 * primary}]`), or `null` when dismissed or replaced by a newer question.
 */
export function ask(title, text, buttons) {
  const dialog = $('dialog');
  if (!dialog.dataset.wired) {
    dialog.dataset.wired = '1';
    dialog.addEventListener('close', () => {
      const answer = answerOpenQuestion;
      answerOpenQuestion = null;
      answer?.(dialog.returnValue || null);
    });
  }
  answerOpenQuestion?.(null);
  $('dialog-title').textContent = title;
  $('dialog-text').textContent = text;
  const row = $('dialog-buttons');
  row.replaceChildren(...buttons.map((b) => el('button', { value: b.value, class: b.primary ? 'primary' : undefined }, b.label)));
  return new Promise((resolve) => {
    answerOpenQuestion = resolve;
    dialog.returnValue = '';
    if (!dialog.open) dialog.showModal();
  });
}

/** Initials for an avatar: "Ada Lovelace" → "AL". */
export function initials(name) {
  return String(name ?? '?').trim().split(/\s+/).slice(0, 2).map((w) => w[0]?.toUpperCase() ?? '').join('') || '?';
}

/** A room number grouped for reading: 123456789 → "123 456 789". */
export function formatRoomNo(roomNo) {
  return String(roomNo ?? '').replace(/(\d{3})(?=\d)/g, '$1 ');
}

/** The user-facing text of an SDK error. */
export function errorText(error) {
  if (!error) return '';
  const messages = {
    40313: 'Wrong password.',
    40312: 'The room is locked.',
    40314: 'This meeting is by invitation only.',
    40401: 'No meeting with that room number.',
    40903: 'This meeting has ended.',
    40904: 'Someone else is sharing.',
    42901: 'The meeting is full.',
  };
  if (messages[error.code]) return messages[error.code];
  if (error.kind === 'unauthorized') return `Not allowed: ${error.serverMessage ?? error.message}`;
  if (error.kind === 'deviceError') return error.message;
  return error.serverMessage ?? error.message ?? String(error);
}
