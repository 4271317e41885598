// SRTC Meet: the participants panel. Everyone with their state and place; for the host and
// co-hosts, the room switches (mute all, cameras off, lock, sharing, waiting room, end), the
// waiting room's admission list, and each member's controls (mute, camera off, ask to turn on,
// co-host, transfer host, chat, lower hand, roll call, breakout room, remove), and the meeting's
// RTMP ingresses (docs/meeting-protocol.md, "Ingress": an encoder's stream shown as a tile).

import { isAdmin } from '/sdk/smeeting.js';
import { $, actionButton, ask, el, errorText, toast } from './ui.js';

export class ParticipantsPanel {
  constructor(meeting, open) {
    this.meeting = meeting;
    this.open = open;
    /** ingress id → `{url, streamKey}` of the ingresses this page made (only their maker gets the key). */
    this.ingressKeys = new Map();
    $('admit-all').addEventListener('click', async () => {
      try { await meeting.adminAdmitAllWaiting(); } catch (e) { toast(errorText(e)); }
      this.render();
    });
  }

  /** Redraws the panel (cheap: a few dozen nodes), keeping the focused button focused. */
  render() {
    const m = this.meeting;
    if (!m.isInRoom || $('participants-panel').hidden) return;
    const focused = document.activeElement?.dataset?.action;
    const me = m.me;
    const admin = isAdmin(me?.role);
    this.#renderRoomControls(admin);
    this.#renderWaiting(admin);
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
      this.#button('waiting-room', room.waitingRoom ? 'Waiting room off' : 'Waiting room on', () => m.adminSetWaitingRoom(!room.waitingRoom)),
      // Live captions: this page's own knowledge of them (the room state does not carry it).
      this.#button('captions', this.captionsOn ? 'Captions off' : 'Captions on', async () => {
        if (this.captionsOn) await m.stopCaptions(); else await m.startCaptions();
        this.captionsOn = !this.captionsOn;
      }),
      this.#button('ingress', 'Stream in (RTMP)', async () => {
        // Into the part of the meeting the host is in (a sub-meeting it visits, or the main one).
        const made = await m.adminCreateIngress({ subMeetingId: m.currentSubMeetingId ?? undefined });
        this.ingressKeys.set(made.ingress.ingressId, { url: made.url, streamKey: made.streamKey });
        toast(`Push RTMP to ${made.url}`, 10000);
      }),
      host ? this.#button('training', room.mode === 'training' ? 'Training mode off' : 'Training mode on',
        () => m.updateRoom(room.meetingId, { mode: room.mode === 'training' ? 'normal' : 'training' })) : null,
      host ? this.#button('end', 'End meeting', async () => {
        if (await ask('End the meeting?', 'Everyone will leave the meeting.', [{ label: 'Cancel', value: 'no' }, { label: 'End for everyone', value: 'yes', primary: true }]) === 'yes') await m.adminEndRoom();
      }, 'danger') : null,
      ...(room.ingresses ?? []).map((ingress) => this.#ingressRow(ingress)),
    ].filter(Boolean));
  }

  /** One ingress: its name, where an encoder pushes (when this page made it) and Remove. */
  #ingressRow(ingress) {
    const keys = this.ingressKeys.get(ingress.ingressId);
    const server = keys ? keys.url.slice(0, keys.url.length - keys.streamKey.length - 1) : null;
    return el('div', { class: 'ingress', dataset: { ingressId: ingress.ingressId, uid: ingress.uid } },
      el('span', { class: 'name' }, ingress.nickname),
      keys ? el('span', { class: 'muted' }, 'Server ', el('code', { dataset: { ingressServer: '' } }, server),
        ' key ', el('code', { dataset: { ingressKey: '' } }, keys.streamKey),
        el('span', { class: 'sr-only', dataset: { ingressUrl: '' } }, keys.url)) : null,
      this.#button(`ingress-remove:${ingress.ingressId}`, 'Remove', () => this.meeting.adminDeleteIngress(ingress.ingressId), 'danger',
        `Remove the stream ${ingress.nickname}`));
  }

  /** Hosts and co-hosts: who waits, each with Admit and Remove. */
  #renderWaiting(admin) {
    const waiting = admin ? this.meeting.getWaitingList() : [];
    $('waiting-section').hidden = waiting.length === 0;
    $('waiting-list').replaceChildren(...waiting.map((user) => el('li', { dataset: { uid: user.uid }, class: 'waiting' },
      el('div', { class: 'who' }, el('span', { class: 'name' }, user.nickname), el('span', { class: 'muted' }, 'waiting')),
      el('div', { class: 'actions' },
        this.#button(`admit:${user.uid}`, 'Admit', () => this.meeting.adminAdmitWaiting(user.uid), 'primary', `Admit ${user.nickname}`),
        this.#button(`deny:${user.uid}`, 'Remove', () => this.meeting.adminRemoveWaiting(user.uid), null, `Do not admit ${user.nickname}`)))));
  }

  #row(user, me, admin) {
    const mine = user.uid === me?.uid;
    const tags = [
      mine && 'you', user.role === 'host' && 'host', user.role === 'co_host' && 'co-host', user.presenter && 'presenter',
    ].filter(Boolean).map((t) => el('span', { class: 'tag' }, t));
    const states = [
      user.micState === 'on' ? 'mic on' : 'muted', user.cameraState === 'on' ? 'camera on' : '',
      user.shareState ? 'sharing' : '', user.handRaised ? 'hand raised' : '', user.chatDisabled ? 'chat off' : '',
      user.subMeetingId ? `in ${this.#subTitle(user.subMeetingId)}` : '',
    ].filter(Boolean).join(' · ');
    const description = `${user.nickname}: microphone ${user.micState}, camera ${user.cameraState}${user.handRaised ? ', hand raised' : ''}${user.shareState ? ', sharing' : ''}`;
    const row = el('li', { dataset: { uid: user.uid }, 'aria-label': description },
      el('div', { class: 'who' }, el('span', { class: 'name' }, user.nickname), ...tags, el('span', { class: 'muted', 'aria-hidden': 'true' }, states)));
    const canAct = admin && !mine && !(me.role === 'co_host' && user.role === 'host');
    const actions = canAct ? this.#memberActions(user, me) : [];
    if (!mine) {
      // Playback only, for me: the member still speaks to everyone else.
      const silenced = this.meeting.isRemoteAudioMutedFor(user.uid);
      actions.unshift(this.#button(`listen:${user.uid}`, silenced ? 'Unmute for me' : 'Mute for me',
        () => this.meeting.setRemoteAudioMuted(user.uid, !silenced), null, `${silenced ? 'Play' : 'Stop playing'} ${user.nickname}'s audio for me`));
    }
    if (actions.length) row.append(el('div', { class: 'actions' }, actions));
    return row;
  }

  #memberActions(user, me) {
    const m = this.meeting;
    // A training meeting: only presenters (and hosts) speak; a raised hand asks to present.
    const training = m.getRoomInfo()?.mode === 'training';
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
      user.handRaised ? this.#button(`lower:${uid}`, training ? 'Decline' : 'Lower hand', () => m.adminLowerHand(uid), null, `${training ? 'Decline' : 'Lower'} ${name}'s hand`) : null,
      training && user.handRaised ? this.#button(`approve:${uid}`, 'Approve', () => m.adminApproveHand(uid), 'primary', `Approve ${name}: presenter`) : null,
      training && user.role === 'member' ? this.#button(`presenter:${uid}`, user.presenter ? 'Remove presenter' : 'Make presenter',
        () => m.adminSetPresenter(uid, !user.presenter), null, `${user.presenter ? 'Remove presenter role of' : 'Make presenter:'} ${name}`) : null,
      this.#button(`chat:${uid}`, user.chatDisabled ? 'Allow chat' : 'Disable chat', () => m.adminDisableChat(uid, !user.chatDisabled), null, `${user.chatDisabled ? 'Allow' : 'Disable'} chat for ${name}`),
    ];
    if (me.role === 'host') {
      actions.push(this.#button(`cohost:${uid}`, user.role === 'co_host' ? 'Remove co-host' : 'Make co-host', () => m.adminSetCoHost(uid, user.role !== 'co_host'), null,
        `${user.role === 'co_host' ? 'Remove co-host role of' : 'Make co-host:'} ${name}`));
      actions.push(this.#button(`host:${uid}`, 'Make host', async () => {
        if (await ask('Make host?', `${name} becomes the host; you become a member.`, [{ label: 'Cancel', value: 'no' }, { label: 'Make host', value: 'yes', primary: true }]) === 'yes') await m.adminTransferHost(uid);
      }, null, `Make ${name} the host`));
    }
    actions.push(this.#button(`rollcall:${uid}`, 'Roll call', async () => {
      await m.adminRollCall(uid, 30);
      toast(`Roll call: ${name} has 30 s to answer`);
    }, null, `Roll call ${name}`));
    const subs = m.getSubMeetings();
    if (subs.length && user.role === 'member') {
      const assigned = subs.find((s) => s.members.includes(uid))?.subMeetingId ?? '';
      const select = el('select', {
        'aria-label': `Breakout room of ${name}`, dataset: { action: `assign:${uid}` },
        onchange: async () => {
          try { if (select.value) await m.adminAssignSubMeeting(select.value, [uid]); } catch (e) { toast(errorText(e)); }
        },
      }, el('option', { value: '' }, 'No breakout room'), ...subs.map((s) => el('option', { value: s.subMeetingId, selected: s.subMeetingId === assigned }, s.title)));
      actions.push(select);
    }
    actions.push(this.#button(`kick:${uid}`, 'Remove', async () => {
      if (await ask(`Remove ${name}?`, `${name} leaves the meeting and is told why.`, [{ label: 'Cancel', value: 'no' }, { label: 'Remove', value: 'yes', primary: true }]) === 'yes') await m.adminKickOut(uid);
    }, 'danger', `Remove ${name}`));
    return actions.filter(Boolean);
  }

  #subTitle(id) {
    return this.meeting.getSubMeetings().find((s) => s.subMeetingId === id)?.title ?? id;
  }

  #button(action, label, run, cls, ariaLabel) {
    return actionButton(action, label, run, { cls, ariaLabel, after: () => this.render() });
  }
}
