// SRTC web SDK: the join's `video_codecs` (docs/protocol.md, `join`): the video codecs this browser
// decodes, with H.264 profile by profile. The server offers an H.264 track in its own profile and a
// browser answers an offer of a profile it lacks without the codec (Debian's Chromium decodes no
// High): named profiles let the server refuse such a track (`codec_unsupported`) instead of sending
// nothing.

/** Payload formats that carry no pictures of their own. */
const NOT_DECODERS = new Set(['rtx', 'red', 'ulpfec', 'flexfec-03']);

/** The `profile-level-id` of an `a=fmtp` line in packetization-mode 1 (the only mode the server sends), or null. */
function mode1Profile(fmtp) {
  const params = new Map((fmtp ?? '').split(';').map((p) => p.trim().split('=')).map(([k, v]) => [k?.toLowerCase(), v]));
  if (params.get('packetization-mode') !== '1') return null;
  return params.get('profile-level-id')?.toLowerCase() ?? null;
}

/**
 * The join's `video_codecs`: `configured` (the `videoCodecs` option) when set, each plain `'h264'`
 * followed by the H.264 profiles this browser decodes; else every codec of `capabilities`
 * (`RTCRtpReceiver.getCapabilities('video')`). A plain `h264` (Constrained Baseline to the server)
 * stays first for servers that know names only. `null` when neither is known: the server then takes
 * every codec to be decoded.
 */
export function joinVideoCodecs(configured, capabilities = globalThis.RTCRtpReceiver?.getCapabilities?.('video')) {
  const profiles = [];
  for (const codec of capabilities?.codecs ?? []) {
    if (codec.mimeType?.toLowerCase() !== 'video/h264') continue;
    const profile = mode1Profile(codec.sdpFmtpLine);
    if (profile && !profiles.includes(profile)) profiles.push(profile);
  }
  const withProfiles = (name) => (name.toLowerCase() === 'h264' ? [name, ...profiles.map((p) => `h264;profile-level-id=${p}`)] : [name]);
  if (Array.isArray(configured)) return configured.map(String).flatMap(withProfiles);
  if (!capabilities?.codecs) return null;
  const names = [];
  for (const codec of capabilities.codecs) {
    const name = codec.mimeType?.split('/')[1]?.toLowerCase();
    if (!name || NOT_DECODERS.has(name) || names.includes(name)) continue;
    if (name === 'h264' && profiles.length === 0) continue;
    names.push(name);
  }
  return names.flatMap(withProfiles);
}
