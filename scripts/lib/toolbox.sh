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
# Results, as scripts/test reads them ($INACT_RESULTS_DIR/NAME.counts: "<passed> <failed>"), in
# the globals `passed` and `failed`:
#   ok TEST / bad TEST [LOG]   one passed / failed test: "ok   TEST", or "FAIL TEST" and LOG's tail
#   write_counts [P F]         writes P F (default: $passed $failed) to NAME.counts
#   fail_setup MESSAGE         a setup step failed: one failed test more, counts written, exit 1
#   finish                     writes the counts, prints "NAME: N passed, N failed", exits 0 when
#                              nothing failed, else 1
# A setup failure counts as one failed test, so the summary of scripts/test never hides it.

suite_name="${suite_name:-}"
toolbox_packages="$(dirname "${BASH_SOURCE[0]}")/packages.txt"
passed=0
failed=0

suite() { suite_name="$1"; passed=0; failed=0; }

write_counts() {
    if [[ -n "${INACT_RESULTS_DIR:-}" && -n "$suite_name" ]]; then
        mkdir -p "$INACT_RESULTS_DIR"
        echo "${1:-$passed} ${2:-$failed}" >"$INACT_RESULTS_DIR/$suite_name.counts"
    fi
}

ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() {
    failed=$((failed + 1))
    echo "FAIL $1"
    if [[ -n "${2:-}" && -f "$2" ]]; then sed 's/^/    /' "$2" | tail -n 30; fi
    return 0
}

finish() {
    write_counts "$passed" "$failed"
    echo "${suite_name:-${0##*/}}: $passed passed, $failed failed"
    [[ $failed == 0 ]] || exit 1
    exit 0
}

fail_setup() {
    echo "${suite_name:-${0##*/}}: setup failed: $*" >&2
    failed=$((failed + 1))
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
