"""The consumer ProGuard rules keep every name the JNI glue looks up.

Run by scripts/build-aar, with the arguments it passes.
"""
import re, sys
glue, rules = open(sys.argv[1]).read(), open(sys.argv[2]).read()
classes = {m: v.replace("/", ".") for m, v in re.findall(r'#define (\w+_CLASS) "(dev/inactivity/[\w/]+)"', glue)}
needed = [(cls, None) for cls in classes.values()]
for cls_macro, method in re.findall(r'Get(?:Static)?MethodID\(\s*env,\s*g_(\w+)_class,\s*"(\w+)"', glue):
    macro = cls_macro.upper() + "_CLASS"
    if macro in classes:
        needed.append((classes[macro], method))
missing = []
for cls, method in needed:
    block = re.search(r"-keep class " + re.escape(cls) + r" \{([^}]*)\}", rules)
    if block is None or (method is not None and not re.search(r"\b" + method + r"\(", block.group(1))):
        missing.append(cls + ("." + method if method else ""))
# Every class whose natives JNI_OnLoad registers (the *_CLASS macros it passes to register_natives).
for macro in re.findall(r"register_natives\(env, ([A-Z_]+_CLASS)", glue):
    cls = classes.get(macro, macro)
    if not re.search(r"-keep class " + re.escape(cls) + r" \{[^}]*native <methods>", rules):
        missing.append(cls + " native methods")
if not classes or missing:
    sys.exit("not kept: " + (", ".join(missing) or "no classes found in the glue"))
print("consumer rules keep " + ", ".join(c + ("." + m if m else "") for c, m in needed), file=sys.stderr)
