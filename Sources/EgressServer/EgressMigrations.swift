import SRTCServer

/// The egress module's tables, versioned in `egress_schema` (the server's version slot belongs to
/// `Migrations.server`), on SQLite or PostgreSQL (types mapped by `SQLDialect.ddl`). Steps are
/// appended, never edited once released.
enum EgressMigrations {
    static let schema = ModuleMigrations(name: "egress", steps: [
        [
            """
            CREATE TABLE egress_recordings (
                recording_id TEXT PRIMARY KEY,
                app_id TEXT NOT NULL,
                channel TEXT NOT NULL,
                kind TEXT NOT NULL,
                format TEXT NOT NULL,
                uid TEXT NOT NULL,
                track_desc TEXT,
                path TEXT NOT NULL,
                file TEXT NOT NULL,
                status TEXT NOT NULL,
                error TEXT,
                started_at INTEGER NOT NULL,
                ended_at INTEGER,
                duration_ms INTEGER,
                size_bytes INTEGER
            )
            """,
            "CREATE INDEX egress_recordings_channel ON egress_recordings (app_id, channel, started_at)",
            "CREATE INDEX egress_recordings_status ON egress_recordings (status)",
            """
            CREATE TABLE egress_composites (
                composite_id TEXT PRIMARY KEY,
                app_id TEXT NOT NULL,
                channel TEXT NOT NULL,
                uid TEXT NOT NULL,
                settings TEXT NOT NULL,
                status TEXT NOT NULL,
                error TEXT,
                restarts INTEGER NOT NULL DEFAULT 0,
                started_at INTEGER NOT NULL,
                ended_at INTEGER
            )
            """,
            "CREATE INDEX egress_composites_status ON egress_composites (status)",
        ],
        [
            // Live captions' transcript: every final caption, kept after the call (`captions/list`).
            """
            CREATE TABLE egress_captions (
                captions_id TEXT NOT NULL,
                seq INTEGER NOT NULL,
                app_id TEXT NOT NULL,
                channel TEXT NOT NULL,
                uid TEXT NOT NULL,
                start_ms INTEGER NOT NULL,
                end_ms INTEGER NOT NULL,
                text TEXT NOT NULL,
                PRIMARY KEY (captions_id, seq)
            )
            """,
            "CREATE INDEX egress_captions_channel ON egress_captions (app_id, channel, start_ms)",
        ],
        [
            // Ingresses while they exist (docs/ingress.md): a restarted node resumes its own.
            """
            CREATE TABLE egress_ingresses (
                ingress_id TEXT PRIMARY KEY,
                app_id TEXT NOT NULL,
                node_id TEXT NOT NULL,
                channel TEXT NOT NULL,
                info TEXT NOT NULL,
                settings TEXT NOT NULL,
                port INTEGER,
                created_at INTEGER NOT NULL
            )
            """,
            "CREATE INDEX egress_ingresses_node ON egress_ingresses (node_id)",
        ],
        [
            // Live captions while they run (docs/captions.md, "A server restart"): a node that
            // died without stopping them resumes its own.
            """
            CREATE TABLE egress_caption_runs (
                captions_id TEXT PRIMARY KEY,
                app_id TEXT NOT NULL,
                node_id TEXT NOT NULL,
                channel TEXT NOT NULL,
                info TEXT NOT NULL,
                settings TEXT NOT NULL,
                created_at INTEGER NOT NULL
            )
            """,
            "CREATE INDEX egress_caption_runs_node ON egress_caption_runs (node_id)",
        ],
    ])
}
