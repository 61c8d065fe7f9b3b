# The shared toolbox of the scripts: source it, never run it:
#
#   . "$ROOT/scripts/lib/toolbox.sh"; suite NAME
#
# A suite names itself (suite NAME); a command that only installs tools does not, and then no
# counts file is written.
# Tools, installed once and idempotently (Debian's packages by name; PyPI's pinned), every one
# declared once in scripts/lib/packages.txt:
#   need CMD                   CMD on PATH (or CMD, an absolute path, exists), else apt-get
#                              install its packages (packages.txt's
#                              "debian CMD PACKAGE..." line); a setup failure when CMD is still
#                              missing. (need CMD PACKAGE... is accepted only when PACKAGE... is
#                              exactly that line's: a package named nowhere else.)
#   debian_packages CMD...     the Debian packages of each CMD, one a line (the workflows use it)
#   pins NAME...               the PyPI requirements (name==version) of each NAME or group, one a
#                              line
#   apt_install PACKAGE...     apt-get install, after at most one `apt-get update` per
#                              scripts/test run (a stamp in $INACT_RESULTS_DIR), or per script
#                              run outside it; waits for another apt-get's lock (10 min)
#                              instead of failing at once
#   try_need CMD               as need, for an optional tool: returns 1 when CMD is still missing
#   need_venv DIR REQ...       a virtual environment at DIR holding the PyPI requirements REQ...
#                              (pin them: name==version); made again only when the list changes
#                              (DIR/.requirements)
#   need_server_venv [LIB.so]  .build/server-venv, the server half's environment, one list for
#                              scripts/lib/test-server and scripts/bench server-store (so that
#                              neither remakes it after the other): bindings/python's [server]
#                              extra (what users install) and the pins httpx2 pytest mypy
#                              setuptools server-ws; sets SERVER_VENV. With LIB.so, also installs
#                              bindings/python into it, bundling that library
# Results: every suite writes a TAP 14 stream, $INACT_RESULTS_DIR/NAME.tap (a temporary file
# when INACT_RESULTS_DIR is unset), which scripts/lib/py/tap.py counts, here and in scripts/test
# (CONTRIBUTING.md, "How a suite reports"). Each call below is one test point, also printed;
# `passed` and `failed` keep the running totals for the suite's own decisions:
#   suite NAME                 starts NAME's stream
#   ok TEST / bad TEST [LOG]   "ok N - TEST" / "not ok N - TEST" and LOG's tail
#   skip_test TEST REASON      "ok N - TEST # SKIP REASON" (neither passed nor failed; not
#                              "skip": scripts/bench has its own)
#   todo TEST REASON           "not ok N - TEST # TODO REASON": a known failure, with its reason
#                              (counted as passed); todo_ok TEST REASON: the known failure
#                              passed ("ok N - TEST # TODO REASON", counted as failed: remove it)
#   tap_stream FILE [PREFIX]   the test points of FILE, a TAP stream a tool wrote (tap.py
#                              from-junit, from-ctest, a runner's own), renumbered into this
#                              one, each name after PREFIX; its missing plan, bail-out or
#                              malformed line is a failed test point; prints only the failures
#                              and sets tap_stream_passed and tap_stream_failed
#   fail_setup MESSAGE         a setup step failed: one failed test more, then finish (exit 1)
#   finish                     the plan line, then tap.py's "NAME: N passed, N failed"; exits 0
#                              when nothing failed, else 1
# Descriptions escape "\" and "#" (TAP 14: "\\", "\#"): a test name may hold either; a
# directive's reason is written as it is (only the first unescaped "#" starts the directive).
# A setup failure counts as one failed test, so the summary of scripts/test never hides it.

suite_name="${suite_name:-}"
toolbox_packages="$(dirname "${BASH_SOURCE[0]}")/packages.txt"
passed=0
failed=0

toolbox_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tap_file=""
tap_tmp=""
tap_n=0

suite() {
    suite_name="$1"
    passed=0
    failed=0
    tap_n=0
    local dir="${INACT_RESULTS_DIR:-}"
    if [[ -z "$dir" ]]; then
        tap_tmp="$(mktemp -d)"
        dir="$tap_tmp"
    fi
    mkdir -p "$dir"
    tap_file="$dir/$suite_name.tap"
    echo "TAP version 14" >"$tap_file"
}

# tap_escape TEXT: TEXT as a TAP 14 description: "\" doubled, then "#" escaped; one line.
tap_escape() {
    local s="${1//\\/\\\\}"
    s="${s//#/\\#}"
    printf '%s' "${s//$'\n'/ }"
}

