# Resource types that must never be deleted.
package main

protected_types := {"aws_db_instance", "aws_rds_cluster", "aws_dynamodb_table", "aws_s3_bucket"}

deny_protected_delete contains {"msg": msg, "resource": rc.address} if {
	some rc in input.resource_changes
	rc.type in protected_types
	"delete" in rc.change.actions
	msg := sprintf("%s is a protected %s and would be deleted", [rc.address, rc.type])
}
