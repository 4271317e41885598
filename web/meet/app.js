// SRTC Meet: the meeting app served at /meet/. Pre-join → sign-in → home (start, join, scheduled
// meetings) → (the waiting room →) the meeting. Built only on the SMeeting web SDK (/sdk/smeeting.js).
//
// Sign-in: the app asks the server's demo sign-in (POST /demo/v1/sign-in, on with
// `--demo-auth`) for a member token for the name typed; without it, it asks for a member token
// from your backend (docs/sdk-web.md, "Your backend").

import { AttendType, MeetingType, SMeetingEngine } from '/sdk/smeeting.js';
import { $, el, errorText, formatRoomNo, showScreen, toast } from './ui.js';
import { PreJoin } from './prejoin.js';
import { MeetingView } from './meeting-view.js';

const meeting = new SMeetingEngine(location.origin, { logLevel: 'info' });
const prejoin = new PreJoin();
const view = new MeetingView(meeting, () => prejoin.choice, { onExit: (notice) => goHome(notice) });
const params = new URLSearchParams(location.search);
/** For tests and the console. */
window.meetApp = { meeting, view, prejoin };

// MARK: - Pre-join and sign-in

async function showPrejoin() {
  showScreen('prejoin');
  $('display-name').value = localStorage.getItem('srtc-meet-name') ?? '';
  $('display-name').focus();
  await prejoin.start();
}

$('prejoin-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const name = $('display-name').value.trim();
  const error = $('prejoin-error');
  error.textContent = '';
  if (!name) { error.textContent = 'Type your name.'; return; }
  localStorage.setItem('srtc-meet-name', name);
  $('prejoin-continue').disabled = true;
  try {
    if (!meeting.isLoggedIn) await meeting.login(await memberToken(name));
    prejoin.stop();
    await goHome();
    if (params.get('room')) {
      $('join-room').value = params.get('room');
      $('join-password').focus();
    }
  } catch (e) {
    error.textContent = errorText(e);
  } finally {
    $('prejoin-continue').disabled = false;
  }
});

/** A member token: pasted (from your backend), or from the server's demo sign-in. */
async function memberToken(name) {
  const pasted = $('member-token').value.trim();
  if (pasted) return pasted;
  const response = await fetch('/demo/v1/sign-in', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ nickname: name }) });
  const body = await response.json().catch(() => ({}));
  if (response.ok) return body.token;
  $('token-row').hidden = false;
  throw new Error(response.status === 404
    ? 'This server has no demo sign-in (it runs without --demo-auth). Paste a member token from your backend.'
    : `Sign-in refused: ${body.message ?? response.status}`);
}

$('settings-button').addEventListener('click', () => showPrejoin());
$('signout-button').addEventListener('click', async () => {
  await meeting.logout();
  $('token-row').hidden = true;
  $('member-token').value = '';
  await showPrejoin();
});

// MARK: - Home

async function goHome(notice) {
  showScreen('home');
  $('home-user').textContent = `Signed in as ${meeting.currentNickname ?? ''}`;
  $('home-notice').hidden = !notice;
  $('home-notice').textContent = notice ?? '';
  document.title = 'SRTC Meet';
  await refreshScheduled();
}

async function enter(req, errorNode) {
  errorNode.textContent = '';
  try {
    await view.enter(req);
  } catch (e) {
    errorNode.textContent = errorText(e);
    throw e;
  }
}

$('start-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const password = $('start-password').value.trim();
  const waitingRoom = $('start-waiting').checked;
  const e2ee = $('start-e2ee').checked;
  const mode = $('start-mode').value;
  const title = $('start-title-input').value.trim() || `${meeting.currentNickname}'s meeting`;
  const error = $('start-error');
  $('start-button').disabled = true;
  try {
    const info = await meeting.createRoom({ title, type: MeetingType.instant, attendType: password ? AttendType.password : AttendType.open, password: password || undefined, waitingRoom, mode, ...(e2ee ? { e2ee } : {}) });
    await enter({ meetingId: info.meetingId, password: password || undefined }, error);
  } catch (e) {
    error.textContent ||= errorText(e);
  } finally {
    $('start-button').disabled = false;
  }
});

$('join-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const roomNo = $('join-room').value.replace(/\s+/g, '');
  const password = $('join-password').value;
  $('join-button').disabled = true;
  try {
    await enter({ roomNo, password: password || undefined }, $('join-error'));
  } catch (e) { /* shown in the form */ } finally {
    $('join-button').disabled = false;
  }
});

$('schedule-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const password = $('schedule-password').value.trim();
  const planTime = Math.floor(new Date($('schedule-time').value).getTime() / 1000);
  $('schedule-error').textContent = '';
  try {
    await meeting.createRoom({
      title: $('schedule-title').value.trim(), type: MeetingType.appointment, planTime, planDur: Number($('schedule-duration').value),
      attendType: password ? AttendType.password : AttendType.open, password: password || undefined,
    });
    $('schedule-form').reset();
    await refreshScheduled();
  } catch (e) {
    $('schedule-error').textContent = errorText(e);
  }
});

async function refreshScheduled() {
  const list = $('scheduled-list');
  let page;
  try {
    page = await meeting.attendeeRoom(1, 20);
  } catch (e) {
    list.replaceChildren(el('li', { class: 'muted' }, `Cannot list meetings: ${errorText(e)}`));
    return;
  }
  if (!page.list.length) {
    list.replaceChildren(el('li', { class: 'muted' }, 'No meetings planned.'));
    return;
  }
  list.replaceChildren(...page.list.map((m) => {
    const when = m.planTime ? new Date(m.planTime * 1000).toLocaleString() : 'now';
    const mine = m.hostUid === meeting.currentUserId;
    return el('li', { class: 'meeting-item' },
      el('div', { class: 'stack' }, el('strong', {}, m.title), el('span', { class: 'muted' }, `${formatRoomNo(m.roomNo)} · ${when}${m.planDur ? ` · ${m.planDur} min` : ''}`)),
      el('div', { class: 'row' },
        el('button', { type: 'button', 'aria-label': `Join ${m.title}`, onclick: () => enter({ meetingId: m.meetingId, password: m.password }, $('schedule-error')).catch(() => {}) }, 'Join'),
        mine && m.status === 'scheduled' ? el('button', { type: 'button', 'aria-label': `Cancel ${m.title}`, onclick: async () => {
          try { await meeting.cancelRoom(m.meetingId); toast(`Cancelled ${m.title}`); } catch (e) { toast(errorText(e)); }
          await refreshScheduled();
        } }, 'Cancel') : null));
  }));
}

meeting.addEventListener('meetingConnectionDidLose', () => {
  showPrejoin().catch(() => {});
  $('prejoin-error').textContent = 'The connection to the server was lost. Continue to sign in again.';
});

showPrejoin().catch((e) => { $('prejoin-error').textContent = errorText(e); });
