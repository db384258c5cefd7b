# Only providers from the approved list in data.
package main

deny_provider contains msg if {
	some rc in input.resource_changes
	not rc.provider_name in data.approved.providers
	msg := sprintf("%s comes from the unapproved provider %s", [rc.address, rc.provider_name])
}
