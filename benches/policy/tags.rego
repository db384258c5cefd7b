# Tag checks: every created or updated resource carries the cost centre and owner tags.
package main

required_tags := {"cost_center", "owner"}

warn_tags contains {"msg": msg, "resource": rc.address} if {
	some rc in input.resource_changes
	some action in rc.change.actions
	action in {"create", "update"}
	tags := object.get(rc.change.after, ["triggers"], {})
	missing := required_tags - {key | some key, _ in tags}
	count(missing) > 0
	msg := sprintf("%s lacks the tags %v", [rc.address, missing])
}
