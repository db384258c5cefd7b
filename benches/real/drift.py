# Derives a drift-heavy plan from a real one: its resource changes become `resource_drift`
# entries (as updates), and it has no changes left, as a refresh-only plan does after an
# out-of-band change to every resource. The null provider never drifts, so Terraform
# cannot make such a plan here; the values and layout are Terraform's own.
#
#   python3 drift.py PLAN.json OUT.json
import json, sys
src, dst = sys.argv[1], sys.argv[2]
p = json.load(open(src))
drift = p.pop("resource_changes", [])
for rc in drift:
    rc["change"]["actions"] = ["update"]
    rc.pop("action_reason", None)
    rc["change"].pop("replace_paths", None)
p["resource_drift"] = drift
p["resource_changes"] = []
# Written the way Terraform writes it: compact, UTF-8.
json.dump(p, open(dst, "w", encoding="utf-8"), separators=(",", ":"), ensure_ascii=False)