# tap_point KIND TEST [REASON]: one test point (KIND: ok, bad, skip, todo, todo_ok), appended to
# the stream and printed (a passing one not while tap_quiet=1).
tap_point() {
    local kind="$1" d line
    d="$(tap_escape "${2:-(unnamed)}")"
    tap_n=$((tap_n + 1))
    case "$kind" in
    ok) line="ok $tap_n - $d" passed=$((passed + 1)) ;;
    skip) line="ok $tap_n - $d # SKIP ${3//$'\n'/ }" ;;
    todo) line="not ok $tap_n - $d # TODO ${3//$'\n'/ }" passed=$((passed + 1)) ;;
    todo_ok) line="ok $tap_n - $d # TODO ${3//$'\n'/ }" failed=$((failed + 1)) ;;
    *) line="not ok $tap_n - $d" failed=$((failed + 1)) ;;
    esac
    [[ -z "$tap_file" ]] || printf '%s\n' "$line" >>"$tap_file"
    [[ "${tap_quiet:-0}" == 1 && ($kind == ok || $kind == todo) ]] || printf '%s\n' "$line"
    [[ $kind != todo_ok ]] || echo "    its known failure passes now: remove the TODO"
    return 0
}

ok() { tap_point ok "$1"; }
bad() {
    tap_point bad "$1"
    if [[ -n "${2:-}" && -f "$2" ]]; then sed 's/^/    /' "$2" | tail -n 30; fi
    return 0
}
skip_test() { tap_point skip "$1" "${2:-}"; }
todo() { tap_point todo "$1" "${2:-}"; }
todo_ok() { tap_point todo_ok "$1" "${2:-}"; }

tap_stream() {
    local file="$1" prefix="${2:-}" kind name reason records p0=$passed f0=$failed
    records="$(mktemp)"
    python3 "$toolbox_dir/py/tap.py" splice "$file" >"$records" ||
        echo "bad	$file: tap.py splice failed" >>"$records"
    while IFS=$'\t' read -r kind name reason; do
        tap_quiet=1 tap_point "$kind" "$prefix$name" "$reason"
    done <"$records"
    rm -f "$records"
    # shellcheck disable=SC2034 # read by the scripts that source the toolbox
    tap_stream_passed=$((passed - p0)) tap_stream_failed=$((failed - f0))
}

finish() {
    local rc=0
    if [[ -n "$tap_file" ]]; then
        echo "1..$tap_n" >>"$tap_file"
        python3 "$toolbox_dir/py/tap.py" count --suite "$tap_file" || rc=$? # (under set -e too)
        [[ -z "$tap_tmp" ]] || rm -rf "$tap_tmp"
    else
        echo "${0##*/}: $passed passed, $failed failed"
        rc=$((failed == 0 ? 0 : 1))
    fi
    exit $rc
}

fail_setup() {
    echo "${suite_name:-${0##*/}}: setup failed: $*" >&2
    tap_point bad "setup: $*" # not bad: a suite may have its own (scripts/lib/test-demo does)
    finish
}

apt_install() {
    local p
    for p in "$@"; do # every package is one of packages.txt's (declared once)
        awk -v p="$p" '$1 == "debian" { for (i = 3; i <= NF; i++) if ($i == p) found = 1 } END { exit !found }' "$toolbox_packages" ||
            fail_setup "apt_install $p: not in scripts/lib/packages.txt (declare it there: debian COMMAND-OR-PATH $p)"
    done
    local stamp="${INACT_RESULTS_DIR:-${TMPDIR:-/tmp}/inact-toolbox.$$}/apt-updated"
    if [[ ! -f "$stamp" ]]; then
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 || fail_setup "apt-get update"
        mkdir -p "$(dirname "$stamp")" && touch "$stamp"
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -o DPkg::Lock::Timeout=600 -y -qq "$@" >/dev/null 2>&1 || fail_setup "apt-get install $*"
}

