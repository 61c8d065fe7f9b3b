package dev.inactivity

import java.io.File
import java.io.IOException
import java.nio.file.Files
import java.nio.file.StandardCopyOption

/**
 * The desktop jar's native libraries: `dev/inactivity/native/<platform>/` holds, for each
 * platform the jar was built for (listed one a line in `dev/inactivity/native/platforms.txt`),
 * `libinactivity.so.1` (the engine, under its SONAME) and `libinactivity_jni.so` (the glue,
 * linked against that SONAME with an rpath of `$ORIGIN`). The Android AAR has none of these:
 * there the APK's lib/<abi>/ holds them and [loadFromJar] returns false.
 */
internal object NativeLoader {
    const val TMPDIR_PROPERTY = "inactivity.native.tmpdir"
    private const val ROOT = "dev/inactivity/native"

    /** This process's platform as the jar names it: `linux-x86_64`, `linux-aarch64`, ... */
    val platform: String by lazy { "${os()}-${cpu()}" }

    private fun os(): String {
        val name = System.getProperty("os.name").orEmpty().lowercase()
        return when {
            name.startsWith("linux") -> "linux"
            name.startsWith("mac") || name.startsWith("darwin") -> "macos"
            name.startsWith("windows") -> "windows"
            else -> name.replace(Regex("[^a-z0-9]+"), "")
        }
    }

    private fun cpu(): String = when (val arch = System.getProperty("os.arch").orEmpty().lowercase()) {
        "amd64", "x86_64", "x64" -> "x86_64"
        "aarch64", "arm64" -> "aarch64"
        "arm", "armv7", "armv7l", "armhf" -> "armv7"
        "x86", "i386", "i486", "i586", "i686" -> "x86"
        else -> arch
    }

    /** The platforms this jar carries (empty when it carries none: the AAR, a test class path). */
    val platforms: List<String> by lazy {
        val text = NativeLoader::class.java.classLoader?.getResourceAsStream("$ROOT/platforms.txt")
            ?.use { it.readBytes().toString(Charsets.UTF_8) }
        text?.lines()?.map { it.trim() }?.filter { it.isNotEmpty() } ?: emptyList()
    }

    /**
     * Loads this platform's engine and glue from the jar; false when the jar has none for it
     * (the caller then tries System.loadLibrary). A library that is there but fails to load (a
     * musl or too old a glibc, a noexec temporary directory) throws, naming the platform.
     */
    fun loadFromJar(): Boolean {
        if (platform !in platforms) return false
        val loader = NativeLoader::class.java.classLoader
        val dir = try {
            val base = System.getProperty(TMPDIR_PROPERTY)?.takeIf { it.isNotEmpty() }
                ?: System.getProperty("java.io.tmpdir")
            // A new directory that only this user can enter (createTempDirectory makes it
            // 0700 on POSIX): another user of a shared /tmp cannot swap the files between
            // their extraction and their loading.
            Files.createTempDirectory(File(base).toPath(), "inactivity-").toFile()
        } catch (e: IOException) {
            throw UnsatisfiedLinkError(
                "inactivity: cannot make a directory to extract the native library for $platform into " +
                    "(${e.message}); set the system property $TMPDIR_PROPERTY to a writable directory",
            ).apply { initCause(e) }
        }
        try {
            // The engine first, by its path: the glue's NEEDED libinactivity.so.1 then matches
            // the loaded library's SONAME (and $ORIGIN would find it beside the glue anyway).
            for (name in listOf("libinactivity.so.1", "libinactivity_jni.so")) {
                val file = File(dir, name)
                val stream = loader?.getResourceAsStream("$ROOT/$platform/$name")
                    ?: throw UnsatisfiedLinkError("inactivity: the jar lists $platform but has no $ROOT/$platform/$name")
                stream.use { Files.copy(it, file.toPath(), StandardCopyOption.REPLACE_EXISTING) }
                try {
                    System.load(file.absolutePath)
                } catch (e: UnsatisfiedLinkError) {
                    throw UnsatisfiedLinkError(
                        "inactivity: the jar's $name for $platform does not load here (${e.message}); " +
                            "it needs glibc 2.17 or later. Build the library for this system (README) and set " +
                            "-D${NativeBridge.LIBRARY_PROPERTY}=/path/to/libinactivity_jni.so",
                    ).apply { initCause(e) }
                }
            }
        } finally {
            // Loaded libraries stay mapped: nothing is left behind in the temporary directory.
            dir.listFiles()?.forEach { it.delete() }
            dir.delete()
        }
        return true
    }

    /** The error when neither the jar nor java.library.path has a library for this process. */
    fun noLibraryMessage(cause: String?): String {
        val os = System.getProperty("os.name")
        val arch = System.getProperty("os.arch")
        val held = if (platforms.isEmpty()) "none" else platforms.joinToString(", ")
        return "inactivity: no native library for this platform: $os on $arch ($platform). " +
            "This jar holds: $held; java.library.path (${System.getProperty("java.library.path")}) " +
            "has no libinactivity_jni ($cause). Build the engine and the JNI glue for this system " +
            "and set -D${NativeBridge.LIBRARY_PROPERTY}=/absolute/path/to/libinactivity_jni.so"
    }
}
