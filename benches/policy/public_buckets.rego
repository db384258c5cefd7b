# A resource type and an attribute: no public S3 bucket ACL.
package main

deny_public_bucket contains {"msg": msg, "resource": rc.address} if {
	some rc in input.resource_changes
	rc.type == "aws_s3_bucket_acl"
	rc.change.after.acl in {"public-read", "public-read-write"}
	msg := sprintf("%s makes a bucket public", [rc.address])
}
