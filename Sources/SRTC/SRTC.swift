// SRTC: see docs/architecture.md for what this module holds.
