// A session in plain Java, from the desktop jar: javac and java need only the jar and
// kotlin-stdlib (README.md beside this file). A manual clock, so the example takes no time:
// BANKING's 5-minute policy with the idle timeout cut to 60 s and a 10 s warning.
import dev.inactivity.EngineConfig;
import dev.inactivity.InactivityEngine;
import dev.inactivity.Policy;
import dev.inactivity.Preset;
import java.time.Duration;

public final class Session {
    public static void main(String[] args) {
        Policy policy = Policy.preset(Preset.BANKING)
                .withIdleTimeoutMillis(60_000)
                .withWarningMillis(10_000)
                .withTickMillis(0);
        try (InactivityEngine engine = InactivityEngine.create(policy, EngineConfig.manual(),
                event -> System.out.println(event.getState() + " " + event.getReason()
                        + " remaining " + event.getRemainingMillis() + " ms"))) {
            engine.start();                              // ACTIVE STARTED
            engine.advanceClock(Duration.ofSeconds(50)); // WARNING IDLE
            engine.continueSession();                    // ACTIVE CONTINUED
            engine.advanceClock(Duration.ofSeconds(60)); // WARNING IDLE, then LOCKED IDLE_TIMEOUT
            System.out.println("state " + engine.getState() + ", unlock needs " + engine.getRequiredAuth()
                    + ", library " + InactivityEngine.getLibraryVersion());
        }
    }
}
