// SRTC Meet: the participants panel. Everyone with their state; for the host and co-hosts, the
// room switches (mute all, cameras off, lock, sharing, end) and each member's controls (mute,
// camera off, ask to turn on, co-host, transfer host, chat, lower hand, remove).

import { isAdmin } from '/sdk/smeeting.js';
import { $, ask, el, errorText, toast } from './ui.js';

export class ParticipantsPanel {
  constructor(meeting, open) {
    this.meeting = meeting;
    this.open = open;
  }

  /** Redraws the panel (cheap: a few dozen nodes), keeping the focused button focused. */
  render() {
    const m = this.meeting;
    if (!m.isInRoom || $('participants-panel').hidden) return;
    const focused = document.activeElement?.dataset?.action;
    const me = m.me;
    const admin = isAdmin(me?.role);
    this.#renderRoomControls(admin);
    $('participants-list').replaceChildren(...m.getUsersInfoList().map((user) => this.#row(user, me, admin)));
    if (focused) document.querySelector(`[data-action="${CSS.escape(focused)}"]`)?.focus();
  }

  #renderRoomControls(admin) {
    const box = $('room-controls');
    box.hidden = !admin;
    if (!admin) return;
    const m = this.meeting;
    const room = m.getRoomInfo();
    const host = m.me?.role === 'host';
    box.replaceChildren(...[
      this.#button('mute-all', room.muteAll ? 'Allow speaking' : 'Mute all', () => (room.muteAll ? m.adminUnmuteAll() : m.adminMuteAll({ allowSelfUnmute: false }))),
      this.#button('camera-all', room.cameraOffAll ? 'Allow cameras' : 'Cameras off', () => (room.cameraOffAll ? m.adminCameraOnAll() : m.adminCameraOffAll({ allowSelfOpen: false }))),
      this.#button('lock', room.locked ? 'Unlock room' : 'Lock room', () => m.adminLockRoom(!room.locked)),
      this.#button('share', room.shareDisabled ? 'Allow sharing' : 'Disable sharing', () => m.adminDisableShare(!room.shareDisabled)),
      host ? this.#button('end', 'End meeting', async () => {
        if (await ask('End the meeting?', 'Everyone will leave the meeting.', [{ label: 'Cancel', value: 'no' }, { label: 'End for everyone', value: 'yes', primary: true }]) === 'yes') await m.adminEndRoom();
      }, 'danger') : null,
    ].filter(Boolean));
  }

  #row(user, me, admin) {
    const mine = user.uid === me?.uid;
    const tags = [
      mine && 'you', user.role === 'host' && 'host', user.role === 'co_host' && 'co-host',
    ].filter(Boolean).map((t) => el('span', { class: 'tag' }, t));
    const states = [
      user.micState === 'on' ? 'mic on' : 'muted', user.cameraState === 'on' ? 'camera on' : '',
      user.shareState ? 'sharing' : '', user.handRaised ? 'hand raised' : '', user.chatDisabled ? 'chat off' : '',
    ].filter(Boolean).join(' · ');
    const description = `${user.nickname}: microphone ${user.micState}, camera ${user.cameraState}${user.handRaised ? ', hand raised' : ''}${user.shareState ? ', sharing' : ''}`;
    const row = el('li', { dataset: { uid: user.uid }, 'aria-label': description },
      el('div', { class: 'who' }, el('span', { class: 'name' }, user.nickname), ...tags, el('span', { class: 'muted', 'aria-hidden': 'true' }, states)));
    const canAct = admin && !mine && !(me.role === 'co_host' && user.role === 'host');
    if (canAct) row.append(el('div', { class: 'actions' }, this.#memberActions(user, me)));
    return row;
  }

  #memberActions(user, me) {
    const m = this.meeting;
    const uid = user.uid;
    const name = user.nickname;
    const actions = [
      user.micState === 'on'
        ? this.#button(`mute:${uid}`, 'Mute', () => m.adminCloseMic(uid), null, `Mute ${name}`)
        : this.#button(`ask-mic:${uid}`, 'Ask to unmute', () => m.adminRequestOpenMic(uid), null, `Ask ${name} to unmute`),
      user.cameraState === 'on'
        ? this.#button(`camera:${uid}`, 'Stop video', () => m.adminCloseCamera(uid), null, `Stop ${name}'s video`)
        : this.#button(`ask-camera:${uid}`, 'Ask for video', () => m.adminRequestOpenCamera(uid), null, `Ask ${name} to start video`),
      user.shareState ? this.#button(`stop-share:${uid}`, 'Stop sharing', () => m.adminStopShare(uid), null, `Stop ${name}'s sharing`) : null,
      user.handRaised ? this.#button(`lower:${uid}`, 'Lower hand', () => m.adminLowerHand(uid), null, `Lower ${name}'s hand`) : null,
      this.#button(`chat:${uid}`, user.chatDisabled ? 'Allow chat' : 'Disable chat', () => m.adminDisableChat(uid, !user.chatDisabled), null, `${user.chatDisabled ? 'Allow' : 'Disable'} chat for ${name}`),
    ];
    if (me.role === 'host') {
      actions.push(this.#button(`cohost:${uid}`, user.role === 'co_host' ? 'Remove co-host' : 'Make co-host', () => m.adminSetCoHost(uid, user.role !== 'co_host'), null,
        `${user.role === 'co_host' ? 'Remove co-host role of' : 'Make co-host:'} ${name}`));
      actions.push(this.#button(`host:${uid}`, 'Make host', async () => {
        if (await ask('Make host?', `${name} becomes the host; you become a member.`, [{ label: 'Cancel', value: 'no' }, { label: 'Make host', value: 'yes', primary: true }]) === 'yes') await m.adminTransferHost(uid);
      }, null, `Make ${name} the host`));
    }
    actions.push(this.#button(`kick:${uid}`, 'Remove', async () => {
      if (await ask(`Remove ${name}?`, `${name} leaves the meeting and is told why.`, [{ label: 'Cancel', value: 'no' }, { label: 'Remove', value: 'yes', primary: true }]) === 'yes') await m.adminKickOut(uid);
    }, 'danger', `Remove ${name}`));
    return actions.filter(Boolean);
  }

  #button(action, label, run, cls, ariaLabel) {
    return el('button', {
      type: 'button', class: cls ?? undefined, dataset: { action }, 'aria-label': ariaLabel ?? undefined,
      onclick: async () => {
        try { await run(); } catch (e) { toast(errorText(e)); }
        this.render();
      },
    }, label);
  }
}
