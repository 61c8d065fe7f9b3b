import InactivityApple
import SwiftUI

@main
struct ExampleApp: App {
    // Created, and restored, before the first frame: until the restore has decided, the session
    // is LOADING and every scene shows only the cover.
    @State private var session = SessionFile.openSession()
    @Environment(\.scenePhase) private var appPhase   // in the App: all scenes together

    var body: some Scene {
        WindowGroup {
            switch session {
            case .success(let session):
                ContentView()
                    .inactivity(session, lockScreen: { LockScreen() }, signedOut: { SignInScreen() })
            case .failure(let error):
                Text("The session could not start: \(error.message)").padding()
            }
        }
        .onChange(of: appPhase) { _, phase in
            // Persist on the way to background: the process may be killed there.
            if phase == .background, case .success(let session) = session { SessionFile.save(session) }
        }
    }
}
