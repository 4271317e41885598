import Foundation
import RTCNet
import SRTCProtocol

/// Server settings. Each comes from a flag, an `SRTC_*` environment variable or the optional JSON
/// config file, in that order of precedence, falling back to the default (docs/configuration in README.md).
public struct ServerConfig: Sendable, Equatable {
    /// HTTP port for the server API, signaling and the demo page (`--http-port`, `SRTC_HTTP_PORT`).
    public var httpPort: UInt16 = 7880
    /// Address to bind (`--bind`, `SRTC_BIND`).
    public var bind: String = "127.0.0.1"
    /// Address announced in ICE candidates; defaults to the bind address (`--public-ip`, `SRTC_PUBLIC_IP`).
    public var publicIP: String?
    /// Directory of the SQLite database and other state (`--data-dir`, `SRTC_DATA_DIR`).
    public var dataDir: String = "./srtc-data"
    /// Credentials of the first app (`--app-id` / `SRTC_APP_ID`, `--app-key` / `SRTC_APP_KEY`); both or neither.
    public var appId: String?
    public var appKey: String?
    /// Log level: `debug`, `info`, `warn`, `error` (`--log-level`, `SRTC_LOG_LEVEL`).
    public var logLevel: String = "info"
    /// Webhook target (`--webhook-url`, `SRTC_WEBHOOK_URL`); none when unset.
    public var webhookURL: String?
    /// Seconds a signed request's timestamp may differ from server time (fixed by the API contract).
    public var signatureWindowSeconds: Int64 = 300
    /// Most nonces remembered at once; past this, signed requests are refused with `rate_limited`
    /// (`--nonce-cache-capacity`, `SRTC_NONCE_CACHE_CAPACITY`). About 40 bytes each.
    public var nonceCacheCapacity: Int = 4_000_000
    /// Channel and signaling limits (`--max-users-per-channel`, `--max-tracks-per-user`, `--reconnect-grace-seconds`, ...).
    public var limits = ChannelLimits()
    /// The IM service's limits (`--im-max-content-bytes`, `--im-mailbox-size`, ...).
    public var im = IMSettings()
    /// The speed-test responder on the media port (`--speed-test`, `--speed-test-max-bitrate`, ...).
    public var speedTest = SpeedTestSettings()
    /// Directory of the web SDK and demo page served at `/` and `/sdk/` (`--web-dir`, `SRTC_WEB_DIR`);
    /// `nil`: `./web` if it exists, else `<executable dir>/../../web`, else none; empty: none.
    public var webDir: String?
    /// The demo sign-in of the meeting app (`--demo-auth`, `SRTC_DEMO_AUTH`): off by default.
    public var demoAuth: DemoAuthMode = .off
    /// Path of the JSON config file that was read, if any (`--config`, `SRTC_CONFIG`).
    public var configFile: String?
    /// The HTTP port's TLS and limits (`--tls-cert`, `--max-connections`, `--http-threads`, ...).
    public var http = HTTPSettings()
    /// The media plane: UDP and ICE-TCP ports, workers, thread priority, quality reports, publishers'
    /// video codecs (`--udp-port`, `--media-workers`, `--quality-interval-seconds`, `--video-codecs`, ...).
    public var media = MediaSettings()
    /// Shared state and the cluster (`--database-url`, `--redis-url`, `--node-id`, `--drain-seconds`, ...).
    public var cluster = ClusterSettings()
    /// The egress module: worker, tasks, recordings, ingress ports (`--egress-worker`, `--ingress-ports`, ...).
    public var egress = EgressSettings()
    /// TURN relays given to clients (`--turn-urls`, `--turn-secret`, `--turn-credential-ttl`).
    public var turn = TURNSettings()

    public init() {}

