import Foundation
import MeetingServer
import SMeetingProtocol
import SRTCServer
import Synchronization
import SRTCTestSupport
import Testing

@Suite struct MeetingStoreTests {
    static let app = "app_a"

    func makeStore(_ kind: TestStore = .sqlite, clock: Int64 = 1_767_225_600, numbers: [String]? = nil) async throws -> MeetingStore {
        let database = try await kind.open()
        let queue = Mutex(numbers ?? [])
        return try MeetingStore(database: database, clock: { clock }, roomNumbers: {
            queue.withLock { $0.isEmpty ? MeetingStore.randomRoomNumber() : $0.removeFirst() }
        })
    }

    @Test(arguments: TestStore.allCases)
    func migrationsAreVersionedAndIdempotent(_ kind: TestStore) async throws {
        let database = try await kind.open()
        #expect(try MeetingMigrations.apply(to: database) == 0)
        #expect(try MeetingMigrations.apply(to: database) == MeetingMigrations.latestVersion)
        #expect(try MeetingMigrations.currentVersion(of: database) == 3)
        // The server's own schema version is untouched: both live in one database.
        try Migrations.server.apply(to: database)
        #expect(try Migrations.server.currentVersion(of: database) == Migrations.server.latestVersion)
        try database.query("INSERT INTO meeting_schema (version) VALUES (99)")
        #expect(throws: DatabaseError.schemaTooNew(found: 99, supported: 3)) { try MeetingMigrations.apply(to: database) }
    }

    @Test(arguments: TestStore.allCases)
    func createStoresEveryFieldAndDrawsANineDigitRoomNumber(_ kind: TestStore) async throws {
        let store = try await makeStore(kind)
        let m = try store.create(appId: Self.app, hostUid: "alice", MeetingCreateReq(
            title: "Weekly", type: .appointment, mode: .training, attendType: .password, password: "1234",
            conferee: ["bob", "carol", "bob"], planTime: 1_767_300_000, planDur: 45, e2ee: true))
        #expect(m.meetingId.hasPrefix("MT") && m.meetingId.count == 20)
        #expect(m.roomNo.count == 9 && m.roomNo.allSatisfy(\.isNumber) && m.roomNo.first != "0")
        #expect(m.title == "Weekly" && m.type == .appointment && m.mode == .training && m.attendType == .password)
        #expect(m.password == "1234" && m.conferee == ["bob", "carol"] && m.hostUid == "alice")
        #expect(m.status == .scheduled && m.planTime == 1_767_300_000 && m.planDur == 45)
        #expect(m.createdAt == 1_767_225_600 && m.updatedAt == 1_767_225_600 && m.startedAt == nil && m.e2ee == true)
        #expect(try store.meeting(appId: Self.app, roomNo: m.roomNo) == m)
        #expect(try store.meeting(appId: Self.app, meetingId: m.meetingId) == m)
        // Another app does not see it.
        #expect(throws: MeetingErrorBody.self) { try store.meeting(appId: "app_b", meetingId: m.meetingId) }
    }

    @Test(arguments: TestStore.allCases)
    func aTakenRoomNumberIsDrawnAgain(_ kind: TestStore) async throws {
        let store = try await makeStore(kind, numbers: ["123456789", "123456789", "987654321"])
        let first = try store.create(appId: Self.app, hostUid: "a", MeetingCreateReq(title: "one"))
        let second = try store.create(appId: Self.app, hostUid: "a", MeetingCreateReq(title: "two"))
        #expect(first.roomNo == "123456789")
        #expect(second.roomNo == "987654321")
    }

    static let badRequests: [(MeetingCreateReq, String)] = [
        (MeetingCreateReq(title: ""), "title"),
        (MeetingCreateReq(title: String(repeating: "x", count: 129)), "title"),
        (MeetingCreateReq(title: "a\u{7}b"), "title"),
        (MeetingCreateReq(title: "t", type: .appointment), "plan_time"),
        (MeetingCreateReq(title: "t", type: .appointment, planTime: 1, planDur: 0), "plan_dur"),
        (MeetingCreateReq(title: "t", attendType: .password), "password"),
        (MeetingCreateReq(title: "t", attendType: .password, password: String(repeating: "p", count: 33)), "password"),
        (MeetingCreateReq(title: "t", attendType: .invitation), "conferee"),
        (MeetingCreateReq(title: "t", conferee: ["bad uid"]), "conferee"),
    ]

