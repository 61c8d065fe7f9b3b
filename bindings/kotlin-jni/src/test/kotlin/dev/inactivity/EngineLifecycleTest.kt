package dev.inactivity

import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertThrows
import org.junit.Assert.assertTrue
import org.junit.Test
import java.util.concurrent.CountDownLatch
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicReference
import kotlin.concurrent.thread
import kotlin.time.Duration.Companion.minutes
import kotlin.time.Duration.Companion.seconds

class EngineLifecycleTest {
    @Test
    fun close_twice_is_harmless_and_runs_close_handlers_once() {
        val engine = manualEngine()
        val closed = AtomicInteger()
        engine.addCloseHandler { closed.incrementAndGet() }
        assertFalse(engine.isClosed)
        engine.close()
        engine.close()
        assertTrue(engine.isClosed)
        assertEquals(1, closed.get())
        engine.addCloseHandler { closed.incrementAndGet() } // already closed: runs at once
        assertEquals(2, closed.get())
    }

    @Test
    fun every_method_refuses_use_after_close() {
        val engine = manualEngine()
        engine.start()
        val snapshot = engine.snapshot()
        engine.close()
        val calls: List<Pair<String, () -> Any?>> = listOf(
            "start" to { engine.start() },
            "restore" to { engine.restore(snapshot) },
            "activity" to { engine.activity() },
            "continueSession" to { engine.continueSession() },
            "lock" to { engine.lock() },
            "unlock" to { engine.unlock() },
            "unlockFailed" to { engine.unlockFailed() },
            "end" to { engine.end() },
            "refreshResult" to { engine.refreshResult(200) },
            "background" to { engine.background() },
            "foreground" to { engine.foreground() },
            "windowShown" to { engine.windowShown() },
            "windowHidden" to { engine.windowHidden() },
            "pushScope" to { engine.pushScope(1.minutes) },
            "popScope" to { engine.popScope(1) },
            "acquireHold" to { engine.acquireHold() },
            "releaseHold" to { engine.releaseHold(1) },
            "policy get" to { engine.policy },
            "policy set" to { engine.policy = Policy.defaults() },
            "state" to { engine.state },
            "reason" to { engine.reason },
            "status" to { engine.status },
            "remaining" to { engine.remaining },
            "info" to { engine.info() },
            "nextDeadline" to { engine.nextDeadline() },
            "poll" to { engine.poll() },
            "advanceClock" to { engine.advanceClock(1.seconds) },
            "jumpWallClock" to { engine.jumpWallClock(1.seconds) },
            "rebootClock" to { engine.rebootClock(1.seconds) },
            "clockNow" to { engine.clockNow() },
            "snapshot" to { engine.snapshot() },
            "addListener" to { engine.addListener(listener = Recorder()) },
        )
        for ((name, call) in calls) {
            val e = assertThrows(name, IllegalStateException::class.java) { call() }
            assertTrue(name, e.message!!.contains("closed"))
        }
    }

    @Test
    fun closing_an_engine_while_other_threads_use_it_never_crashes() {
        repeat(20) {
            val engine = manualEngine(listener = Recorder())
            engine.start()
            val go = CountDownLatch(1)
            val unexpected = AtomicReference<Throwable?>()
            val workers = (0 until 3).map { i ->
                thread(name = "worker-$i") {
                    go.await()
                    try {
                        while (true) {
                            engine.activity()
                            engine.state
                            engine.advanceClock(1.seconds)
                        }
                    } catch (_: IllegalStateException) {
                        // closed: the only acceptable failure
                    } catch (t: Throwable) {
                        unexpected.set(t)
                    }
                }
            }
            go.countDown()
            Thread.sleep(2)
            engine.close()
            workers.forEach { it.join(10_000) }
            assertTrue(workers.none { it.isAlive })
            unexpected.get()?.let { throw AssertionError("unexpected failure", it) }
        }
    }

    @Test
    fun scopes_and_holds_close_once() {
        manualEngine().use { engine ->
            engine.start()
            val hold = engine.acquireHold()
            val scope = engine.pushScope(2.minutes)
            assertEquals(1, engine.info().openHolds)
            assertEquals(1, engine.info().openScopes)
            hold.close(); hold.close()
            scope.close(); scope.close()
            assertEquals(0, engine.info().openHolds)
            assertEquals(0, engine.info().openScopes)
        }
    }
}
