# A nested attribute: no security group rule open to the whole internet.
package main

deny_open_ingress contains {"msg": msg, "resource": rc.address} if {
	some rc in input.resource_changes
	rc.type == "aws_security_group"
	some rule in rc.change.after.ingress
	"0.0.0.0/0" in rule.cidr_blocks
	msg := sprintf("%s allows ingress from 0.0.0.0/0", [rc.address])
}
