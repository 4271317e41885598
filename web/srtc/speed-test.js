// SRTC web SDK: the network speed test over the server's WebSocket carrier
// (docs/speed-test.md, "Browsers"): the same datagrams as binary messages, latency probes, then
// uplink load counted by the server, then downlink load pulled in a window.

import { SRTCError } from './errors.js';
import { signalingURL } from './models.js';

const KIND = { hello: 1, welcome: 2, reject: 3, ping: 4, pong: 5, data: 6, reportRequest: 9, report: 10, bye: 11, downlinkPull: 12, downlinkData: 8 };
const HEADER = 24;
const LOAD_SIZE = 1200;
/** Bytes of downlink load kept requested: enough for the pipe, never an unbounded server queue. */
const PULL_WINDOW = 128 * 1024;
const PULL_COUNT = 16;

/** The speed test's WebSocket URL of a server base URL. */
export function speedTestURL(url) {
  return signalingURL(url).replace(/\/rtc\/v1\/ws(\?|$)/, '/rtc/v1/speedtest$1');
}

/** Grades as docs/speed-test.md's table (the worst direction decides). */
export function gradeSpeedTest({ rttMs, uplink, downlink }, expectedUplink, expectedDownlink) {
  const loss = Math.max(uplink.packetLossRate, downlink.packetLossRate);
  const jitter = Math.max(uplink.jitterMs, downlink.jitterMs);
  const share = Math.min(uplink.bandwidth / expectedUplink, downlink.bandwidth / expectedDownlink);
  const bounds = [['excellent', 0.01, 100, 20, 0.9], ['good', 0.03, 200, 40, 0.7], ['poor', 0.08, 300, 80, 0.5], ['bad', 0.15, 500, 150, 0.3]];
  for (const [grade, l, r, j, s] of bounds) if (loss < l && rttMs < r && jitter < j && share >= s) return grade;
  return 'veryBad';
}

function packet(kind, session, sequence, size, body) {
  const buffer = new ArrayBuffer(Math.max(size, HEADER + (body?.length ?? 0)));
  const view = new DataView(buffer);
  view.setUint8(0, 0x0c);
  view.setUint8(1, 1);
  view.setUint8(2, kind);
  view.setBigUint64(4, session);
  view.setUint32(12, sequence >>> 0);
  view.setBigUint64(16, BigInt(Math.round(performance.now() * 1000)));
  if (body) new Uint8Array(buffer, HEADER, body.length).set(body);
  return buffer;
}

function parse(buffer) {
  const view = new DataView(buffer);
  if (buffer.byteLength < HEADER || view.getUint8(0) !== 0x0c || view.getUint8(1) !== 1) return null;
  return { kind: view.getUint8(2), session: view.getBigUint64(4), sequence: view.getUint32(12), sent: Number(view.getBigUint64(16)), view, size: buffer.byteLength };
}

/**
 * Runs one test; resolves with the result `{linkId, rttMs, uplink, downlink, quality}` (each link
 * `{bandwidth, packetLossRate, jitterMs}`) or rejects with an `SRTCError`. `onProgress({linkId,
 * phase, fraction, rttMs})` follows it; `signal` (an AbortSignal) stops it.
 */
