"""One README Python block, run with its test_ functions called.

Run by scripts/lib/test-readme, with the arguments it passes.
"""
import sys
path = sys.argv[1]
namespace = {"__name__": "readme_block"}
exec(compile(open(path).read(), path, "exec"), namespace)
for name in [n for n in namespace if n.startswith("test_")]:
    namespace[name]()
