// The built-in demo: `swift run inactivity-demo` with no arguments plays this scenario.
// It is written in the scenario format (docs/scenarios.md) and checks itself: every `expect`
// below must hold, or the demo exits 1.

public enum DemoScenario {
    public static let text = """
    name A banking app, one working day of a session (built-in demo)
    policy banking
    set tick 5s                     # a 5 s countdown tick keeps the timeline short

    at 0:00    note cold start: no saved session, the sign-in screen is up
               start                # the user signed in
    at 0:12    activity touch-down
    at 0:40    activity scroll
    at 1:30    activity touch-down
    at 1:45    note the payment screen opens: 2 min idle while it is open
               push-scope payment 2m
               expect idle-timeout 2m
    at 2:10    activity key
    # No input now: WARNING at 2:10 + 2m - 30s = 3:40, ticks at 25 s, 20 s, ...
    at 3:52    expect WARNING idle since 3:40
               expect ticks 2
               note the user taps Continue
               continue
    at 4:30    note payment sent; the screen closes
               pop-scope payment
               expect remaining 4:22
    # Idle from the Continue at 3:52: WARNING at 8:22, LOCKED at 8:52.
    at 9:00    expect LOCKED idle-timeout since 8:52
    at 10:00   note a wrong PIN, then the right one
               unlock-failed
               unlock
    at 10:30   note the user switches to another app; the app saves its snapshot
               background
               save
               freeze 2m            # the OS suspends the process: no timer can fire
    at 12:30   foreground
               expect LOCKED background-timeout since 11:00
               unlock
    at 13:00   note token refresh: the network is down, then the server errors
               refresh 0
               expect refresh retry
               refresh 503
               expect ACTIVE
    at 13:05   note the OS kills the app in background; it is relaunched 20 s later
               background
               save
               kill
    at 13:25   launch
               restore
               expect ACTIVE restored
               foreground
    at 14:00   note the server says the refresh token was revoked
               refresh 400 invalid_grant
               expect EXPIRED revoked
    at 14:30   note the user signs in again; a statement export holds the session open for hours
               start
               hold export
    at 8:14:30 expect EXPIRED absolute-timeout since 8:14:30
    """
}
