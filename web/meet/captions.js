// SRTC Meet: live captions (docs/captions.md). While the server's captions run in the meeting's
// channel, each member's words show under their tile (partials replace each other, the final
// stays a few seconds), and every final goes to the transcript panel with its speaker and time.

import { $, el } from './ui.js';

/** How long a final caption stays under its tile when nothing follows it. */
const LINGER_MS = 6000;

export class CaptionsView {
  /**
   * @param {(uid: string) => string} nameOf a member's display name.
   * @param {(uid: string) => HTMLElement|undefined} captionNodeOf the caption line of a member's tile.
   */
  constructor(nameOf, captionNodeOf) {
    this.nameOf = nameOf;
    this.captionNodeOf = captionNodeOf;
    /** uid → the timer that clears a final caption. */
    this.timers = new Map();
    /** Finals shown in the transcript, oldest first. */
    this.finals = [];
  }

  /** One `captionDidArrive` event. */
  show({ uid, text, final, startMs }) {
    const node = this.captionNodeOf(uid);
    clearTimeout(this.timers.get(uid));
    if (node) {
      node.textContent = text;
      node.hidden = false;
      node.classList.toggle('partial', !final);
      if (final) this.timers.set(uid, setTimeout(() => { node.hidden = true; node.textContent = ''; }, LINGER_MS));
    }
    if (!final) return;
    this.finals.push({ uid, text, startMs });
    $('btn-transcript').hidden = false;
    const time = new Date(startMs).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
    $('transcript-log').append(el('li', { dataset: { uid } },
      el('span', { class: 'from' }, this.nameOf(uid)), ' ', el('time', { class: 'when', dateTime: new Date(startMs).toISOString() }, time), ' ', text));
  }

  /** Forgets the meeting's captions (a new meeting starts empty). */
  reset() {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.finals = [];
    $('transcript-log').replaceChildren();
    $('btn-transcript').hidden = true;
  }
}