export async function runSpeedTest({ url, token, linkId = '', duration = 10, expectedUplinkBitrate = 2_000_000, expectedDownlinkBitrate = 2_000_000 },
  { onProgress = () => {}, signal } = {}) {
  duration = Math.min(30, Math.max(2, duration));
  const ws = new WebSocket(speedTestURL(url));
  ws.binaryType = 'arraybuffer';
  const inbox = [];
  let wake = null;
  ws.onmessage = (e) => { const p = parse(e.data); if (p) { p.at = performance.now(); inbox.push(p); wake?.(); } };
  const closed = new Promise((resolve) => { ws.onclose = () => { resolve(); wake?.(); }; });
  const next = (ms) => new Promise((resolve) => { wake = resolve; setTimeout(resolve, ms); });
  const stop = () => { try { ws.close(1000, 'stopped'); } catch (e) { /* closed */ } };
  signal?.addEventListener('abort', stop);
  try {
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = () => reject(new SRTCError('connectionFailed', `cannot open ${speedTestURL(url)}`));
    });
    const tokenBytes = new TextEncoder().encode(token);
    const hello = new Uint8Array(2 + tokenBytes.length);
    new DataView(hello.buffer).setUint16(0, tokenBytes.length);
    hello.set(tokenBytes, 2);
    ws.send(packet(KIND.hello, 0n, 0, 256, hello));
    let welcome = null;
    for (const deadline = performance.now() + 5000; !welcome && performance.now() < deadline && ws.readyState === WebSocket.OPEN;) {
      await next(100);
      const p = inbox.shift();
      if (p?.kind === KIND.reject) throw new SRTCError('server', `the server refused the speed test (${p.view.getUint32(HEADER)})`, { code: p.view.getUint32(HEADER) });
      if (p?.kind === KIND.welcome) welcome = p;
    }
    if (!welcome) throw new SRTCError('timeout', 'no answer from the speed-test endpoint');
    const session = welcome.session;
    const maxUp = welcome.view.getUint32(HEADER), maxDown = welcome.view.getUint32(HEADER + 4);
    const total = duration * 1000, start = performance.now();
    const phases = { latency: total * 0.3, uplink: total * 0.35, downlink: total * 0.35 };
    const rtts = [];
    let pongJitter = 0, lastTransit = null, pings = 0, pongs = 0;
    const progress = (phase) => onProgress({ linkId, phase, fraction: Math.min(1, (performance.now() - start) / total), rttMs: median(rtts) });

    // Latency: a 64-byte ping every 10 ms.
    for (const end = performance.now() + phases.latency; performance.now() < end && ws.readyState === WebSocket.OPEN;) {
      ws.send(packet(KIND.ping, session, pings++, 64));
      await next(10);
      drain(inbox, (p) => {
        if (p.kind !== KIND.pong) return;
        pongs += 1;
        rtts.push(p.at - Number(p.view.getBigUint64(HEADER)) / 1000);
        const transit = p.at * 1000 - p.sent;
        if (lastTransit !== null) pongJitter += (Math.abs(transit - lastTransit) - pongJitter) / 16;
        lastTransit = transit;
      });
    }
    progress('uplink');

    // Uplink: 1200-byte datagrams at the expected rate while the socket's own buffer is small.
    const upRate = Math.min(expectedUplinkBitrate, maxUp), upStart = performance.now();
    let sentBytes = 0;
    for (const end = upStart + phases.uplink; performance.now() < end && ws.readyState === WebSocket.OPEN;) {
      const due = ((performance.now() - upStart) / 1000) * upRate / 8;
      while (sentBytes < due && ws.bufferedAmount < 256 * 1024) {
        ws.send(packet(KIND.data, session, sentBytes / LOAD_SIZE, LOAD_SIZE));
        sentBytes += LOAD_SIZE;
      }
      await next(5);
    }
    ws.send(packet(KIND.reportRequest, session, 0, 64));
    let report = null;
    for (const deadline = performance.now() + 3000; !report && performance.now() < deadline && ws.readyState === WebSocket.OPEN;) {
      await next(50);
      drain(inbox, (p) => { if (p.kind === KIND.report) report = p.view; });
    }
    progress('downlink');

    // Downlink: pulls keep about PULL_WINDOW bytes requested until the phase ends.
    let requested = 0, received = 0, first = 0, last = 0, sequence = 0;
    const downRate = Math.min(expectedDownlinkBitrate, maxDown);
    const downStart = performance.now();
    for (const end = downStart + phases.downlink; performance.now() < end && ws.readyState === WebSocket.OPEN;) {
      const allowed = ((performance.now() - downStart) / 1000) * downRate / 8 + PULL_COUNT * LOAD_SIZE;
      while (requested - received < PULL_WINDOW && requested < allowed) {
        const body = new Uint8Array(4);
        new DataView(body.buffer).setUint16(0, LOAD_SIZE);
        new DataView(body.buffer).setUint16(2, PULL_COUNT);
        ws.send(packet(KIND.downlinkPull, session, sequence, 28, body));
        sequence += PULL_COUNT;
        requested += PULL_COUNT * LOAD_SIZE;
      }
      await next(5);
      drain(inbox, (p) => {
        if (p.kind !== KIND.downlinkData) return;
        if (received === 0) first = p.at;
        received += p.size;
        last = p.at;
      });
    }
    ws.send(packet(KIND.bye, session, 0, HEADER));

    const upBitrate = report ? reportBitrate(report) : 0;
    const downBitrate = last > first ? ((received - LOAD_SIZE) * 8) / ((last - first) / 1000) : 0;
    const result = {
      linkId,
      rttMs: median(rtts),
      uplink: { bandwidth: Math.round(upBitrate), packetLossRate: report ? Math.max(0, 1 - report.getUint32(HEADER) / Math.max(pings, 1)) : 1,
        jitterMs: report ? report.getUint32(HEADER + 4) / 1000 : 0 },
      downlink: { bandwidth: Math.round(downBitrate), packetLossRate: Math.max(0, 1 - pongs / Math.max(report ? report.getUint32(HEADER) : pings, 1)),
        jitterMs: pongJitter / 1000 },
    };
    result.quality = pongs === 0 ? 'down' : gradeSpeedTest(result, Math.min(expectedUplinkBitrate, maxUp), Math.min(expectedDownlinkBitrate, maxDown));
    return result;
  } finally {
    signal?.removeEventListener('abort', stop);
    stop();
    await Promise.race([closed, new Promise((r) => setTimeout(r, 1000))]);
  }
}

function drain(inbox, handle) {
  while (inbox.length) handle(inbox.shift());
}

function median(values) {
  if (!values.length) return 0;
  const s = [...values].sort((a, b) => a - b), m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Uplink bits per second from a report: bytes after the first datagram over the arrival span. */
function reportBitrate(view) {
  const packets = view.getUint32(HEADER + 8), bytes = Number(view.getBigUint64(HEADER + 12));
  const firstAt = Number(view.getBigUint64(HEADER + 20)), lastAt = Number(view.getBigUint64(HEADER + 28));
  if (packets < 2 || lastAt <= firstAt) return 0;
  return ((bytes - bytes / packets) * 8) / ((lastAt - firstAt) / 1e6);
}
