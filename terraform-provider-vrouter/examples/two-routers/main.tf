# A virtual network across two routers (README "A virtual network across two routers"): router A
# (underlay 203.0.113.1 on eth1) and router B (203.0.113.2), each running vrouter with the netns driver
# (bin/vrouter --driver netns, as root); a VR on each, joined by VXLAN 4242, each with a LAN behind it,
# learning the other's over OSPF (the bird template). One provider block per router.
terraform {
  required_providers {
    vrouter = { source = "registry.opentofu.org/vrouter/vrouter" }
  }
}

variable "password" {
  type      = string
  sensitive = true
}

provider "vrouter" {
  alias    = "a"
  endpoint = "http://203.0.113.1:8080"
  username = "admin"
  password = var.password
}

provider "vrouter" {
  alias    = "b"
  endpoint = "http://203.0.113.2:8080"
  username = "admin"
  password = var.password
}

resource "vrouter_router" "edge_a" {
  provider = vrouter.a
  name     = "edge-a"
  template = "bird"
  interfaces = [
    { link_type = "vxlan", parent = "eth1", vni = 4242, remote = "203.0.113.2",
    address = "192.0.2.1", prefix_length = 30, rate_out = 50000 },
    { parent = "lan-a", address = "192.0.2.129", prefix_length = 26 },
  ]
}

resource "vrouter_router" "edge_b" {
  provider = vrouter.b
  name     = "edge-b"
  template = "bird"
  interfaces = [
    { link_type = "vxlan", parent = "eth1", vni = 4242, remote = "203.0.113.1",
    address = "192.0.2.2", prefix_length = 30 },
    { parent = "lan-b", address = "198.51.100.1", prefix_length = 26 },
  ]
}
