"""The consumer ProGuard rules keep every name the JNI glue looks up.

Run by scripts/build-aar, with the arguments it passes.
"""
import re, sys
import os
# The glue and the generated header it includes (its EVENT_UPCALL_* macros name the upcall).
glue = open(sys.argv[1]).read() + open(os.path.join(os.path.dirname(sys.argv[1]), "inactivity_jni_generated.h")).read()
rules = open(sys.argv[2]).read()
strings = dict(re.findall(r'#define (\w+) "([^"]*)"', glue))
classes = {m: v.replace("/", ".") for m, v in strings.items() if m.endswith("_CLASS") and v.startswith("dev/inactivity/")}
needed = [(cls, None) for cls in classes.values()]
# g_<x>_class = global_class(env, <MACRO>): the class each global reference holds.
held = dict(re.findall(r"g_(\w+)_class = global_class\(env, (\w+)\)", glue))
for var, method in re.findall(r'Get(?:Static)?MethodID\(\s*env,\s*g_(\w+)_class,\s*("\w+"|\w+)', glue):
    method = method.strip('"') if method.startswith('"') else strings.get(method, method)
    macro = held.get(var, var.upper() + "_CLASS")
    if macro in classes:
        needed.append((classes[macro], method))
    else:
        sys.exit(f"the glue looks up {method} on g_{var}_class, whose class this check cannot find")
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
