"""Linux.yml's checkout step, printed.

Run by scripts/lib/test-packaging, with the arguments it passes.
"""
import re, sys
text = open(".github/workflows/linux.yml").read()
m = re.search(r"^( *)- uses: actions/checkout@[^\n]*\n((?:\1  [^\n]*\n)*)", text, re.M)
print(m.group(0) if m else "no actions/checkout step in linux.yml")
sys.exit(0 if m and re.search(r"^\s*fetch-depth: 0\s*$", m.group(2), re.M) else 1)