    @Test(arguments: badRequests)
    func badInputIsRefusedWithInvalidParameterNamingTheField(_ req: MeetingCreateReq, _ field: String) async throws {
        let store = try await makeStore()
        do {
            _ = try store.create(appId: Self.app, hostUid: "a", req)
            Issue.record("accepted \(req)")
        } catch {
            #expect(error.code == MeetingErrorCode.invalidParameter.rawValue)
            #expect(error.message.contains(field), "\(error.message)")
        }
    }

    @Test(arguments: TestStore.allCases)
    func updateIsForTheHostAndCancelOnlyBeforeTheStart(_ kind: TestStore) async throws {
        let store = try await makeStore(kind)
        let m = try store.create(appId: Self.app, hostUid: "alice", MeetingCreateReq(title: "Old"))
        #expect(throws: MeetingErrorBody(.permissionDenied, "only the host may update the meeting")) {
            try store.update(appId: Self.app, meetingId: m.meetingId, by: "bob", MeetingUpdateReq(title: "New"))
        }
        let updated = try store.update(appId: Self.app, meetingId: m.meetingId, by: "alice",
                                       MeetingUpdateReq(title: "New", attendType: .password, password: "pw"))
        #expect(updated.title == "New" && updated.attendType == .password && updated.password == "pw" && updated.roomNo == m.roomNo)
        #expect(throws: MeetingErrorBody.self) { try store.update(appId: Self.app, meetingId: m.meetingId, by: nil, MeetingUpdateReq(title: "")) }
        let cancelled = try store.cancel(appId: Self.app, meetingId: m.meetingId, by: "alice")
        #expect(cancelled.status == .cancelled && cancelled.endedAt == 1_767_225_600)
        do {
            _ = try store.cancel(appId: Self.app, meetingId: m.meetingId, by: nil)
            Issue.record("cancelled twice")
        } catch { #expect(error.code == MeetingErrorCode.meetingClosed.rawValue) }
        do {
            _ = try store.update(appId: Self.app, meetingId: m.meetingId, by: nil, MeetingUpdateReq(title: "Again"))
            Issue.record("updated a cancelled meeting")
        } catch { #expect(error.code == MeetingErrorCode.meetingClosed.rawValue) }
    }

    @Test(arguments: TestStore.allCases)
    func attendeeListsHostedAndInvitedMeetingsThatAreNotOverInPages(_ kind: TestStore) async throws {
        let store = try await makeStore(kind)
        let hosted = try store.create(appId: Self.app, hostUid: "bob", MeetingCreateReq(title: "mine"))
        let invited = try store.create(appId: Self.app, hostUid: "alice", MeetingCreateReq(title: "invited", conferee: ["bob"]))
        let other = try store.create(appId: Self.app, hostUid: "alice", MeetingCreateReq(title: "other"))
        let gone = try store.create(appId: Self.app, hostUid: "bob", MeetingCreateReq(title: "gone"))
        _ = try store.cancel(appId: Self.app, meetingId: gone.meetingId, by: "bob")
        let page = try store.attendee(appId: Self.app, uid: "bob", page: 1, pageSize: 20)
        #expect(Set(page.list.map(\.meetingId)) == [hosted.meetingId, invited.meetingId])
        #expect(page.total == 2 && !page.hasMore)
        let first = try store.attendee(appId: Self.app, uid: "bob", page: 1, pageSize: 1)
        let second = try store.attendee(appId: Self.app, uid: "bob", page: 2, pageSize: 1)
        #expect(first.list.count == 1 && second.list.count == 1 && first.hasMore && !second.hasMore)
        #expect(first.list[0].meetingId != second.list[0].meetingId)
        #expect(!page.list.contains { $0.meetingId == other.meetingId })
        for (p, size) in [(0, 20), (1, 0), (1, 101)] {
            #expect(throws: MeetingErrorBody.self) { try store.attendee(appId: Self.app, uid: "bob", page: p, pageSize: size) }
        }
        let all = try store.list(appId: Self.app, status: .cancelled, hostUid: nil, page: 1, pageSize: 10)
        #expect(all.list.map(\.meetingId) == [gone.meetingId])
    }
}

extension MeetingCreateReq: CustomTestStringConvertible {
    public var testDescription: String { "\(type.rawValue)/\(attendType.rawValue) '\(title.prefix(8))'" }
}
