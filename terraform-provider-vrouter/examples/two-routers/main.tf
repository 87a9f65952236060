# A virtual network across two routers (README "A virtual network across two routers"): router A
# (underlay 203.0.113.1 on eth1) and router B (203.0.113.2), each running vrouter with the netns driver
# (bin/vrouter --driver netns, as root); a VR on each, joined by VXLAN 4242, each with a LAN behind it,
# learning the other's over OSPF (the bird template). One provider block per router.
# TwoRoutersIT applies this very file (with its own endpoints, underlay and bridges) and pings across.
terraform {
  required_providers {
    vrouter = { source = "registry.opentofu.org/vrouter/vrouter" }
  }
}

variable "router_a" {
  default = "http://203.0.113.1:8080"
}
variable "router_b" {
  default = "http://203.0.113.2:8080"
}
variable "underlay" {
  description = "each router's device on the underlay"
  default     = "eth1"
}
variable "lan_a" {
  default = "lan-a"
}
variable "lan_b" {
  default = "lan-b"
}
variable "password" {
  type      = string
  sensitive = true
}

provider "vrouter" {
  alias    = "a"
  endpoint = var.router_a
  username = "admin"
  password = var.password
}

provider "vrouter" {
  alias    = "b"
  endpoint = var.router_b
  username = "admin"
  password = var.password
}

resource "vrouter_router" "edge_a" {
  provider = vrouter.a
  name     = "edge-a"
  template = "bird"
  interfaces = [
    { link_type = "vxlan", parent = var.underlay, vni = 4242, remote = "203.0.113.2",
    address = "192.0.2.1", prefix_length = 30, rate_out = 50000 },
    { parent = var.lan_a, address = "192.0.2.129", prefix_length = 26 },
  ]
}

resource "vrouter_router" "edge_b" {
  provider = vrouter.b
  name     = "edge-b"
  template = "bird"
  interfaces = [
    { link_type = "vxlan", parent = var.underlay, vni = 4242, remote = "203.0.113.1",
    address = "192.0.2.2", prefix_length = 30 },
    { parent = var.lan_b, address = "198.51.100.1", prefix_length = 26 },
  ]
}

output "vm_index" {
  value = { a = vrouter_router.edge_a.vm_index, b = vrouter_router.edge_b.vm_index }
}
