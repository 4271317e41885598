// A WHEP player (draft-ietf-wish-whep; docs/ingress.md, "WHEP"): plays one user's audio and camera,
// or a composite, from any WHEP endpoint with nothing but HTTP and an RTCPeerConnection. It is
// independent of the SRTC web SDK on purpose: what it needs of the server is the WHEP contract.
//
//   const player = new WHEPPlayer('/whep/v1/room/alice', token);
//   const stream = await player.start();   // POST the offer, apply the answer
//   video.srcObject = stream;
//   await player.stop();                    // DELETE the session

/** How long the offer waits for the browser's own candidates before it is sent without the rest. */
const GATHERING_WAIT_MS = 1000;

export class WHEPError extends Error {
  /** `status`: the HTTP status; `code`: the API's error code when the body had one. */
  constructor(message, status, code) {
    super(message);
    this.name = 'WHEPError';
    this.status = status;
    this.code = code;
  }
}

export class WHEPPlayer {
  #endpoint;
  #token;
  #pc = null;
  #resource = null;

  /** `endpoint`: the WHEP URL (absolute or relative to the page); `token`: a channel token with subscribe rights. */
  constructor(endpoint, token) {
    this.#endpoint = new URL(endpoint, globalThis.location?.href).href;
    this.#token = token;
  }

  /** The session's URL once started (`Location`), for `PATCH` and `DELETE`. */
  get resource() { return this.#resource; }

  /** The peer connection (for `getStats()`), once started. */
  get peerConnection() { return this.#pc; }

  /** Offers to receive one audio and one video stream; resolves with the stream they play in. */
  async start() {
    if (this.#pc) throw new WHEPError('already started', 0);
    const pc = new RTCPeerConnection({ bundlePolicy: 'max-bundle' });
    this.#pc = pc;
    const stream = new MediaStream();
    pc.ontrack = (event) => stream.addTrack(event.track);
    pc.addTransceiver('audio', { direction: 'recvonly' });
    pc.addTransceiver('video', { direction: 'recvonly' });
    await pc.setLocalDescription(await pc.createOffer());
    await this.#gathered(pc);
    const response = await fetch(this.#endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/sdp', Authorization: `Bearer ${this.#token}` },
      body: pc.localDescription.sdp,
    });
    if (response.status !== 201) {
      pc.close();
      this.#pc = null;
      throw await WHEPPlayer.#failure(response, 'POST');
    }
    const location = response.headers.get('Location');
    this.#resource = location ? new URL(location, this.#endpoint).href : null;
    await pc.setRemoteDescription({ type: 'answer', sdp: await response.text() });
    return stream;
  }

  /** Ends the session (`DELETE`) and closes the connection. Idempotent. */
  async stop() {
    const pc = this.#pc, resource = this.#resource;
    this.#pc = null;
    this.#resource = null;
    pc?.close();
    if (!resource) return;
    const response = await fetch(resource, { method: 'DELETE', headers: { Authorization: `Bearer ${this.#token}` } });
    if (!response.ok && response.status !== 404) throw await WHEPPlayer.#failure(response, 'DELETE');
  }

  /** Waits for the browser's candidates (a server that does not trickle needs them in the offer). */
  #gathered(pc) {
    if (pc.iceGatheringState === 'complete') return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, GATHERING_WAIT_MS);
      pc.addEventListener('icegatheringstatechange', () => {
        if (pc.iceGatheringState === 'complete') { clearTimeout(timer); resolve(); }
      });
    });
  }

  /** The server's refusal: its JSON body's `{code, message}` when it has one. */
  static async #failure(response, method) {
    let code, message = `${method} answered ${response.status}`;
    try {
      const body = await response.json();
      code = body.code;
      if (body.message) message += `: ${body.message}`;
    } catch { /* not JSON */ }
    return new WHEPError(message, response.status, code);
  }
}
