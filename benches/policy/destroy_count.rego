# A count: no more than 50 objects destroyed by one plan (replacements included).
package main

destroyed := [rc.address | some rc in input.resource_changes; "delete" in rc.change.actions]

deny_many_destroys contains msg if {
	count(destroyed) > 50
	msg := sprintf("the plan destroys %d objects; at most 50 are allowed", [count(destroyed)])
}
