import InactivityApple
import PhotosUI
import SwiftUI

struct ContentView: View {
    @Environment(InactivitySession.self) private var session
    @State private var note = ""
    @State private var pickingPhoto = false
    @State private var photo: PhotosPickerItem?

    var body: some View {
        NavigationStack {
            Form {
                Section("Session") {
                    LabeledContent("State", value: "\(session.state)")
                    LabeledContent("Reason", value: "\(session.reason)")
                    if let error = session.lastError { Text(error.message).foregroundStyle(.red) }
                }
                Section("Activity") {
                    // Typing counts: text changes are activity even though the keyboard's
                    // touches never reach the app's windows.
                    TextField("Type here", text: $note)
                    Button("Pick a photo") {
                        // The picker may send the app to background; announce it first.
                        do { try session.willPresentSystemSheet(maxMs: 60_000) } catch { print(error) }
                        pickingPhoto = true
                    }
                }
                Section {
                    Button("Lock now") { try? session.engine.lock() }
                    Button("Log out", role: .destructive) { session.logOut() }
                }
            }
            .navigationTitle("Inactivity")
            .photosPicker(isPresented: $pickingPhoto, selection: $photo)
        }
    }
}

struct LockScreen: View {
    @Environment(InactivitySession.self) private var session

    var body: some View {
        VStack(spacing: 24) {
            Image(systemName: "lock.fill").font(.largeTitle)
            Text("Locked (\(session.reason))").font(.title)
            // A real app verifies the user here (LocalAuthentication, a PIN) before unlocking,
            // and names the method: the engine refuses a biometric when the credential is due.
            if session.requiredAuth == .biometric {
                Button("Unlock with Face ID") { try? session.engine.unlock(method: .biometric) }
                    .buttonStyle(.borderedProminent)
            }
            Button("Unlock with the PIN") { try? session.engine.unlock(method: .credential) }
            Button("Log out", role: .destructive) { session.logOut() }
        }
        .frame(maxWidth: .infinity, maxHeight: .infinity)
        .background(.background)
    }
}

struct SignInScreen: View {
    @Environment(InactivitySession.self) private var session

    var body: some View {
        VStack(spacing: 24) {
            Text("Signed out (\(session.reason))").font(.title2)
            Button("Sign in") { try? session.engine.start() }.buttonStyle(.borderedProminent)
        }
        .frame(maxWidth: .infinity, maxHeight: .infinity)
        .background(.background)
    }
}