    /// Every setting: flag name, environment variable, JSON key, and how to apply a textual value.
    static let settings: [Setting] = [
        Setting("http-port", "SRTC_HTTP_PORT", "http_port", "HTTP port (default 7880)") { c, v in c.httpPort = try port(v) },
        Setting("udp-port", "SRTC_UDP_PORT", "udp_port", "first UDP media port (default 7881): media worker i uses port + i, so open port … port + workers - 1; 0: any ports") { c, v in c.media.udpPort = try port(v) },
        Setting("media-workers", "SRTC_MEDIA_WORKERS", "media_workers", "media worker threads, each with its own UDP port and channels (default: one per online CPU)") { c, v in
            guard let n = Int(v), (1...256).contains(n) else { throw ConfigError.invalidValue("media-workers", v) }
            c.media.workers = n
        },
        Setting("worker-subscriber-budget", "SRTC_WORKER_SUBSCRIBER_BUDGET", "worker_subscriber_budget", "participants of one channel its media worker serves before another worker serves the next ones, relayed once per worker (default 200; 0: no limit)") { c, v in
            guard let n = Int(v), (0...1_000_000).contains(n) else { throw ConfigError.invalidValue("worker-subscriber-budget", v) }
            c.media.workerSubscriberBudget = n
        },
        Setting("ice-tcp-port", "SRTC_ICE_TCP_PORT", "ice_tcp_port", "first TCP port for ICE-TCP candidates, worker i on port + i (default: off; 0 picks them)") { c, v in
            c.media.iceTCPPort = try port(v)
        },
        Setting("tls-cert", "SRTC_TLS_CERT", "tls_cert", "PEM certificate chain: the HTTP port serves HTTPS/WSS (with --tls-key; SIGHUP reloads)") { c, v in
            c.http.tlsCert = v
        },
        Setting("tls-key", "SRTC_TLS_KEY", "tls_key", "PEM private key of --tls-cert") { c, v in c.http.tlsKey = v },
        Setting("http-redirect-port", "SRTC_HTTP_REDIRECT_PORT", "http_redirect_port", "plain-HTTP port answering 308 to https:// (needs --tls-cert)") { c, v in
            c.http.redirectPort = try port(v)
        },
        Setting("bind", "SRTC_BIND", "bind", "address to bind (default 127.0.0.1)") { c, v in c.bind = v },
        Setting("public-ip", "SRTC_PUBLIC_IP", "public_ip", "address announced in ICE candidates") { c, v in c.publicIP = v },
        Setting("data-dir", "SRTC_DATA_DIR", "data_dir", "state directory (default ./srtc-data)") { c, v in c.dataDir = v },
        Setting("database-url", "SRTC_DATABASE_URL", "database_url", "PostgreSQL URL postgres://… instead of SQLite in the data directory") { c, v in
            guard v.hasPrefix("postgres://") || v.hasPrefix("postgresql://") else { throw ConfigError.invalidValue("database-url", "a URL not starting with postgres://") }
            c.cluster.databaseURL = v
        },
        Setting("app-id", "SRTC_APP_ID", "app_id", "first app's id (with --app-key)") { c, v in c.appId = v },
        Setting("app-key", "SRTC_APP_KEY", "app_key", "first app's key (with --app-id)") { c, v in c.appKey = v },
        Setting("log-level", "SRTC_LOG_LEVEL", "log_level", "debug, info, warn or error (default info)") { c, v in
            guard ["debug", "info", "warn", "error"].contains(v) else { throw ConfigError.invalidValue("log-level", v) }
            c.logLevel = v
        },
        Setting("redis-url", "SRTC_REDIS_URL", "redis_url", "Redis redis://host:port shared by a cluster's nodes") { c, v in
            guard v.hasPrefix("redis://") else { throw ConfigError.invalidValue("redis-url", "a URL not starting with redis://") }
            c.cluster.redisURL = v
        },
        Setting("node-id", "SRTC_NODE_ID", "node_id", "this node's id in a cluster (default random)") { c, v in c.cluster.nodeId = v },
        Setting("node-url", "SRTC_NODE_URL", "node_url", "this node's HTTP URL as the other nodes reach it") { c, v in c.cluster.nodeURL = v },
        Setting("drain-seconds", "SRTC_DRAIN_SECONDS", "drain_seconds", "on SIGTERM, seconds a cluster node serves its channels before moving their clients (default 30)") { c, v in
            guard let n = Int(v), (0...86_400).contains(n) else { throw BadValue() }
            c.cluster.drainSeconds = n
        },
        Setting("startup-timeout", "SRTC_STARTUP_TIMEOUT", "startup_timeout", "seconds to wait at start for the database and Redis to answer (default 60)") { c, v in
            guard let n = Int(v), (0...86_400).contains(n) else { throw BadValue() }
            c.cluster.startupTimeoutSeconds = n
        },
        Setting("node-channel-subscribers", "SRTC_NODE_CHANNEL_SUBSCRIBERS", "node_channel_subscribers", "on a cluster, participants of one channel whose media its node serves before relaying nodes serve the rest (default 0: no limit)") { c, v in
            guard let n = Int(v), (0...1_000_000).contains(n) else { throw BadValue() }
            c.limits.nodeChannelSubscribers = n
        },
        Setting("webhook-url", "SRTC_WEBHOOK_URL", "webhook_url", "URL that receives signed webhooks") { c, v in c.webhookURL = v },
        Setting("max-body-bytes", "SRTC_MAX_BODY_BYTES", "max_body_bytes", "largest request body (default 1048576)") { c, v in
            c.http.maxBodyBytes = try positive(v, "max-body-bytes")
        },
        Setting("max-users-per-channel", "SRTC_MAX_USERS_PER_CHANNEL", "max_users_per_channel", "users per channel (default 100)") { c, v in
            c.limits.maxUsersPerChannel = try positive(v, "max-users-per-channel")
        },
        Setting("max-tracks-per-user", "SRTC_MAX_TRACKS_PER_USER", "max_tracks_per_user", "tracks one user may publish (default 8)") { c, v in
            c.limits.maxTracksPerUser = try positive(v, "max-tracks-per-user")
        },
        Setting("max-message-bytes", "SRTC_MAX_MESSAGE_BYTES", "max_message_bytes", "custom message size (default 16384)") { c, v in
            c.limits.maxCustomMessageBytes = try positive(v, "max-message-bytes")
        },
        Setting("joins-per-second", "SRTC_JOINS_PER_SECOND", "joins_per_second", "joins per channel per second (default 20)") { c, v in
            c.limits.joinsPerSecond = try positive(v, "joins-per-second")
        },
        Setting("user-joins-per-second", "SRTC_USER_JOINS_PER_SECOND", "user_joins_per_second", "joins per uid per channel per second after a burst of 5 s worth (default 1; 0: no limit)") { c, v in
            c.limits.userJoinsPerSecond = try nonNegative(v, max: 1_000_000)
        },
        Setting("address-joins-per-second", "SRTC_ADDRESS_JOINS_PER_SECOND", "address_joins_per_second", "joins per client IP address per second (default 20; 0: no limit)") { c, v in
            c.limits.addressJoinsPerSecond = try nonNegative(v, max: 1_000_000)
        },
        Setting("token-leeway-seconds", "SRTC_TOKEN_LEEWAY_SECONDS", "token_leeway_seconds", "clock skew tolerated on token exp and nbf (default 5, at most 300)") { c, v in
            c.limits.tokenLeewaySeconds = Int64(try nonNegative(v, max: 300))
        },
        Setting("nonce-cache-capacity", "SRTC_NONCE_CACHE_CAPACITY", "nonce_cache_capacity", "signed-request nonces remembered at once (default 4000000)") { c, v in
            c.nonceCacheCapacity = try positive(v, "nonce-cache-capacity")
        },
        Setting("max-connections", "SRTC_MAX_CONNECTIONS", "max_connections", "open HTTP/WebSocket connections (default 10000)") { c, v in
            c.http.maxConnections = try positive(v, "max-connections")
        },
        Setting("max-connections-per-address", "SRTC_MAX_CONNECTIONS_PER_ADDRESS", "max_connections_per_address", "open connections per client IP address (default 256; 0: no limit)") { c, v in
            c.http.maxConnectionsPerAddress = try nonNegative(v, max: Int.max)
        },
        Setting("header-timeout-seconds", "SRTC_HEADER_TIMEOUT_SECONDS", "header_timeout_seconds", "seconds to receive a request head (default 10)") { c, v in
            c.http.headerTimeoutSeconds = try positive(v, "header-timeout-seconds")
        },
        Setting("idle-timeout-seconds", "SRTC_IDLE_TIMEOUT_SECONDS", "idle_timeout_seconds", "seconds a connection may wait between requests (default 60)") { c, v in
            c.http.idleTimeoutSeconds = try positive(v, "idle-timeout-seconds")
        },
        Setting("max-request-line-bytes", "SRTC_MAX_REQUEST_LINE_BYTES", "max_request_line_bytes", "longest request line (default 8192)") { c, v in
            c.http.maxRequestLineBytes = try positive(v, "max-request-line-bytes")
        },
        Setting("max-header-bytes", "SRTC_MAX_HEADER_BYTES", "max_header_bytes", "largest request head (default 16384)") { c, v in
            c.http.maxHeaderBytes = try positive(v, "max-header-bytes")
        },
        Setting("max-header-count", "SRTC_MAX_HEADER_COUNT", "max_header_count", "most header fields in a request (default 100)") { c, v in
            c.http.maxHeaderCount = try positive(v, "max-header-count")
        },
        Setting("reconnect-grace-seconds", "SRTC_RECONNECT_GRACE_SECONDS", "reconnect_grace_seconds", "how long a dropped session may resume (default 20)") { c, v in
            c.limits.reconnectGraceSeconds = try positive(v, "reconnect-grace-seconds")
        },
        Setting("video-codecs", "SRTC_VIDEO_CODECS", "video_codecs", "video codecs taken from publishers, preferred first, of vp8, vp9, av1, h264 (e.g. vp9,vp8; default: any, in the publisher's offer order)") { c, v in
            guard let preference = VideoCodecPreference(parsing: v) else { throw ConfigError.invalidValue("video-codecs", v) }
            c.media.videoCodecs = preference
        },
        Setting("quality-interval-seconds", "SRTC_QUALITY_INTERVAL_SECONDS", "quality_interval_seconds", "seconds between quality reports (default 5)") { c, v in
            guard let n = Double(v), n >= 0.2, n <= 600 else { throw BadValue() }
            c.media.qualityIntervalSeconds = n
        },
        Setting("im-max-content-bytes", "SRTC_IM_MAX_CONTENT_BYTES", "im_max_content_bytes", "largest IM message content (default 4096)") { c, v in
            guard let n = Int(v), (1...65536).contains(n) else { throw BadValue() }
            c.im.maxContentBytes = n
        },
        Setting("im-mailbox-size", "SRTC_IM_MAILBOX_SIZE", "im_mailbox_size", "IM entries kept per user (default 1000)") { c, v in
            c.im.mailboxSize = try positive(v, "im-mailbox-size")
        },
        Setting("im-retention-seconds", "SRTC_IM_RETENTION_SECONDS", "im_retention_seconds", "how long IM entries are kept (default 604800)") { c, v in
            c.im.retentionSeconds = try positive(v, "im-retention-seconds")
        },
        Setting("meeting-reminder-seconds", "SRTC_MEETING_REMINDER_SECONDS", "meeting_reminder_seconds",
                "remind attendees this long before a scheduled meeting; 0: never (default 600)") { c, v in
            guard let n = Int(v), n >= 0 else { throw BadValue() }
            c.im.meetingReminderSeconds = n
        },
        Setting("meeting-reminder-scan-seconds", "SRTC_MEETING_REMINDER_SCAN_SECONDS", "meeting_reminder_scan_seconds",
                "how often scheduled meetings are checked for reminders (default 15)") { c, v in
            c.im.meetingReminderScanSeconds = try positive(v, "meeting-reminder-scan-seconds")
        },
        Setting("speed-test", "SRTC_SPEED_TEST", "speed_test", "answer speed tests on the media port: on or off (default on)") { c, v in
            guard v == "on" || v == "off" else { throw BadValue() }
            c.speedTest.enabled = v == "on"
        },
        Setting("speed-test-max-bitrate", "SRTC_SPEED_TEST_MAX_BITRATE", "speed_test_max_bitrate", "bits/s one speed test may use each way (default 20000000)") { c, v in
            guard let n = Int(v), (100_000...1_000_000_000).contains(n) else { throw BadValue() }
            c.speedTest.maxBitrate = n
        },
        Setting("speed-test-max-seconds", "SRTC_SPEED_TEST_MAX_SECONDS", "speed_test_max_seconds", "longest speed test (default 30)") { c, v in
            guard let n = Int(v), (1...600).contains(n) else { throw BadValue() }
            c.speedTest.maxDurationSeconds = n
        },
        Setting("speed-test-sessions", "SRTC_SPEED_TEST_SESSIONS", "speed_test_sessions", "speed tests at once (default 16)") { c, v in
            c.speedTest.maxSessions = try positive(v, "speed-test-sessions")
        },
        Setting("web-dir", "SRTC_WEB_DIR", "web_dir", "web SDK and demo page directory ('' for none; default ./web or <bin>/../../web)") { c, v in c.webDir = v },
        Setting("recording-dir", "SRTC_RECORDING_DIR", "recording_dir", "recordings directory (default <data-dir>/recordings)") { c, v in
            c.egress.recordingDir = v
        },
        Setting("egress-worker", "SRTC_EGRESS_WORKER", "egress_worker", "egress worker executable (default srtc-egress beside the server)") { c, v in
            c.egress.worker = v
        },
        Setting("egress-max-tasks", "SRTC_EGRESS_MAX_TASKS", "egress_max_tasks", "composites, recordings and ingresses at once (default 8)") { c, v in
            guard let n = Int(v), n >= 0, n <= 256 else { throw ConfigError.invalidValue("egress-max-tasks", v) }
            c.egress.maxTasks = n
        },
        Setting("ingress-ports", "SRTC_INGRESS_PORTS", "ingress_ports", "ports of RTMP/SRT ingress listeners, LOW-HIGH (default any free port)") { c, v in
            let parts = v.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, let low = UInt16(parts[0]), let high = UInt16(parts[1]), low >= 1, low <= high else {
                throw ConfigError.invalidValue("ingress-ports", v)
            }
            c.egress.ingressPorts = low...high
        },
        Setting("demo-auth", "SRTC_DEMO_AUTH", "demo_auth", "demo sign-in for the meeting app: off, loopback or on (default off; never in production)") { c, v in
            guard let mode = DemoAuthMode(rawValue: v) else { throw ConfigError.invalidValue("demo-auth", v) }
            c.demoAuth = mode
        },
        Setting("turn-urls", "SRTC_TURN_URLS", "turn_urls", "comma-separated TURN URLs given to clients (needs --turn-secret)") { c, v in
            c.turn.urls = v.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard c.turn.urls.allSatisfy({ $0.hasPrefix("turn:") || $0.hasPrefix("turns:") || $0.hasPrefix("stun:") }) else {
                throw ConfigError.invalidValue("turn-urls", v)
            }
        },
        Setting("turn-secret", "SRTC_TURN_SECRET", "turn_secret", "coturn static-auth-secret for short-lived TURN credentials") { c, v in
            c.turn.secret = v
        },
        Setting("turn-credential-ttl", "SRTC_TURN_CREDENTIAL_TTL", "turn_credential_ttl", "seconds TURN credentials stay valid (default 21600)") { c, v in
            c.turn.credentialTTL = try positive(v, "turn-credential-ttl")
        },
        Setting("http-threads", "SRTC_HTTP_THREADS", "http_threads", "HTTP event-loop threads (default: one per core)") { c, v in
            guard let n = Int(v), n >= 0, n <= 64 else { throw ConfigError.invalidValue("http-threads", v) }
            c.http.threads = n
        },
        Setting("media-thread-priority", "SRTC_MEDIA_THREAD_PRIORITY", "media_thread_priority",
                "media I/O thread's scheduling: normal, high (nice -10) or realtime (SCHED_FIFO); default normal") { c, v in
            guard let priority = IOThreadPriority(rawValue: v) else { throw ConfigError.invalidValue("media-thread-priority", v) }
            c.media.threadPriority = priority
        },
    ]
}
