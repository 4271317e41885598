import SRTCServer

/// The IM tables' schema, versioned in `im_schema`. Steps are never edited once released.
enum IMMigrations {
    static let schema = ModuleMigrations(name: "im", steps: steps)

    static let steps: [[String]] = [
        [
            """
            CREATE TABLE im_accounts (
                app_id TEXT NOT NULL,
                uid TEXT NOT NULL,
                last_seq INTEGER NOT NULL DEFAULT 0,
                acked_seq INTEGER NOT NULL DEFAULT 0,
                created_at INTEGER NOT NULL,
                last_login_at INTEGER,
                PRIMARY KEY (app_id, uid)
            )
            """,
            """
            CREATE TABLE im_mailbox (
                app_id TEXT NOT NULL,
                uid TEXT NOT NULL,
                seq INTEGER NOT NULL,
                msg_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                from_uid TEXT,
                title TEXT,
                content TEXT NOT NULL,
                data TEXT,
                call_id TEXT,
                channel TEXT,
                sent_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                PRIMARY KEY (app_id, uid, seq)
            )
            """,
            "CREATE INDEX im_mailbox_expiry ON im_mailbox (expires_at)",
            """
            CREATE TABLE im_calls (
                call_id TEXT PRIMARY KEY,
                app_id TEXT NOT NULL,
                caller TEXT NOT NULL,
                callee TEXT NOT NULL,
                channel TEXT,
                state TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL
            )
            """,
            "CREATE INDEX im_calls_ringing ON im_calls (state, expires_at)",
            """
            CREATE TABLE im_keys (
                app_id TEXT NOT NULL,
                key TEXT NOT NULL,
                expires_at INTEGER NOT NULL,
                PRIMARY KEY (app_id, key)
            )
            """,
        ],
    ]
}
