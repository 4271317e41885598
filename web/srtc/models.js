// SRTC web SDK: names and values of the signaling protocol (docs/protocol.md), and the
// conversion of the server's snake_case JSON to the SDK's camelCase objects.

import { SRTCError } from './errors.js';

/** Signaling protocol version this SDK speaks. */
export const PROTOCOL_VERSION = 1;

/** The signaling path of protocol version 1. */
export const SIGNALING_PATH = '/rtc/v1/ws';

/** The documented track descriptions (any other string is a custom description). */
export const TrackDesc = Object.freeze({
  mic: 'mic',
  cameraBig: 'camera_big',
  cameraSmall: 'camera_small',
  screen: 'screen',
});

/** Why a user left or a session ended. */
export const DisconnectReason = Object.freeze({
  clientLeave: 'client_leave',
  kicked: 'kicked',
  duplicateLogin: 'duplicate_login',
  channelClosed: 'channel_closed',
  timeout: 'timeout',
  tokenExpired: 'token_expired',
  serverShutdown: 'server_shutdown',
  error: 'error',
});

/** Connection-quality levels, best first. */
export const ConnectionQuality = Object.freeze({
  excellent: 'excellent',
  good: 'good',
  poor: 'poor',
  lost: 'lost',
});

/** Where a channel's connection stands. */
export const ConnectionState = Object.freeze({
  disconnected: 'disconnected',
  connecting: 'connecting',
  connected: 'connected',
  reconnecting: 'reconnecting',
});

/** Simulcast rids and the layer each one is (docs/protocol.md, `publish`). */
export const SIMULCAST_RIDS = Object.freeze({ h: TrackDesc.cameraBig, m: 'camera_medium', l: TrackDesc.cameraSmall });

/**
 * Deep copy of server JSON with snake_case keys turned camelCase (`joined_at` → `joinedAt`).
 * String values (`custom`, message `data`) are never parsed, so application data stays as sent.
 */
export function camelize(value) {
  if (Array.isArray(value)) return value.map(camelize);
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const [key, v] of Object.entries(value)) {
    out[key.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase())] = camelize(v);
  }
  return out;
}

/**
 * The signaling WebSocket URL for the server URL an app passes to `join`:
 *
 * | given                        | used                                 |
 * | ---------------------------- | ------------------------------------ |
 * | `http://host:7880`           | `ws://host:7880/rtc/v1/ws`           |
 * | `https://rtc.example.com`    | `wss://rtc.example.com/rtc/v1/ws`    |
 * | `ws://host:7880`             | `ws://host:7880/rtc/v1/ws`           |
 * | `wss://host/custom/path`     | unchanged (a WebSocket URL's path is kept) |
 *
 * A trailing slash is ignored; a query is kept.
 */
export function signalingURL(url) {
  let parsed;
  try {
    parsed = new URL(String(url).trim());
  } catch (e) {
    throw new SRTCError('invalidURL', `invalid server URL '${url}'`);
  }
  const schemes = { 'http:': 'ws:', 'ws:': 'ws:', 'https:': 'wss:', 'wss:': 'wss:' };
  const scheme = schemes[parsed.protocol];
  if (!scheme || !parsed.host) throw new SRTCError('invalidURL', `invalid server URL '${url}'`);
  const path = parsed.pathname.replace(/\/+$/, '');
  const keepPath = (parsed.protocol === 'ws:' || parsed.protocol === 'wss:') && path !== '';
  return `${scheme}//${parsed.host}${keepPath ? path : path + SIGNALING_PATH}${parsed.search}`;
}

// The server leaves out fields that are null; the SDK's objects always carry them.

/** `ChannelInfo`: `{channel, createdAt, userCount, metadata}`. */
export function channelInfo(data) {
  return { ...data, metadata: data?.metadata ?? null };
}

/** `TrackInfo`: `{id, uid, kind, desc, muted, layers, codec}`. */
export function trackInfo(data) {
  return { ...data, muted: Boolean(data?.muted), layers: data?.layers ?? [], codec: data?.codec ?? null };
}

/** `UserInfo`: `{uid, nickname, custom, joinedAt, tracks}`. */
export function userInfo(data) {
  return { ...data, nickname: data?.nickname ?? null, custom: data?.custom ?? null, tracks: (data?.tracks ?? []).map(trackInfo) };
}

/** `CustomMessage`: `{from, to, data, timestamp}`; `from` is null for the backend, `to` null for everyone. */
export function customMessage(data) {
  return { from: data?.from ?? null, to: data?.to ?? null, data: data?.data ?? '', timestamp: data?.timestamp ?? 0 };
}
