import SRTCServer

/// The meeting store's schema, versioned on its own: the server's version slot belongs to
/// `Migrations.server`, so the meeting tables keep their version in `meeting_schema` in the same
/// database (SQLite file or PostgreSQL database; types mapped by `SQLDialect.ddl`). Steps are numbered 1, 2, 3… and never edited once released, only appended.
public enum MeetingMigrations {
    /// One schema step.
    public struct Step: Sendable {
        public let version: Int
        public let statements: [String]
    }

    public static let steps: [Step] = [
        Step(version: 1, statements: [
            """
            CREATE TABLE meetings (
                meeting_id TEXT PRIMARY KEY,
                app_id TEXT NOT NULL,
                room_no TEXT NOT NULL UNIQUE,
                title TEXT NOT NULL,
                type TEXT NOT NULL,
                mode TEXT NOT NULL,
                attend_type TEXT NOT NULL,
                password TEXT,
                host_uid TEXT NOT NULL,
                status TEXT NOT NULL,
                plan_time INTEGER,
                plan_dur INTEGER,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                started_at INTEGER,
                ended_at INTEGER
            )
            """,
            "CREATE INDEX meetings_host ON meetings (app_id, host_uid, status)",
            """
            CREATE TABLE meeting_conferees (
                meeting_id TEXT NOT NULL REFERENCES meetings (meeting_id) ON DELETE CASCADE,
                uid TEXT NOT NULL,
                PRIMARY KEY (meeting_id, uid)
            )
            """,
            "CREATE INDEX meeting_conferees_uid ON meeting_conferees (uid)",
            """
            CREATE TABLE meeting_attendance (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                meeting_id TEXT NOT NULL REFERENCES meetings (meeting_id) ON DELETE CASCADE,
                app_id TEXT NOT NULL,
                uid TEXT NOT NULL,
                nickname TEXT NOT NULL,
                role TEXT NOT NULL,
                entered_at INTEGER NOT NULL,
                exited_at INTEGER,
                exit_reason TEXT
            )
            """,
            "CREATE INDEX meeting_attendance_uid ON meeting_attendance (app_id, uid, entered_at)",
        ]),
        // Waiting room option; sign-ins and roll calls with their answers (times in Unix ms).
        Step(version: 2, statements: [
            "ALTER TABLE meetings ADD COLUMN waiting_room INTEGER NOT NULL DEFAULT 0",
            """
            CREATE TABLE meeting_sign_ins (
                sign_in_id TEXT PRIMARY KEY,
                meeting_id TEXT NOT NULL REFERENCES meetings (meeting_id) ON DELETE CASCADE,
                app_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                started_by TEXT NOT NULL,
                started_at INTEGER NOT NULL,
                deadline INTEGER NOT NULL,
                ended_at INTEGER,
                target_uid TEXT
            )
            """,
            "CREATE INDEX meeting_sign_ins_meeting ON meeting_sign_ins (meeting_id, started_at)",
            """
            CREATE TABLE meeting_sign_in_records (
                sign_in_id TEXT NOT NULL REFERENCES meeting_sign_ins (sign_in_id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                uid TEXT NOT NULL,
                nickname TEXT NOT NULL,
                signed_at INTEGER,
                PRIMARY KEY (sign_in_id, uid)
            )
            """,
        ]),
        // End-to-end encrypted meetings (docs/e2ee.md, "E2EE meetings").
        Step(version: 3, statements: [
            "ALTER TABLE meetings ADD COLUMN e2ee INTEGER NOT NULL DEFAULT 0",
        ]),
    ]

    /// The steps, versioned in `meeting_schema`.
    public static let schema = ModuleMigrations(name: "meeting", steps: steps.map(\.statements))

    /// The latest version this build knows.
    public static var latestVersion: Int { schema.latestVersion }

    /// The version `database` is at (0 before the first step).
    public static func currentVersion(of database: any Database) throws(DatabaseError) -> Int {
        try schema.currentVersion(of: database)
    }

    /// Brings `database` to the latest version in one transaction under the schema lock; returns the version found.
    @discardableResult
    public static func apply(to database: any Database) throws(DatabaseError) -> Int {
        try schema.apply(to: database)
    }
}
