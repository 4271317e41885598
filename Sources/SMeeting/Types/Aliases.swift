import SMeetingProtocol
import SRTC

// The meeting's data types are the meeting protocol's own (docs/meeting-protocol.md), shared with
// the server; these aliases give them their documented names in `SMeeting`.

/// Room-level state of the current meeting (policies, lock, sharing).
public typealias RoomInfo = SMeetingProtocol.RoomInfo
/// The state of one member (role, mic, camera, sharing, chat).
public typealias MeetingUserInfo = SMeetingProtocol.MeetingUserInfo
/// An encoder's RTMP stream in the meeting (`RoomInfo.ingresses`, `adminCreateIngress`).
public typealias MeetingIngress = SMeetingProtocol.MeetingIngress
/// `adminCreateIngress`'s answer: the ingress and where its encoder pushes.
public typealias CreateIngressResp = SMeetingProtocol.CreateIngressResp
/// A stored meeting (`createRoom`, `detailRoom`, lists).
public typealias MeetingInfo = SMeetingProtocol.MeetingInfo
/// `createRoom(_:)`'s request.
public typealias MeetingCreateReq = SMeetingProtocol.MeetingCreateReq
/// `updateRoom(meetingId:req:)`'s request.
public typealias MeetingUpdateReq = SMeetingProtocol.MeetingUpdateReq
/// `enterRoom(_:)`'s request.
public typealias MeetingEnterReq = SMeetingProtocol.MeetingEnterReq
/// One page of `attendeeRoom(page:)` / `attendedRoom(page:)`.
public typealias MeetingPage = SMeetingProtocol.MeetingPage
/// `.instant` / `.appointment`.
public typealias MeetingType = SMeetingProtocol.MeetingType
/// `.normal`, `.mix`, `.voice`, `.training`, `.subMeeting`.
public typealias MeetingMode = SMeetingProtocol.MeetingMode
/// `.open`, `.password`, `.invitation`.
public typealias AttendType = SMeetingProtocol.AttendType
/// `.scheduled`, `.ongoing`, `.ended`, `.cancelled`.
public typealias MeetingStatus = SMeetingProtocol.MeetingStatus
/// `.member`, `.host`, `.coHost`.
public typealias Role = SMeetingProtocol.Role
/// `.on` / `.off`.
public typealias MicState = SMeetingProtocol.MicState
/// `.on` / `.off`.
public typealias CameraState = SMeetingProtocol.CameraState
/// `.screen` (1) / `.whiteBoard` (2).
public typealias ShareType = SMeetingProtocol.ShareType
/// `.mic`, `.cameraBig`, `.cameraSmall`, `.screen`. (SRTC has a `TrackDesc` namespace of strings
/// too: write `SMeeting.TrackDesc` where both modules are imported and the type is not inferred.)
public typealias TrackDesc = SMeetingProtocol.TrackDesc
/// Why a member left the meeting.
public typealias ExitReason = SMeetingProtocol.ExitReason
/// One in-meeting chat message.
public typealias ChatMessage = SMeetingProtocol.ChatMessage
/// A member in the waiting room.
public typealias WaitingUserInfo = SMeetingProtocol.WaitingUserInfo
/// Why a member left the waiting room.
public typealias WaitingLeaveReason = SMeetingProtocol.WaitingLeaveReason
/// A sub-meeting (breakout room).
public typealias SubMeetingInfo = SMeetingProtocol.SubMeetingInfo
/// `.created`, `.open`, `.closing`.
public typealias SubMeetingStatus = SMeetingProtocol.SubMeetingStatus
/// A sign-in or roll call.
public typealias SignInInfo = SMeetingProtocol.SignInInfo
/// `.signIn` / `.rollCall`.
public typealias SignInKind = SMeetingProtocol.SignInKind
/// One member's answer to a sign-in or roll call.
public typealias SignInRecord = SMeetingProtocol.SignInRecord
/// A stored sign-in or roll call with every answer.
public typealias SignInResult = SMeetingProtocol.SignInResult

/// What a rendering "view" is: on Apple platforms the documented views are SRTC renderers; on
/// Linux any `VideoRenderer` (a recorder, an encoder, a test collector) plays the view's part.
public typealias NativeVideoView = any VideoRenderer

/// The meeting of a reminder (`SMeetingIMEvents.meeting(_:didReceiveMeetingReminder:)`).
public typealias MeetingReminder = SMeetingProtocol.MeetingReminder

/// The weak multicast list behind `SMeetingEngine.delegates`: SRTC's `MulticastDelegate`, so
/// registering never extends an observer's lifetime and every event is delivered asynchronously
/// on the engine's delegate queue, in order (`meeting.delegates.add(delegate: self)`).
public typealias SMeetingDelegates = MulticastDelegate<SMeetingDelegate>
