# Replacements are worth a second look.
package main

warn_replace contains {"msg": msg, "resource": rc.address} if {
	some rc in input.resource_changes
	rc.change.actions == ["delete", "create"]
	msg := sprintf("%s is replaced", [rc.address])
}
