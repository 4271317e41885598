// SRTC Meet: sign-in and roll call. Members are asked to sign in (or, called by name, to answer)
// in a dialog; the host and co-hosts start and end a sign-in from the participants panel, see the
// count as answers arrive, and call one member from its row.

import { isAdmin } from '/sdk/smeeting.js';
import { $, ask, errorText, toast } from './ui.js';

/** How long a sign-in started from the app stays open. */
const SIGN_IN_SECONDS = 60;

export class Attendance {
  constructor(meeting, nameOf) {
    this.meeting = meeting;
    this.nameOf = nameOf;
    /** What the host's status line says. */
    this.status = '';
    const m = meeting;
    m.addEventListener('signInDidStart', ({ detail }) => {
      if (detail.signIn.startedBy === m.currentUserId) {
        this.status = 'Signed in: 0';
        this.render();
        return;
      }
      this.#prompt('Sign in', `${this.nameOf(detail.signIn.startedBy)} asks everyone to sign in.`, 'Sign in', () => m.signIn(detail.signIn.signInId));
      this.render();
    });
    m.addEventListener('signInDidProgress', ({ detail }) => {
      this.status = `Signed in: ${detail.signed} of ${detail.total}`;
      this.render();
    });
    m.addEventListener('signInDidEnd', ({ detail }) => {
      const records = detail.result.records ?? [];
      const signed = records.filter((r) => r.signedAt).length;
      if (isAdmin(m.me?.role)) this.status = `Last sign-in: ${signed} of ${records.length} signed in`;
      else toast(records.some((r) => r.uid === m.currentUserId && r.signedAt) ? 'Sign-in ended: you signed in' : 'Sign-in ended');
      this.render();
    });
    m.addEventListener('rollCallDidStart', ({ detail }) => {
      if (detail.signIn.targetUid !== m.currentUserId) return;
      this.#prompt('Roll call', `${this.nameOf(detail.signIn.startedBy)} calls your name.`, 'I am here', () => m.answerRollCall(detail.signIn.signInId));
    });
    m.addEventListener('rollCallDidEnd', ({ detail }) => {
      const { signIn, records = [] } = detail.result;
      if (signIn.targetUid === m.currentUserId) return;
      const answered = records.some((r) => r.uid === signIn.targetUid && r.signedAt);
      toast(`Roll call: ${this.nameOf(signIn.targetUid)} ${answered ? 'answered' : 'did not answer'}`, 8000);
    });
    $('signin-toggle').addEventListener('click', async () => {
      try {
        if (m.currentSignIn) await m.adminEndSignIn();
        else await m.adminStartSignIn(SIGN_IN_SECONDS);
      } catch (e) { toast(errorText(e)); }
      this.render();
    });
  }

  /** The host's controls in the participants panel. */
  render() {
    const m = this.meeting;
    const admin = m.isInRoom && isAdmin(m.me?.role);
    $('attendance-section').hidden = !admin;
    if (!admin) return;
    const running = m.currentSignIn !== null && m.currentSignIn.startedBy === m.currentUserId;
    $('signin-toggle').textContent = running ? 'End sign-in' : `Start sign-in (${SIGN_IN_SECONDS} s)`;
    $('signin-status').textContent = this.status;
  }

  reset() {
    this.status = '';
  }

  async #prompt(title, text, yes, answer) {
    const choice = await ask(title, text, [{ label: 'Not now', value: 'no' }, { label: yes, value: 'yes', primary: true }]);
    if (choice !== 'yes') return;
    try {
      await answer();
      toast('Answered', 3000);
    } catch (e) { toast(errorText(e)); }
  }
}
