// The SDK as apps import it: `import SRTC` gives the engine (`SRTCCore`) and every module of the
// SDK's other roles, so the documented names need no other import. The role modules depend on
// `SRTCCore`, never the reverse; this module only gathers them (docs/architecture.md, "The SDK's
// modules"; `SDKModuleRolesTests` keeps every dependency of it exported here).
@_exported import SRTCCore
@_exported import SRTCDevices
@_exported import SRTCIM
@_exported import SRTCPlayer
@_exported import SRTCRender
@_exported import SRTCSpeedTest
