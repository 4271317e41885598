// SRTC Meet: the chat panel. Messages to everyone or to one member; an unread count on the
// control while the panel is closed.

import { $, el, errorText, toast } from './ui.js';

export class ChatPanel {
  constructor(meeting) {
    this.meeting = meeting;
    this.unread = 0;
    meeting.addEventListener('didReceiveChatMessage', ({ detail }) => this.#add(detail.message));
    $('chat-form').addEventListener('submit', async (event) => {
      event.preventDefault();
      const input = $('chat-input');
      const text = input.value.trim();
      if (!text) return;
      const to = $('chat-to').value || undefined;
      try {
        const message = await meeting.sendRoomChatMessage(text, { to });
        input.value = '';
        this.#add(message);
      } catch (e) {
        toast(`Chat: ${errorText(e)}`);
      }
    });
  }

  /** The panel was opened: everything is read. */
  opened() {
    this.unread = 0;
    this.#badge();
  }

  /** The recipient list follows the members. */
  membersChanged() {
    const select = $('chat-to');
    const current = select.value;
    const others = this.meeting.getUsersInfoList().filter((u) => u.uid !== this.meeting.currentUserId);
    select.replaceChildren(el('option', { value: '' }, 'Everyone'), ...others.map((u) => el('option', { value: u.uid, selected: u.uid === current }, u.nickname)));
  }

  reset() {
    $('chat-log').replaceChildren();
    this.unread = 0;
    this.#badge();
  }

  #add(message) {
    const mine = message.from === this.meeting.currentUserId;
    const users = this.meeting.getUsersInfo();
    const from = mine ? 'You' : message.fromNickname ?? users.get(message.from)?.nickname ?? message.from;
    const to = message.to ? (message.to === this.meeting.currentUserId ? 'to you' : `to ${users.get(message.to)?.nickname ?? message.to}`) : null;
    const time = new Date(message.timestamp).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    const log = $('chat-log');
    log.append(el('li', { dataset: { messageId: message.messageId } },
      el('span', { class: 'from' }, from), to ? el('span', { class: 'private' }, `(${to}) `) : null,
      el('span', { class: 'muted' }, time), el('div', { class: 'text' }, message.text)));
    log.scrollTop = log.scrollHeight;
    if (!mine && $('chat-panel').hidden) {
      this.unread += 1;
      this.#badge();
      toast(`${from}: ${message.text.slice(0, 80)}`);
    }
  }

  #badge() {
    const badge = $('chat-badge');
    badge.hidden = this.unread === 0;
    badge.textContent = String(this.unread);
  }
}
