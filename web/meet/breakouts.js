// SRTC Meet: breakout rooms (the meeting's sub-meetings) in the participants panel, for the host
// and co-hosts: create rooms, assign members (at random here, one by one in the member list), open
// them, visit one, broadcast a message to every room, and close them after a countdown. A help
// request from a room marks it.

import { isAdmin } from '/sdk/smeeting.js';
import { $, actionButton, el, toast } from './ui.js';

export class BreakoutPanel {
  constructor(meeting) {
    this.meeting = meeting;
    /** Rooms whose members asked for help since the host last visited them. */
    this.help = new Set();
    /** What the host typed, kept across redraws. */
    this.draft = { text: '', countdown: '10' };
    meeting.addEventListener('subMeetingHelpRequested', ({ detail }) => {
      this.help.add(detail.subMeetingId);
      const room = meeting.getSubMeetings().find((s) => s.subMeetingId === detail.subMeetingId);
      const who = meeting.getUsersInfo().get(detail.uid)?.nickname ?? detail.uid;
      toast(`${who} asks for help in ${room?.title ?? detail.subMeetingId}`, 10000);
      this.render();
    });
    meeting.addEventListener('subMeetingsDidClose', () => { this.help.clear(); toast('Breakout rooms closed: everyone is back', 3000); });
  }

  render() {
    const m = this.meeting;
    const section = $('breakout-section');
    const admin = m.isInRoom && isAdmin(m.me?.role);
    section.hidden = !admin;
    if (!admin || $('participants-panel').hidden) return;
    const focused = document.activeElement?.dataset?.action;
    const subs = m.getSubMeetings();
    const body = subs.length ? this.#rooms(subs) : this.#create();
    $('breakout-body').replaceChildren(...body);
    if (focused) document.querySelector(`#breakout-body [data-action="${CSS.escape(focused)}"]`)?.focus();
  }

  #create() {
    const count = el('input', { id: 'breakout-count', type: 'number', min: '1', max: '20', value: '2', class: 'narrow' });
    return [el('div', { class: 'row' },
      el('label', { for: 'breakout-count' }, 'Rooms'), count,
      this.#button('create-breakouts', 'Create rooms', () => {
        const n = Math.max(1, Math.min(20, Number(count.value) || 1));
        return this.meeting.adminCreateSubMeetings(Array.from({ length: n }, (_, i) => `Room ${i + 1}`));
      }))];
  }

  #rooms(subs) {
    const m = this.meeting;
    const names = (uids) => uids.map((uid) => m.getUsersInfo().get(uid)?.nickname ?? uid).join(', ') || 'nobody yet';
    const open = subs.some((s) => s.status === 'open');
    const created = subs.some((s) => s.status === 'created');
    const closing = subs.some((s) => s.status === 'closing');
    const cards = subs.map((s) => el('div', { class: `room-card${this.help.has(s.subMeetingId) ? ' help' : ''}`, dataset: { sub: s.subMeetingId } },
      el('strong', {}, `${s.title} · ${s.status}${this.help.has(s.subMeetingId) ? ' · asks for help' : ''}`),
      el('span', { class: 'muted' }, names(s.members)),
      s.status === 'open' && m.currentSubMeetingId !== s.subMeetingId
        ? this.#button(`visit:${s.subMeetingId}`, 'Visit', () => { this.help.delete(s.subMeetingId); return m.adminVisitSubMeeting(s.subMeetingId); }, null, `Visit ${s.title}`)
        : null));
    const countdown = el('input', {
      id: 'breakout-countdown', type: 'number', min: '0', max: '300', value: this.draft.countdown, class: 'narrow',
      oninput: () => { this.draft.countdown = countdown.value; },
    });
    const text = el('input', {
      id: 'breakout-text', maxlength: '4096', placeholder: 'Message to every room', 'aria-label': 'Message to every room', value: this.draft.text,
      oninput: () => { this.draft.text = text.value; },
    });
    return [
      ...cards,
      el('div', { class: 'row' },
        this.#button('assign-random', 'Assign at random', () => m.adminAssignSubMeetingsRandomly()),
        created ? this.#button('open-breakouts', 'Open rooms', () => m.adminOpenSubMeetings()) : null),
      open || closing ? el('div', { class: 'row' },
        text, this.#button('broadcast', 'Send to all', async () => {
          if (!text.value.trim()) return;
          await m.adminBroadcastToSubMeetings(text.value.trim());
          this.draft.text = '';
          toast('Sent to every room');
        })) : null,
      open && !closing ? el('div', { class: 'row' },
        el('label', { for: 'breakout-countdown' }, 'Close in (s)'), countdown,
        this.#button('close-breakouts', 'Close rooms', () => m.adminCloseSubMeetings(Math.max(0, Math.min(300, Number(countdown.value) || 0))))) : null,
    ].filter(Boolean);
  }

  #button(action, label, run, cls, ariaLabel) {
    return actionButton(action, label, run, { cls, ariaLabel, after: () => this.render() });
  }
}
