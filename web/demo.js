// The SRTC demo page: join with a token, publish camera + mic, see the others' videos with an
// active-speaker highlight, chat, and watch quality. Everything goes through the web SDK.

import { SRTCChannel, createLocalMediaTracks } from './srtc.js';
import { unverifiedTokenClaims } from './srtc/base64url.js';

const $ = (id) => document.getElementById(id);
const channel = new SRTCChannel({ logLevel: 'info' });
const tiles = new Map(); // uid → {root, video, audio, label, status}
let local = { audio: null, video: null };
window.srtcDemo = { channel };

// MARK: - Form

$('server-url').value = location.protocol.startsWith('http') ? location.origin : 'http://127.0.0.1:7880';
for (const id of ['channel-name', 'uid']) $(id).addEventListener('input', updateGrantCommand);
updateGrantCommand();

function updateGrantCommand() {
  $('grant-command').textContent = `srtc grant --channel ${$('channel-name').value || 'room1'} --uid ${$('uid').value || 'alice'}`;
}

$('join-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  $('join-error').textContent = '';
  const token = $('token').value.trim();
  const claims = unverifiedTokenClaims(token);   // only to check it against the form; the server verifies it
  if (!claims) return showError('This is not a token: paste the "token" value your backend got from /server/v1/channel/grant.');
  const grantChannel = claims.grant?.channel ?? claims.channel;
  if ($('channel-name').value && grantChannel && grantChannel !== $('channel-name').value) {
    return showError(`The token is for channel "${grantChannel}", not "${$('channel-name').value}".`);
  }
  if ($('uid').value && claims.sub && claims.sub !== $('uid').value) {
    return showError(`The token is for uid "${claims.sub}", not "${$('uid').value}".`);
  }
  setBusy($('join'), true);
  try {
    await channel.join($('server-url').value, token, { nickname: $('nickname').value || undefined });
  } catch (error) {
    showError(`Join failed: ${error.message}`);
  } finally {
    $('join').disabled = channel.isJoined;
  }
});

$('leave').addEventListener('click', () => channel.leave());

function showError(text) { $('join-error').textContent = text; }
function setBusy(button, busy) { button.disabled = busy; }

// MARK: - My media

$('publish').addEventListener('click', async () => {
  setBusy($('publish'), true);
  try {
    local = await createLocalMediaTracks({ audio: true, video: true });
    $('local-video').srcObject = new MediaStream([local.video]);
    await channel.publishLocalTracks([
      { track: local.audio, desc: 'mic' },
      { track: local.video, desc: 'camera_big', simulcast: $('simulcast').checked },
    ]);
    $('mute-mic').disabled = $('mute-camera').disabled = false;
    log('published camera and mic');
  } catch (error) {
    log(`publish failed: ${error.message}`, 'error');
    for (const t of [local.audio, local.video]) t?.stop();
    $('publish').disabled = !channel.isJoined;
  }
});

for (const [button, kind] of [['mute-mic', 'audio'], ['mute-camera', 'video']]) {
  $(button).addEventListener('click', async () => {
    const track = channel.localTracks.find((t) => t.kind === kind);
    if (!track) return;
    try {
      await channel.mute(track, !track.muted);
      $(button).textContent = `${track.muted ? 'Unmute' : 'Mute'} ${kind === 'audio' ? 'mic' : 'camera'}`;
    } catch (error) {
      log(`mute failed: ${error.message}`, 'error');
    }
  });
}

// MARK: - Remote users

function tileFor(user) {
  let tile = tiles.get(user.uid);
  if (tile) return tile;
  const root = document.createElement('div');
  root.className = 'tile';
  root.innerHTML = '<video autoplay playsinline muted></video><audio autoplay></audio>' +
    '<span class="name"></span><span class="status"></span><button class="layer" hidden>big</button>';
  tile = { root, video: root.querySelector('video'), audio: root.querySelector('audio'),
           label: root.querySelector('.name'), status: root.querySelector('.status'), layer: root.querySelector('.layer') };
  tile.label.textContent = user.nickname ? `${user.nickname} (${user.uid})` : user.uid;
  $('remotes').append(root);
  $('nobody').hidden = true;
  tiles.set(user.uid, tile);
  return tile;
}

channel.on('didJoinSucceed', (info) => {
  $('state').textContent = `joined ${info.channel} as ${channel.uid}`;
  $('leave').disabled = $('publish').disabled = $('chat-input').disabled = $('chat-send').disabled = false;
  $('join').disabled = true;
  log(`joined ${info.channel} (${info.userCount} user(s))`);
});

channel.on('connectionStateDidChange', (state) => {
  $('state').className = `badge ${state}`;
  if (state !== 'connected') $('state').textContent = state;
  else if (channel.channelId) $('state').textContent = `joined ${channel.channelId} as ${channel.uid}`;
});

