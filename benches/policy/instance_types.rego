# An attribute against a list in data: only approved instance sizes.
package main

deny_instance_type contains {"msg": msg, "resource": rc.address} if {
	some rc in input.resource_changes
	rc.mode == "managed"
	size := object.get(rc.change.after, ["triggers", "instance"], null)
	size != null
	not size in data.approved.instance_types
	msg := sprintf("%s uses the unapproved size %s", [rc.address, size])
}
