# A naming rule with a regular expression.
package main

warn_naming contains {"msg": msg, "resource": rc.address} if {
	some rc in input.resource_changes
	name := object.get(rc.change.after, ["triggers", "name"], null)
	name != null
	not regex.match(`^[a-z][a-z0-9-]*$`, name)
	msg := sprintf("%s is named %s, not kebab-case", [rc.address, name])
}