# packages_of CMD [PACKAGE...]: packages.txt's packages for CMD on one line; 1 (with the reason
# on stderr) when CMD has no line, or when PACKAGE... is given and is not that line's.
packages_of() {
    local cmd="$1" listed
    shift
    listed="$(awk -v c="$cmd" '$1 == "debian" && $2 == c { $1 = ""; $2 = ""; sub(/^ +/, ""); print; exit }' "$toolbox_packages")"
    if [[ -z "$listed" ]]; then
        echo "toolbox: $cmd has no line in scripts/lib/packages.txt (add: debian $cmd PACKAGE...)" >&2
        return 1
    fi
    if [[ $# -gt 0 && "$*" != "$listed" ]]; then
        echo "toolbox: need $cmd $*: scripts/lib/packages.txt declares $cmd's packages as '$listed' (declare them there only)" >&2
        return 1
    fi
    echo "$listed"
}

debian_packages() {
    local cmd listed
    for cmd in "$@"; do
        listed="$(packages_of "$cmd")" || return 1
        printf '%s\n' $listed
    done
}

pins() {
    local name found
    for name in "$@"; do
        found="$(awk -v n="$name" '$1 == "pypi" && $2 == n { $1 = ""; $2 = ""; sub(/^ +/, ""); print }' "$toolbox_packages")"
        if [[ -z "$found" ]]; then
            echo "toolbox: no PyPI pin '$name' in scripts/lib/packages.txt (add: pypi $name NAME==VERSION)" >&2
            return 1
        fi
        echo "$found"
    done
}

# have CMD-OR-PATH: a command on PATH, or (an absolute path) a file that exists.
have() {
    if [[ "$1" == /* ]]; then [[ -e "$1" ]]; else command -v "$1" >/dev/null 2>&1; fi
}

need() {
    local cmd="$1" packages
    shift
    packages="$(packages_of "$cmd" "$@")" || fail_setup "need $cmd: see the line above"
    have "$cmd" && return 0
    echo "${suite_name:-${0##*/}}: installing $packages (for $cmd)" >&2
    # shellcheck disable=SC2086 # one word per package
    apt_install $packages
    have "$cmd" || fail_setup "no $cmd after apt-get install $packages"
}

try_need() {
    local cmd="$1" packages
    shift
    packages="$(packages_of "$cmd" "$@")" || fail_setup "try_need $cmd: see the line above"
    have "$cmd" && return 0
    echo "${suite_name:-${0##*/}}: installing $packages (for $cmd)" >&2
    local stamp="${INACT_RESULTS_DIR:-${TMPDIR:-/tmp}/inact-toolbox.$$}/apt-updated"
    if [[ ! -f "$stamp" ]] && DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1; then
        mkdir -p "$(dirname "$stamp")" && touch "$stamp"
    fi
    # shellcheck disable=SC2086 # one word per package
    DEBIAN_FRONTEND=noninteractive apt-get install -o DPkg::Lock::Timeout=600 -y -qq $packages >/dev/null 2>&1
    have "$cmd"
}

need_venv() {
    local dir="$1"
    shift
    local wanted
    wanted="$(printf '%s\n' "$@")"
    if [[ -x "$dir/bin/python" ]] && "$dir/bin/python" -c "" 2>/dev/null &&
        [[ "$(cat "$dir/.requirements" 2>/dev/null)" == "$wanted" ]]; then
        return 0
    fi
    need python3
    python3 -c "import ensurepip" 2>/dev/null || apt_install python3-venv
    echo "${suite_name:-${0##*/}}: making $dir ($*)" >&2
    rm -rf "$dir"
    python3 -m venv "$dir" || fail_setup "python3 -m venv $dir"
    "$dir/bin/python" -m pip install -q --disable-pip-version-check "$@" || fail_setup "pip install $*"
    echo "$wanted" >"$dir/.requirements"
}

need_server_venv() {
    local root list extra server_pins
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
    SERVER_VENV="$root/.build/server-venv"
    need python3
    # The extra's pins, read from pyproject.toml so that the suite tests what users install.
    mapfile -t extra < <(python3 "$root/scripts/lib/py/server_extra_pins.py" "$root/bindings/python/pyproject.toml")
    [[ ${#extra[@]} -gt 0 ]] || fail_setup "no [server] extra in bindings/python/pyproject.toml"
    list="$(pins httpx2 pytest mypy setuptools server-ws)" || fail_setup "need_server_venv: see the line above" # scripts/lib/packages.txt
    mapfile -t server_pins <<<"$list"
    need_venv "$SERVER_VENV" "${extra[@]}" "${server_pins[@]}"
    [[ $# -gt 0 ]] || return 0
    echo "${suite_name:-${0##*/}}: installing bindings/python into $SERVER_VENV" >&2
    INACTIVITY_BUNDLE_LIBRARY="$1" "$SERVER_VENV/bin/python" -m pip install -q --disable-pip-version-check \
        --no-deps --no-build-isolation --force-reinstall "$root/bindings/python" >&2 || fail_setup "pip install bindings/python"
    rm -rf "$root/bindings/python/build"
}