channel.on('userDidJoin', (user) => { tileFor(user); log(`${user.uid} joined`); });
channel.on('userDidUpdate', (user) => { tileFor(user).label.textContent = user.nickname ? `${user.nickname} (${user.uid})` : user.uid; });
channel.on('userDidLeave', (uid, reason) => {
  tiles.get(uid)?.root.remove();
  tiles.delete(uid);
  $('nobody').hidden = tiles.size > 0;
  log(`${uid} left (${reason})`);
});

// Subscribe to everything: cameras start on the small layer; the tile's button switches.
channel.on('didAddTrack', async (user, track) => {
  const tile = tileFor(user);
  const simulcast = track.layers.length > 1;
  try {
    await channel.subscribe(track, simulcast ? { layer: 'camera_small' } : {});
    track.attach(track.kind === 'video' ? tile.video : tile.audio);
    if (simulcast) {
      tile.layer.hidden = false;
      tile.layer.onclick = () => {
        const next = track.requestedLayer === 'camera_big' ? 'camera_small' : 'camera_big';
        channel.setLayer(track, next).catch((e) => log(`set layer failed: ${e.message}`, 'error'));
      };
    }
  } catch (error) {
    log(`subscribe to ${user.uid}'s ${track.desc} failed: ${error.message}`, 'error');
  }
});

channel.on('didRemoveTrack', (user, track) => {
  const tile = tiles.get(user.uid);
  if (tile && track.kind === 'video') { tile.video.srcObject = null; tile.layer.hidden = true; }
});

channel.on('didSwitchLayer', (info) => {
  const track = channel.remoteTrack(info.trackId);
  const tile = tiles.get(info.uid);
  if (tile) tile.layer.textContent = info.layer === 'camera_big' ? 'small' : 'big';
  log(`${info.uid}'s ${track?.desc ?? 'video'} now ${info.layer} (${info.cause})`);
});

channel.on('didChangeReceiveStreamStatus', (status) => {
  const tile = tiles.get(status.uid);
  if (tile) tile.status.textContent = status.timedOut ? 'no video' : '';
});

channel.on('didChangeActiveSpeakers', ({ speakers }) => {
  const loud = new Set(speakers.map((s) => s.uid));
  for (const [uid, tile] of tiles) tile.root.classList.toggle('speaking', loud.has(uid));
  document.querySelector('.tile.local').classList.toggle('speaking', loud.has(channel.uid));
});

channel.on('didChangeConnectionQuality', (change) => {
  if (change.uid === channel.uid) $('quality').textContent = `quality: ${change.quality}`;
  else { const tile = tiles.get(change.uid); if (tile) tile.root.dataset.quality = change.quality; }
});

channel.on('didReceiveQualityReport', (r) => {
  const kbps = (bps) => `${Math.round((bps ?? 0) / 1000)} kbit/s`;
  $('my-report').textContent = `up ${kbps(r.upstream?.bitrateBps)} · down ${kbps(r.downstream?.bitrateBps)} · ` +
    `loss ${(100 * (r.downstream?.lossRate ?? 0)).toFixed(1)}% · RTT ${Math.round(r.rttMs ?? 0)} ms · ${r.quality}`;
  $('quality').textContent = `quality: ${r.quality}`;
});

// MARK: - Chat

$('chat-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const text = $('chat-input').value.trim();
  if (!text) return;
  try {
    await channel.sendCustomMessage(JSON.stringify({ chat: text }));
    addMessage(channel.uid, text, true);
    $('chat-input').value = '';
  } catch (error) {
    log(`send failed: ${error.message}`, 'error');
  }
});

channel.on('didReceiveCustomMessage', (message) => {
  let text = message.data;
  try { text = JSON.parse(message.data).chat ?? message.data; } catch (e) { /* plain text */ }
  addMessage(message.from ?? 'server', text, false);
});

function addMessage(from, text, mine) {
  const item = document.createElement('li');
  item.className = mine ? 'mine' : '';
  const who = document.createElement('strong');
  who.textContent = `${from}: `;
  item.append(who, document.createTextNode(text));
  $('messages').append(item);
  item.scrollIntoView({ block: 'nearest' });
}

// MARK: - Leaving and events

channel.on('didDisconnect', (reason, error) => {
  for (const [, tile] of tiles) tile.root.remove();
  tiles.clear();
  $('nobody').hidden = false;
  for (const t of [local.audio, local.video]) t?.stop();
  local = { audio: null, video: null };
  $('local-video').srcObject = null;
  $('join').disabled = false;
  for (const id of ['leave', 'publish', 'mute-mic', 'mute-camera', 'chat-input', 'chat-send']) $(id).disabled = true;
  $('quality').textContent = 'quality: –';
  log(`disconnected: ${reason}${error ? ' (' + error.message + ')' : ''}`);
});

channel.on('channelIsReconnecting', () => log('connection lost, reconnecting…', 'warn'));
channel.on('didReconnect', () => log('reconnected'));

function log(text, level = 'info') {
  const item = document.createElement('li');
  item.className = level;
  item.textContent = `${new Date().toLocaleTimeString()} ${text}`;
  $('log').prepend(item);
  while ($('log').children.length > 200) $('log').lastChild.remove();
}
