package dev.inactivity

import org.junit.Assert.assertEquals
import org.junit.Assert.assertNotEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.File
import java.util.concurrent.TimeUnit

/**
 * The scheduler thread under real platform faults, through the binding (the C suite's
 * test_platform_faults.c, the same faults): each scenario runs [FaultChild] in a fresh JVM with
 * libinact_faults.so (Tests/CTests/fault_preload.c; scripts/lib/test-jvm builds it and names it in
 * the property `inactivity.faults.library`) preloaded, failing libc's pthread_create or
 * timerfd_settime for calls from libinactivity.so only (the JVM starts threads of its own).
 *
 * A THREAD engine that cannot get its thread or its timer is not created: [SystemResourceException]
 * (Status.SYSTEM), whose message names the call and the errno; the next creation tries again.
 * A timer that cannot be re-armed is reported by [InactivityEngine.schedulerFaults] as degraded
 * with the errno, and the engine still decides at every call and delivers its deadlines.
 */
class PlatformFaultsTest {
    private val eagain = 11 // Linux errno values, as the library reports them
    private val einval = 22
    private val enodev = 19

    private fun runChild(scenario: String, faults: String): Map<String, String> {
        val interposer = System.getProperty("inactivity.faults.library")
            ?: throw AssertionError("no -Dinactivity.faults.library (scripts/lib/test-jvm builds libinact_faults.so)")
        assertTrue("no $interposer", File(interposer).isFile)
        val java = File(System.getProperty("java.home"), "bin/java").path
        val builder = ProcessBuilder(
            java, "-Xcheck:jni",
            "-D${NativeBridge.LIBRARY_PROPERTY}=${System.getProperty(NativeBridge.LIBRARY_PROPERTY)}",
            "-cp", System.getProperty("java.class.path"), FaultChild::class.java.name, scenario,
        ).redirectErrorStream(true)
        builder.environment()["LD_PRELOAD"] = interposer
        builder.environment()["INACT_TEST_FAULTS"] = faults
        builder.environment()["INACT_TEST_FAULTS_FROM"] = "libinactivity.so"
        val process = builder.start()
        val output = process.inputStream.bufferedReader().readText()
        assertTrue("the child JVM did not end within 120 s", process.waitFor(120, TimeUnit.SECONDS))
        assertEquals("the child JVM failed:\n$output", 0, process.exitValue())
        assertTrue("-Xcheck:jni in the child:\n$output", !Regex("(WARNING|FATAL ERROR) in native method").containsMatchIn(output))
        return output.lines().filter { '=' in it }.associate { it.substringBefore('=') to it.substringAfter('=') }
    }

    /** A creation that fails for [call] with [errno] (text [strerror]), then one that succeeds. */
    private fun checkCreateFails(call: String, faults: String, errno: Int, strerror: String) {
        val seen = runChild("create-fails", faults)
        assertEquals(seen.toString(), "SystemResourceException", seen["create"])
        assertEquals("SYSTEM -15", seen["status"])
        val message = seen.getValue("message")
        assertTrue(message, call in message && "$strerror (errno $errno)" in message)
        assertEquals("$errno", seen["errno"])
        assertEquals("a failed creation left a scheduler thread", "0", seen["scheduler_threads"])
        assertEquals("a failed creation attached a thread", "0", seen["attached"])
        assertEquals("the manual-clock engine stopped deciding", "ACTIVE,WARNING", seen["manual_states"])
        assertEquals(seen.toString(), "true", seen["retry_warning_on_scheduler_thread"])
        assertEquals("one scheduler thread for the engine that was created", "1", seen["retry_scheduler_threads"])
        // A creation error, not a fault of a timer that was had.
        if (call != "timerfd_settime") assertEquals("false,0,0", seen["faults"])
    }

    @Test
    fun engine_without_a_thread_is_not_created_and_the_next_creation_retries() =
        checkCreateFails("pthread_create", "pthread_create:0:1:$eagain", eagain, "Resource temporarily unavailable")

    @Test
    fun engine_without_a_timer_is_not_created_and_the_next_creation_retries() =
        checkCreateFails("timerfd_create", "timerfd_create:0:1:$enodev", enodev, "No such device")

    @Test
    fun engine_whose_timer_cannot_be_set_is_not_created_and_the_next_creation_retries() =
        checkCreateFails("timerfd_settime", "timerfd_settime:0:1:$einval", einval, "Invalid argument")

    @Test
    fun timer_that_cannot_be_rearmed_is_reported_degraded_and_the_engine_goes_on() {
        // The first timerfd_settime (at creation) succeeds, every later one fails with EINVAL.
        val seen = runChild("timer-fails", "timerfd_settime:1:-1:$einval")
        assertEquals("false,0,0", seen["faults_before"])
        val (degraded, failures, errno) = seen.getValue("faults_after_lock").split(",")
        assertEquals(seen.toString(), "true", degraded)
        assertTrue(seen.toString(), failures.toLong() >= 1)
        assertEquals("$einval", errno)
        assertEquals("LOCKED", seen["state_at_call_after_deadline"])
        assertEquals("ACTIVE:true", seen["unlock_events"])
        assertEquals("ACTIVE", seen["state_after_unlock"])
        assertEquals(seen.toString(), "true", seen["next_warning_on_scheduler_thread"])
        val states = seen.getValue("states").split(",")
        assertEquals(seen.toString(), "ACTIVE", states.first())
        assertEquals(seen.toString(), listOf("LOCKED", "ACTIVE", "WARNING"), states.takeLast(3))
        val (degradedAfter, failuresAfter, errnoAfter) = seen.getValue("faults_after").split(",")
        assertEquals("true", degradedAfter)
        assertEquals("$einval", errnoAfter)
        assertTrue("the re-arm after the unlock did not fail again", failuresAfter.toLong() > failures.toLong())
    }

    @Test
    fun system_status_maps_to_system_resource_exception_with_the_library_s_errno() {
        val e = InactivityException.fromStatus(-15, "scheduler thread: timerfd_create failed: No such device (errno 19)", 19)
        assertTrue(e is SystemResourceException)
        e as SystemResourceException
        assertEquals(Status.SYSTEM, e.status)
        assertEquals(19, e.errno)
        // The number is the library's value, never read from the text.
        assertNull((InactivityException.fromStatus(-15, "a text naming (errno 5)", 0) as SystemResourceException).errno)
        assertNotEquals(SystemResourceException::class, InactivityException.fromStatus(-14, "internal")::class)
    }
}
