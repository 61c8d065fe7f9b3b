"""The npm package's README Node example, extracted.

Run by scripts/lib/test-packaging, with the arguments it passes.
"""
import re, sys
text = open(sys.argv[1]).read()
lines, blocks, i = text.split("\n"), [], 0
while i < len(lines):
    if lines[i].strip() == "```js":
        j = i + 1
        while lines[j].strip() != "```":
            j += 1
        intro = next((l for l in reversed(lines[:i]) if l.strip()), "")
        if m := re.search(r"`node ([\w.-]+\.m?js)`", intro):
            blocks.append((m.group(1), "\n".join(lines[i + 1:j]) + "\n"))
        i = j
    i += 1
for name, code in blocks:
    open(f"{sys.argv[2]}/{name}", "w").write(code)
open(f"{sys.argv[2]}/examples.list", "w").write("".join(name + "\n" for name, _ in blocks))
print(f"{len(blocks)} Node example(s) in the package's README: {[name for name, _ in blocks]}")
sys.exit(0 if blocks else 1)
