# The README's walk-through: one VR between two host bridges on the server that VROUTER_ENDPOINT,
# VROUTER_USERNAME and VROUTER_PASSWORD name (bin/vrouter's simulated hypervisor will do).
terraform {
  required_providers {
    vrouter = { source = "registry.opentofu.org/vrouter/vrouter" }
  }
}

provider "vrouter" {}

data "vrouter_templates" "offered" {}

resource "vrouter_router" "edge1" {
  name        = "edge1"
  description = "edge of site A"
  template    = data.vrouter_templates.offered.templates[0]
  memory      = 256

  interfaces = [
    { parent = "br-a", address = "192.0.2.1", prefix_length = 25, rate_out = 50000 },
    { parent = "br-b", address = "198.51.100.1", prefix_length = 25 },
  ]
}

output "edge1" {
  value = {
    vm_index = vrouter_router.edge1.vm_index
    uuid     = vrouter_router.edge1.uuid
    macs     = [for i in vrouter_router.edge1.interfaces : i.mac]
  }
}
