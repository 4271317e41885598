import EgressProtocol
import Foundation
import RTCNet
import SRTCProtocol
import SRTCServer

/// Egress as a `ServerModule`: composites (MCU), recordings and live streams, each run by an
/// `srtc-egress` worker process the server supervises (docs/egress.md). It owns the signed routes
/// `/server/v1/channel/composite|record|live/…`, serves HLS at `/live/<app_id>/<channel>/`, keeps
/// its records in the server's database (`egress_*` tables), and makes the composites other
/// modules ask for (a `.mix` meeting's).
///
/// ```swift
/// let app = try ServerApp(config: config, modules: [MeetingModule.factory, EgressModule.factory])
/// ```
public final class EgressModule: ServerModule {
    /// Adds egress to a `ServerApp`.
    public static let factory: ServerModuleFactory = { context in try EgressModule(context: context) }

    let supervisor: EgressSupervisor
    let channels: ChannelControl
    /// Where HLS playlists and segments are written and served from.
    public let liveDirectory: String?
    /// Where recordings are written.
    public let recordingDirectory: String?

    public init(context: ServerModuleContext) throws {
        let config = context.config
        let inMemory = config.dataDir == ":memory:"
        recordingDirectory = config.egress.recordingDir ?? (inMemory ? nil : (config.dataDir as NSString).appendingPathComponent("recordings"))
        liveDirectory = inMemory ? (NSTemporaryDirectory() + "srtc-live-" + UUID().uuidString) : (config.dataDir as NSString).appendingPathComponent("live")
        if let liveDirectory { try FileManager.default.createDirectory(atPath: liveDirectory, withIntermediateDirectories: true) }
        let store = try EgressStore(database: context.database)
        channels = context.channels
        var settings = EgressSupervisor.Settings(recordingDirectory: recordingDirectory, liveDirectory: liveDirectory,
                                                 workerExecutable: config.egress.worker ?? Self.defaultWorker(), maxTasks: config.egress.maxTasks)
        settings.ingressBind = config.bind.contains(":") ? "0.0.0.0" : config.bind
        settings.ingressPorts = config.egress.ingressPorts
        settings.nodeId = config.cluster.nodeId ?? ""
        settings.ingressHost = config.publicIP ?? (["0.0.0.0", "::", ""].contains(config.bind) ? "127.0.0.1" : settings.ingressBind)
        supervisor = EgressSupervisor(settings: settings, store: store, apps: context.apps, channels: context.channels,
                                      webhooks: context.webhooks, endpoint: context.endpoint)
        store.closeUnfinishedComposites(now: EgressSupervisor.now())
        let supervisor = self.supervisor
        Task {
            await supervisor.recoverInterruptedRecordings()
            await supervisor.resumeIngresses()
            await supervisor.resumeCaptions()
        }
    }

    /// `srtc-egress` beside the running executable (the server, or a test runner in the same build
    /// directory): the worker used when `--egress-worker` is not set.
    public static var defaultWorkerPath: String { defaultWorker() }

    static func defaultWorker() -> String {
        let executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
        var directory = (executable as NSString).deletingLastPathComponent
        // A test bundle's runner sits inside `<build>/X.xctest/...` on some platforms.
        while directory.hasSuffix(".xctest") || directory.contains(".xctest/") { directory = (directory as NSString).deletingLastPathComponent }
        return (directory as NSString).appendingPathComponent("srtc-egress")
    }

    public func registerRoutes(in builder: inout APIRouter.Builder) {
        EgressRoutes.register(in: &builder, supervisor: supervisor, channels: channels)
        if let liveDirectory { builder.addFiles(prefix: "/live/", directory: liveDirectory, documentedPath: "/live/{app_id}/{channel}/{file}") }
    }

    public var webSocketPaths: [String] { [] }

    public func upgrade(_ request: HTTPRequest) async -> WebSocketUpgradeDecision {
        .reject(APIRouter.error(.notFound, "no WebSocket endpoint at \(request.path)", now: Int64(Date().timeIntervalSince1970)))
    }

    /// Stops every task; each worker finalizes its files first.
    public func shutdown() async {
        await supervisor.shutdown()
    }

    // MARK: - Composites for other modules

    public func startComposite(_ key: ChannelKey, uid: String) async -> Bool? {
        do {
            _ = try await supervisor.startComposite(appId: key.appId, key: key, settings: Self.moduleCompositeSettings(uid: uid),
                                                    requireLive: false)
            return true
        } catch {
            Log.warn("egress", "composite of \(key) could not start: \(error.message)")
            return false
        }
    }

    /// The composite another module asks for (a `.mix` meeting's): 1280×720 at 15 fps, 1.5 Mbps, grid.
    static func moduleCompositeSettings(uid: String) -> CompositeSettings {
        CompositeSettings(uid: uid, layout: .grid, width: 1280, height: 720, frameRate: 15, bitrate: 1_500_000, audio: true,
                          idleTimeoutSeconds: 60)
    }

    public func stopComposite(_ key: ChannelKey, uid: String) async -> Bool? {
        (try? await supervisor.stopComposite(appId: key.appId, key: key, uid: uid)) != nil
    }

    // MARK: - Captions for other modules

    public func startCaptions(_ key: ChannelKey, language: String?) async -> Result<Void, ModuleRefusal>? {
        do throws(EgressError) {
            _ = try await supervisor.startCaptions(appId: key.appId, key: key, language: CaptionRequests.language(language))
            return .success(())
        } catch {
            return .failure(ModuleRefusal(error.code, error.message))
        }
    }

    public func stopCaptions(_ key: ChannelKey) async -> Result<Void, ModuleRefusal>? {
        do throws(EgressError) {
            _ = try await supervisor.stopCaptions(appId: key.appId, key: key)
            return .success(())
        } catch {
            return .failure(ModuleRefusal(error.code, error.message))
        }
    }

    // MARK: - Ingresses for other modules

    /// An RTMP ingress with the defaults of `ingress/create` (H.264 Baseline passes through).
    public func createIngress(_ key: ChannelKey, uid: String) async -> Result<ModuleIngress, ModuleRefusal>? {
        do throws(EgressError) {
            let info = try await supervisor.createIngress(appId: key.appId, key: key, request: .init(
                kind: .rtmp, uid: uid, pullURL: nil, videoBitrate: 2_000_000, simulcast: false))
            return .success(ModuleIngress(ingressId: info.ingressId, url: info.url, streamKey: info.streamKey ?? ""))
        } catch {
            return .failure(ModuleRefusal(error.code, error.message))
        }
    }

    public func deleteIngress(_ key: ChannelKey, ingressId: String) async -> Result<Void, ModuleRefusal>? {
        do throws(EgressError) {
            guard await supervisor.ingressList(appId: key.appId, channel: key.name).contains(where: { $0.ingressId == ingressId }) else {
                throw EgressError(.notFound, "no ingress \(ingressId) in channel \(key.name)")
            }
            _ = try await supervisor.deleteIngress(appId: key.appId, id: ingressId)
            return .success(())
        } catch {
            return .failure(ModuleRefusal(error.code, error.message))
        }
    }
}
