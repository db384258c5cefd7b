# Scales a real 10-module plan (module.svc[0..9], or module.svc["svc-0".."svc-9"] with
# for_each) to N modules by copying its modules' resource changes and planned values under
# new module indexes or keys.
import json, sys, copy
src, factor, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3]
p = json.load(open(src))
def renum(obj, m):
    s = json.dumps(obj)
    for k in range(9, -1, -1):
        s = s.replace(f"module.svc[{k}]", f"module.svc[{m*10+k}]").replace(f"svc-{k}-", f"svc-{m*10+k}-")
        # for_each keys: in the dumped text the key's quotes are escaped (\\" in Python).
        s = s.replace(f'module.svc[\\"svc-{k}\\"]', f'module.svc[\\"svc-{m*10+k}\\"]')
    return json.loads(s)
rcs = p["resource_changes"]
p["resource_changes"] = [renum(rc, m) for m in range(factor) for rc in rcs]
if "planned_values" in p:
    ch = p["planned_values"]["root_module"].get("child_modules", [])
    p["planned_values"]["root_module"]["child_modules"] = [renum(c, m) for m in range(factor) for c in ch]
if "prior_state" in p:
    ch = p["prior_state"]["values"]["root_module"].get("child_modules", [])
    p["prior_state"]["values"]["root_module"]["child_modules"] = [renum(c, m) for m in range(factor) for c in ch]
# Written the way Terraform writes it: compact, UTF-8 (Python would add spaces after
# separators and escape non-ASCII, which a real plan never has).
json.dump(p, open(dst, "w", encoding="utf-8"), separators=(",", ":"), ensure_ascii=False)
