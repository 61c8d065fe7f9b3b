/* The jar's aarch64 JNI glue, loaded under qemu-aarch64 (scripts/lib/test-jvm): it finds its
 * engine through RUNPATH $ORIGIN and exports JNI_OnLoad. */
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
    (void)argc;
    void *glue = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL); /* its NEEDED engine via RUNPATH $ORIGIN */
    if (!glue) { printf("dlopen: %s\n", dlerror()); return 1; }
    void *onload = dlsym(glue, "JNI_OnLoad");
    const char *(*version)(void) = (const char *(*)(void))dlsym(glue, "inact_version_string");
    printf("JNI_OnLoad %s, engine %s\n", onload ? "found" : "missing", version ? version() : "missing");
    return onload && version ? 0 : 1;
}
