#!/usr/bin/env bash
# Builds the fuzz target outside the package graph:
#   1. an AddressSanitizer + coverage build of libinactivity.so (SwiftPM, own scratch path), so
#      that libFuzzer sees the engine's own branches and ASan checks the Swift and C code;
#   2. verify/fuzz/inact_fuzz.c + verify/fuzz/model.c with the toolchain's clang and
#      -fsanitize=fuzzer,address,undefined, linked against that library.
# Also builds a plain replay binary (gcc, no sanitizer, the normal debug library) for valgrind.
#
# Usage: verify/fuzz/build.sh            prints the path of the fuzzer binary on its last line
# Env:   INACT_FUZZ_OUT (default .build/fuzz-bin)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
out="${INACT_FUZZ_OUT:-$repo/.build/fuzz-bin}"
mkdir -p "$out"
clang="$(dirname "$(readlink -f "$(command -v swift)")")/clang"
[[ -x "$clang" ]] || clang=/opt/swift/usr/bin/clang

# 1. The instrumented library. -sanitize-coverage makes the Swift and C code report edges
#    (inline 8-bit counters + PC table, what current libFuzzer reads) and comparisons
#    (trace-cmp) to libFuzzer. The library's undefined __asan_* / __sanitizer_cov_* symbols are
#    resolved by the fuzzer binary, which carries the static ASan runtime and libFuzzer.
swift build -c release --product inactivity --sanitize=address \
    -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp \
    -Xcc -fsanitize-coverage=inline-8bit-counters,pc-table,trace-cmp \
    --scratch-path "$repo/.build/fuzz" >"$out/swift-build.log" 2>&1 ||
    { tail -n 30 "$out/swift-build.log" >&2; echo "verify/fuzz/build.sh: swift build failed" >&2; exit 1; }
libdir="$repo/.build/fuzz/release"
[[ -f "$libdir/libinactivity.so" ]] || { echo "no $libdir/libinactivity.so" >&2; exit 1; }
"$repo/scripts/lib/soname-link" "$libdir" >/dev/null  # the fuzzer loads it by SONAME

# 2. The target.
"$clang" -std=c11 -g -O1 -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
    -I"$repo/include" -I"$repo/verify/fuzz" \
    verify/fuzz/inact_fuzz.c verify/fuzz/model.c \
    -fuse-ld=lld -L"$libdir" -linactivity -Wl,-rpath,"$libdir" -pthread \
    -o "$out/inact_fuzz"
echo "$out/inact_fuzz"
