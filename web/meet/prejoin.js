// SRTC Meet: the pre-join screen. Name, camera and microphone pickers, a live preview and a
// microphone level meter; the choices are kept for the meeting (and in localStorage).

import { $, el } from './ui.js';

const STORE = 'srtc-meet-devices';

export class PreJoin {
  constructor() {
    this.stream = null;
    this.audioContext = null;
    this.meterFrame = 0;
    const saved = JSON.parse(localStorage.getItem(STORE) || '{}');
    this.choice = { cameraId: saved.cameraId ?? '', micId: saved.micId ?? '', cameraOn: saved.cameraOn ?? true, micOn: saved.micOn ?? true };
    $('camera-on').checked = this.choice.cameraOn;
    $('mic-on').checked = this.choice.micOn;
    $('camera-select').addEventListener('change', () => this.#changed());
    $('mic-select').addEventListener('change', () => this.#changed());
    $('camera-on').addEventListener('change', () => this.#changed());
    $('mic-on').addEventListener('change', () => this.#changed());
  }

  /** Opens the devices and lists them (labels are only known once a device was opened). */
  async start() {
    await this.#open();
    await this.#listDevices();
  }

  /** Releases the preview's camera and microphone (the meeting opens its own). */
  stop() {
    cancelAnimationFrame(this.meterFrame);
    this.stream?.getTracks().forEach((t) => t.stop());
    this.stream = null;
    this.audioContext?.close().catch(() => {});
    this.audioContext = null;
    $('preview-video').srcObject = null;
  }

  async #changed() {
    this.choice = {
      cameraId: $('camera-select').value, micId: $('mic-select').value,
      cameraOn: $('camera-on').checked, micOn: $('mic-on').checked,
    };
    localStorage.setItem(STORE, JSON.stringify(this.choice));
    this.stop();
    await this.#open();
  }

  async #open() {
    const { cameraOn, micOn, cameraId, micId } = this.choice;
    $('preview-off').hidden = cameraOn;
    $('preview-video').hidden = !cameraOn;
    if (!cameraOn && !micOn) return;
    try {
      this.stream = await navigator.mediaDevices.getUserMedia({
        video: cameraOn ? { deviceId: cameraId ? { ideal: cameraId } : undefined, width: { ideal: 1280 }, height: { ideal: 720 } } : false,
        audio: micOn ? { deviceId: micId ? { ideal: micId } : undefined } : false,
      });
    } catch (e) {
      $('prejoin-error').textContent = `Cannot open your camera or microphone: ${e.message}`;
      return;
    }
    $('prejoin-error').textContent = '';
    $('preview-video').srcObject = this.stream;
    const audio = this.stream.getAudioTracks()[0];
    if (audio) this.#meter(audio);
  }

  async #listDevices() {
    const devices = await navigator.mediaDevices.enumerateDevices();
    const fill = (select, kind, current) => {
      const list = devices.filter((d) => d.kind === kind);
      select.replaceChildren(...list.map((d, i) => el('option', { value: d.deviceId, selected: d.deviceId === current }, d.label || `${kind === 'videoinput' ? 'Camera' : 'Microphone'} ${i + 1}`)));
    };
    fill($('camera-select'), 'videoinput', this.choice.cameraId);
    fill($('mic-select'), 'audioinput', this.choice.micId);
    this.choice.cameraId = $('camera-select').value;
    this.choice.micId = $('mic-select').value;
  }

  /** An analyser on the microphone drives the meter (RMS of the waveform, 0–100). */
  #meter(track) {
    this.audioContext = new AudioContext();
    const source = this.audioContext.createMediaStreamSource(new MediaStream([track]));
    const analyser = this.audioContext.createAnalyser();
    analyser.fftSize = 512;
    source.connect(analyser);
    const samples = new Float32Array(analyser.fftSize);
    const meter = $('level-meter');
    const fill = meter.querySelector('.meter-fill');
    const draw = () => {
      analyser.getFloatTimeDomainData(samples);
      let sum = 0;
      for (const s of samples) sum += s * s;
      const level = Math.min(100, Math.round(Math.sqrt(sum / samples.length) * 300));
      fill.style.width = `${level}%`;
      meter.setAttribute('aria-valuenow', String(level));
      this.meterFrame = requestAnimationFrame(draw);
    };
    this.audioContext.resume().catch(() => {});
    draw();
  }
}
