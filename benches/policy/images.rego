# A string check: container images are pinned, never `latest`.
package main

deny_latest_image contains {"msg": msg, "resource": rc.address} if {
	some rc in input.resource_changes
	image := object.get(rc.change.after, ["triggers", "image"], "")
	endswith(image, ":latest")
	msg := sprintf("%s runs an unpinned image", [rc.address])
}
