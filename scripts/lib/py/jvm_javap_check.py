"""The public API of the jar's classes (javap) has no Kotlin-only types.

Run by scripts/lib/test-jvm, with the arguments it passes.
"""
import re, sys
classes, supers, current = {}, {}, None
for line in open(sys.argv[1]):
    m = re.match(r"^(?:public |abstract |final |static |sealed )*(?:class|interface|enum) ([\w.$]+)(?: extends ([\w.$]+))?", line.strip())
    if m and line.rstrip().endswith("{"):
        current = m.group(1); classes[current] = []; supers[current] = m.group(2)
        continue
    m = re.search(r"([\w$-]+)\(([^)]*)\)", line)
    if current and m and "(" in line:
        classes[current].append((m.group(1), m.group(2)))
problems, mangled = [], 0
for cls, methods in classes.items():
    if cls == "dev.inactivity.NativeBridgeKt":
        continue
    plain, c = set(), cls
    while c in classes: # inherited members count (SessionEvent's getRemainingMillis)
        plain |= {n for n, _ in classes[c] if "-" not in n}
        c = supers.get(c)
    for name, args in methods:
        if "-" not in name:
            continue
        mangled += 1
        base = name.split("-")[0]
        if re.fullmatch(r"component\d+|copy", base):
            continue
        if base in plain or base + "Millis" in plain:
            continue
        problems.append(f"{cls}.{name}({args}): Java cannot call it, and there is no {base} or {base}Millis")
for cls in ("dev.inactivity.Policy", "dev.inactivity.Ceilings"):
    getters = {n[3:] for n, _ in classes[cls] if n.startswith("get")}
    withers = {n[4:] for n, _ in classes[cls] if n.startswith("with")}
    for g in sorted(getters):
        if g.endswith("Millis") or "-" in g:
            continue
        if g not in withers and g + "Millis" not in withers:
            problems.append(f"{cls}: Java can read {g} but has no with{g} or with{g}Millis")
print(f"{len(classes)} classes, {mangled} mangled members, each with a Java twin" if not problems else "")
for p in problems:
    print(p)
sys.exit(1 if problems or not mangled else 0)
