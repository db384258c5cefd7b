# Derives a drift-heavy plan from a real one, in one of two shapes:
#
#   python3 drift.py PLAN.json OUT.json             refresh-only
#   python3 drift.py --relevant PLAN.json OUT.json  a normal plan
#
# Refresh-only: its resource changes become `resource_drift` entries (as updates), and it
# has no changes left, as a refresh-only plan does after an out-of-band change to every
# resource; every drifted resource is shown.
# --relevant: its resource changes stay, each also drifted (as an update), and
# `relevant_attributes` names the image of every other resource, as a normal plan does
# after an out-of-band change that the configuration undoes: the renderer diffs every
# drifted resource to find the half that matters.
#
# The null provider never drifts, so Terraform cannot make such a plan here; the values
# and layout are Terraform's own.
import copy, json, sys
args = sys.argv[1:]
relevant = args[0] == "--relevant"
src, dst = args[-2], args[-1]
p = json.load(open(src))
changes = p.pop("resource_changes", [])
drift = copy.deepcopy(changes) if relevant else changes
for rc in drift:
    rc["change"]["actions"] = ["update"]
    rc.pop("action_reason", None)
    rc["change"].pop("replace_paths", None)
p["resource_drift"] = drift
p["resource_changes"] = changes if relevant else []
if relevant:
    p["relevant_attributes"] = [
        {"resource": rc["address"], "attribute": ["triggers", "image"]} for rc in drift[::2]
    ]
# Written the way Terraform writes it: compact, UTF-8.
json.dump(p, open(dst, "w", encoding="utf-8"), separators=(",", ":"), ensure_ascii=False)
