"""The workflows' actions are pinned by commit with their version.

Run by scripts/lib/test-packaging, with the arguments it passes.
"""
import re, sys
bad, seen = [], 0
for path in sys.argv[1:]:
    for n, line in enumerate(open(path), 1):
        m = re.match(r"\s*(?:-\s+)?uses:\s*(\S+)(.*)$", line)
        if not m or m.group(1).startswith("./"):
            continue
        seen += 1
        action, rest = m.group(1), m.group(2)
        ref = action.rpartition("@")[2] if "@" in action else ""
        sha = re.fullmatch(r"[0-9a-f]{40}", ref) and re.search(r"#\s*v\d+(\.\d+)*", rest)
        tag = re.fullmatch(r"v?\d+\.\d+\.\d+", ref)
        if not (sha or tag):
            bad.append(f"{path}:{n}: {action} (pin a commit SHA with a '# vX.Y.Z' comment, or an exact version tag)")
for b in bad:
    print(b)
print(f"{seen} actions, {len(bad)} not pinned by version")
sys.exit(1 if bad or not seen else 0)
