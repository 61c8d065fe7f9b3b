import Foundation
import InactivityApple

/// Where the example keeps its snapshot: a file only readable after the first unlock since boot.
enum SessionFile {
    static var url: URL {
        URL.applicationSupportDirectory.appending(path: "session.snapshot")
    }

    static func openSession() -> Result<InactivitySession, InactivityError> {
        // Short timeouts so that you can watch it: the warning after 30 s without a touch, the
        // lock at 60 s, 10 s in background locks.
        var policy = SessionPolicy(preset: .banking)
        policy.idleTimeoutMs = 60_000
        policy.warningMs = 30_000
        policy.backgroundTimeoutMs = 10_000
        do {
            let session = try InactivitySession(policy: policy)
            if let bytes = try? Data(contentsOf: url) {
                // A corrupt snapshot throws and leaves the session EXPIRED: sign in again.
                try? session.engine.restore([UInt8](bytes))
            } else {
                try session.engine.end(reason: .logout)   // no stored session: signed out
            }
            return .success(session)
        } catch {
            return .failure(error)
        }
    }

    static func save(_ session: InactivitySession) {
        guard session.state != .loading, let bytes = try? session.engine.snapshot() else { return }
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(),
                                                 withIntermediateDirectories: true)
        try? Data(bytes).write(to: url, options: [.atomic, .completeFileProtectionUntilFirstUserAuthentication])
    }
}
