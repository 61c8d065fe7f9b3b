package dev.inactivity

import org.junit.runner.Description
import org.junit.runner.JUnitCore
import org.junit.runner.notification.Failure
import org.junit.runner.notification.RunListener
import java.io.File
import kotlin.system.exitProcess

/**
 * Runs the JUnit 4 classes named on the command line and prints one line
 * `<passed> passed, <failed> failed`; writes `<passed> <failed>` to the file named by the
 * system property `inactivity.counts` when set. Exit status 1 if anything failed.
 */
object RunAllTests {
    @JvmStatic
    fun main(args: Array<String>) {
        val classes = args.map { Class.forName(it) }
        var failed = 0
        var passed = 0
        val core = JUnitCore()
        core.addListener(object : RunListener() {
            private val failedTests = HashSet<Description>()
            override fun testFailure(failure: Failure) {
                if (failedTests.add(failure.description)) failed++
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
                    System.out.println("ok   ${description.displayName}")
                }
            }
        })
        val result = core.run(*classes.toTypedArray())
        if (classes.isEmpty() || result.runCount == 0) failed++ // a run that ran nothing is a failure
        System.getProperty("inactivity.counts")?.let { File(it).writeText("$passed $failed\n") }
        System.out.println("$passed passed, $failed failed")
        System.out.flush()
        exitProcess(if (failed == 0) 0 else 1)
    }
}
