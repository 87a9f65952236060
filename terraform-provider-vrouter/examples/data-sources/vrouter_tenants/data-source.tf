data "vrouter_tenants" "all" {}

# The VRs tenant acme may still make, where its quota limits them.
output "acme_vrs_left" {
  value = [for t in data.vrouter_tenants.all.tenants : t.quota_vrs - t.vrs if t.name == "acme" && t.quota_vrs != null]
}
