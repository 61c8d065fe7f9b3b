package dev.inactivity

import org.junit.runner.Description
import org.junit.runner.JUnitCore
import org.junit.runner.notification.Failure
import org.junit.runner.notification.RunListener
import java.io.File
import kotlin.system.exitProcess

/**
 * Runs the JUnit 4 classes named on the command line and prints one line
 * `<passed> passed, <failed> failed`; writes every test as a TAP 14 test point to the file
 * named by the system property `inactivity.tap` when set (scripts/lib/py/tap.py counts it; a
 * run that ran nothing is a failed point). Exit status 1 if anything failed.
 */
object RunAllTests {
    @JvmStatic
    fun main(args: Array<String>) {
        val classes = args.map { Class.forName(it) }
        var failed = 0
        var passed = 0
        val points = ArrayList<Pair<Boolean, String>>() // (passed, name), in the order run
        val core = JUnitCore()
        core.addListener(object : RunListener() {
            private val failedTests = HashSet<Description>()
            override fun testFailure(failure: Failure) {
                if (failedTests.add(failure.description)) {
                    failed++
                    points.add(false to failure.description.displayName)
                }
                System.out.println("FAIL ${failure.description.displayName}")
                val frames = failure.trace.lines().filterNot {
                    it.contains("at org.junit.") || it.contains("at java.base/jdk.internal.reflect") ||
                        it.contains("at java.base/java.lang.reflect")
                }
                System.out.println(frames.joinToString("\n").prependIndent("    "))
            }
            override fun testAssumptionFailure(failure: Failure) {}
            override fun testFinished(description: Description) {
                if (description !in failedTests) {
                    passed++
                    points.add(true to description.displayName)
                    System.out.println("ok   ${description.displayName}")
                }
            }
        })
        val result = core.run(*classes.toTypedArray())
        if (classes.isEmpty() || result.runCount == 0) { // a run that ran nothing is a failure
            failed++
            points.add(false to "the run ran no test")
        }
        System.getProperty("inactivity.tap")?.let { path ->
            // TAP 14 escapes "\" and "#" in a description (a test's display name may hold either).
            val lines = points.mapIndexed { i, (ok, name) ->
                val description = name.replace("\\", "\\\\").replace("#", "\\#").replace('\n', ' ')
                "${if (ok) "ok" else "not ok"} ${i + 1} - $description"
            }
            File(path).writeText((listOf("TAP version 14") + lines + "1..${points.size}").joinToString("\n", postfix = "\n"))
        }
        System.out.println("$passed passed, $failed failed")
        System.out.flush()
        exitProcess(if (failed == 0) 0 else 1)
    }
}
